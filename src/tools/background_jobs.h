// Background jobs: commands that go on running after their bash call has
// returned (bash's run_in_background, or a running call the user sends to
// the background), in the session sandbox's tool worker only.
//
// The worker is pid 1 of the sandbox's pid namespace, so a job lives as long
// as the sandbox and no longer: when the session ends (or sepp dies, even by
// SIGKILL) pid 1 dies and the kernel kills every process in the namespace.
// Later bash calls share the sandbox's network namespace, /tmp and
// processes, so a server started in one call answers the next.
//
// Each job's output (stdout and stderr, secrets redacted) goes to a bounded
// log in the sandbox's own /tmp, /tmp/sepp-UID-output/bg-PID-XXXX.log,
// that read, grep or `tail` reach: at most kLogBytes a file; when it is
// full it becomes LOG.1 (replacing the one before) and a fresh LOG starts,
// so the newest output is always there and the two never pass 2 × kLogBytes.
// Reaping: the job's pid stays registered with the orphan reaper
// (sandbox/orphan_reaper.h) until the job's own thread has reaped it.
#pragma once
#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "base/cancel.h"
#include "base/fd.h"
#include "base/result.h"

namespace sepp::tools {

class BackgroundJobs {
 public:
  static constexpr size_t kLogBytes = 4u << 20;
  static constexpr size_t kMaxRunning = 32;

  struct Info {
    pid_t pid = 0;
    std::string command;
    std::filesystem::path log;
    bool running = true;
    std::optional<int> exit_code;    // once it exited
    std::optional<int> term_signal;  // once a signal ended it
  };

  explicit BackgroundJobs(std::filesystem::path log_dir) : log_dir_(std::move(log_dir)) {}
  // Never destroyed while the worker runs (it ends with _exit, and the
  // kernel then kills the jobs).
  BackgroundJobs(const BackgroundJobs&) = delete;
  BackgroundJobs& operator=(const BackgroundJobs&) = delete;

  // Why no new job may start now ("" when one may): the running cap.
  std::string RefuseNew();
  // Takes over a command that Run() detached: its pid (registered as owned)
  // and its output pipe. already_written: the output the call has seen so
  // far, written to the top of the log. Returns the log's path.
  Result<std::filesystem::path> Adopt(pid_t pid, UniqueFd output, const std::string& command,
                                      std::string_view already_written);
  std::optional<Info> Find(pid_t pid);

 private:
  struct Job;
  void Pump(std::shared_ptr<Job> job, UniqueFd output);
  void Reap(std::shared_ptr<Job> job);

  const std::filesystem::path log_dir_;
  std::mutex mu_;
  std::map<pid_t, std::shared_ptr<Job>> jobs_;  // guarded by mu_; the newest per pid
  size_t running_ = 0;                          // guarded by mu_
};

// The worker's jobs: set once by the tool worker when it is pid 1 of its
// sandbox; null everywhere else (sepp itself, a one-off sandbox, a worker
// that is not pid 1), where nothing may outlive its call.
void SetSessionJobs(BackgroundJobs* jobs);
BackgroundJobs* SessionJobs();

// The token that sends the call running on this thread to the background
// (the worker's "background" frame fires it); null outside the worker's
// calls. Set by the worker around each call.
CancelToken* CurrentCallDetach();
class CallDetachScope {
 public:
  explicit CallDetachScope(CancelToken* token);
  ~CallDetachScope();
  CallDetachScope(const CallDetachScope&) = delete;
  CallDetachScope& operator=(const CallDetachScope&) = delete;

 private:
  CancelToken* previous_;
};

}  // namespace sepp::tools
