// The host side of plugin ABI v1 (abi.h). Every pointer and length a guest
// passes is checked against its memory before use (a bad one traps the call,
// it never reads or writes outside), every buffer the host fills is capped,
// and file access goes through two checks: inside a granted root, and not a
// secret location (the PathGuard of the granted policy, whose masks stay
// whatever was declared).
#include "ext/plugins/abi.h"

#include <sys/random.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <optional>

#include "base/file.h"
#include "ext/plugins/capability_hosts.h"
#include "tools/access.h"

namespace sepp::ext::plugins {
namespace {
namespace fs = std::filesystem;
using wasm::FuncType;
using wasm::HostCall;
using wasm::HostFunc;
using wasm::ValType;

struct AbiFunc {
  const char* module;
  const char* name;
  const char* capability;
  FuncType type;
};

FuncType T(std::vector<ValType> params, std::vector<ValType> results) {
  FuncType t;
  t.params = std::move(params);
  t.results = std::move(results);
  return t;
}

const std::vector<AbiFunc>& AbiTable() {
  constexpr ValType I = ValType::kI32, L = ValType::kI64;
  static const std::vector<AbiFunc> table = {
      {"sepp:core", "input_len", "core", T({}, {I})},
      {"sepp:core", "input_read", "core", T({I, I}, {I})},
      {"sepp:core", "output_write", "core", T({I, I}, {})},
      {"sepp:core", "error_write", "core", T({I, I}, {})},
      {"sepp:core", "log", "core", T({I, I, I}, {})},
      {"sepp:core", "result_len", "core", T({}, {I})},
      {"sepp:core", "result_read", "core", T({I, I}, {I})},
      {"sepp:core", "now_ms", "core", T({}, {L})},
      {"sepp:core", "random", "core", T({I, I}, {})},
      {"sepp:fs_read", "read_file", "fs_read", T({I, I}, {I})},
      {"sepp:fs_read", "list_dir", "fs_read", T({I, I}, {I})},
      {"sepp:fs_write", "write_file", "fs_write", T({I, I, I, I}, {I})},
      {"sepp:env", "env_get", "env", T({I, I}, {I})},
      {"sepp:net", "http", "net", T({I, I}, {I})},
      {"sepp:exec", "run", "exec", T({I, I}, {I})},
  };
  return table;
}

// The ABI's (or the WASI subset's) entry for module.name, or null.
struct Known {
  const char* capability;
  const FuncType* type;
};
std::optional<Known> Find(const std::string& module, const std::string& name) {
  if (module == kWasiModule) {
    for (const auto& f : WasiTable())
      if (name == f.name) return Known{f.capability, &f.type};
    return std::nullopt;
  }
  for (const auto& f : AbiTable())
    if (module == f.module && name == f.name) return Known{f.capability, &f.type};
  return std::nullopt;
}

bool Granted(const Capabilities& c, const std::string& cap) {
  if (cap == "core") return true;
  if (cap == "fs_read") return !c.fs_read.empty() || !c.fs_write.empty();
  if (cap == "fs_write") return !c.fs_write.empty();
  if (cap == "env") return !c.env.empty();
  if (cap == "net") return !c.net.empty();
  if (cap == "exec") return !c.exec.empty();
  return false;
}

Error Trap(std::string m) { return Error::Make(std::move(m), "trap"); }

// The guest's bytes [ptr, ptr+len), or a trap naming the function.
Result<std::string> GuestBytes(HostCall& c, const char* fn, int32_t ptr, int32_t len) {
  if (!c.memory) return Trap(std::string(fn) + ": the plugin has no memory");
  if (len < 0) return Trap(std::string(fn) + ": negative length " + std::to_string(len));
  auto s = c.memory->ReadString(static_cast<uint32_t>(ptr), static_cast<uint32_t>(len));
  if (!s.ok()) return Trap(std::string(fn) + ": " + s.error().message);
  return s;
}

// Copies up to len bytes of src to the guest; returns the count.
Result<int32_t> CopyOut(HostCall& c, const char* fn, const std::string& src, int32_t ptr, int32_t len) {
  if (!c.memory) return Trap(std::string(fn) + ": the plugin has no memory");
  if (len < 0) return Trap(std::string(fn) + ": negative length " + std::to_string(len));
  size_t n = std::min<size_t>(src.size(), static_cast<uint32_t>(len));
  auto st = c.memory->Write(static_cast<uint32_t>(ptr),
                            std::span(reinterpret_cast<const uint8_t*>(src.data()), n));
  if (!st.ok()) return Trap(std::string(fn) + ": " + st.error().message);
  return static_cast<int32_t>(n);
}

Status Append(std::string* to, const std::string& bytes, const char* what) {
  if (to->size() + bytes.size() > kMaxOutputBytes)
    return Trap(std::string(what) + " over " + std::to_string(kMaxOutputBytes >> 20) +
                " MiB: a plugin's output is capped");
  *to += bytes;
  return Ok();
}

}  // namespace

fs::path ResolveGrant(const std::string& entry, const fs::path& workspace) {
  fs::path p;
  if (entry == "~" || entry.rfind("~/", 0) == 0) {
    const char* home = std::getenv("HOME");
    p = fs::path(home ? home : "/") / entry.substr(std::min<size_t>(2, entry.size()));
  } else {
    p = fs::path(entry).is_absolute() ? fs::path(entry) : workspace / entry;
  }
  std::error_code ec;
  fs::path c = fs::weakly_canonical(p, ec);
  return ec ? p.lexically_normal() : c;
}

static bool Under(const fs::path& path, const fs::path& root) {
  auto r = root.lexically_normal().string();
  auto s = path.string();
  while (r.size() > 1 && r.back() == '/') r.pop_back();
  return s == r || (s.rfind(r, 0) == 0 && (r == "/" || s[r.size()] == '/'));
}

std::string CheckPath(const HostEnv& env, const std::string& raw, bool write, fs::path* resolved) {
  if (raw.empty() || raw.find('\0') != std::string::npos) return "invalid path";
  fs::path p = fs::path(raw).is_absolute() ? fs::path(raw) : env.workspace / raw;
  std::error_code ec;
  fs::path c = fs::weakly_canonical(p, ec);  // symlinks resolved: a link cannot lead out
  if (ec) return "cannot resolve " + raw;
  const auto& roots = write ? env.granted.fs_write : env.granted.fs_read;
  std::vector<std::string> all = roots;
  if (!write) all.insert(all.end(), env.granted.fs_write.begin(), env.granted.fs_write.end());
  bool inside = std::any_of(all.begin(), all.end(),
                            [&](const std::string& g) { return Under(c, ResolveGrant(g, env.workspace)); });
  if (!inside) return raw + " is outside the plugin's granted " + (write ? "fs_write" : "fs_read") + " paths";
  sandbox::Policy policy = ToPolicy(env.granted, env.workspace);
  tools::ToolContext ctx;
  ctx.cwd = env.workspace;
  ctx.policy = &policy;
  tools::PathGuard guard(ctx);
  if (auto denial = write ? guard.CheckWrite(c) : guard.CheckRead(c)) return denial->text;
  *resolved = c;
  return "";
}

bool IsProviderKey(const std::string& name) {
  return name == "ANTHROPIC_API_KEY" || name == "OPENAI_API_KEY";
}

void AppendLog(CallIo& io, int level, const std::string& text) {
  if (io.log_bytes + text.size() > kMaxLogBytes) return;  // rate limit: drop the rest
  io.log_bytes += text.size();
  static const char* kLevels[] = {"debug", "info", "warn", "error"};
  io.log.push_back(std::string(kLevels[std::clamp(level, 0, 3)]) + ": " + text);
}

std::vector<ImportUse> AuditImports(const wasm::Module& module) {
  std::vector<ImportUse> out;
  for (const auto& im : module.imports) {
    auto f = im.kind == wasm::ExternKind::kFunc ? Find(im.module, im.name) : std::nullopt;
    out.push_back({im.module, im.name, f ? f->capability : ""});
  }
  return out;
}

Status CheckImports(const wasm::Module& module, const Capabilities& granted) {
  for (const auto& im : module.imports) {
    std::string what = im.module + "." + im.name;
    auto f = im.kind == wasm::ExternKind::kFunc ? Find(im.module, im.name) : std::nullopt;
    if (!f && im.module == kWasiModule)
      return Error::Make("the plugin imports " + what + ": " + WasiRefusal(im.name), "refused");
    if (!f)
      return Error::Make("the plugin imports " + what + ", which is not part of the sepp plugin "
                         "ABI v" + std::to_string(kAbiVersion) + " (docs/plugins.md)", "refused");
    if (!(module.types[im.type_index] == *f->type))
      return Error::Make("the plugin imports " + what + " as " +
                         wasm::FuncTypeToString(module.types[im.type_index]) + ", but ABI v" +
                         std::to_string(kAbiVersion) + " defines it as " +
                         wasm::FuncTypeToString(*f->type), "refused");
    if (!Granted(granted, f->capability))
      return Error::Make("the plugin imports " + what + ", which needs the capability " +
                         f->capability + ", and its manifest does not grant it (add it under "
                         "[capabilities] and confirm again)", "refused");
  }
  return Ok();
}

void DefineHost(wasm::Linker& linker, HostEnv* env) {
  linker.DefineFunc("sepp:core", "input_len", HostFunc::Make([env](HostCall&) -> int32_t {
    return static_cast<int32_t>(env->io->input.size());
  }));
  linker.DefineFunc("sepp:core", "input_read", HostFunc::Make([env](HostCall& c, int32_t p, int32_t n) {
    return CopyOut(c, "sepp:core.input_read", env->io->input, p, n);
  }));
  linker.DefineFunc("sepp:core", "output_write", HostFunc::Make([env](HostCall& c, int32_t p, int32_t n) -> Status {
    auto b = GuestBytes(c, "sepp:core.output_write", p, n);
    if (!b.ok()) return b.error();
    return Append(&env->io->output, *b, "output");
  }));
  linker.DefineFunc("sepp:core", "error_write", HostFunc::Make([env](HostCall& c, int32_t p, int32_t n) -> Status {
    auto b = GuestBytes(c, "sepp:core.error_write", p, n);
    if (!b.ok()) return b.error();
    return Append(&env->io->error, *b, "error text");
  }));
  linker.DefineFunc("sepp:core", "log", HostFunc::Make([env](HostCall& c, int32_t level, int32_t p, int32_t n) -> Status {
    auto b = GuestBytes(c, "sepp:core.log", p, n);
    if (!b.ok()) return b.error();
    AppendLog(*env->io, level, *b);
    return Ok();
  }));
  linker.DefineFunc("sepp:core", "result_len", HostFunc::Make([env](HostCall&) -> int32_t {
    return static_cast<int32_t>(env->io->result.size());
  }));
  linker.DefineFunc("sepp:core", "result_read", HostFunc::Make([env](HostCall& c, int32_t p, int32_t n) {
    return CopyOut(c, "sepp:core.result_read", env->io->result, p, n);
  }));
  linker.DefineFunc("sepp:core", "now_ms", HostFunc::Make([](HostCall&) -> int64_t {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::system_clock::now().time_since_epoch()).count();
  }));
  linker.DefineFunc("sepp:core", "random", HostFunc::Make([](HostCall& c, int32_t p, int32_t n) -> Status {
    if (n < 0 || n > (1 << 16)) return Trap("sepp:core.random: length must be 0..65536");
    std::string bytes(static_cast<size_t>(n), '\0');
    if (getrandom(bytes.data(), bytes.size(), 0) != static_cast<ssize_t>(bytes.size()))
      return Trap("sepp:core.random: no randomness available");
    auto r = CopyOut(c, "sepp:core.random", bytes, p, n);
    if (!r.ok()) return r.error();
    return Ok();
  }));

