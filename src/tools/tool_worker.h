// ToolWorker: sepp's side of the session sandbox (docs/design.md, "The
// session sandbox").
//
// One per session (each Agent, sub-agents included, has its own). Cheap to
// make: the sandbox and its worker (worker_main.h) start at the first call
// (or at Prepare()), on a thread of the ToolWorker's own that lives as long
// as the sandbox (which dies with the thread that started it). Call() sends a built-in
// tool's call to the worker and waits for its result, passing partial output
// on; a cancel is forwarded to the worker and Call() returns within half a
// second whatever the worker does. The calling threads read the channel
// themselves, one at a time (the reader hands out the answers and output of
// the other calls in flight), so a lone call reads its own answer with no
// thread in between; with no call in flight nobody reads, and a worker that
// died meanwhile is seen by the next call's write or read. Destroying the ToolWorker ends the
// sandbox: every process in it is killed and its private /tmp is gone.
//
// If the sandbox cannot be set up, every call fails with an error that says
// so; if the worker dies (killed, out of memory), the calls in flight fail
// and the next one starts a fresh sandbox. Nothing ever falls back to
// running unconfined.
#pragma once
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "base/fd.h"
#include "base/json.h"
#include "base/result.h"
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

  // Starts setting up the sandbox, if it is not started yet, without waiting
  // for it: the agent calls this as soon as the model's reply holds a call
  // of a tool that runs here, so the set-up overlaps the rest of the reply
  // and the permission check. A session that calls no tool never pays it.
  void Prepare();

  // Runs the built-in tool in the worker. Never throws.
  ToolResult Call(const std::string& name, const Json& args, ToolContext& ctx);

  // Sends the running bash call with this model call id (ctx.call_id) to
  // the background: the worker leaves its command running as a background
  // job (background_jobs.h) and the call returns what it printed so far
  // with the job's pid and log. Error kind "not_found" when no such call
  // runs here; the call may still finish on its own before the worker acts.
  Status Background(const std::string& call_id);

  // The pid of the sandbox's pid 1 as sepp sees it (0 before the first call).
  int sandbox_pid();

 private:
  struct Pending {
    std::string call_id, tool;  // the model's id (Background) and the tool's name
    bool done = false;  // guarded by mu_
    ToolResult result;  // guarded by mu_
    // Called on the reader thread without mu_ held (it may cancel, which
    // takes mu_), under output_mu; `closed` once Call() has returned.
    std::mutex output_mu;
    bool closed = false;
    std::function<void(std::string_view)> on_output;
  };
  // Sets up the sandbox (generation gen), then lives as long as it: the
  // sandbox's pid 1 dies with the thread that started it (PDEATHSIG).
  void Serve(uint64_t gen);
  bool EnsureStarted(std::string* why);
  void StartLocked();  // from kIdle, with mu_ held
  // Waits, with mu_ held in lock, until pending is done or stop() is true,
  // reading the channel of generation gen itself while no other call does
  // (so the only call in flight reads its own answer: no thread hand-off).
  // With a deadline, it returns then at the latest.
  template <typename Stop>
  void Await(std::unique_lock<std::mutex>& lock, Pending& pending, int channel, uint64_t gen,
             Stop stop, std::optional<std::chrono::steady_clock::time_point> deadline);
  // Reads and dispatches one frame, or returns on a wake (a cancel) or
  // after poll_ms. Called without mu_, by the call that holds reading_.
  void ReadOne(int channel, uint64_t gen, int poll_ms);
  // The channel of generation gen broke (EOF, an error, a failed write).
  void ChannelFailed(uint64_t gen, const Error& error);
  // The set-up failed (before any call was sent): for good.
  void Fail(const std::string& why);
  // Whether generation gen is the sandbox the calls use (mu_ held).
  bool Current(uint64_t gen) const;
  // The running sandbox of generation gen failed: every call in flight
  // fails with why. restartable: the worker died; the next call restarts it.
  void FailAll(uint64_t gen, const std::string& why, bool restartable);

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
  uint64_t generation_ = 0;  // of the sandbox: a restart makes a new one
  bool reading_ = false;     // a call is reading the channel
  int waiting_ = 0;          // calls waiting on cv_ for an answer or the reader's turn
  // Written by a cancel to wake the call that waits on the channel (which
  // may not be the cancelled one).
  UniqueFd wake_;
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
