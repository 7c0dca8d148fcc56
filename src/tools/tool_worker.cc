#include "tools/tool_worker.h"

#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>

#include "base/cancel.h"
#include "sandbox/defaults.h"
#include "sandbox/session_sandbox.h"
#include "tools/worker_main.h"
#include "tools/worker_protocol.h"

namespace sepp::tools {
namespace fs = std::filesystem;
namespace {

// Made at first use, not by a static initialiser (the tool worker runs
// before those: app/tool_worker_dispatch.cc).
struct WorkerExe {
  std::mutex mu;
  fs::path path;
};
WorkerExe& Exe() {
  static WorkerExe e;
  return e;
}

// How long a cancelled call waits for the worker's own answer (bash reports
// what the command printed before it was killed) before it returns anyway.
constexpr auto kCancelGrace = std::chrono::milliseconds(500);
using Clock = std::chrono::steady_clock;

ToolResult Failure(std::string text) {
  ToolResult r;
  r.text = std::move(text);
  r.is_error = true;
  return r;
}

}  // namespace

void SetToolWorkerExecutable(fs::path exe) {
  std::lock_guard<std::mutex> lock(Exe().mu);
  Exe().path = std::move(exe);
}

fs::path ToolWorkerExecutable() {
  std::lock_guard<std::mutex> lock(Exe().mu);
  return Exe().path;
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
    // A call that reads it sees EOF too.
    if (channel_ >= 0) shutdown(channel_, SHUT_RDWR);
    cv_.notify_all();  // the sandbox's thread ends
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

void ToolWorker::StartLocked() {
  state_ = State::kStarting;
  uint64_t gen = ++generation_;
  thread_ = std::thread([this, gen] { Serve(gen); });
}

void ToolWorker::Prepare() {
  std::lock_guard<std::mutex> lock(mu_);
  // A sandbox whose worker died is restarted by the next call (which joins
  // the old thread); nothing to prepare before that.
  if (state_ == State::kIdle) StartLocked();
}

bool ToolWorker::EnsureStarted(std::string* why) {
  std::unique_lock<std::mutex> lock(mu_);
  if (state_ == State::kFailed && restartable_) {
    // The worker died (killed, out of memory): this call gets a fresh
    // sandbox. The old one is gone already (its pid 1 ends with the worker).
    // Kept, not destroyed: a call that raced with the death may still write
    // to its channel, which must stay this dead socket (a closed descriptor
    // number could by now name another file).
    retired_.push_back(std::move(sandbox_));
    channel_ = -1;
    sandbox_pid_ = 0;
    failure_.clear();
    restartable_ = false;
    state_ = State::kIdle;
    // Its thread has nothing left to do but return (it waits for mu_, so it
    // is joined without mu_ held).
    std::thread old = std::move(thread_);
    lock.unlock();
    if (old.joinable()) old.join();
    lock.lock();
  }
  if (state_ == State::kIdle) StartLocked();
  cv_.wait(lock, [&] { return state_ != State::kStarting; });
  if (state_ == State::kRunning) return true;
  *why = failure_.empty() ? "the session is ending" : failure_;
  return false;
}

void ToolWorker::Fail(const std::string& why) {
  std::lock_guard<std::mutex> lock(mu_);
  if (state_ == State::kStarting) state_ = State::kFailed;
  if (failure_.empty()) failure_ = why;
  cv_.notify_all();
}

bool ToolWorker::Current(uint64_t gen) const {
  // Stopping: the session ends with calls in flight; they fail as for a
  // death, and the state stays kStopping.
  return gen == generation_ && (state_ == State::kRunning || state_ == State::kStopping);
}

void ToolWorker::FailAll(uint64_t gen, const std::string& why, bool restartable) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!Current(gen)) return;  // a sandbox that failed already, or was replaced
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

void ToolWorker::Serve(uint64_t gen) {
  if (!wake_.valid()) {  // only this thread sets it, before any call waits
    int fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (fd < 0) {
      Fail("cannot make the eventfd that wakes a waiting call: " + ErrnoText(errno));
      return;
    }
    std::lock_guard<std::mutex> lock(mu_);
    wake_ = UniqueFd(fd);
  }
  auto started = sandbox::SessionSandbox::Start(exe_, {kToolWorkerCommand}, policy_, cwd_);
  if (!started.ok()) {
    Fail(started.error().message);
    return;
  }
  int channel = (*started)->channel();
  Status hello = WriteFrame(channel, {{"type", "hello"},
                                      {"policy", PolicyToJson(policy_)},
                                      {"cwd", cwd_.string()}});
  std::unique_lock<std::mutex> lock(mu_);
  sandbox_ = std::move(*started);
  sandbox_pid_ = sandbox_->pid();
  channel_ = channel;
  if (state_ == State::kStarting) state_ = hello.ok() ? State::kRunning : State::kFailed;
  if (!hello.ok()) failure_ = "the tool worker did not take its first message: " +
                              hello.error().message;
  if (state_ == State::kStopping) shutdown(channel_, SHUT_RDWR);
  cv_.notify_all();
  // The calls read the channel themselves (Await); this thread only keeps
  // the sandbox alive until it fails or the session ends.
  cv_.wait(lock, [&] { return state_ != State::kRunning || generation_ != gen; });
}

void ToolWorker::ChannelFailed(uint64_t gen, const Error& error) {
  std::string err;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!Current(gen)) return;  // seen already
    if (sandbox_) err = sandbox_->TakeStderr();
  }
  bool exited = error.kind == "eof";
  std::string why = exited ? "the session sandbox's tool worker exited" : error.message;
  if (!err.empty()) why += " (" + err.substr(0, 2000) + ")";
  if (exited) why += "; the next call starts a fresh session sandbox (with a new /tmp)";
  FailAll(gen, why, exited);
}

