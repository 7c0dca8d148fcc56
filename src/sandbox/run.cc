// The launcher. Unconfined (policy.enabled == false, `--sandbox off`), the
// child only gets its own session, process group and scrubbed environment.
// Confined, the parent prepares everything (mount plan, Landlock rules,
// seccomp program, rlimits, resolved argv, id maps) and clone()s the child
// into new namespaces the way posix_spawn does: sharing memory, on a stack
// of its own, with the parent asleep until the child has exec'd or died
// (CLONE_VM | CLONE_VFORK: no page tables copied, no copy-on-write faults,
// nothing for exec to tear down). child.cc does everything between clone
// and exec, its own id maps and cgroup included. The `report` pipe carries a
// ChildFailure if set-up fails, and closes silently at exec (close-on-exec),
// which is how the parent knows the command started.
#include "sandbox/run.h"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <algorithm>
#include <atomic>
#include <cstring>
#include <filesystem>

#include "base/clock.h"
#include "base/fd.h"
#include "base/log.h"
#include "base/secrets.h"
#include "sandbox/child.h"
#include "sandbox/child_env.h"
#include "sandbox/confinement.h"
#include "sandbox/denials.h"
#include "sandbox/git_control.h"
#include "sandbox/limits.h"
#include "sandbox/mounts.h"
#include "sandbox/namespaces.h"
#include "sandbox/orphan_reaper.h"
#include "sandbox/probe.h"
#include "sandbox/proxy.h"
#include "sandbox/seccomp.h"

extern char** environ;

namespace sepp::sandbox {
namespace {

const char* const kDefaultEnv[] = {"PATH", "HOME", "USER", "LOGNAME", "LANG", "LC_ALL",
                                   "LC_CTYPE", "TERM", "TZ", "SHELL", "TMPDIR"};
constexpr size_t kTailBytes = 16384;
std::atomic<bool> inside_session_sandbox{false};
// Inside the session sandbox as its pid 1: commands need no PDEATHSIG (see
// MarkInsideSessionSandbox) and may be detached (RunSpec::detach).
std::atomic<bool> session_pid_one{false};

// The unconfined child, between clone and exec. It shares sepp's memory
// (CLONE_VM, see StartUnconfined) and sepp may be multi-threaded, so it
// makes only syscalls: no allocation, no lock, no locale.
[[noreturn]] void ExecChild(const RunSpec& spec, int out_fd, int in_fd,
                            char* const* argv, char* const* envp) {
  setsid();
  if (!session_pid_one.load(std::memory_order_relaxed)) prctl(PR_SET_PDEATHSIG, SIGKILL);
  ResetSignals();
  if (!spec.inherit_stdio) {
    dup2(in_fd, 0);
    dup2(out_fd, 1);
  }
  dup2(out_fd, 2);
  if (!spec.cwd.empty() && chdir(spec.cwd.c_str()) != 0) {
    const char msg[] = "sepp: cannot enter the working directory\n";
    ssize_t ignored = write(2, msg, sizeof msg - 1);
    (void)ignored;
    _exit(126);
  }
  execve(argv[0], argv, envp);
  int err = errno;
  const char msg[] = "sepp: cannot run the command: ";
  ssize_t ignored = write(2, msg, sizeof msg - 1);
  // The English text from a static table (strerror may translate, which
  // allocates).
  const char* e = strerrordesc_np(err);
  if (!e) e = "unknown error";
  ignored = write(2, e, strlen(e));
  ignored = write(2, "\n", 1);
  (void)ignored;
  _exit(err == ENOENT ? 127 : 126);
}

struct UnconfinedPlan {
  const RunSpec* spec;
  int out_fd, in_fd;
  char* const* argv;
  char* const* envp;
};

int UnconfinedEntry(void* arg) {
  const auto& u = *static_cast<const UnconfinedPlan*>(arg);
  ExecChild(*u.spec, u.out_fd, u.in_fd, u.argv, u.envp);
}

// Starts the unconfined child the way posix_spawn does (shared memory, our
// thread asleep until it has exec'd: no page tables copied, no
// copy-on-write faults), as a child this call owns: the orphan reaper of a
// tool worker that is pid 1 (orphan_reaper.h) leaves its exit status to
// Supervise.
pid_t StartUnconfined(const UnconfinedPlan& plan) {
  alignas(64) char stack[16 * 1024];
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  pid_t pid = StartOwnedChild([&] {
    return clone(UnconfinedEntry, stack + sizeof stack, CLONE_VM | CLONE_VFORK | SIGCHLD,
                 const_cast<UnconfinedPlan*>(&plan));
  });
  int err = errno;
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  errno = err;
  return pid;
}

class Tail {
 public:
  void Add(std::string_view s) {
    text_.append(s);
    if (text_.size() > 2 * kTailBytes) text_.erase(0, text_.size() - kTailBytes);
  }
  std::string_view view() const { return text_; }

