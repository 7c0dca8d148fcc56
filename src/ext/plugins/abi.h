// The sepp plugin ABI, version 1 (docs/plugins.md): what a plugin module may
// import, which capability each import needs, and the host functions.
//
// A plugin is a core WebAssembly module. `sepp:core` is always linked
// (input_len, input_read, output_write, error_write, log, now_ms, random);
// the capability modules only when that capability is granted:
// `sepp:fs_read` (read_file, list_dir), `sepp:fs_write` (write_file),
// `sepp:env` (env_get, listed names only), `sepp:net` (http) and
// `sepp:exec` (run, capability_hosts.h); their results come back through
// sepp:core.result_len/result_read. Before a module is instantiated its
// imports are compared with the grants (CheckImports): an import of an
// ungranted capability, or of anything outside the ABI, refuses the module
// with the import's name. The linker then holds only the granted modules, so
// a plugin without fs_read has no function that could read a file.
#pragma once
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "base/cancel.h"
#include "base/json.h"
#include "base/result.h"
#include "ext/capabilities.h"
#include "ext/plugins/wasi.h"
#include "sandbox/proxy.h"
#include "wasm/module.h"
#include "wasm/runtime.h"

namespace sepp::ext::plugins {

inline constexpr int32_t kAbiVersion = 1;
inline constexpr uint64_t kMaxOutputBytes = 1 << 20;  // per call: output and error text
inline constexpr uint64_t kMaxLogBytes = 64 << 10;    // per call
inline constexpr uint64_t kMaxFileBytes = 16 << 20;   // sepp:fs_read.read_file

// One import of a module, with the capability it needs: "core" (always
// linked), "fs_read", "fs_write", "env", "net", "exec"; "" when it is not part of the ABI.
struct ImportUse {
  std::string module, name;
  std::string capability;
};
std::vector<ImportUse> AuditImports(const wasm::Module& module);

// Ok when every import is in the ABI, has the ABI's type, and needs only
// granted capabilities; else an error naming the first import that is not.
Status CheckImports(const wasm::Module& module, const Capabilities& granted);

// The state of one call, which the host functions read and fill.
struct CallIo {
  std::string input;          // the call's input JSON
  std::string output, error;  // what the plugin wrote
  std::string result;         // payload of the last capability call
  std::vector<std::string> log;
  uint64_t log_bytes = 0;
};

// Everything the host functions need besides the call.
struct HostEnv {
  Capabilities granted;
  std::filesystem::path workspace;
  CallIo* io = nullptr;  // the current call's; set around each call
  std::unique_ptr<WasiFiles> wasi;  // the current instance's descriptors
  // The running call's end: its deadline, and a token cancelled when the
  // deadline passes or the turn is cancelled (for host calls that block:
  // sepp:net, sepp:exec).
  CancelToken* cancel = nullptr;
  std::chrono::steady_clock::time_point deadline;
  // sepp:net's egress proxy, started on first use (capability_hosts.h).
  std::unique_ptr<sandbox::EgressProxy> net_proxy;
  int net_proxy_port = 0;
};

// Adds a line to the call's log at level 0..3 (debug, info, warn, error),
// within kMaxLogBytes per call (the rest is dropped).
void AppendLog(CallIo& io, int level, const std::string& text);

// "" when the plugin may read (or write) path, a host path or one relative
// to the workspace: after symlinks are resolved it lies inside a granted
// root and is no secret location; *resolved is then the resolved path.
// Else the reason in words.
std::string CheckPath(const HostEnv& env, const std::string& path, bool write,
                      std::filesystem::path* resolved);

// A grant entry ("./notes", "~/x", "/abs") as a resolved host path.
std::filesystem::path ResolveGrant(const std::string& entry, const std::filesystem::path& workspace);

// The environment a plugin may see: the granted names that are set, never
// one of sepp's provider keys.
bool IsProviderKey(const std::string& name);

// Defines sepp:core and the granted capability modules in linker. env must
// outlive every instance linked with it.
void DefineHost(wasm::Linker& linker, HostEnv* env);

}  // namespace sepp::ext::plugins
