// Spec script runner (spec_runner.h). wast2json writes values as decimal
// strings of their bit patterns (floats too); externref values are host
// handles which we map N -> N+1 so that 0 stays null.
#include "wasm/spec_runner.h"

#include <filesystem>
#include <map>
#include <memory>

#include "base/file.h"
#include "base/json.h"
#include "wasm/decoder.h"
#include "wasm/runtime.h"

namespace sepp::wasm {
namespace {

struct Expected {
  ValType type = ValType::kI32;
  enum class Kind { kExact, kCanonicalNan, kArithmeticNan, kNonNullRef } kind = Kind::kExact;
  uint64_t bits = 0;
};

bool ParseType(const std::string& s, ValType* t) {
  if (s == "i32") *t = ValType::kI32;
  else if (s == "i64") *t = ValType::kI64;
  else if (s == "f32") *t = ValType::kF32;
  else if (s == "f64") *t = ValType::kF64;
  else if (s == "externref") *t = ValType::kExternRef;
  else if (s == "funcref") *t = ValType::kFuncRef;
  else return false;
  return true;
}

bool ParseValue(const Json& j, Expected* out) {
  if (!j.contains("type") || !ParseType(j.at("type").get<std::string>(), &out->type)) return false;
  if (!j.contains("value")) {
    out->kind = Expected::Kind::kNonNullRef;
    return true;
  }
  std::string v = j.at("value").get<std::string>();
  if (v == "nan:canonical") {
    out->kind = Expected::Kind::kCanonicalNan;
    return true;
  }
  if (v == "nan:arithmetic") {
    out->kind = Expected::Kind::kArithmeticNan;
    return true;
  }
  if (v == "null") {
    out->bits = 0;
    return true;
  }
  try {
    out->bits = std::stoull(v);
  } catch (...) {
    return false;
  }
  if (out->type == ValType::kExternRef) out->bits += 1;
  if (out->type == ValType::kFuncRef) out->kind = Expected::Kind::kNonNullRef;
  return true;
}

bool Matches(const Expected& e, const Value& v) {
  if (e.type != v.type) return false;
  bool is32 = e.type == ValType::kF32;
  switch (e.kind) {
    case Expected::Kind::kExact:
      if (e.type == ValType::kI32 || e.type == ValType::kF32) return (e.bits & 0xFFFFFFFFu) == (v.bits & 0xFFFFFFFFu);
      return e.bits == v.bits;
    case Expected::Kind::kCanonicalNan:
      return is32 ? (v.bits & 0x7FFFFFFFu) == 0x7FC00000u
                  : (v.bits & 0x7FFFFFFFFFFFFFFFull) == 0x7FF8000000000000ull;
    case Expected::Kind::kArithmeticNan:
      return is32 ? (v.bits & 0x7FC00000u) == 0x7FC00000u
                  : (v.bits & 0x7FF8000000000000ull) == 0x7FF8000000000000ull;
    case Expected::Kind::kNonNullRef:
      return v.bits != 0;
  }
  return false;
}

std::string Describe(const Value& v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, " (0x%llx)", static_cast<unsigned long long>(v.bits));
  return ValueToString(v) + buf;
}

class Runner {
 public:
  explicit Runner(std::string path) : path_(std::move(path)) {
    dir_ = std::filesystem::path(path_).parent_path();
    result_.file = std::filesystem::path(path_).filename().string();
    DefineSpectest();
  }

  Result<SpecFileResult> Run() {
    auto text = ReadFile(path_);
    if (!text.ok()) return text.error();
    auto json = ParseJson(*text);
    if (!json.ok()) return json.error();
    if (!json->contains("commands") || !(*json).at("commands").is_array())
      return Error::Make(path_ + " is not wast2json output: no \"commands\" array");
    for (const Json& cmd : (*json).at("commands")) {
      try {
        Command(cmd);
      } catch (const std::exception& e) {
        Fail(cmd, std::string("malformed command: ") + e.what());
      }
    }
    return result_;
  }

 private:
  void Pass() { result_.passed++; }
  void Fail(const Json& cmd, const std::string& why) {
    result_.failed++;
    std::string line = "?", type = "?";
    if (cmd.is_object()) {
      if (auto it = cmd.find("line"); it != cmd.end() && it->is_number_integer()) line = std::to_string(it->get<int64_t>());
      if (auto it = cmd.find("type"); it != cmd.end() && it->is_string()) type = it->get<std::string>();
    }
    result_.failures.push_back(result_.file + ":" + line + ": " + type + ": " + why);
  }

  void DefineSpectest() {
    auto noop = [](HostCall&) -> Status { return Ok(); };
    auto def = [&](const char* name, std::vector<ValType> params) {
      HostFunc f;
      f.type.params = std::move(params);
      f.callback = noop;
      linker_.DefineFunc("spectest", name, f);
    };
    using V = ValType;
    def("print", {});
    def("print_i32", {V::kI32});
    def("print_i64", {V::kI64});
    def("print_f32", {V::kF32});
    def("print_f64", {V::kF64});
    def("print_i32_f32", {V::kI32, V::kF32});
    def("print_f64_f64", {V::kF64, V::kF64});
    auto global = [&](const char* name, Value v) {
      Extern x;
      x.kind = ExternKind::kGlobal;
      x.global = store_.CreateGlobal(GlobalType{v.type, false}, v);
      linker_.Define("spectest", name, x);
    };
    global("global_i32", Value::I32(666));
    global("global_i64", Value::I64(666));
    global("global_f32", Value::F32(666.6f));
    global("global_f64", Value::F64(666.6));
    Extern t;
    t.kind = ExternKind::kTable;
    t.table = store_.CreateTable(TableType{V::kFuncRef, Limits{10, true, 20}}, Value::NullRef(V::kFuncRef));
    linker_.Define("spectest", "table", t);
    Extern m;
    m.kind = ExternKind::kMemory;
    m.memory = store_.CreateMemory(MemoryType{Limits{1, true, 2}});
    linker_.Define("spectest", "memory", m);
  }