 private:
  std::string text_;
};

struct Pipes {
  UniqueFd out_r, out_w, in_r, in_w, devnull;
};

// A cancel callback may run on another thread at any time until its
// registration is gone. It signals through a pidfd, which names this one
// process even if its pid is reaped and reused; and the registration is
// dropped before the child is reaped (Supervise), since a group signal by
// pid is only safe while the pid cannot be reused.
struct CancelHook {
  UniqueFd pidfd;  // declared first: destroyed after the registration
  std::unique_ptr<CancelToken::Registration> reg;
};

int OpenPidfd(pid_t pid) { return static_cast<int>(syscall(SYS_pidfd_open, pid, 0)); }

void SendSignal(int pidfd, pid_t pid, int sig) {
  if (pidfd >= 0) {
    syscall(SYS_pidfd_send_signal, pidfd, sig, nullptr, 0);
  } else {
    kill(pid, sig);  // no pidfd (kernel < 5.3): the hook is dropped before the reap all the same
  }
}

// Streams output and feeds stdin until the child exits or the deadline
// passes; then kills whatever is left of the group. Shared by both modes.
// hook->reg is reset before the child is reaped. A detach (RunSpec::detach)
// returns with the child running and unreaped, result->detached set.
void Supervise(pid_t pid, const RunSpec& spec, double timeout, Pipes& p, const OutputFn& on_output,
               Tail* tail, RunResult* result, int* status, CancelHook* hook) {
  const bool may_detach = spec.detach && spec.on_detach && session_pid_one.load();
  double deadline = timeout > 0 ? MonotonicSeconds() + timeout : 0;
  size_t stdin_off = 0;
  char buf[65536];
  auto emit = [&](const char* data, ssize_t n) {
    std::string_view v(data, static_cast<size_t>(n));
    tail->Add(v);
    if (on_output) on_output(v);
  };
  int pidfd = hook->pidfd.get();
  for (;;) {
    pollfd fds[3];
    int nfds = 0;
    int out_i = -1, in_i = -1;
    if (p.out_r.valid()) {
      out_i = nfds;
      fds[nfds++] = {p.out_r.get(), POLLIN, 0};
    }
    if (p.in_w.valid()) {
      in_i = nfds;
      fds[nfds++] = {p.in_w.get(), POLLOUT, 0};
    }
    if (pidfd >= 0) fds[nfds++] = {pidfd, POLLIN, 0};
    if (may_detach && spec.detach->cancelled()) {
      hook->reg.reset();  // an abort from now on is the job's owner's business
      result->detached = true;
      return;
    }
    int wait_ms = 200;
    if (deadline > 0) {
      double left = deadline - MonotonicSeconds();
      if (left <= 0) {
        result->timed_out = true;
        result->killed_by_sandbox = true;
        kill(pid, SIGKILL);
        kill(-pid, SIGKILL);
        break;
      }
      wait_ms = static_cast<int>(std::min(left * 1000 + 1, 200.0));
    }
    int n = poll(fds, static_cast<nfds_t>(nfds), wait_ms);
    if (n < 0 && errno != EINTR) break;
    siginfo_t info{};
    if (waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == pid) {
      // The command itself is done (not reaped yet: WNOWAIT). Take what
      // output is already there; a background process still holding the
      // pipe must not keep us waiting.
      if (p.out_r.valid()) {
        fcntl(p.out_r.get(), F_SETFL, O_NONBLOCK);
        ssize_t r;
        while ((r = read(p.out_r.get(), buf, sizeof buf)) > 0) emit(buf, r);
      }
      break;
    }
    if (n <= 0) continue;
    if (in_i >= 0 && (fds[in_i].revents & (POLLOUT | POLLERR | POLLHUP))) {
      ssize_t w = write(p.in_w.get(), spec.stdin_data.data() + stdin_off,
                        spec.stdin_data.size() - stdin_off);
      if (w > 0) stdin_off += static_cast<size_t>(w);
      if (w < 0 && errno != EAGAIN && errno != EINTR) stdin_off = spec.stdin_data.size();
      if (stdin_off >= spec.stdin_data.size()) p.in_w.Reset();
    }
    if (out_i >= 0 && (fds[out_i].revents & (POLLIN | POLLHUP | POLLERR))) {
      ssize_t r = read(p.out_r.get(), buf, sizeof buf);
      if (r > 0) {
        emit(buf, r);
      } else if (r == 0 || (errno != EINTR && errno != EAGAIN)) {
        p.out_r.Reset();  // every writer closed; wait for the exit itself
      }
    }
  }
  // Make sure no member of the tree lingers (a detached `sleep &` would
  // otherwise outlive the call). Confined, killing pid 1 of the namespace
  // kills them all; unconfined, the group is the best we have. Both before
  // the reap, while the pid (and so the group's id) cannot be reused.
  kill(-pid, SIGKILL);
  SendSignal(pidfd, pid, SIGKILL);
  hook->reg.reset();
  while (waitpid(pid, status, 0) < 0 && errno == EINTR) {
  }
}

Result<Pipes> MakePipes(const RunSpec& spec) {
  Pipes p;
  auto out = MakePipe();
  if (!out.ok()) return out.error();
  p.out_r = std::move(out->first);
  p.out_w = std::move(out->second);
  if (spec.inherit_stdio) return p;
  if (spec.stdin_data.empty()) {
    p.devnull.Reset(::open("/dev/null", O_RDONLY | O_CLOEXEC));
  } else {
    auto in = MakePipe();
    if (!in.ok()) return in.error();
    p.in_r = std::move(in->first);
    p.in_w = std::move(in->second);
  }
  return p;
}

void FinishResult(const Policy& policy, const RunSpec& spec, double timeout, int status,
                  uint64_t refused_forks, const Tail& tail, CancelToken* cancel, RunResult* r) {
  if (WIFEXITED(status)) r->exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) r->term_signal = WTERMSIG(status);
  r->cancelled = cancel && cancel->cancelled();
  if (r->cancelled) r->killed_by_sandbox = true;
  if (!policy.enabled) return;
  RunFacts facts{r->exit_code, r->term_signal, r->timed_out, timeout, refused_forks};
  if (!r->cancelled) r->denials = ExplainDenials(policy, facts, tail.view());
  (void)spec;
}

int ChildEntry(void* plan) { RunConfinedChild(*static_cast<const ChildPlan*>(plan)); }

// Clones the confined child on a stack of its own, with every signal
// blocked so that none of sepp's handlers can run on it (it resets them).
// The stack is an array in this frame: with CLONE_VFORK we sleep until the
// child has exec'd, so nothing else uses it meanwhile; without (--init) the
// child runs on its own copy of our memory. (An mmap'ed stack cost a
// syscall, fresh zeroed pages and, at munmap, a TLB flush on the CPU the
// child ran on.) The child needs a few KiB.
Result<pid_t> StartChild(const ChildPlan& plan, unsigned long flags) {
  alignas(64) char stack[64 * 1024];
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  pid_t pid = clone(ChildEntry, stack + sizeof stack, static_cast<int>(flags | SIGCHLD),
                    const_cast<ChildPlan*>(&plan));
  int err = errno;
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  if (pid < 0) return Error::Make(NamespaceFailureMessage(err), "sandbox_unavailable");
  return pid;
}

Result<RunResult> RunUnconfined(const RunSpec& spec, const Policy& policy,
                                const OutputFn& on_output, CancelToken* cancel) {
  auto pipes = MakePipes(spec);
  if (!pipes.ok()) return pipes.error();
  Pipes& p = *pipes;
  std::vector<std::string> env = BuildChildEnv(policy);
  std::string exe = ResolveCommand(spec.argv[0], env);
  std::vector<char*> argv, envp;
  argv.push_back(exe.data());
  for (size_t i = 1; i < spec.argv.size(); ++i) argv.push_back(const_cast<char*>(spec.argv[i].c_str()));
  argv.push_back(nullptr);
  for (const auto& e : env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  int child_in = p.in_r.valid() ? p.in_r.get() : p.devnull.get();

  UnconfinedPlan plan{&spec, p.out_w.get(), child_in, argv.data(), envp.data()};
  pid_t pid = StartUnconfined(plan);
  if (pid < 0) return Error::Make("cannot start the command (clone): " + ErrnoText(errno));
  p.out_w.Reset();
  p.in_r.Reset();
  if (p.in_w.valid()) fcntl(p.in_w.get(), F_SETFL, O_NONBLOCK);

  RunResult result;
  CancelHook hook;
  hook.pidfd.Reset(OpenPidfd(pid));
  if (cancel) {
    int pidfd = hook.pidfd.get();
    hook.reg = cancel->OnCancel([pid, pidfd] {
      kill(-pid, SIGKILL);  // the group: safe, the leader is not reaped while registered
      SendSignal(pidfd, pid, SIGKILL);
    });
  }
  double timeout = spec.timeout_s > 0 ? spec.timeout_s : policy.limits.timeout_s;
  Tail tail;
  int status = 0;
  Supervise(pid, spec, timeout, p, on_output, &tail, &result, &status, &hook);
  if (result.detached) {
    result.pid = pid;
    spec.on_detach(pid, std::move(p.out_r));  // owns the pid (still registered) and the pipe
    return result;
  }
  ReleaseOwnedChild(pid);  // reaped
  FinishResult(policy, spec, timeout, status, 0, tail, cancel, &result);
  return result;
}

}  // namespace

void MarkInsideSessionSandbox() {
  inside_session_sandbox = true;
  session_pid_one = getpid() == 1;
}

std::vector<std::string> BuildChildEnv(const Policy& policy) {
  std::vector<std::string> names(policy.env_allow.begin(), policy.env_allow.end());
  if (names.empty()) names.assign(std::begin(kDefaultEnv), std::end(kDefaultEnv));
  std::vector<std::string> env;
  for (const auto& s : policy.env_allow_secrets) names.push_back(s);
  auto secret_allowed = [&](const std::string& n) {
    return std::find(policy.env_allow_secrets.begin(), policy.env_allow_secrets.end(), n) !=
           policy.env_allow_secrets.end();
  };
  std::vector<std::string> seen;
  for (const auto& name : names) {
    if (std::find(seen.begin(), seen.end(), name) != seen.end()) continue;
    seen.push_back(name);
    if ((IsSecretEnvName(name) && !secret_allowed(name)) || policy.env_set.count(name)) continue;
    if (const char* v = getenv(name.c_str())) env.push_back(name + "=" + v);
  }
  for (const auto& [k, v] : policy.env_set) env.push_back(k + "=" + v);
  return env;
}

Result<RunResult> Run(const RunSpec& spec, const Policy& policy, const OutputFn& on_output,
                      CancelToken* cancel) {
  if (spec.argv.empty()) return Error::Make("no command given", "usage");
  if (!policy.enabled || inside_session_sandbox) return RunUnconfined(spec, policy, on_output, cancel);

  // Fail closed: refuse before starting anything the kernel cannot confine.
  auto confinement = PrepareConfinement(policy, spec.cwd);
  if (!confinement.ok()) return confinement.error();
  auto& [mounts, landlock, rlimits, cgroup] = *confinement;

  auto pipes = MakePipes(spec);
  if (!pipes.ok()) return pipes.error();
  Pipes& p = *pipes;
  auto report = MakePipe();
  if (!report.ok()) return report.error();
  // With an init, pid 1 reports the command's wait status through this pipe.
  std::pair<UniqueFd, UniqueFd> status_pipe;
  if (spec.init) {
    auto made = MakePipe();
    if (!made.ok()) return made.error();
    status_pipe = std::move(*made);
  }

  std::vector<std::string> env = BuildChildEnv(policy);
  PointTmpdirAtAWritableFolder(policy, &env);
  auto channel = OpenProxyChannel(policy, &landlock, &env);  // none unless proxy mode
  if (!channel.ok()) return channel.error();
  UniqueFd proxy_parent = std::move(channel->parent), proxy_child = std::move(channel->child);
  std::string exe = ResolveCommand(spec.argv[0], env);
  if (auto st = RestrictExecute(policy, exe, env, &landlock.rules); !st.ok()) return st.error();
  std::vector<char*> argv, envp;
  argv.push_back(exe.data());
  for (size_t i = 1; i < spec.argv.size(); ++i) argv.push_back(const_cast<char*>(spec.argv[i].c_str()));
  argv.push_back(nullptr);
  for (const auto& e : env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);

  ChildPlan plan;
  plan.proxy_channel = proxy_child.valid() ? proxy_child.get() : -1;
  plan.argv = argv.data();
  plan.envp = envp.data();
  if (!spec.inherit_stdio) {
    plan.stdin_fd = p.in_r.valid() ? p.in_r.get() : p.devnull.get();
    plan.stdout_fd = p.out_w.get();
  }
  plan.stderr_fd = p.out_w.get();
  plan.report_fd = report->second.get();
  plan.status_fd = status_pipe.second.valid() ? status_pipe.second.get() : -1;
  plan.use_init = spec.init;
  plan.mounts = &mounts;
  plan.landlock = &landlock;
  plan.rlimits = &rlimits;
  plan.seccomp = SeccompProgram();
  plan.id_maps = OwnIdMaps();
  if (cgroup) plan.cgroup_join_file = cgroup->join_file().c_str();

  unsigned long flags = SandboxCloneFlags();
  if (policy.net == NetMode::kHost) flags &= ~static_cast<unsigned long>(CLONE_NEWNET);
  // With --init, pid 1 lives on as the sandbox's init, so it needs memory
  // of its own.
  if (!spec.init) flags |= CLONE_VM | CLONE_VFORK;
  auto started = StartChild(plan, flags);
  if (!started.ok()) return started.error();
  pid_t pid = *started;

  p.out_w.Reset();
  p.in_r.Reset();
  report->second.Reset();
  status_pipe.second.Reset();
  proxy_child.Reset();
  auto abandon = [&](Error e) -> Result<RunResult> {
    kill(pid, SIGKILL);
    int st;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
    }
    return e;
  };
  std::unique_ptr<EgressProxy> proxy;
  if (proxy_parent.valid()) {
    UniqueFd listener = ReceiveProxyListener(proxy_parent.get());
    if (listener.valid()) {
      auto started = EgressProxy::Start(std::move(listener), policy.allow_domains);
      if (!started.ok()) return abandon(started.error());
      proxy = std::move(*started);
    }
    // else: the child failed first; its report says why.
  }