  DefineWasi(linker, env);

  // Capability modules: return >= 0 (bytes in result) or a negative code,
  // with the reason in result: -1 refused, -2 not found/failed, -3 too big.
  if (Granted(env->granted, "fs_read")) {
    linker.DefineFunc("sepp:fs_read", "read_file", HostFunc::Make([env](HostCall& c, int32_t p, int32_t n) -> Result<int32_t> {
      auto path = GuestBytes(c, "sepp:fs_read.read_file", p, n);
      if (!path.ok()) return path.error();
      fs::path resolved;
      if (std::string why = CheckPath(*env, *path, false, &resolved); !why.empty()) {
        env->io->result = why;
        return -1;
      }
      auto text = ReadBoundedFile(resolved, kMaxFileBytes, "file");
      if (!text.ok()) {
        env->io->result = text.error().message;
        return -2;
      }
      env->io->result = std::move(*text);
      return static_cast<int32_t>(env->io->result.size());
    }));
    linker.DefineFunc("sepp:fs_read", "list_dir", HostFunc::Make([env](HostCall& c, int32_t p, int32_t n) -> Result<int32_t> {
      auto path = GuestBytes(c, "sepp:fs_read.list_dir", p, n);
      if (!path.ok()) return path.error();
      fs::path resolved;
      if (std::string why = CheckPath(*env, *path, false, &resolved); !why.empty()) {
        env->io->result = why;
        return -1;
      }
      std::error_code ec;
      std::vector<std::string> names;
      for (const auto& e : fs::directory_iterator(resolved, ec)) {
        fs::path ignored;
        if (CheckPath(*env, e.path().string(), false, &ignored).empty() || e.is_symlink())
          names.push_back(e.path().filename().string() + (e.is_directory() ? "/" : ""));
        if (names.size() >= 10000) break;
      }
      if (ec) {
        env->io->result = "cannot list " + *path + ": " + ec.message();
        return -2;
      }
      std::sort(names.begin(), names.end());
      env->io->result.clear();
      for (const auto& name : names) env->io->result += name + "\n";
      return static_cast<int32_t>(env->io->result.size());
    }));
  }
  if (Granted(env->granted, "fs_write")) {
    linker.DefineFunc("sepp:fs_write", "write_file", HostFunc::Make([env](HostCall& c, int32_t p, int32_t n, int32_t d, int32_t dn) -> Result<int32_t> {
      auto path = GuestBytes(c, "sepp:fs_write.write_file", p, n);
      if (!path.ok()) return path.error();
      auto data = GuestBytes(c, "sepp:fs_write.write_file", d, dn);
      if (!data.ok()) return data.error();
      fs::path resolved;
      if (std::string why = CheckPath(*env, *path, true, &resolved); !why.empty()) {
        env->io->result = why;
        return -1;
      }
      if (auto st = WriteFileAtomic(resolved, *data, 0644); !st.ok()) {
        env->io->result = st.error().message;
        return -2;
      }
      env->io->result.clear();
      return 0;
    }));
  }
  if (Granted(env->granted, "net")) DefineNet(linker, env);
  if (Granted(env->granted, "exec")) DefineExec(linker, env);
  if (Granted(env->granted, "env")) {
    linker.DefineFunc("sepp:env", "env_get", HostFunc::Make([env](HostCall& c, int32_t p, int32_t n) -> Result<int32_t> {
      auto name = GuestBytes(c, "sepp:env.env_get", p, n);
      if (!name.ok()) return name.error();
      const auto& listed = env->granted.env;
      // The provider keys sepp itself reads (llm/provider.h) never reach a
      // plugin, whatever it declared.
      if (IsProviderKey(*name)) {
        env->io->result = *name + " is sepp's provider key, which no extension receives";
        return -1;
      }
      if (std::find(listed.begin(), listed.end(), *name) == listed.end()) {
        env->io->result = *name + " is not among the plugin's granted env names";
        return -1;
      }
      const char* v = std::getenv(name->c_str());
      if (!v) {
        env->io->result = *name + " is not set";
        return -2;
      }
      env->io->result = v;
      return static_cast<int32_t>(env->io->result.size());
    }));
  }
}

}  // namespace sepp::ext::plugins
