// Plugin: one loaded WebAssembly plugin (ABI v1, abi.h) and its calls.
//
// Load() checks the .wasm against the manifest's sha256, decodes it,
// refuses it when it imports more than was granted, links only the granted
// host modules, instantiates it under the manifest's limits, runs
// _initialize (if exported), checks sepp_abi_version and reads the tools
// from sepp_describe.
//
// Calls are serialised per plugin (one store, one lock): each gets its fuel
// refilled, a wall-clock deadline (a watchdog thread interrupts the store)
// and the caller's cancel token (which interrupts it too). A trap — fuel,
// memory, deadline, call depth, a bad pointer — is returned as an error for
// the model and the instance is made anew for the next call, so a plugin
// that broke mid-call never runs on in a half-updated state.
#pragma once
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "base/cancel.h"
#include "base/json.h"
#include "base/result.h"
#include "ext/plugins/abi.h"
#include "ext/plugins/manifest.h"
#include "wasm/runtime.h"

namespace sepp::ext::plugins {

struct PluginToolInfo {
  std::string name, description;
  Json input_schema;
};

struct CallOutcome {
  bool ok = false;            // the plugin returned 0
  std::string text;           // its output (ok) or error text / trap (not ok)
  Json content;               // the result's content blocks when it gave some
  std::vector<std::string> log;
};

// The checks before anything of a module runs: its hash is the manifest's,
// it decodes, and it imports nothing beyond the ABI and the grants.
Result<std::shared_ptr<const wasm::Module>> VerifyModule(const PluginManifest& manifest,
                                                         const std::string& wasm_bytes);

class Plugin {
 public:
  // wasm_bytes: the file's content (read by the caller, so the hash checked
  // is the hash of what runs).
  static Result<std::shared_ptr<Plugin>> Load(const PluginManifest& manifest,
                                              const std::string& wasm_bytes,
                                              const std::filesystem::path& workspace);
  ~Plugin();

  const PluginManifest& manifest() const { return manifest_; }
  const std::vector<PluginToolInfo>& tools() const { return tools_; }

  // Calls sepp_call_tool with {name, call_id, args, cwd}. Never throws; a
  // trap or a refusal is a CallOutcome with ok = false.
  CallOutcome CallTool(const std::string& tool, const Json& args, const std::string& call_id,
                       CancelToken* cancel);

 private:
  Plugin(PluginManifest manifest, std::shared_ptr<const wasm::Module> module,
         const std::filesystem::path& workspace);
  Status Instantiate();  // a fresh store and instance (mu_ held or not yet shared)
  // Runs export `fn` with `input` under the limits.
  Result<int32_t> Run(const char* fn, const std::string& input, CallIo* io, CancelToken* cancel);
  void Watchdog();

  PluginManifest manifest_;
  std::shared_ptr<const wasm::Module> module_;
  HostEnv env_;
  wasm::Linker linker_;
  std::vector<PluginToolInfo> tools_;

  std::mutex mu_;  // one call at a time
  std::unique_ptr<wasm::Store> store_;
  wasm::Instance* instance_ = nullptr;
  bool broken_ = false;  // the last call trapped: instantiate anew

  // The watchdog: interrupts store_ when the running call's deadline passes.
  std::mutex wd_mu_;
  std::condition_variable wd_cv_;
  bool wd_armed_ = false, wd_stop_ = false, wd_fired_ = false;
  std::chrono::steady_clock::time_point wd_deadline_;
  CancelToken* wd_cancel_ = nullptr;  // the running call's end token
  std::thread wd_thread_;
};

}  // namespace sepp::ext::plugins
