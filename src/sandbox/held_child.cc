// The held child's start mirrors the confined path of Run() (run.cc) step by
// step and shares its pieces (child.h, child_env.h, mounts.h, landlock.h):
// the parent prepares every plan, clone()s the child into new namespaces
// sharing memory until exec (CLONE_VM | CLONE_VFORK) and learns from the
// report pipe whether set-up failed. What differs is only what happens
// after exec: Run() supervises to completion, this hands the pipes over.
#include "sandbox/held_child.h"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>

#include "sandbox/child.h"
#include "sandbox/child_env.h"
#include "sandbox/confinement.h"
#include "sandbox/limits.h"
#include "sandbox/mounts.h"
#include "sandbox/namespaces.h"
#include "sandbox/probe.h"
#include "sandbox/proxy.h"
#include "sandbox/run.h"
#include "sandbox/seccomp.h"

namespace sepp::sandbox {
namespace {

int ChildEntry(void* plan) { RunConfinedChild(*static_cast<const ChildPlan*>(plan)); }

struct Pipes {
  UniqueFd in_r, in_w, out_r, out_w, err_r, err_w;
};

Result<Pipes> MakeThreePipes() {
  Pipes p;
  auto in = MakePipe();
  if (!in.ok()) return in.error();
  auto out = MakePipe();
  if (!out.ok()) return out.error();
  auto err = MakePipe();
  if (!err.ok()) return err.error();
  p.in_r = std::move(in->first);
  p.in_w = std::move(in->second);
  p.out_r = std::move(out->first);
  p.out_w = std::move(out->second);
  p.err_r = std::move(err->first);
  p.err_w = std::move(err->second);
  return p;
}

std::vector<char*> CStrings(const std::vector<std::string>& v, const std::string* first) {
  std::vector<char*> out;
  size_t i = 0;
  if (first) {
    out.push_back(const_cast<char*>(first->c_str()));
    i = 1;
  }
  for (; i < v.size(); ++i) out.push_back(const_cast<char*>(v[i].c_str()));
  out.push_back(nullptr);
  return out;
}

int OpenPidfd(pid_t pid) { return static_cast<int>(syscall(SYS_pidfd_open, pid, 0)); }

}  // namespace

HeldChild::HeldChild() = default;

Result<std::unique_ptr<HeldChild>> HeldChild::Start(const HeldSpec& spec, const Policy& policy) {
  if (spec.argv.empty() || spec.argv[0].empty()) return Error::Make("no command given", "usage");
  auto held = std::unique_ptr<HeldChild>(new HeldChild);
  const bool tty = spec.terminal >= 0;
  Pipes p;
  if (!tty) {
    auto pipes = MakeThreePipes();
    if (!pipes.ok()) return pipes.error();
    p = std::move(*pipes);
  }
  const int in_fd = tty ? spec.terminal : p.in_r.get();
  const int out_fd = tty ? spec.terminal : p.out_w.get();
  const int err_fd = tty ? spec.terminal : p.err_w.get();
  std::vector<std::string> env = BuildChildEnv(policy);

  if (!policy.enabled) {
    std::string exe = ResolveCommand(spec.argv[0], env);
    if (access(exe.c_str(), X_OK) != 0)
      return Error::Make("cannot run " + spec.argv[0] + ": " + ErrnoText(errno), "not_found");
    auto argv = CStrings(spec.argv, &exe);
    auto envp = CStrings(env, nullptr);
    pid_t pid = fork();
    if (pid < 0) return Error::Make("fork: " + ErrnoText(errno));
    if (pid == 0) {
      setsid();
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      ResetSignals();
      dup2(in_fd, 0);
      dup2(out_fd, 1);
      dup2(err_fd, 2);
      if (tty && ioctl(0, TIOCSCTTY, 0) < 0) _exit(126);
      if (!spec.cwd.empty() && chdir(spec.cwd.c_str()) != 0) _exit(126);
      execve(argv[0], argv.data(), envp.data());
      _exit(127);
    }
    held->pid_ = pid;
  } else {
    auto confinement = PrepareConfinement(policy, spec.cwd);
    if (!confinement.ok()) return confinement.error();
    auto& [mounts, landlock, rlimits, cgroup] = *confinement;
    held->cgroup_ = std::move(cgroup);
    auto report = MakePipe();
    if (!report.ok()) return report.error();
    PointTmpdirAtAWritableFolder(policy, &env);
    auto channel = OpenProxyChannel(policy, &landlock, &env);  // none unless proxy mode
    if (!channel.ok()) return channel.error();
    UniqueFd proxy_parent = std::move(channel->parent), proxy_child = std::move(channel->child);
    std::string exe = ResolveCommand(spec.argv[0], env);
    if (access(exe.c_str(), X_OK) != 0)
      return Error::Make("cannot run " + spec.argv[0] + ": " + ErrnoText(errno) +
                         " (looked in the server's PATH: " + EnvValue(env, "PATH") + ")",
                         "not_found");
    if (auto st = RestrictExecute(policy, exe, env, &landlock.rules); !st.ok()) return st.error();
    auto argv = CStrings(spec.argv, &exe);
    auto envp = CStrings(env, nullptr);

    ChildPlan plan;
    plan.argv = argv.data();
    plan.envp = envp.data();
    plan.stdin_fd = in_fd;
    plan.stdout_fd = out_fd;
    plan.stderr_fd = err_fd;
    plan.controlling_tty = tty;
    plan.report_fd = report->second.get();
    plan.proxy_channel = proxy_child.valid() ? proxy_child.get() : -1;
    plan.mounts = &mounts;
    plan.landlock = &landlock;
    plan.rlimits = &rlimits;
    plan.seccomp = SeccompProgram();
    plan.id_maps = OwnIdMaps();
    if (held->cgroup_) plan.cgroup_join_file = held->cgroup_->join_file().c_str();

    unsigned long flags = SandboxCloneFlags() | CLONE_VM | CLONE_VFORK;
    if (policy.net == NetMode::kHost) flags &= ~static_cast<unsigned long>(CLONE_NEWNET);
    alignas(64) char stack[64 * 1024];
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pid_t pid = clone(ChildEntry, stack + sizeof stack, static_cast<int>(flags | SIGCHLD), &plan);
    int clone_err = errno;
    pthread_sigmask(SIG_SETMASK, &old, nullptr);
    if (pid < 0) return Error::Make(NamespaceFailureMessage(clone_err), "sandbox_unavailable");
    held->pid_ = pid;
    held->confined_ = true;
    report->second.Reset();
    proxy_child.Reset();
    // From here on an error return destroys `held`, which kills and reaps.
    if (proxy_parent.valid()) {
      UniqueFd listener = ReceiveProxyListener(proxy_parent.get());
      if (listener.valid()) {
        auto proxy = EgressProxy::Start(std::move(listener), policy.allow_domains);
        if (!proxy.ok()) return proxy.error();
        held->proxy_ = std::move(*proxy);
      }
    }
    ChildFailure failure;
    if (ReadChildFailure(report->first.get(), &failure)) {
      if (std::string_view(failure.step) == "running the command")
        return Error::Make("cannot run " + spec.argv[0] + ": " + ErrnoText(failure.err),
                           "not_found");
      return Error::Make("sepp refuses to start " + spec.argv[0] + ": setting up the sandbox "
                         "failed while " + std::string(failure.step) + ": " +
                             ErrnoText(failure.err),
                         "sandbox_unavailable");
    }
    if (held->cgroup_) RemoveStalePidsCgroups();
  }
  held->pidfd_.Reset(OpenPidfd(held->pid_));
  held->stdin_ = std::move(p.in_w);
  held->stdout_ = std::move(p.out_r);
  held->stderr_ = std::move(p.err_r);
  return held;
}

void HeldChild::Kill() {
  std::lock_guard lock(wait_mu_);
  if (pid_ <= 0 || status_) return;
  // Confined, pid 1 of the namespace takes every process with it; the group
  // covers the unconfined case. Both before the reap (status_ unset, under
  // the lock), while the pid (and so the group's id) cannot be reused.
  if (pidfd_.valid()) syscall(SYS_pidfd_send_signal, pidfd_.get(), SIGKILL, nullptr, 0);
  else kill(pid_, SIGKILL);
  if (!confined_) kill(-pid_, SIGKILL);
}

Status HeldChild::WriteStdin(std::string_view data) {
  if (!stdin_.valid()) return Error::Make("the server's input is closed", "eof");
  // A server that stopped reading must not stop sepp with SIGPIPE: blocked
  // on this thread around the write, and a pending one consumed (the
  // process-wide disposition is never changed: children would inherit it).
  sigset_t pipe_set, old;
  sigemptyset(&pipe_set);
  sigaddset(&pipe_set, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
  int err = 0;
  while (!data.empty()) {
    ssize_t w = write(stdin_.get(), data.data(), data.size());
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      err = errno;
      break;
    }
    data.remove_prefix(static_cast<size_t>(w));
  }
  struct timespec zero = {0, 0};
  while (sigtimedwait(&pipe_set, nullptr, &zero) > 0) {
  }
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  if (err == EPIPE) return Error::Make("the server has closed its input (it exited?)", "eof");
  if (err) return Error::Make("writing to the server: " + ErrnoText(err));
  return Ok();
}

std::optional<int> HeldChild::TryWait() {
  std::lock_guard lock(wait_mu_);
  if (status_ || pid_ <= 0) return status_;
  siginfo_t info{};
  if (waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOHANG | WNOWAIT) != 0 ||
      info.si_pid != pid_)
    return status_;
  // Exited, not reaped yet: the group's id cannot be reused, so what it
  // left behind in its group (unconfined) can still be killed safely.
  if (!confined_) kill(-pid_, SIGKILL);
  int st = 0;
  while (waitpid(pid_, &st, 0) < 0 && errno == EINTR) {
  }
  status_ = st;
  return status_;
}

int HeldChild::Wait() {
  for (;;) {
    if (auto st = TryWait()) return *st;
    if (pid_ <= 0) return 0;
    // Readable once the child has exited; without pidfd (kernel < 5.3) a
    // short sleep stands in.
    pollfd p = {pidfd_.get(), POLLIN, 0};
    if (p.fd >= 0) poll(&p, 1, 1000);
    else usleep(10000);
  }
}

std::vector<Denial> HeldChild::Refusals() const {
  return proxy_ ? proxy_->Refusals() : std::vector<Denial>{};
}

HeldChild::~HeldChild() {
  if (pid_ > 0) {
    Kill();
    Wait();
  }
  proxy_.reset();
}

}  // namespace sepp::sandbox
