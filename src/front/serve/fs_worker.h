// FsWorker: the server's side of the fs worker (fs_worker_main.h), the one
// process that touches files for /v1/fs/*. It runs in a session sandbox
// (sandbox/session_sandbox.h) whose only visible folders are the server's
// workspaces, started at the first request on a thread of its own that
// lives as long as the sandbox (which dies with the thread that started it).
// Requests go one at a time. If the worker dies, the request in flight
// fails and the next one starts a fresh sandbox; if no sandbox can be set
// up, every request fails saying so. Nothing falls back to unconfined file
// access.
#pragma once
#include <condition_variable>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "base/json.h"
#include "base/result.h"

namespace sepp::sandbox {
class SessionSandbox;
}

namespace sepp::front::serve {

class FsWorker {
 public:
  // roots: the canonical workspaces; exe: the sepp binary to exec.
  FsWorker(std::vector<std::filesystem::path> roots, std::filesystem::path exe);
  ~FsWorker();  // ends the sandbox
  FsWorker(const FsWorker&) = delete;
  FsWorker& operator=(const FsWorker&) = delete;

  // The worker's answer ({"ok":true,...} or {"ok":false,"errno":N,...}), or
  // an error (kind "sandbox_unavailable" when it cannot be started).
  Result<Json> Call(const Json& request);

  // The sandbox's pid 1 as the server sees it (0 when none runs), for tests.
  int pid();

 private:
  void Serve();            // the sandbox's thread
  void StopLocked(std::unique_lock<std::mutex>& lock);  // ends the thread (mu_ held)

  const std::vector<std::filesystem::path> roots_;
  const std::filesystem::path exe_;
  std::mutex call_mu_;  // one request at a time
  std::mutex mu_;
  std::condition_variable cv_;
  enum class State { kIdle, kStarting, kRunning, kStopping } state_ = State::kIdle;
  std::string start_error_;
  std::unique_ptr<sandbox::SessionSandbox> sandbox_;  // owned by the thread while it runs
  int channel_ = -1;
  int pid_ = 0;
  std::thread thread_;
};

}  // namespace sepp::front::serve