  // Wait for exec (EOF) or a set-up failure.
  ChildFailure failure;
  if (ReadChildFailure(report->first.get(), &failure)) {
    if (std::string_view(failure.step) == "running the command") {
      // The sandbox is fine; the command is not there (or not executable).
      std::string msg = "sepp: cannot run " + spec.argv[0] + ": " + ErrnoText(failure.err) + "\n";
      if (on_output) on_output(msg);
      int st = 0;
      while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
      }
      RunResult result;
      result.exit_code = failure.err == ENOENT ? 127 : 126;
      return result;
    }
    return abandon(Error::Make("sepp refuses to run the command: setting up the sandbox failed "
                               "while " + std::string(failure.step) + ": " +
                                   ErrnoText(failure.err),
                               "sandbox_unavailable"));
  }

  if (cgroup) RemoveStalePidsCgroups();  // while the command starts
  if (p.in_w.valid()) fcntl(p.in_w.get(), F_SETFL, O_NONBLOCK);
  RunResult result;
  CancelHook hook;
  hook.pidfd.Reset(OpenPidfd(pid));
  if (cancel) {
    int pidfd = hook.pidfd.get();
    // pid 1 of the sandbox's namespace: killing it ends every process in it.
    hook.reg = cancel->OnCancel([pid, pidfd] { SendSignal(pidfd, pid, SIGKILL); });
  }
  double timeout = spec.timeout_s > 0 ? spec.timeout_s : policy.limits.timeout_s;
  Tail tail;
  int status = 0;
  Supervise(pid, spec, timeout, p, on_output, &tail, &result, &status, &hook);
  // pid 1 (the sandbox's init) exits 0 after writing the command's status.
  if (status_pipe.first.valid()) {
    int command_status = 0;
    fcntl(status_pipe.first.get(), F_SETFL, O_NONBLOCK);
    if (read(status_pipe.first.get(), &command_status, sizeof command_status) ==
        static_cast<ssize_t>(sizeof command_status))
      status = command_status;
  }
  // Refused forks only explain a failure; a command that succeeded needs no
  // reading of pids.events.
  bool succeeded = WIFEXITED(status) && WEXITSTATUS(status) == 0 && !result.timed_out;
  uint64_t refused = cgroup && !succeeded ? cgroup->RefusedForks() : 0;
  FinishResult(policy, spec, timeout, status, refused, tail, cancel, &result);
  // Every process of the sandbox is gone (its pid 1 has exited).
  auto planted = RemovePlantedGitControl(mounts.git_absent);
  result.denials.insert(result.denials.end(), planted.begin(), planted.end());
  if (proxy) {
    auto refusals = proxy->Refusals();
    proxy.reset();
    result.denials.insert(result.denials.begin(), refusals.begin(), refusals.end());
  }
  return result;
}

}  // namespace sepp::sandbox
