// `sepp wasm`: run, validate and spec-test WebAssembly modules with the
// project's own engine (src/wasm).
//
//   sepp wasm run FILE.wasm [--invoke NAME] [ARGS...] [--fuel N]
//   sepp wasm validate FILE.wasm
//   sepp wasm spec [--expected-failures LIST] [--verbose] FILE.json...
//
// run: instantiates the module (running its start function), then calls the
// export NAME (default: "_start" if exported, else nothing) with ARGS parsed
// by the function's parameter types, and prints each result as "TYPE:VALUE"
// on its own line. A trap prints "trap: MESSAGE" to stderr and exits 1.
// Exit codes: 0 ok, 1 error or trap, 2 usage.
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "app/commands.h"
#include "base/file.h"
#include "wasm/decoder.h"
#include "wasm/runtime.h"
#include "wasm/spec_suite.h"

namespace sepp::app {
namespace {

constexpr const char* kUsage =
    "usage: sepp wasm run FILE.wasm [--invoke NAME] [ARGS...] [--fuel N]\n"
    "       sepp wasm validate FILE.wasm\n"
    "       sepp wasm spec [--expected-failures LIST] [--verbose] FILE.json...\n";

Result<std::shared_ptr<const wasm::Module>> LoadModule(const char* path) {
  auto bytes = ReadFile(path);
  if (!bytes.ok()) return bytes.error();
  const auto* p = reinterpret_cast<const uint8_t*>(bytes->data());
  auto m = wasm::DecodeModule(std::span<const uint8_t>(p, bytes->size()));
  if (!m.ok()) return Error::Make(std::string(path) + ": " + m.error().kind + " module: " + m.error().message);
  return m;
}

bool ParseArg(const std::string& s, wasm::ValType t, wasm::Value* out) {
  char* end = nullptr;
  errno = 0;
  switch (t) {
    case wasm::ValType::kI32: {
      long long v = std::strtoll(s.c_str(), &end, 0);
      if (v < INT32_MIN || v > UINT32_MAX) return false;
      *out = wasm::Value::I32(static_cast<int32_t>(static_cast<uint32_t>(v)));
      break;
    }
    case wasm::ValType::kI64: {
      bool neg = !s.empty() && s[0] == '-';
      uint64_t v = neg ? static_cast<uint64_t>(std::strtoll(s.c_str(), &end, 0)) : std::strtoull(s.c_str(), &end, 0);
      *out = wasm::Value::I64(static_cast<int64_t>(v));
      break;
    }
    case wasm::ValType::kF32: *out = wasm::Value::F32(std::strtof(s.c_str(), &end)); break;
    case wasm::ValType::kF64: *out = wasm::Value::F64(std::strtod(s.c_str(), &end)); break;
    default: return false;
  }
  return errno == 0 && end && *end == '\0' && !s.empty();
}

int Run(int argc, char** argv) {
  const char* file = nullptr;
  std::string invoke;
  std::vector<std::string> args;
  bool has_fuel = false;
  uint64_t fuel = 0;
  for (int i = 0; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--invoke" && i + 1 < argc) {
      invoke = argv[++i];
    } else if (a == "--fuel" && i + 1 < argc) {
      has_fuel = true;
      fuel = std::strtoull(argv[++i], nullptr, 10);
    } else if (!file) {
      file = argv[i];
    } else {
      args.push_back(a);
    }
  }
  if (!file) {
    std::fputs(kUsage, stderr);
    return 2;
  }
  auto m = LoadModule(file);
  if (!m.ok()) {
    std::fprintf(stderr, "sepp wasm: %s\n", m.error().message.c_str());
    return 1;
  }
  wasm::Store store;
  if (has_fuel) store.SetFuel(fuel);
  wasm::Linker linker;
  auto inst = linker.Instantiate(store, *m);
  if (!inst.ok()) {
    const char* prefix = inst.error().kind == "trap" ? "trap" : "sepp wasm";
    std::fprintf(stderr, "%s: %s\n", prefix, inst.error().message.c_str());
    return 1;
  }
  if (invoke.empty()) {
    if (!(*inst)->GetFunc("_start")) return 0;
    invoke = "_start";
  }
  wasm::Function* f = (*inst)->GetFunc(invoke);
  if (!f) {
    std::fprintf(stderr, "sepp wasm: %s exports no function named \"%s\"\n", file, invoke.c_str());
    return 1;
  }
  if (args.size() != f->type.params.size()) {
    std::fprintf(stderr, "sepp wasm: %s takes %zu arguments %s, got %zu\n", invoke.c_str(), f->type.params.size(),
                 wasm::FuncTypeToString(f->type).c_str(), args.size());
    return 2;
  }
  std::vector<wasm::Value> values(args.size());
  for (size_t i = 0; i < args.size(); ++i) {
    if (!ParseArg(args[i], f->type.params[i], &values[i])) {
      std::fprintf(stderr, "sepp wasm: argument %zu (\"%s\") is not a valid %s\n", i + 1, args[i].c_str(),
                   wasm::ValTypeName(f->type.params[i]));
      return 2;
    }
  }
  auto r = store.Call(f, values);
  if (!r.ok()) {
    std::fprintf(stderr, "trap: %s\n", r.error().message.c_str());
    return 1;
  }
  for (const wasm::Value& v : *r) std::printf("%s\n", wasm::ValueToString(v).c_str());
  return 0;
}

int Validate(int argc, char** argv) {
  if (argc != 1) {
    std::fputs(kUsage, stderr);
    return 2;
  }
  auto m = LoadModule(argv[0]);
  if (!m.ok()) {
    std::fprintf(stderr, "sepp wasm: %s\n", m.error().message.c_str());
    return 1;
  }
  std::printf("%s: valid (%zu functions, %zu imports, %zu exports)\n", argv[0], (*m)->func_types.size(),
              (*m)->imports.size(), (*m)->exports.size());
  return 0;
}

int Spec(int argc, char** argv) {
  std::vector<std::string> files;
  std::map<std::string, int> expected;
  bool verbose = false;
  for (int i = 0; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--expected-failures" && i + 1 < argc) {
      auto text = ReadFile(argv[++i]);
      if (!text.ok()) {
        std::fprintf(stderr, "sepp wasm: %s\n", text.error().message.c_str());
        return 1;
      }
      auto parsed = wasm::ParseExpectedFailures(*text);
      if (!parsed.ok()) {
        std::fprintf(stderr, "sepp wasm: %s\n", parsed.error().message.c_str());
        return 1;
      }
      expected = *parsed;
    } else if (a == "--verbose") {
      verbose = true;
    } else {
      files.push_back(a);
    }
  }
  if (files.empty()) {
    std::fputs(kUsage, stderr);
    return 2;
  }
  auto report = wasm::RunSpecSuite(files, expected, verbose);
  std::fputs(report.text.c_str(), stdout);
  return report.ok ? 0 : 1;
}

}  // namespace

int RunWasmCommand(int argc, char** argv) {
  if (argc < 2) {
    std::fputs(kUsage, stderr);
    return 2;
  }
  std::string sub = argv[1];
  if (sub == "run") return Run(argc - 2, argv + 2);
  if (sub == "validate") return Validate(argc - 2, argv + 2);
  if (sub == "spec") return Spec(argc - 2, argv + 2);
  if (sub == "--help" || sub == "-h" || sub == "help") {
    std::fputs(kUsage, stdout);
    return 0;
  }
  std::fprintf(stderr, "sepp wasm: unknown sub-command \"%s\"\n%s", sub.c_str(), kUsage);
  return 2;
}

}  // namespace sepp::app