void ToolWorker::ReadOne(int channel, uint64_t gen, int poll_ms) {
  struct pollfd fds[2] = {{channel, POLLIN, 0}, {wake_.get(), POLLIN, 0}};
  int ready = poll(fds, 2, poll_ms);
  if (ready <= 0) return;  // the time is up (or EINTR): the caller looks again
  if (fds[1].revents & POLLIN) {
    uint64_t n;
    (void)!read(wake_.get(), &n, sizeof n);  // a cancel: the caller looks
    if (!(fds[0].revents & (POLLIN | POLLHUP | POLLERR))) return;
  }
  if (!(fds[0].revents & (POLLIN | POLLHUP | POLLERR))) return;
  auto frame = ReadFrame(channel);
  if (!frame.ok()) return ChannelFailed(gen, frame.error());
  auto reply = ParseWorkerReply(std::move(*frame));
  if (!reply.ok())
    return FailAll(gen, "the tool worker broke the protocol: " + reply.error().message, false);
  std::shared_ptr<Pending> p;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = pending_.find(reply->id);
    if (it == pending_.end()) return;  // a call that was cancelled and returned
    p = it->second;
    if (reply->kind == WorkerReply::Kind::kResult) {
      p->result.text = std::move(reply->text);
      p->result.is_error = reply->is_error;
      p->result.truncated = reply->truncated;
      p->result.details = std::move(reply->details);
      p->result.denials = std::move(reply->denials);
      p->done = true;
      pending_.erase(it);
      if (waiting_ > 0) cv_.notify_all();  // the answer of a call that waits
      return;
    }
  }
  // Without mu_: the callback may cancel, which takes it.
  std::lock_guard<std::mutex> lock(p->output_mu);
  if (!p->closed && p->on_output) p->on_output(reply->text);
}

