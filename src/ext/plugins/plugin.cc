// Loading and calling one plugin (plugin.h).
#include "ext/plugins/plugin.h"

#include "base/sha256.h"
#include "wasm/decoder.h"

namespace sepp::ext::plugins {
namespace {

std::string Str(const Json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

Result<std::vector<PluginToolInfo>> ParseDescribe(const std::string& text) {
  auto j = ParseJson(text);
  if (!j.ok() || !j->is_object())
    return Error::Make("sepp_describe did not write a JSON object: " +
                       (j.ok() ? std::string("got ") + j->type_name() : j.error().message), "plugin");
  auto tools = j->find("tools");
  if (tools == j->end() || !tools->is_array())
    return Error::Make("sepp_describe: \"tools\" must be a list", "plugin");
  std::vector<PluginToolInfo> out;
  for (const auto& t : *tools) {
    if (!t.is_object() || Str(t, "name").empty())
      return Error::Make("sepp_describe: every tool needs a \"name\"", "plugin");
    PluginToolInfo info{Str(t, "name"), Str(t, "description"), t.value("input_schema", Json::object())};
    for (char c : info.name)
      if (!(isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-'))
        return Error::Make("sepp_describe: tool name \"" + info.name +
                           "\" may hold only letters, digits, _ and -", "plugin");
    if (!info.input_schema.is_object())
      return Error::Make("sepp_describe: input_schema of " + info.name + " must be an object", "plugin");
    out.push_back(std::move(info));
  }
  return out;
}

}  // namespace

Plugin::Plugin(PluginManifest manifest, std::shared_ptr<const wasm::Module> module,
               const std::filesystem::path& workspace)
    : manifest_(std::move(manifest)), module_(std::move(module)) {
  env_.granted = manifest_.capabilities;
  env_.workspace = workspace;
  DefineHost(linker_, &env_);
  wd_thread_ = std::thread([this] { Watchdog(); });
}

Plugin::~Plugin() {
  {
    std::lock_guard<std::mutex> l(wd_mu_);
    wd_stop_ = true;
  }
  wd_cv_.notify_all();
  wd_thread_.join();
}

void Plugin::Watchdog() {
  std::unique_lock<std::mutex> l(wd_mu_);
  while (!wd_stop_) {
    if (!wd_armed_) {
      wd_cv_.wait(l);
      continue;
    }
    if (std::chrono::steady_clock::now() >= wd_deadline_) {
      wd_fired_ = true;
      wd_armed_ = false;
      store_->Interrupt();
      if (wd_cancel_) wd_cancel_->Cancel();
      continue;
    }
    wd_cv_.wait_until(l, wd_deadline_);
  }
}

Result<std::shared_ptr<const wasm::Module>> VerifyModule(const PluginManifest& manifest,
                                                         const std::string& wasm_bytes) {
  std::string hash = Sha256Hex(wasm_bytes);
  if (hash != manifest.sha256)
    return Error::Make(manifest.wasm.string() + " has sha256 " + hash + ", but " +
                       manifest.source.string() + " says " + manifest.sha256 +
                       ": update the manifest if you rebuilt it on purpose", "refused");
  auto module = wasm::DecodeModule(
      std::span(reinterpret_cast<const uint8_t*>(wasm_bytes.data()), wasm_bytes.size()));
  if (!module.ok())
    return Error::Make(manifest.wasm.string() + " is not a valid WebAssembly module: " +
                       module.error().message, "plugin");
  if (auto st = CheckImports(**module, manifest.capabilities); !st.ok())
    return Error::Make("refused " + manifest.wasm.string() + ": " + st.error().message, "refused");
  return module;
}

Result<std::shared_ptr<Plugin>> Plugin::Load(const PluginManifest& manifest,
                                             const std::string& wasm_bytes,
                                             const std::filesystem::path& workspace) {
  auto module = VerifyModule(manifest, wasm_bytes);
  if (!module.ok()) return module.error();
  std::shared_ptr<Plugin> p(new Plugin(manifest, *module, workspace));
  if (auto st = p->Instantiate(); !st.ok()) return st.error();
  CallIo io;
  auto version = p->Run("sepp_abi_version", "", &io, nullptr);
  if (!version.ok()) return version.error();
  if (*version != kAbiVersion)
    return Error::Make(manifest.name + " speaks plugin ABI v" + std::to_string(*version) +
                       "; this sepp speaks v" + std::to_string(kAbiVersion), "plugin");
  Json in = {{"abi_version", kAbiVersion}, {"granted", ToJson(manifest.capabilities)}};
  CallIo dio;
  auto described = p->Run("sepp_describe", DumpJson(in), &dio, nullptr);
  if (!described.ok()) return described.error();
  if (*described != 0)
    return Error::Make(manifest.name + ": sepp_describe failed: " + dio.error, "plugin");
  auto tools = ParseDescribe(dio.output);
  if (!tools.ok()) return Error::Make(manifest.name + ": " + tools.error().message, "plugin");
  p->tools_ = std::move(*tools);
  return p;
}

Status Plugin::Instantiate() {
  wasm::StoreLimits limits;
  limits.max_memory_pages = manifest_.limits.max_memory_pages;
  limits.max_call_depth = manifest_.limits.max_call_depth;
  limits.value_stack_slots = 1u << 18;  // 2 MiB of operand slots
  limits.max_table_elements = 1u << 16;
  auto store = std::make_unique<wasm::Store>(limits);
  store->SetFuel(manifest_.limits.fuel_per_call);
  CallIo io;  // _initialize and the start function may log
  env_.wasi = std::make_unique<WasiFiles>(env_);  // the preopens, no other descriptor
  env_.io = &io;
  auto inst = linker_.Instantiate(*store, module_);
  env_.io = nullptr;
  if (!inst.ok())
    return Error::Make(manifest_.name + ": cannot instantiate " + manifest_.wasm.filename().string() +
                       ": " + inst.error().message, "plugin");
  {
    std::lock_guard<std::mutex> l(wd_mu_);  // the watchdog reads store_
    store_ = std::move(store);
  }
  instance_ = *inst;
  broken_ = false;
  if (instance_->GetFunc("_initialize")) {
    auto r = Run("_initialize", "", &io, nullptr);
    if (!r.ok()) return r.error();
  }
  return Ok();
}

Result<int32_t> Plugin::Run(const char* fn, const std::string& input, CallIo* io, CancelToken* cancel) {
  wasm::Function* f = instance_->GetFunc(fn);
  if (!f)
    return Error::Make(manifest_.name + " does not export " + fn + " (docs/plugins.md)", "plugin");
  bool is_init = std::string(fn) == "_initialize";
  if (!is_init && !(f->type.params.empty() && f->type.results.size() == 1 &&
                    f->type.results[0] == wasm::ValType::kI32))
    return Error::Make(manifest_.name + ": " + fn + " must have the type [] -> [i32]", "plugin");
  io->input = input;
  env_.io = io;
  store_->ClearInterrupt();
  store_->SetFuel(manifest_.limits.fuel_per_call);
  bool cancelled = false;
  // Cancelled at the deadline or with the turn: the blocking host calls
  // (sepp:net, sepp:exec) end with it, the interrupt ends the wasm.
  CancelToken call_end;
  env_.cancel = &call_end;
  env_.deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(manifest_.limits.timeout_ms);
  std::unique_ptr<CancelToken::Registration> reg;
  if (cancel) {
    wasm::Store* s = store_.get();
    reg = cancel->OnCancel([s, &cancelled, &call_end] {
      cancelled = true;
      s->Interrupt();
      call_end.Cancel();
    });
  }
  {
    std::lock_guard<std::mutex> l(wd_mu_);
    wd_fired_ = false;
    wd_armed_ = true;
    wd_deadline_ = env_.deadline;
    wd_cancel_ = &call_end;
  }
  wd_cv_.notify_one();
  auto r = store_->Call(f, {});
  bool timed_out;
  {
    std::lock_guard<std::mutex> l(wd_mu_);
    wd_armed_ = false;
    wd_cancel_ = nullptr;
    timed_out = wd_fired_;
  }
  reg.reset();  // waits for a running cancel callback: `cancelled` is final
  FlushWasiLog(*env_.wasi, *io);
  env_.io = nullptr;
  env_.cancel = nullptr;
  if (auto code = env_.wasi->exit_code) {
    // WASI proc_exit: a clean end of the call with that status. The instance
    // has exited, so the next call gets a fresh one.
    broken_ = true;
    env_.wasi->exit_code.reset();
    return *code;
  }
  if (!r.ok()) {
    broken_ = true;
    std::string why = r.error().message;
    if (timed_out && why == "interrupted")
      why = "the call ran over its " + std::to_string(manifest_.limits.timeout_ms) +
            " ms time limit (limits.timeout_ms)";
    else if (cancelled && why == "interrupted")
      why = "the call was cancelled";
    else if (why == "fuel exhausted")
      why = "the call ran out of fuel: it executed more than " +
            std::to_string(manifest_.limits.fuel_per_call) + " instructions (limits.fuel_per_call)";
    else if (why == "call stack exhausted")
      why = "the call nested deeper than " + std::to_string(manifest_.limits.max_call_depth) +
            " calls (limits.max_call_depth)";
    return Error::Make("plugin " + manifest_.name + " trapped in " + fn + ": " + why,
                       cancelled ? "aborted" : "trap");
  }
  if (is_init) return 0;
  return r->empty() ? 0 : (*r)[0].i32();
}

CallOutcome Plugin::CallTool(const std::string& tool, const Json& args, const std::string& call_id,
                             CancelToken* cancel) {
  CallOutcome out;
  std::lock_guard<std::mutex> l(mu_);
  if (broken_) {
    if (auto st = Instantiate(); !st.ok()) {
      out.text = st.error().message;
      return out;
    }
  }
  Json in = {{"name", tool}, {"call_id", call_id},
             {"args", args.is_object() ? args : Json::object()}, {"cwd", env_.workspace.string()}};
  CallIo io;
  auto r = Run("sepp_call_tool", DumpJson(in), &io, cancel);
  out.log = std::move(io.log);
  if (!r.ok()) {
    out.text = r.error().message;
    return out;
  }
  out.ok = *r == 0;
  if (!out.ok) {
    out.text = io.error.empty() ? "the plugin's " + tool + " failed (status " + std::to_string(*r) +
                                      ") without a message"
                                : io.error;
    return out;
  }
  // The output is a result object {content: [...], is_error} or plain text.
  auto j = ParseJson(io.output);
  if (j.ok() && j->is_object() && j->contains("content") && (*j)["content"].is_array()) {
    out.content = (*j)["content"];
    for (const auto& block : out.content)
      if (block.is_object() && Str(block, "type") == "text") {
        if (!out.text.empty()) out.text += "\n";
        out.text += Str(block, "text");
      }
    auto is_error = j->find("is_error");
    if (is_error != j->end() && is_error->is_boolean() && is_error->get<bool>()) out.ok = false;
  } else {
    out.text = std::move(io.output);
  }
  return out;
}

}  // namespace sepp::ext::plugins
