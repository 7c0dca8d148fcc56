// The session sandbox's set-up mirrors the confined path of Run() (run.cc):
// the parent prepares every plan, clone()s the child into new namespaces
// sharing memory until exec (CLONE_VM | CLONE_VFORK) and learns from the
// report pipe whether set-up failed. Differences: the child's stdin and
// stdout are one end of a socketpair, stderr is a pipe of its own, the
// network namespace is always fresh and empty (nothing the session's worker
// does needs a network; a bash call that does runs in a one-off sandbox with
// its policy), and the process is kept until the SessionSandbox is destroyed.
//
// PR_SET_PDEATHSIG fires when the *thread* that cloned the child exits, so
// the caller starts the sandbox from a thread that lives as long as the
// session (tools/tool_worker.cc does it on its reader thread).
#include "sandbox/session_sandbox.h"

#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>

#include "sandbox/child.h"
#include "sandbox/confinement.h"
#include "sandbox/limits.h"
#include "sandbox/git_control.h"
#include "sandbox/mounts.h"
#include "sandbox/namespaces.h"
#include "sandbox/probe.h"
#include "sandbox/run.h"
#include "sandbox/seccomp.h"

namespace sepp::sandbox {
namespace fs = std::filesystem;
namespace {

int ChildEntry(void* plan) { RunConfinedChild(*static_cast<const ChildPlan*>(plan)); }

}  // namespace

Result<std::unique_ptr<SessionSandbox>> SessionSandbox::Start(const fs::path& exe,
                                                              const std::vector<std::string>& args,
                                                              const Policy& session_policy,
                                                              const fs::path& cwd) {
  if (!session_policy.enabled)
    return Error::Make("a session sandbox needs an enabled policy", "usage");
  std::error_code ec;
  fs::path exe_real = fs::canonical(exe, ec);
  if (ec) return Error::Make("the tool worker " + exe.string() + " cannot be found: " + ec.message(),
                             "sandbox_unavailable");
  Policy policy = session_policy;
  policy.net = NetMode::kOff;
  policy.read_roots.push_back(exe_real.string());

  auto confinement = PrepareConfinement(policy, cwd);
  if (!confinement.ok()) return confinement.error();
  auto& [mounts, landlock, rlimits, cgroup] = *confinement;
  // Its network namespace is its own and holds only lo, so TCP there
  // reaches nothing but the sandbox itself: a server a call starts in the
  // background may listen, and later calls connect to it
  // (tools/background_jobs.h). The host's network stays out of reach.
  landlock.restrict_tcp = false;

  int sv[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
    return Error::Make("socketpair: " + ErrnoText(errno));
  UniqueFd ours(sv[0]), theirs(sv[1]);
  auto err_pipe = MakePipe();
  if (!err_pipe.ok()) return err_pipe.error();
  auto report = MakePipe();
  if (!report.ok()) return report.error();

  std::vector<std::string> env = BuildChildEnv(policy);
  std::string exe_str = exe_real.string();
  std::vector<char*> argv, envp;
  argv.push_back(exe_str.data());
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  for (const auto& e : env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);

  ChildPlan plan;
  plan.argv = argv.data();
  plan.envp = envp.data();
  plan.stdin_fd = theirs.get();
  plan.stdout_fd = theirs.get();
  plan.stderr_fd = err_pipe->second.get();
  plan.report_fd = report->second.get();
  plan.loopback = true;  // background servers answer later calls (tools/background_jobs.h)
  plan.mounts = &mounts;
  plan.landlock = &landlock;
  plan.rlimits = &rlimits;
  plan.seccomp = SeccompProgram();
  plan.id_maps = OwnIdMaps();
  if (cgroup) plan.cgroup_join_file = cgroup->join_file().c_str();

  alignas(64) char stack[64 * 1024];
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  pid_t pid = clone(ChildEntry, stack + sizeof stack,
                    static_cast<int>(SandboxCloneFlags() | CLONE_VM | CLONE_VFORK | SIGCHLD),
                    &plan);
  int clone_err = errno;
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  if (pid < 0) return Error::Make(NamespaceFailureMessage(clone_err), "sandbox_unavailable");
  theirs.Reset();
  err_pipe->second.Reset();
  report->second.Reset();

  auto sandbox = std::unique_ptr<SessionSandbox>(new SessionSandbox);
  sandbox->pid_ = pid;
  sandbox->channel_ = std::move(ours);
  sandbox->stderr_ = std::move(err_pipe->first);
  sandbox->cgroup_ = std::move(cgroup);
  sandbox->git_absent_ = mounts.git_absent;

  ChildFailure failure;
  if (ReadChildFailure(report->first.get(), &failure)) {
    return Error::Make("sepp refuses to run the tools: setting up the session sandbox failed "
                       "while " + std::string(failure.step) + ": " + ErrnoText(failure.err),
                       "sandbox_unavailable");  // ~SessionSandbox reaps the child
  }
  fcntl(sandbox->stderr_.get(), F_SETFL, O_NONBLOCK);
  return sandbox;
}

SessionSandbox::~SessionSandbox() {
  if (pid_ <= 0) return;
  kill(pid_, SIGKILL);
  int status;
  while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
}

std::string SessionSandbox::TakeStderr() {
  std::string out;
  char buf[4096];
  ssize_t r;
  while (out.size() < 65536 && (r = read(stderr_.get(), buf, sizeof buf)) > 0)
    out.append(buf, static_cast<size_t>(r));
  return out;
}

std::vector<Denial> SessionSandbox::RemovePlantedGitControl() const {
  return sandbox::RemovePlantedGitControl(git_absent_);
}

}  // namespace sepp::sandbox
