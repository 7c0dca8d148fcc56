// Runs `sepp --rpc` (or any command) as a child with pipes on stdin and
// stdout, for tests that talk to it line by line.
#pragma once
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/json.h"

namespace sepp::rpc_test {

class Child {
 public:
  // argv[0] is the program; env is the whole environment; stderr goes to a file.
  bool Start(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env,
             const std::string& cwd, const std::string& stderr_file) {
    int in[2], out[2];
    if (pipe2(in, O_CLOEXEC) || pipe2(out, O_CLOEXEC)) return false;
    pid_ = fork();
    if (pid_ < 0) return false;
    if (pid_ == 0) {
      dup2(in[0], 0);
      dup2(out[1], 1);
      int err = open(stderr_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
      if (err >= 0) dup2(err, 2);
      if (!cwd.empty() && chdir(cwd.c_str()) != 0) _exit(126);
      std::vector<std::string> envs;
      for (const auto& [k, v] : env) envs.push_back(k + "=" + v);
      std::vector<char*> a, e;
      for (const auto& s : argv) a.push_back(const_cast<char*>(s.c_str()));
      for (const auto& s : envs) e.push_back(const_cast<char*>(s.c_str()));
      a.push_back(nullptr);
      e.push_back(nullptr);
      execve(a[0], a.data(), e.data());
      _exit(127);
    }
    close(in[0]);
    close(out[1]);
    in_ = in[1];
    out_ = out[0];
    return true;
  }
  ~Child() {
    CloseStdin();
    if (out_ >= 0) close(out_);
    if (pid_ > 0 && !reaped_) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
  }
  bool Send(const std::string& line) {
    std::string l = line + "\n";
    return in_ >= 0 && write(in_, l.data(), l.size()) == static_cast<ssize_t>(l.size());
  }
  bool Send(const Json& j) { return Send(DumpJson(j)); }
  void CloseStdin() {
    if (in_ >= 0) close(in_);
    in_ = -1;
  }
  // The next stdout line (without LF), or nullopt at EOF / after timeout_s.
  std::optional<std::string> NextLine(double timeout_s = 30) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
    for (;;) {
      size_t nl = buf_.find('\n');
      if (nl != std::string::npos) {
        std::string line = buf_.substr(0, nl);
        buf_.erase(0, nl + 1);
        return line;
      }
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                      deadline - std::chrono::steady_clock::now()).count();
      if (left <= 0) return std::nullopt;
      pollfd p{out_, POLLIN, 0};
      if (poll(&p, 1, static_cast<int>(left)) <= 0) continue;
      char b[65536];
      ssize_t n = read(out_, b, sizeof b);
      if (n <= 0) return std::nullopt;
      buf_.append(b, static_cast<size_t>(n));
    }
  }
  // The next JSON record; records that do not parse are returned as
  // {"unparsable": line} so a test can fail on them.
  std::optional<Json> Next(double timeout_s = 30) {
    auto line = NextLine(timeout_s);
    if (!line) return std::nullopt;
    auto j = ParseJson(*line);
    if (!j.ok()) return Json{{"unparsable", *line}};
    return *j;
  }
  // Records up to and including the first with type == `type` (and id, if given).
  std::vector<Json> Until(const std::string& type, const std::string& id = "", double timeout_s = 30) {
    std::vector<Json> out;
    while (auto j = Next(timeout_s)) {
      out.push_back(*j);
      if (j->value("type", "") == type && (id.empty() || j->value("id", "") == id)) break;
    }
    return out;
  }
  // Exit status (128+sig when killed), or -1 if it did not exit in time.
  int Wait(double timeout_s = 30) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
    while (std::chrono::steady_clock::now() < deadline) {
      int st = 0;
      pid_t r = waitpid(pid_, &st, WNOHANG);
      if (r == pid_) {
        reaped_ = true;
        return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
      }
      // Drain stdout meanwhile so the child never blocks on a full pipe.
      pollfd p{out_, POLLIN, 0};
      if (poll(&p, 1, 20) > 0) {
        char b[65536];
        ssize_t n = read(out_, b, sizeof b);
        if (n > 0) buf_.append(b, static_cast<size_t>(n));
      }
    }
    return -1;
  }
  pid_t pid() const { return pid_; }

 private:
  pid_t pid_ = -1;
  int in_ = -1, out_ = -1;
  bool reaped_ = false;
  std::string buf_;
};

}  // namespace sepp::rpc_test
