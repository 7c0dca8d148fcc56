// HeldChild: a confined process that sepp keeps and talks to (an MCP
// server), where Run() starts a command and waits for it to finish.
//
// Start() confines argv exactly as Run() does (namespaces, mount plan,
// Landlock with the policy's execute allowlist, seccomp, limits, scrubbed
// environment, the egress proxy in proxy mode) and hands back three pipes:
// the child's stdin (ours to write), stdout and stderr (ours to read). The
// process is pid 1 of its pid namespace: when it exits, the kernel kills
// every process it started, so Kill() on it ends the whole tree, and the
// destructor does that and reaps it. Nothing started inside outlives the
// HeldChild. If sepp dies, pid 1 dies too (PR_SET_PDEATHSIG, which fires
// when the *thread* that started it exits: start it from a thread that
// lives as long as the child should).
//
// Unconfined (policy.enabled false, `--sandbox off`), the child gets its own
// session and process group and the scrubbed environment, and Kill() sends
// SIGKILL to the group.
#pragma once
#include <sys/types.h>

#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/fd.h"
#include "base/result.h"
#include "sandbox/denial.h"
#include "sandbox/policy.h"

namespace sepp::sandbox {

class EgressProxy;
class PidsCgroup;

struct HeldSpec {
  std::vector<std::string> argv;  // argv[0] is looked up in the child's PATH
  std::filesystem::path cwd;      // must be visible under the policy
  // The slave of a pty the caller opened (O_NOCTTY), or -1: the child's
  // stdin, stdout and stderr and its controlling terminal. The caller talks
  // to the master; the HeldChild then has no pipes (stdin_fd() and the
  // others are -1). Opened outside, so the sandbox needs no devpts of its own.
  int terminal = -1;
};

class HeldChild {
 public:
  // Returns once the command has exec'd. Errors: kind "sandbox_unavailable"
  // (the sandbox cannot be set up), "usage" (no command, a program of
  // exec_only not found), or "not_found" when argv[0] cannot be run.
  static Result<std::unique_ptr<HeldChild>> Start(const HeldSpec& spec, const Policy& policy);
  ~HeldChild();
  HeldChild(const HeldChild&) = delete;
  HeldChild& operator=(const HeldChild&) = delete;

  // Close-on-exec; the read ends are blocking (callers poll them).
  int stdin_fd() const { return stdin_.get(); }
  int stdout_fd() const { return stdout_.get(); }
  int stderr_fd() const { return stderr_.get(); }
  // Writes all of data to the child's stdin, without SIGPIPE; kind "eof"
  // when the child no longer reads. The caller serialises writers.
  Status WriteStdin(std::string_view data);
  // Closes our end of the child's stdin (a polite "please exit").
  void CloseStdin() { stdin_.Reset(); }
  pid_t pid() const { return pid_; }
  // A pidfd for the child (readable once it has exited), or -1 on kernels
  // without pidfd_open.
  int pidfd() const { return pidfd_.get(); }

  // Kill, TryWait and Wait are thread-safe (a reader thread may wait while
  // another closes).
  // SIGKILL to the whole tree; idempotent, safe before and after Wait().
  void Kill();
  // The wait status once the child has exited (reaps it), else nullopt.
  std::optional<int> TryWait();
  // Blocks until it has exited; returns the wait status.
  int Wait();

  // What the egress proxy refused so far, typed (denial.h).
  std::vector<Denial> Refusals() const;

 private:
  HeldChild();
  pid_t pid_ = -1;
  bool confined_ = false;
  std::mutex wait_mu_;  // guards status_ and the reap
  std::optional<int> status_;
  UniqueFd stdin_, stdout_, stderr_, pidfd_;
  std::unique_ptr<PidsCgroup> cgroup_;
  std::unique_ptr<EgressProxy> proxy_;
};

}  // namespace sepp::sandbox
