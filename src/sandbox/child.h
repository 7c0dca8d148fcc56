// The confined child: everything between clone() and exec, in order.
//
// The child shares the parent's memory (posix_spawn style, CLONE_VM with
// CLONE_VFORK) and the parent may be multi-threaded, so the child touches
// no allocator and no lock: ChildPlan holds every string and structure it
// needs, prepared by the parent (run.cc), and the child only makes syscalls
// on them. It starts with every signal blocked and resets dispositions
// before unblocking, so no handler of sepp's ever runs in it.
#pragma once
#include <linux/filter.h>

#include <vector>

#include "sandbox/landlock.h"
#include "sandbox/limits.h"
#include "sandbox/mounts.h"
#include "sandbox/namespaces.h"

namespace sepp::sandbox {

struct ChildPlan {
  char* const* argv = nullptr;  // argv[0] already resolved against PATH
  char* const* envp = nullptr;
  int stdin_fd = -1;     // -1: keep the inherited fd 0
  int stdout_fd = -1;    // -1: keep the inherited fd 1
  int stderr_fd = -1;    // -1: keep the inherited fd 2
  bool controlling_tty = false;  // fd 0 is a terminal: make it the session's (TIOCSCTTY)
  int report_fd = -1;    // write end (close-on-exec): a ChildFailure on error
  int status_fd = -1;    // write end: the command's wait status, from pid 1
  bool use_init = false;  // see RunConfinedChild
  int proxy_channel = -1;  // proxy mode: where to send the listening socket
  // Bring up lo in the sandbox's own (empty) network namespace: the session
  // sandbox, where a server one call starts in the background answers the
  // next. Nothing outside the namespace becomes reachable.
  bool loopback = false;
  IdMaps id_maps;                         // written by the child itself
  const char* cgroup_join_file = nullptr;  // pids cgroup to join first, or none
  const MountPlan* mounts = nullptr;
  const LandlockPlan* landlock = nullptr;
  const std::vector<RlimitSetting>* rlimits = nullptr;
  const sock_fprog* seccomp = nullptr;
};

// Written to report_fd when set-up fails; the parent turns it into an Error.
struct ChildFailure {
  int err = 0;
  char step[120] = {};
};

// The parent's side: waits on the read end of report_fd until the child
// exec'd (EOF: false) or reported a set-up failure (true, *out filled, its
// step NUL-terminated).
bool ReadChildFailure(int fd, ChildFailure* out);

// The child is pid 1 of the sandbox's pid namespace. After confining itself
// it execs the command, which is then pid 1 (the kernel kills whatever is
// left when it exits); or, with use_init, it vfork()s the command (pid 2)
// and stays as a minimal init: it reaps every
// orphan (a wrapped agent as pid 1 would leave zombies that count against
// the process limit), and when the command ends it writes the command's wait
// status to status_fd and exits, which makes the kernel kill everything left.
[[noreturn]] void RunConfinedChild(const ChildPlan& plan);

// Default dispositions and an empty signal mask (async-signal-safe).
void ResetSignals();

}  // namespace sepp::sandbox
