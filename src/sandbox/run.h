// Run: the one launcher every child process of sepp goes through.
//
// Run() starts argv in its own session and process group, feeds it stdin,
// streams its output (stdout and stderr interleaved in one pipe, in the order
// written) to on_output as it arrives, and waits. On timeout, on cancel, or
// when sepp dies, the whole process tree is killed: nothing outlives Run().
// The child is confined by policy (see policy.h); its environment is built
// from the policy's allowlist only, so provider keys never reach it.
//
// Blocking; call it from a worker thread. on_output is called on the calling
// thread and must not throw.
#pragma once
#include <sys/types.h>

#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "base/cancel.h"
#include "base/fd.h"
#include "base/result.h"
#include "sandbox/denial.h"
#include "sandbox/policy.h"

namespace sepp::sandbox {

struct RunSpec {
  std::vector<std::string> argv;   // argv[0] is looked up in PATH
  std::filesystem::path cwd;
  std::string stdin_data;          // empty: stdin is /dev/null
  double timeout_s = 0;            // 0: policy.limits.timeout_s, else none
  // The child uses sepp's own stdin and stdout (for `sepp sandbox`, so an
  // interactive program keeps its terminal); only its stderr goes through
  // on_output (so refusals can be explained). stdin_data is then ignored.
  bool inherit_stdio = false;
  // Confined runs: a minimal init is pid 1 of the sandbox and the command
  // pid 2. The init reaps orphans (a long-running program that does not,
  // such as a wrapped agent, would otherwise collect zombies that count
  // against the process limit) and gives the command normal signal
  // behaviour. Costs one wake-up at exit; without it the command is pid 1.
  bool init = false;
  // Inside the session sandbox only (MarkInsideSessionSandbox; ignored
  // elsewhere): when this token fires, Run() stops waiting and leaves the
  // command running in its own process group. It returns with `detached`
  // set, and on_detach gets the command's pid and the read end of its
  // output pipe: from then on the callee owns both (it reaps the pid, then
  // calls ReleaseOwnedChild). Looked at between reads, so within 200 ms.
  CancelToken* detach = nullptr;
  std::function<void(pid_t, UniqueFd)> on_detach;
};

struct RunResult {
  int exit_code = -1;      // valid when !signaled
  int term_signal = 0;     // the signal that ended it, if any
  bool timed_out = false;
  bool cancelled = false;
  // What the policy forbade and the command tried, typed where the cause is
  // known (the launcher's explanations, the proxy's refusals, planted git
  // control files), with plain words ("network access is off for this
  // command: ...").
  std::vector<Denial> denials;
  // The sandbox itself stopped the command (time limit, process limit,
  // cancel), as opposed to the command failing on its own.
  bool killed_by_sandbox = false;
  // spec.detach fired: the command runs on; on_detach owns it.
  bool detached = false;
  pid_t pid = 0;
};

using OutputFn = std::function<void(std::string_view)>;

// Returns an Error only when the command could not be started (or the
// sandbox refused: kind "sandbox_unavailable"); a command that ran and failed
// is a RunResult with its exit status.
Result<RunResult> Run(const RunSpec& spec, const Policy& policy, const OutputFn& on_output,
                      CancelToken* cancel);

// Called once by the session sandbox's tool worker (tools/worker_main.h):
// this process is already confined by the session's policy, so Run() only
// starts the command in its own session and process group with its time
// limit and kills its whole tree at the end, and still explains denials.
// As pid 1 of the sandbox it also drops PDEATHSIG from its commands: that
// signal fires when the *thread* that started a command ends (the worker's
// threads come and go), and the sandbox's end kills them all anyway.
void MarkInsideSessionSandbox();

// The environment a child gets under policy: the allowlisted names taken
// from sepp's own environment, minus anything secret-looking, plus env_set.
std::vector<std::string> BuildChildEnv(const Policy& policy);

}  // namespace sepp::sandbox
