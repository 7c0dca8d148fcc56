#include "tools/tool_worker.h"

#include <sys/socket.h>

#include <chrono>

#include "base/cancel.h"
#include "sandbox/defaults.h"
#include "sandbox/session_sandbox.h"
#include "tools/worker_main.h"
#include "tools/worker_protocol.h"

namespace sepp::tools {
namespace fs = std::filesystem;
namespace {

std::mutex exe_mu;
fs::path worker_exe;

// How long a cancelled call waits for the worker's own answer (bash reports
// what the command printed before it was killed) before it returns anyway.
constexpr auto kCancelGrace = std::chrono::milliseconds(500);

ToolResult Failure(std::string text) {
  ToolResult r;
  r.text = std::move(text);
  r.is_error = true;
  return r;
}

}  // namespace

void SetToolWorkerExecutable(fs::path exe) {
  std::lock_guard<std::mutex> lock(exe_mu);
  worker_exe = std::move(exe);
}

fs::path ToolWorkerExecutable() {
  std::lock_guard<std::mutex> lock(exe_mu);
  return worker_exe;
}

std::unique_ptr<ToolWorker> MakeSessionToolWorker(const sandbox::Policy* policy,
                                                  const fs::path& cwd) {
  fs::path exe = ToolWorkerExecutable();
  if (exe.empty()) return nullptr;
  std::error_code ec;
  fs::path dir = cwd.empty() ? fs::current_path(ec) : cwd;
  sandbox::Policy p = policy ? *policy : sandbox::DefaultToolPolicy(dir);
  if (!p.enabled) return nullptr;
  return std::make_unique<ToolWorker>(std::move(p), dir, std::move(exe), policy == nullptr);
}

ToolWorker::ToolWorker(sandbox::Policy policy, fs::path cwd, fs::path exe, bool from_default)
    : policy_(std::move(policy)), cwd_(std::move(cwd)), exe_(std::move(exe)),
      from_default_(from_default) {}

ToolWorker::~ToolWorker() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (state_ == State::kRunning || state_ == State::kStarting) state_ = State::kStopping;
    // The worker reads EOF and exits; our reader thread sees EOF and ends.
    if (channel_ >= 0) shutdown(channel_, SHUT_RDWR);
  }
  if (thread_.joinable()) thread_.join();
  sandbox_.reset();  // kills pid 1 of the sandbox, and with it everything in it
  retired_.clear();
}

bool ToolWorker::Covers(const std::string& name, const ToolContext& ctx) const {
  if (name == "bash" && policy_.net != sandbox::NetMode::kOff) return false;
  if (!ctx.policy) {
    std::error_code ec;
    return from_default_ && (ctx.cwd.empty() ? fs::current_path(ec) : ctx.cwd) == cwd_;
  }
  return *ctx.policy == policy_;
}

int ToolWorker::sandbox_pid() {
  std::lock_guard<std::mutex> lock(mu_);
  return sandbox_pid_;
}

bool ToolWorker::EnsureStarted(std::string* why) {
  std::unique_lock<std::mutex> lock(mu_);
  if (state_ == State::kFailed && restartable_) {
    // The worker died (killed, out of memory): this call gets a fresh
    // sandbox. The old one is gone already (its pid 1 ends with the worker);
    // its reader thread has nothing left to do but return.
    if (thread_.joinable()) thread_.join();
    // Kept, not destroyed: a call that raced with the death may still write
    // to its channel, which must stay this dead socket (a closed descriptor
    // number could by now name another file).
    retired_.push_back(std::move(sandbox_));
    channel_ = -1;
    sandbox_pid_ = 0;
    failure_.clear();
    restartable_ = false;
    state_ = State::kIdle;
  }
  if (state_ == State::kIdle) {
    state_ = State::kStarting;
    thread_ = std::thread([this] { Serve(); });
  }
  cv_.wait(lock, [&] { return state_ != State::kStarting; });
  if (state_ == State::kRunning) return true;
  *why = failure_.empty() ? "the session is ending" : failure_;
  return false;
}

void ToolWorker::FailAll(const std::string& why, bool restartable) {
  std::lock_guard<std::mutex> lock(mu_);
  if (state_ != State::kStopping) state_ = State::kFailed;
  restartable_ = restartable;
  if (failure_.empty()) failure_ = why;
  for (auto& [id, p] : pending_) {
    p->result = Failure("the tool call did not finish: " + why);
    p->done = true;
  }
  pending_.clear();
  cv_.notify_all();
}

