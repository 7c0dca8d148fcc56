// ToolWorker: sepp's side of the session sandbox (docs/design.md, "The
// session sandbox").
//
// One per session (each Agent, sub-agents included, has its own). Cheap to
// make: the sandbox and its worker (worker_main.h) start at the first call,
// on a thread of the ToolWorker's own that lives as long as it does (the
// sandbox dies with the thread that started it). Call() sends a built-in
// tool's call to the worker and waits for its result, passing partial output
// on; a cancel is forwarded to the worker and Call() returns within half a
// second whatever the worker does. Destroying the ToolWorker ends the
// sandbox: every process in it is killed and its private /tmp is gone.
//
// If the sandbox cannot be set up, every call fails with an error that says
// so; if the worker dies (killed, out of memory), the calls in flight fail
// and the next one starts a fresh sandbox. Nothing ever falls back to
// running unconfined.
#pragma once
#include <condition_variable>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "base/json.h"
#include "sandbox/policy.h"
#include "tools/tool.h"

namespace sepp::sandbox {
class SessionSandbox;
}

namespace sepp::tools {

// The binary the session sandbox execs as its worker (it must handle
// `kToolWorkerCommand`, see worker_main.h). sepp sets its own executable at
// start; test binaries point it at the built sepp. Unset (empty), no session
// sandbox is made and MakeSessionToolWorker returns null.
void SetToolWorkerExecutable(std::filesystem::path exe);
std::filesystem::path ToolWorkerExecutable();

class ToolWorker {
 public:
  // from_default: policy is the default tool policy for cwd (the session
  // has no policy of its own, and its calls carry none).
  ToolWorker(sandbox::Policy policy, std::filesystem::path cwd, std::filesystem::path exe,
             bool from_default);
  ~ToolWorker();
  ToolWorker(const ToolWorker&) = delete;
  ToolWorker& operator=(const ToolWorker&) = delete;

  // Whether a call of tool `name` under ctx belongs in this sandbox: its
  // policy is the session's. A call with another (wider) policy, and a bash
  // call that needs a network, runs in a one-off sandbox of its own instead.
  bool Covers(const std::string& name, const ToolContext& ctx) const;

  // Runs the built-in tool in the worker. Never throws.
  ToolResult Call(const std::string& name, const Json& args, ToolContext& ctx);

  // The pid of the sandbox's pid 1 as sepp sees it (0 before the first call).
  int sandbox_pid();

 private:
  struct Pending {
    bool done = false;  // guarded by mu_
    ToolResult result;  // guarded by mu_
    // Called on the reader thread without mu_ held (it may cancel, which
    // takes mu_), under output_mu; `closed` once Call() has returned.
    std::mutex output_mu;
    bool closed = false;
    std::function<void(std::string_view)> on_output;
  };
  void Serve();
  bool EnsureStarted(std::string* why);
  // restartable: the worker died after starting; the next call restarts it.
  void FailAll(const std::string& why, bool restartable);

  const sandbox::Policy policy_;
  const std::filesystem::path cwd_, exe_;
  const bool from_default_;
  std::mutex mu_, write_mu_;
  std::condition_variable cv_;
  enum class State { kIdle, kStarting, kRunning, kFailed, kStopping } state_ = State::kIdle;
  std::string failure_;
  bool restartable_ = false;
  std::unique_ptr<sandbox::SessionSandbox> sandbox_;
  std::vector<std::unique_ptr<sandbox::SessionSandbox>> retired_;  // ones whose worker died
  int channel_ = -1;
  int sandbox_pid_ = 0;
  std::thread thread_;
  int64_t next_id_ = 1;
  std::map<int64_t, std::shared_ptr<Pending>> pending_;
};

// The session's worker for policy (null: the default tool policy for cwd),
// or null when the policy is off (`--sandbox off`) or no worker executable
// is set.
std::unique_ptr<ToolWorker> MakeSessionToolWorker(const sandbox::Policy* policy,
                                                  const std::filesystem::path& cwd);

}  // namespace sepp::tools
