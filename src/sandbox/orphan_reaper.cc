// The reaper peeks at the next zombie (waitid with WNOWAIT, which leaves
// it), reaps it by pid unless a call owns it, and waits for the owner's
// reap when one does (the owner reaps as soon as it sees the exit; the
// kernel reports one zombie at a time, so the reaper cannot look past it).
#include "sandbox/orphan_reaper.h"

#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>

#include <condition_variable>
#include <mutex>
#include <set>
#include <thread>

namespace sepp::sandbox {
namespace {

// Made at first use, not by a static initialiser: the tool worker runs
// before those (app/tool_worker_dispatch.cc), and this is its code.
struct Reaper {
  std::mutex mu;
  std::condition_variable released;
  std::set<pid_t> owned;  // guarded by mu
  bool started = false;   // guarded by mu
};
Reaper& State() {
  static Reaper r;
  return r;
}
bool enabled = false;  // set before any other thread exists
sigset_t chld;         // set with enabled

void ReapOrphans() {
  Reaper& r = State();
  std::unique_lock<std::mutex> lock(r.mu);
  for (;;) {
    siginfo_t info{};
    if (waitid(P_ALL, 0, &info, WEXITED | WNOHANG | WNOWAIT) != 0 || info.si_pid == 0) return;
    pid_t pid = info.si_pid;
    if (r.owned.count(pid)) {
      r.released.wait(lock, [&] { return !r.owned.count(pid); });
      continue;
    }
    int status;
    waitpid(pid, &status, WNOHANG);
  }
}

}  // namespace

void EnableOrphanReaper() {
  sigemptyset(&chld);
  sigaddset(&chld, SIGCHLD);
  pthread_sigmask(SIG_BLOCK, &chld, nullptr);
  enabled = true;
}

pid_t StartOwnedChild(const std::function<pid_t()>& start) {
  Reaper& r = State();
  std::lock_guard<std::mutex> lock(r.mu);
  if (enabled && !r.started) {
    // Before the child: every process that can become an orphan descends
    // from an owned child. The thread waits for mu before its first look.
    r.started = true;
    std::thread([] {
      for (;;) {
        ReapOrphans();  // also those that exited before the first signal
        int sig;
        sigwait(&chld, &sig);
      }
    }).detach();
  }
  pid_t pid = start();
  if (pid > 0) r.owned.insert(pid);
  return pid;
}

void ReleaseOwnedChild(pid_t pid) {
  Reaper& r = State();
  {
    std::lock_guard<std::mutex> lock(r.mu);
    r.owned.erase(pid);
  }
  r.released.notify_all();
}

}  // namespace sepp::sandbox
