// The launcher. This first version starts the child in its own session and
// process group with a scrubbed environment; confinement (namespaces,
// Landlock, seccomp) is added in the child set-up step (see ConfineChild).
#include "sandbox/run.h"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/fd.h"
#include "base/secrets.h"

extern char** environ;

namespace sepp::sandbox {
namespace {

const char* const kDefaultEnv[] = {"PATH", "HOME", "USER", "LOGNAME", "LANG", "LC_ALL",
                                   "LC_CTYPE", "TERM", "TZ", "SHELL", "TMPDIR"};

// In the child, between fork and exec: only async-signal-safe calls.
[[noreturn]] void ExecChild(const RunSpec& spec, int out_fd, int in_fd,
                            char* const* argv, char* const* envp) {
  setsid();
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  dup2(in_fd, 0);
  dup2(out_fd, 1);
  dup2(out_fd, 2);
  if (!spec.cwd.empty() && chdir(spec.cwd.c_str()) != 0) {
    const char msg[] = "sepp: cannot enter the working directory\n";
    ssize_t ignored = write(2, msg, sizeof msg - 1);
    (void)ignored;
    _exit(126);
  }
  execvpe(argv[0], argv, envp);
  int err = errno;
  const char msg[] = "sepp: cannot run the command: ";
  ssize_t ignored = write(2, msg, sizeof msg - 1);
  const char* e = strerror(err);
  ignored = write(2, e, strlen(e));
  ignored = write(2, "\n", 1);
  (void)ignored;
  _exit(err == ENOENT ? 127 : 126);
}

}  // namespace

std::vector<std::string> BuildChildEnv(const Policy& policy) {
  std::vector<std::string> names(policy.env_allow.begin(), policy.env_allow.end());
  if (names.empty()) names.assign(std::begin(kDefaultEnv), std::end(kDefaultEnv));
  std::vector<std::string> env;
  for (const auto& name : names) {
    if (IsSecretEnvName(name) || policy.env_set.count(name)) continue;
    if (const char* v = getenv(name.c_str())) env.push_back(name + "=" + v);
  }
  for (const auto& [k, v] : policy.env_set) env.push_back(k + "=" + v);
  return env;
}

Result<RunResult> Run(const RunSpec& spec, const Policy& policy, const OutputFn& on_output,
                      CancelToken* cancel) {
  if (spec.argv.empty()) return Error::Make("no command given", "usage");
  auto out_pipe = MakePipe();
  if (!out_pipe.ok()) return out_pipe.error();
  auto in_pipe = MakePipe();
  if (!in_pipe.ok()) return in_pipe.error();

  std::vector<std::string> env = BuildChildEnv(policy);
  std::vector<char*> argv, envp;
  for (const auto& a : spec.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  for (const auto& e : env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);

  UniqueFd devnull;
  int child_in = in_pipe->first.get();
  if (spec.stdin_data.empty()) {
    devnull.Reset(::open("/dev/null", O_RDONLY | O_CLOEXEC));
    child_in = devnull.get();
  }

  pid_t pid = fork();
  if (pid < 0) return Error::Make("fork: " + ErrnoText(errno));
  if (pid == 0) ExecChild(spec, out_pipe->second.get(), child_in, argv.data(), envp.data());

  out_pipe->second.Reset();
  in_pipe->first.Reset();
  if (spec.stdin_data.empty()) in_pipe->second.Reset();
  fcntl(in_pipe->second.get(), F_SETFL, O_NONBLOCK);

  RunResult result;
  std::unique_ptr<CancelToken::Registration> reg;
  if (cancel) reg = cancel->OnCancel([pid] { kill(-pid, SIGKILL); });

  double timeout = spec.timeout_s > 0 ? spec.timeout_s : policy.limits.timeout_s;
  double deadline = timeout > 0 ? MonotonicSeconds() + timeout : 0;
  size_t stdin_off = 0;
  char buf[65536];
  int status = 0;
  bool reaped = false;
  for (;;) {
    pollfd fds[2] = {{out_pipe->first.get(), POLLIN, 0}, {in_pipe->second.get(), POLLOUT, 0}};
    int nfds = in_pipe->second.valid() ? 2 : 1;
    int wait_ms = 200;
    if (deadline > 0) {
      double left = deadline - MonotonicSeconds();
      if (left <= 0) {
        result.timed_out = true;
        kill(-pid, SIGKILL);
        break;
      }
      wait_ms = static_cast<int>(std::min(left * 1000 + 1, 200.0));
    }
    int n = poll(fds, nfds, wait_ms);
    if (n < 0 && errno != EINTR) break;
    if (!reaped && waitpid(pid, &status, WNOHANG) == pid) {
      // The command itself is done. Take what output is already there; a
      // background process still holding the pipe must not keep us waiting.
      reaped = true;
      fcntl(out_pipe->first.get(), F_SETFL, O_NONBLOCK);
      ssize_t r;
      while ((r = read(out_pipe->first.get(), buf, sizeof buf)) > 0)
        if (on_output) on_output(std::string_view(buf, static_cast<size_t>(r)));
      break;
    }
    if (n <= 0) continue;
    if (nfds == 2 && (fds[1].revents & (POLLOUT | POLLERR | POLLHUP))) {
      ssize_t w = write(in_pipe->second.get(), spec.stdin_data.data() + stdin_off,
                        spec.stdin_data.size() - stdin_off);
      if (w > 0) stdin_off += static_cast<size_t>(w);
      if (w < 0 && errno != EAGAIN && errno != EINTR) stdin_off = spec.stdin_data.size();
      if (stdin_off >= spec.stdin_data.size()) in_pipe->second.Reset();
    }
    if (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) {
      ssize_t r = read(out_pipe->first.get(), buf, sizeof buf);
      if (r > 0) {
        if (on_output) on_output(std::string_view(buf, static_cast<size_t>(r)));
      } else if (r == 0 || (errno != EINTR && errno != EAGAIN)) {
        break;  // every writer closed: the tree is done with its output
      }
    }
  }
  // Output closed or the command was stopped: make sure no member of the
  // group lingers (a detached `sleep &` would otherwise outlive the call).
  kill(-pid, SIGKILL);
  while (!reaped && waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) result.term_signal = WTERMSIG(status);
  result.cancelled = cancel && cancel->cancelled();
  return result;
}

}  // namespace sepp::sandbox