void ToolWorker::Serve() {
  auto started = sandbox::SessionSandbox::Start(exe_, {kToolWorkerCommand}, policy_, cwd_);
  if (!started.ok()) {
    FailAll(started.error().message, false);
    return;
  }
  int channel = (*started)->channel();
  Status hello = WriteFrame(channel, {{"type", "hello"},
                                      {"policy", PolicyToJson(policy_)},
                                      {"cwd", cwd_.string()}});
  {
    std::lock_guard<std::mutex> lock(mu_);
    sandbox_ = std::move(*started);
    sandbox_pid_ = sandbox_->pid();
    channel_ = channel;
    if (state_ == State::kStarting) state_ = hello.ok() ? State::kRunning : State::kFailed;
    if (!hello.ok()) failure_ = "the tool worker did not take its first message: " +
                                hello.error().message;
    if (state_ == State::kStopping) shutdown(channel_, SHUT_RDWR);
    cv_.notify_all();
  }
  for (;;) {
    auto frame = ReadFrame(channel);
    if (!frame.ok()) {
      bool exited = frame.error().kind == "eof";
      std::string why = exited ? "the session sandbox's tool worker exited" : frame.error().message;
      std::string err;
      {
        std::lock_guard<std::mutex> lock(mu_);
        if (sandbox_) err = sandbox_->TakeStderr();
      }
      if (!err.empty()) why += " (" + err.substr(0, 2000) + ")";
      if (exited) why += "; the next call starts a fresh session sandbox (with a new /tmp)";
      FailAll(why, exited);
      return;
    }
    auto reply = ParseWorkerReply(*frame);
    if (!reply.ok()) {
      FailAll("the tool worker broke the protocol: " + reply.error().message, false);
      return;
    }
    std::shared_ptr<Pending> p;
    {
      std::lock_guard<std::mutex> lock(mu_);
      auto it = pending_.find(reply->id);
      if (it == pending_.end()) continue;  // a call that was cancelled and returned
      p = it->second;
      if (reply->kind == WorkerReply::Kind::kResult) {
        p->result.text = std::move(reply->text);
        p->result.is_error = reply->is_error;
        p->result.truncated = reply->truncated;
        p->result.details = std::move(reply->details);
        p->result.denials = std::move(reply->denials);
        p->done = true;
        pending_.erase(it);
        cv_.notify_all();
        continue;
      }
    }
    std::lock_guard<std::mutex> lock(p->output_mu);
    if (!p->closed && p->on_output) p->on_output(reply->text);
  }
}

ToolResult ToolWorker::Call(const std::string& name, const Json& args, ToolContext& ctx) {
  std::string why;
  if (!EnsureStarted(&why)) return Failure("the session sandbox is not available: " + why);
  auto shared = std::make_shared<Pending>();
  Pending& pending = *shared;
  pending.on_output = ctx.on_output;
  // Whatever way Call() returns, no more output reaches ctx after it.
  struct Close {
    Pending& p;
    ~Close() {
      std::lock_guard<std::mutex> lock(p.output_mu);
      p.closed = true;
    }
  } close_output{pending};
  int64_t id;
  int channel;  // this sandbox's, even if a later call replaces it
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (state_ != State::kRunning)
      return Failure("the session sandbox is not available: " +
                     (failure_.empty() ? std::string("the session is ending") : failure_));
    id = next_id_++;
    pending_[id] = shared;
    channel = channel_;
  }
  Json call = {{"type", "call"},     {"id", id},
               {"tool", name},       {"args", args},
               {"cwd", ctx.cwd.string()},
               {"stream", static_cast<bool>(ctx.on_output)}};
  Status sent;
  {
    std::lock_guard<std::mutex> lock(write_mu_);
    sent = WriteFrame(channel, call);
  }
  if (!sent.ok()) {
    std::lock_guard<std::mutex> lock(mu_);
    pending_.erase(id);
    if (pending.done) return pending.result;
    return Failure("the tool call could not be sent to the session sandbox: " +
                   sent.error().message);
  }
  std::unique_ptr<CancelToken::Registration> reg;
  if (ctx.cancel)
    reg = ctx.cancel->OnCancel([this] {
      std::lock_guard<std::mutex> lock(mu_);
      cv_.notify_all();
    });
  std::unique_lock<std::mutex> lock(mu_);
  auto cancelled = [&] { return ctx.cancel && ctx.cancel->cancelled(); };
  cv_.wait(lock, [&] { return pending.done || cancelled(); });
  if (!pending.done) {
    lock.unlock();
    {
      std::lock_guard<std::mutex> wlock(write_mu_);
      (void)WriteFrame(channel, {{"type", "cancel"}, {"id", id}});
    }
    lock.lock();
    cv_.wait_for(lock, kCancelGrace, [&] { return pending.done; });
    if (!pending.done) {
      // The worker is stuck in the call; it stays stuck inside the sandbox,
      // which ends with the session. Nothing more of it reaches us.
      pending_.erase(id);
      ToolResult r = Failure("aborted by the user (the " + name + " call was cancelled)");
      r.details = {{"cancelled", true}};
      return r;
    }
  }
  ToolResult result = std::move(pending.result);
  // A command may have created git control files that could not be made
  // read-only in advance; they go now, not when the session ends, so neither
  // the next command nor the user's own git reads them.
  if (name == "bash" && sandbox_) {
    auto planted = sandbox_->RemovePlantedGitControl();
    if (!planted.empty()) {
      if (!result.details.is_object()) result.details = Json::object();
      for (auto& d : planted) {
        result.text += "[sandbox] " + d.text + "\n";
        result.denials.push_back(std::move(d));
      }
      result.details["denied"] = true;
    }
  }
  return result;
}

}  // namespace sepp::tools
