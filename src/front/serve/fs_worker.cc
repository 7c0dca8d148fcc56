#include "front/serve/fs_worker.h"

#include <poll.h>
#include <sys/socket.h>

#include "front/serve/fs_worker_main.h"
#include "sandbox/policy.h"
#include "sandbox/session_sandbox.h"
#include "tools/worker_protocol.h"

namespace sepp::front::serve {
namespace fs = std::filesystem;

FsWorker::FsWorker(std::vector<fs::path> roots, fs::path exe)
    : roots_(std::move(roots)), exe_(std::move(exe)) {}

FsWorker::~FsWorker() {
  std::unique_lock<std::mutex> lock(mu_);
  StopLocked(lock);
}

void FsWorker::StopLocked(std::unique_lock<std::mutex>& lock) {
  if (state_ == State::kRunning || state_ == State::kStarting) state_ = State::kStopping;
  if (channel_ >= 0) shutdown(channel_, SHUT_RDWR);  // the worker reads EOF and exits
  cv_.notify_all();
  if (thread_.joinable()) {
    std::thread t = std::move(thread_);
    lock.unlock();
    t.join();
    lock.lock();
  }
  state_ = State::kIdle;
  channel_ = -1;
  pid_ = 0;
}

void FsWorker::Serve() {
  sandbox::Policy policy;
  policy.enabled = true;
  for (const auto& r : roots_) policy.write_roots.push_back(r.string());
  policy.net = sandbox::NetMode::kOff;
  std::vector<std::string> args = {kFsWorkerCommand};
  for (const auto& r : roots_) args.push_back(r.string());
  auto started = sandbox::SessionSandbox::Start(exe_, args, policy, roots_.front());
  std::unique_lock<std::mutex> lock(mu_);
  if (!started.ok()) {
    start_error_ = started.error().message;
    state_ = State::kStopping;
    cv_.notify_all();
    return;
  }
  sandbox_ = std::move(*started);
  channel_ = sandbox_->channel();
  pid_ = sandbox_->pid();
  if (state_ == State::kStarting) state_ = State::kRunning;
  cv_.notify_all();
  cv_.wait(lock, [&] { return state_ != State::kRunning; });
  // Destroyed here, on the thread that started it: kills pid 1 and reaps it.
  auto done = std::move(sandbox_);
  channel_ = -1;
  lock.unlock();
  done.reset();
}

int FsWorker::pid() {
  std::lock_guard<std::mutex> lock(mu_);
  return pid_;
}

Result<Json> FsWorker::Call(const Json& request) {
  std::lock_guard<std::mutex> call(call_mu_);
  int channel;
  {
    std::unique_lock<std::mutex> lock(mu_);
    if (state_ == State::kStopping) StopLocked(lock);  // a worker that died, or a failed start
    if (state_ == State::kIdle) {
      state_ = State::kStarting;
      start_error_.clear();
      thread_ = std::thread([this] { Serve(); });
    }
    cv_.wait(lock, [&] { return state_ != State::kStarting; });
    if (state_ != State::kRunning)
      return Error::Make("the file API's sandbox cannot be set up: " + start_error_, "sandbox_unavailable");
    channel = channel_;
  }
  auto fail = [&](const std::string& why) -> Result<Json> {
    std::string err;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (sandbox_) err = sandbox_->TakeStderr();
      state_ = State::kStopping;  // the next call starts a fresh one
      cv_.notify_all();
    }
    return Error::Make("the file worker failed: " + why + (err.empty() ? "" : " (" + err.substr(0, 500) + ")"));
  };
  if (Status s = tools::WriteFrame(channel, request); !s.ok()) return fail(s.error().message);
  auto reply = tools::ReadFrame(channel);
  if (!reply.ok()) return fail(reply.error().message);
  // From inside the sandbox: checked before use.
  if (!reply->contains("ok") || !(*reply)["ok"].is_boolean()) return fail("a reply without \"ok\"");
  return std::move(*reply);
}

}  // namespace sepp::front::serve
