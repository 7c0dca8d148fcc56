// SessionSandbox: one confined environment per session, for its whole life.
//
// Start() launches `exe args...` the way Run() launches a command (the same
// namespaces, mount plan, Landlock, seccomp, limits and scrubbed
// environment, see run.h), but keeps it: the process gets one end of a unix
// socketpair as its stdin and stdout, and the caller talks to it over the
// other end (tools/worker_protocol.h). The process is pid 1 of the
// sandbox's pid namespace; when it exits the kernel kills everything else in
// the sandbox, and with the mount namespace goes its private /tmp.
// Destroying the SessionSandbox kills pid 1 and waits for it: nothing started
// inside outlives the session. If sepp dies, pid 1 dies with it (PDEATHSIG).
//
// exe is a fresh exec (never a fork of sepp, whose memory holds provider
// keys). Its own path is made visible read-only inside the sandbox so that
// it can be executed there.
#pragma once
#include <sys/types.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "base/fd.h"
#include "base/result.h"
#include "sandbox/denial.h"
#include "sandbox/limits.h"
#include "sandbox/policy.h"

namespace sepp::sandbox {

class SessionSandbox {
 public:
  // policy.enabled must be true (an unconfined session needs no sandbox).
  // Returns once the process has exec'd; kind "sandbox_unavailable" when the
  // sandbox cannot be set up.
  static Result<std::unique_ptr<SessionSandbox>> Start(const std::filesystem::path& exe,
                                                       const std::vector<std::string>& args,
                                                       const Policy& policy,
                                                       const std::filesystem::path& cwd);
  ~SessionSandbox();
  SessionSandbox(const SessionSandbox&) = delete;
  SessionSandbox& operator=(const SessionSandbox&) = delete;

  // sepp's end of the socketpair (SOCK_STREAM, close-on-exec).
  int channel() const { return channel_.get(); }
  // Reads what the sandbox wrote to its stderr so far (set-up messages of
  // the worker); non-blocking.
  std::string TakeStderr();
  pid_t pid() const { return pid_; }
  // Removes git control files a command created where none existed when the
  // sandbox was set up (commondir, config.worktree: they cannot be made
  // read-only ahead of time, see git_control.h); one denial per removal, for
  // that command's denials. The session outlives its commands, so the caller
  // runs this after each command, not only at the end.
  std::vector<Denial> RemovePlantedGitControl() const;

 private:
  SessionSandbox() = default;
  pid_t pid_ = -1;
  UniqueFd channel_, stderr_;
  std::unique_ptr<PidsCgroup> cgroup_;  // when the process limit needs one
  std::vector<std::string> git_absent_;  // from the mount plan
};

}  // namespace sepp::sandbox
