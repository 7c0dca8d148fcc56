// The orphan reaper of a process that is pid 1 of its pid namespace (the
// session sandbox's tool worker, tools/worker_main.cc): every process whose
// parent exits is re-parented to pid 1, and its zombie stays (and counts
// against the process limit) until pid 1 reaps it. A reaper that called
// waitpid(-1) blindly would also take the exit status of a command that a
// call is waiting for (Run() reaps its own child), so a caller that starts a
// child it will wait for owns it: StartOwnedChild registers the pid under
// the same lock the reaper takes, before the child can be seen exited, and
// the reaper leaves an owned zombie to its owner.
#pragma once
#include <sys/types.h>

#include <functional>

namespace sepp::sandbox {

// Enables the reaper. Call it before any other thread exists: it blocks
// SIGCHLD in the calling thread, so that every thread made after inherits
// the mask and the signal waits for the reaper's sigwait. The reaper's
// thread itself starts with the first owned child: before a call starts a
// process there is nothing to reap, and a session whose calls never do
// (file tools only) never makes the thread.
void EnableOrphanReaper();

// Runs start (which starts a child and returns its pid, or -1) with the
// registry locked and registers the pid as owned; the first one starts the
// reaper's thread when it is enabled. Cheap when no reaper runs.
pid_t StartOwnedChild(const std::function<pid_t()>& start);

// After the owner has reaped pid: the reaper may look past it again.
void ReleaseOwnedChild(pid_t pid);

}  // namespace sepp::sandbox
