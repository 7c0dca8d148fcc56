// Order matters: die with the parent, write our own id maps, join the pids
// cgroup (before anything can fork), new session, stdio, host name, the
// proxy's listener, the filesystem view (mounts and chroot or pivot_root), a
// fresh session keyring, rlimits, close every other descriptor on exec,
// no_new_privs, Landlock, drop capabilities, and seccomp last (it forbids
// mount and keyctl, used above), then exec.
#include "sandbox/child.h"

#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>

#include "sandbox/caps.h"
#include "sandbox/namespaces.h"
#include "sandbox/proxy.h"
#include "sandbox/seccomp.h"

namespace sepp::sandbox {
namespace {

#ifndef __NR_close_range
#define __NR_close_range 436
#endif
constexpr unsigned kCloseRangeCloexec = 1u << 2;
constexpr int kKeyctlJoinSessionKeyring = 1;

[[noreturn]] void Die(const ChildPlan& plan, const char* step, int err) {
  ChildFailure f;
  f.err = err;
  size_t n = strlen(step);
  if (n >= sizeof f.step) n = sizeof f.step - 1;
  memcpy(f.step, step, n);
  ssize_t ignored = write(plan.report_fd, &f, sizeof f);
  (void)ignored;
  _exit(err == ENOENT ? 127 : 126);
}

}  // namespace

void ResetSignals() {
  // sepp may ignore SIGPIPE or block signals in its threads; the command
  // starts with the defaults (an ignored SIGPIPE would survive exec).
  for (int sig = 1; sig < NSIG; ++sig)
    if (sig != SIGKILL && sig != SIGSTOP) signal(sig, SIG_DFL);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
}

void RunConfinedChild(const ChildPlan& plan) {
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  ResetSignals();
  if (int e = WriteOwnIdMaps(plan.id_maps)) Die(plan, "writing the uid and gid maps", e);
  if (plan.cgroup_join_file)
    if (int e = JoinCgroup(plan.cgroup_join_file)) Die(plan, "joining the pids cgroup", e);

  if (setsid() < 0) Die(plan, "starting a new session", errno);
  if (plan.stdin_fd >= 0 && dup2(plan.stdin_fd, 0) < 0) Die(plan, "connecting stdin", errno);
  if (plan.stdout_fd >= 0 && dup2(plan.stdout_fd, 1) < 0) Die(plan, "connecting stdout", errno);
  if (plan.stderr_fd >= 0 && dup2(plan.stderr_fd, 2) < 0) Die(plan, "connecting stderr", errno);
  if (plan.controlling_tty && ioctl(0, TIOCSCTTY, 0) < 0) Die(plan, "taking the terminal", errno);
  if (int e = SetUpUts()) Die(plan, "setting the host name", e);
  const char* step = "";
  if (plan.proxy_channel >= 0) {
    if (int e = SendProxyListener(plan.proxy_channel, &step)) Die(plan, step, e);
    close(plan.proxy_channel);
  } else if (plan.loopback) {
    if (int e = BringUpLoopback()) Die(plan, "bringing up loopback", e);
  }

  if (int e = ApplyMountPlan(*plan.mounts, &step)) Die(plan, step, e);

  // A new, empty session keyring: nothing of the user's keys is reachable
  // (keyctl itself is then forbidden by seccomp).
  if (syscall(SYS_keyctl, kKeyctlJoinSessionKeyring, nullptr) < 0 && errno != ENOSYS)
    Die(plan, "joining a fresh session keyring", errno);

  if (int e = ApplyRlimits(*plan.rlimits, &step)) Die(plan, step, e);

  // Every inherited descriptor but stdio closes at exec (the report pipe too,
  // which is how the parent learns that exec succeeded).
  if (syscall(__NR_close_range, 3u, ~0u, kCloseRangeCloexec) != 0) {
    for (int fd = 3; fd < 65536; ++fd)
      if (fd != plan.report_fd) fcntl(fd, F_SETFD, FD_CLOEXEC);
  }
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) Die(plan, "setting no_new_privs", errno);
  if (plan.landlock && plan.landlock->abi > 0)
    if (int e = ApplyLandlock(*plan.landlock, &step)) Die(plan, step, e);
  if (int e = DropAllCapabilities(&step)) Die(plan, step, e);
  if (int e = InstallSeccomp(plan.seccomp)) Die(plan, "installing the seccomp filter", e);

  if (!plan.use_init) {
    // The command itself is pid 1: one process fewer, one wake-up fewer.
    execve(plan.argv[0], plan.argv, plan.envp);
    Die(plan, "running the command", errno);
  }
  // Before the fork: pid 1 holds a copy of sepp's memory and environment
  // (provider keys), so nothing in the sandbox may read its /proc files.
  // (The shared mm makes pid 2 undumpable too, until its exec resets it.)
  prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
  pid_t command = vfork();
  if (command < 0) Die(plan, "starting the command", errno);
  if (command == 0) {
    execve(plan.argv[0], plan.argv, plan.envp);
    Die(plan, "running the command", errno);
  }
  // pid 1 keeps nothing but the status pipe: the report pipe closing tells
  // the parent the command has exec'd (or holds its failure record), and
  // stdin, the output pipe and the rest must see EOF when the command is done
  // with them.
  if (plan.status_fd > 0) syscall(__NR_close_range, 0u, static_cast<unsigned>(plan.status_fd - 1), 0u);
  syscall(__NR_close_range, static_cast<unsigned>(plan.status_fd + 1), ~0u, 0u);
  for (;;) {
    int status = 0;
    pid_t done = waitpid(-1, &status, 0);
    if (done < 0 && errno == EINTR) continue;
    if (done == command || done < 0) {
      if (done == command) {
        ssize_t ignored = write(plan.status_fd, &status, sizeof status);
        (void)ignored;
      }
      _exit(0);
    }
  }
}

bool ReadChildFailure(int fd, ChildFailure* out) {
  ssize_t got = 0;
  for (;;) {
    ssize_t r = read(fd, reinterpret_cast<char*>(out) + got, sizeof *out - static_cast<size_t>(got));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    got += r;
    if (got == static_cast<ssize_t>(sizeof *out)) break;
  }
  if (got != static_cast<ssize_t>(sizeof *out)) return false;
  out->step[sizeof out->step - 1] = '\0';
  return true;
}

}  // namespace sepp::sandbox
