#include "e2e/run_sepp.h"

#include <chrono>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace sepp::e2e {

std::string SeppPath() { return std::string(SEPP_BINARY_DIR) + "/sepp"; }

RunOutput RunSepp(const RunOptions& o) {
  int out_p[2], err_p[2], in_p[2];
  if (pipe2(out_p, O_CLOEXEC) || pipe2(err_p, O_CLOEXEC) || pipe2(in_p, O_CLOEXEC)) abort();
  std::vector<std::string> argv_s = {SeppPath()};
  argv_s.insert(argv_s.end(), o.args.begin(), o.args.end());
  std::vector<std::string> env_s;
  for (auto& [k, v] : o.env) env_s.push_back(k + "=" + v);
  std::vector<char*> argv, envp;
  for (auto& a : argv_s) argv.push_back(a.data());
  argv.push_back(nullptr);
  for (auto& e : env_s) envp.push_back(e.data());
  envp.push_back(nullptr);

  pid_t pid = fork();
  if (pid == 0) {
    dup2(in_p[0], 0);
    dup2(out_p[1], 1);
    dup2(err_p[1], 2);
    if (o.stdin_data.empty()) {
      int devnull = open("/dev/null", O_RDONLY);
      dup2(devnull, 0);
    }
    if (!o.cwd.empty() && chdir(o.cwd.c_str()) != 0) _exit(126);
    execve(argv[0], argv.data(), envp.data());
    _exit(127);
  }
  close(out_p[1]);
  close(err_p[1]);
  close(in_p[0]);
  if (!o.stdin_data.empty()) {
    // Small inputs only: fits in the pipe buffer.
    ssize_t ignored = write(in_p[1], o.stdin_data.data(), o.stdin_data.size());
    (void)ignored;
  }
  close(in_p[1]);

  RunOutput r;
  auto start = std::chrono::steady_clock::now();
  bool sent_int = false;
  bool out_open = true, err_open = true;
  char buf[65536];
  while (out_open || err_open) {
    pollfd fds[2] = {{out_p[0], POLLIN, 0}, {err_p[0], POLLIN, 0}};
    poll(fds, 2, 50);
    for (int i = 0; i < 2; ++i) {
      if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      ssize_t n = read(fds[i].fd, buf, sizeof buf);
      if (n > 0) (i == 0 ? r.out : r.err).append(buf, static_cast<size_t>(n));
      else (i == 0 ? out_open : err_open) = false;
    }
    double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (o.sigint_after_s > 0 && !sent_int && elapsed >= o.sigint_after_s) {
      kill(pid, SIGINT);
      sent_int = true;
    }
    if (o.sigkill_after_s > 0 && elapsed >= o.sigkill_after_s) {
      kill(pid, SIGKILL);
      break;
    }
    if (elapsed >= o.timeout_s) {
      kill(pid, SIGKILL);
      r.killed = true;
      break;
    }
  }
  close(out_p[0]);
  close(err_p[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return r;
}

}  // namespace sepp::e2e
