// Resource limits: rlimits for memory (address space), file size, open files
// and core dumps; and the process count.
//
// The process count is the subtle one. RLIMIT_NPROC binds an ordinary user
// (and, inside a new user namespace, is counted per namespace, so it limits
// just this sandbox) but never binds host uid 0, and sepp running as root
// maps the command to uid 0. So when sepp runs as root the count is enforced
// by the pids cgroup controller instead (v1 `pids` hierarchy, or a v2
// cgroup with `pids` in its subtree_control): each run gets its own child
// cgroup with pids.max, removed when the run ends. With neither available,
// a policy that asks for a process limit is refused (fail-closed).
#pragma once
#include <sys/resource.h>
#include <sys/types.h>

#include <memory>
#include <string>
#include <vector>

#include "base/result.h"
#include "sandbox/policy.h"

namespace sepp::sandbox {

struct RlimitSetting {
  int resource;
  rlimit value;
};

std::vector<RlimitSetting> BuildRlimits(const Limits& limits);

// In the child. 0 or errno.
int ApplyRlimits(const std::vector<RlimitSetting>& settings, const char** step);

// Where pids cgroups can be made; empty when none is writable.
std::string PidsCgroupParent();

class PidsCgroup {
 public:
  static Result<std::unique_ptr<PidsCgroup>> Create(uint64_t max_pids);
  ~PidsCgroup();
  // The file the child writes "0" to, joining the cgroup itself before it
  // can fork.
  const std::string& join_file() const { return join_file_; }
  // pids.events "max" count: how often a fork was refused.
  uint64_t RefusedForks() const;

 private:
  PidsCgroup(std::string dir, std::string join_file)
      : dir_(std::move(dir)), join_file_(std::move(join_file)) {}
  std::string dir_;
  std::string join_file_;
};

// In the child: join the cgroup through its join_file(). 0 or errno
// (async-signal-safe).
int JoinCgroup(const char* join_file);

// Removes the cgroups left by a sepp that was killed before it could remove
// them: "sepp-<pid>-<n>" whose pid is gone (and which are empty by now, since
// the sandbox died with that sepp). Does the work once per process; the
// launcher calls it while the command runs, off the start-up path.
void RemoveStalePidsCgroups();

// Whether the process limit of this policy can be enforced here.
bool ProcessLimitEnforceable();

}  // namespace sepp::sandbox