  Result<std::shared_ptr<const Module>> Load(const std::string& filename) {
    auto bytes = ReadFile(dir_ / filename);
    if (!bytes.ok()) return bytes.error();
    const auto* p = reinterpret_cast<const uint8_t*>(bytes->data());
    return DecodeModule(std::span<const uint8_t>(p, bytes->size()));
  }

  Instance* Target(const Json& action) {
    if (action.contains("module")) {
      auto it = named_.find(action.at("module").get<std::string>());
      return it == named_.end() ? nullptr : it->second;
    }
    return current_;
  }

  // Performs an action; returns its results or the error (trap).
  Result<std::vector<Value>> Act(const Json& action) {
    Instance* inst = Target(action);
    if (!inst) return Error::Make("no module instance for this action", "setup");
    std::string field = action.at("field").get<std::string>();
    std::string type = action.at("type").get<std::string>();
    if (type == "get") {
      Global* g = inst->GetGlobal(field);
      if (!g) return Error::Make("no exported global " + field, "setup");
      return std::vector<Value>{g->Get()};
    }
    std::vector<Value> args;
    for (const Json& a : action.at("args")) {
      Expected e;
      if (!ParseValue(a, &e)) return Error::Make("unsupported argument " + a.dump(), "setup");
      args.push_back(Value{e.type, e.bits});
    }
    Function* f = inst->GetFunc(field);
    if (!f) return Error::Make("no exported function " + field, "setup");
    store_.DisableFuel();
    return store_.Call(f, args);
  }

  void Command(const Json& cmd) {
    std::string type = cmd.at("type").get<std::string>();
    if (type == "module") {
      auto mod = Load(cmd.at("filename").get<std::string>());
      current_ = nullptr;
      if (!mod.ok()) return Fail(cmd, "module failed to load: " + mod.error().message);
      auto inst = linker_.Instantiate(store_, *mod);
      if (!inst.ok()) return Fail(cmd, "module failed to instantiate: " + inst.error().message);
      current_ = *inst;
      if (cmd.contains("name")) named_[cmd.at("name").get<std::string>()] = current_;
      return Pass();
    }
    if (type == "register") {
      Instance* inst = current_;
      if (cmd.contains("name")) {
        auto it = named_.find(cmd.at("name").get<std::string>());
        inst = it == named_.end() ? nullptr : it->second;
      }
      if (!inst) return Fail(cmd, "nothing to register");
      linker_.DefineInstance(cmd.at("as").get<std::string>(), *inst);
      return;
    }
    if (type == "action") {
      auto r = Act(cmd.at("action"));
      if (!r.ok()) return Fail(cmd, "action failed: " + r.error().message);
      return Pass();
    }
    if (type == "assert_return") {
      auto r = Act(cmd.at("action"));
      if (!r.ok()) return Fail(cmd, "unexpected error: " + r.error().message);
      const Json& exp = cmd.at("expected");
      if (exp.size() != r->size()) return Fail(cmd, "wrong number of results");
      for (size_t i = 0; i < exp.size(); ++i) {
        Expected e;
        if (!ParseValue(exp[i], &e)) return Fail(cmd, "unsupported expected value " + exp[i].dump());
        if (!Matches(e, (*r)[i]))
          return Fail(cmd, cmd.at("action").value("field", std::string()) + " result " + std::to_string(i) +
                               ": got " + Describe((*r)[i]) + ", expected " + exp[i].dump());
      }
      return Pass();
    }
    if (type == "assert_trap" || type == "assert_exhaustion") {
      auto r = Act(cmd.at("action"));
      if (r.ok()) return Fail(cmd, "expected trap \"" + cmd.value("text", std::string()) + "\", got results");
      if (r.error().kind != "trap") return Fail(cmd, "expected a trap, got: " + r.error().message);
      return Pass();
    }
    if (type == "assert_invalid" || type == "assert_malformed") {
      if (cmd.value("module_type", std::string("binary")) != "binary") {
        result_.skipped++;
        return;
      }
      auto mod = Load(cmd.at("filename").get<std::string>());
      if (mod.ok()) return Fail(cmd, "module was accepted, expected \"" + cmd.value("text", std::string()) + "\"");
      return Pass();
    }
    if (type == "assert_unlinkable" || type == "assert_uninstantiable") {
      if (cmd.value("module_type", std::string("binary")) != "binary") {
        result_.skipped++;
        return;
      }
      auto mod = Load(cmd.at("filename").get<std::string>());
      if (!mod.ok()) return Fail(cmd, "module failed to load: " + mod.error().message);
      auto inst = linker_.Instantiate(store_, *mod);
      if (inst.ok()) return Fail(cmd, "module instantiated, expected \"" + cmd.value("text", std::string()) + "\"");
      if (type == "assert_uninstantiable" && inst.error().kind != "trap")
        return Fail(cmd, "expected a trap, got: " + inst.error().message);
      return Pass();
    }
    result_.skipped++;
  }

  std::string path_;
  std::filesystem::path dir_;
  SpecFileResult result_;
  Store store_;
  Linker linker_;
  Instance* current_ = nullptr;
  std::map<std::string, Instance*> named_;
};

}  // namespace

Result<SpecFileResult> RunSpecFile(const std::string& json_path) {
  Runner r(json_path);
  return r.Run();
}

}  // namespace sepp::wasm