template <typename Stop>
void ToolWorker::Await(std::unique_lock<std::mutex>& lock, Pending& pending, int channel,
                       uint64_t gen, Stop stop, std::optional<Clock::time_point> deadline) {
  while (!pending.done && !stop()) {
    int poll_ms = -1;
    if (deadline) {
      auto left = std::chrono::ceil<std::chrono::milliseconds>(*deadline - Clock::now());
      if (left.count() <= 0) return;
      poll_ms = static_cast<int>(left.count());
    }
    if (!reading_ && Current(gen)) {
      reading_ = true;
      lock.unlock();
      ReadOne(channel, gen, poll_ms);
      lock.lock();
      reading_ = false;
      if (waiting_ > 0) cv_.notify_all();  // a waiting call may take the channel over
    } else {
      // Counted, so that a lone call (the common case) wakes nobody: cv_ is
      // also the sandbox thread's (Serve), which has nothing to do with an
      // answer, and each needless wake cost it two context switches and the
      // caller a contended mu_ per call.
      ++waiting_;
      if (deadline) {
        cv_.wait_until(lock, *deadline);
      } else {
        cv_.wait(lock);  // another call reads, and wakes us with our answer
      }
      --waiting_;
    }
  }
}

Status ToolWorker::Background(const std::string& call_id) {
  int64_t id = 0;
  int channel;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& [n, p] : pending_)
      if (!call_id.empty() && p->call_id == call_id && p->tool == "bash") id = n;
    if (id == 0 || state_ != State::kRunning)
      return Error::Make("no bash call \"" + call_id + "\" is running in the session sandbox "
                         "(only bash calls can go to the background)", "not_found");
    channel = channel_;
  }
  std::lock_guard<std::mutex> wlock(write_mu_);
  return WriteFrame(channel, {{"type", "background"}, {"id", id}});
}

ToolResult ToolWorker::Call(const std::string& name, const Json& args, ToolContext& ctx) {
  std::string why;
  if (!EnsureStarted(&why)) return Failure("the session sandbox is not available: " + why);
  auto shared = std::make_shared<Pending>();
  Pending& pending = *shared;
  pending.on_output = ctx.on_output;
  pending.call_id = ctx.call_id;
  pending.tool = name;
  // Whatever way Call() returns, no more output reaches ctx after it.
  struct Close {
    Pending& p;
    ~Close() {
      std::lock_guard<std::mutex> lock(p.output_mu);
      p.closed = true;
    }
  } close_output{pending};
  int64_t id;
  int channel;   // this sandbox's, even if a later call replaces it
  uint64_t gen;  // and its generation
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (state_ != State::kRunning)
      return Failure("the session sandbox is not available: " +
                     (failure_.empty() ? std::string("the session is ending") : failure_));
    id = next_id_++;
    pending_[id] = shared;
    channel = channel_;
    gen = generation_;
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
    // Nobody reads the channel while no call is in flight, so this write
    // may be the first to see that the worker is gone.
    if (sent.error().kind == "eof") ChannelFailed(gen, sent.error());
    std::lock_guard<std::mutex> lock(mu_);
    pending_.erase(id);
    if (pending.done) return pending.result;
    return Failure("the tool call could not be sent to the session sandbox: " +
                   sent.error().message);
  }
  std::unique_ptr<CancelToken::Registration> reg;
  if (ctx.cancel)
    reg = ctx.cancel->OnCancel([this] {
      uint64_t one = 1;
      (void)!write(wake_.get(), &one, sizeof one);  // the call reading the channel
      std::lock_guard<std::mutex> lock(mu_);
      cv_.notify_all();  // the calls waiting for it
    });
  std::unique_lock<std::mutex> lock(mu_);
  auto cancelled = [&] { return ctx.cancel && ctx.cancel->cancelled(); };
  Await(lock, pending, channel, gen, cancelled, std::nullopt);
  if (!pending.done) {
    lock.unlock();
    {
      std::lock_guard<std::mutex> wlock(write_mu_);
      (void)WriteFrame(channel, {{"type", "cancel"}, {"id", id}});
    }
    lock.lock();
    Await(lock, pending, channel, gen, [] { return false; }, Clock::now() + kCancelGrace);
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
