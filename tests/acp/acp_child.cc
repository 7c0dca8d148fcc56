#include "acp/acp_child.h"

#include <chrono>
#include <csignal>
#include <fcntl.h>
#include <fstream>
#include <poll.h>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

#include <gtest/gtest.h>

namespace sepp::acptest {

AcpChild::AcpChild(const std::string& cwd, const std::map<std::string, std::string>& env,
                   const std::vector<std::string>& args) {
  int in_p[2], out_p[2];
  if (pipe2(in_p, O_CLOEXEC) || pipe2(out_p, O_CLOEXEC)) abort();
  char tmpl[] = "/tmp/sepp-acp-stderr-XXXXXX";
  int err = mkstemp(tmpl);
  err_path_ = tmpl;
  std::vector<std::string> env_s = {"PATH=/usr/bin:/bin"};
  for (auto& [k, v] : env) env_s.push_back(k + "=" + v);
  std::string bin = std::string(SEPP_BINARY_DIR) + "/sepp";
  std::vector<std::string> args_s = args;
  std::vector<char*> argv = {bin.data(), const_cast<char*>("--acp")};
  for (auto& a : args_s) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::vector<char*> envp;
  for (auto& e : env_s) envp.push_back(e.data());
  envp.push_back(nullptr);
  pid_ = fork();
  if (pid_ == 0) {
    dup2(in_p[0], 0);
    dup2(out_p[1], 1);
    dup2(err, 2);
    if (chdir(cwd.c_str()) != 0) _exit(126);
    execve(argv[0], argv.data(), envp.data());
    _exit(127);
  }
  close(in_p[0]);
  close(out_p[1]);
  close(err);
  in_ = in_p[1];
  out_ = out_p[0];
  signal(SIGPIPE, SIG_IGN);
}

AcpChild::~AcpChild() {
  if (pid_ > 0) {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
  if (in_ >= 0) close(in_);
  if (out_ >= 0) close(out_);
  unlink(err_path_.c_str());
}

void AcpChild::SendRaw(const std::string& bytes) {
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = write(in_, bytes.data() + done, bytes.size() - done);
    if (n <= 0) {
      ADD_FAILURE() << "writing to sepp --acp failed";
      return;
    }
    done += static_cast<size_t>(n);
  }
}

void AcpChild::Send(const Json& message) { SendRaw(message.dump() + "\n"); }

std::optional<Json> AcpChild::Next(double timeout_s) {
  auto deadline = std::chrono::steady_clock::now() +
                  std::chrono::milliseconds(static_cast<int64_t>(timeout_s * 1000));
  for (;;) {
    size_t nl = buf_.find('\n');
    if (nl != std::string::npos) {
      std::string line = buf_.substr(0, nl);
      buf_.erase(0, nl + 1);
      auto j = ParseJson(line);
      if (!j.ok()) {
        ADD_FAILURE() << "stdout carried a line that is not JSON: " << line;
        continue;
      }
      seen_.push_back(*j);
      return *j;
    }
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now()).count();
    if (left <= 0) return std::nullopt;
    pollfd p{out_, POLLIN, 0};
    if (poll(&p, 1, static_cast<int>(left)) <= 0) continue;
    char chunk[65536];
    ssize_t n = read(out_, chunk, sizeof chunk);
    if (n <= 0) return std::nullopt;
    buf_.append(chunk, static_cast<size_t>(n));
  }
}

Json AcpChild::Response(const Json& id, double timeout_s) {
  auto is_answer = [&](const Json& m) {
    return m.contains("id") && m["id"] == id && !m.contains("method");
  };
  // Answers to different sessions' prompts may come in any order: one read
  // while waiting for another is already here.
  for (const Json& m : seen_)
    if (is_answer(m)) return m;
  for (;;) {
    auto m = Next(timeout_s);
    if (!m) {
      ADD_FAILURE() << "no response with id " << id.dump() << "; stderr:\n" << stderr_text();
      return nullptr;
    }
    if (is_answer(*m)) return *m;
  }
}

Json AcpChild::Call(const Json& id, const std::string& method, Json params) {
  Send({{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", std::move(params)}});
  return Response(id);
}

void AcpChild::CloseStdin() {
  if (in_ >= 0) close(in_);
  in_ = -1;
}

int AcpChild::Wait(double timeout_s) {
  auto deadline = std::chrono::steady_clock::now() +
                  std::chrono::milliseconds(static_cast<int64_t>(timeout_s * 1000));
  // Drain stdout meanwhile, so a full pipe cannot be what holds it up.
  while (std::chrono::steady_clock::now() < deadline) {
    int status = 0;
    pid_t r = waitpid(pid_, &status, WNOHANG);
    if (r == pid_) {
      pid_ = -1;
      return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    }
    if (!Next(0.05)) {
      pollfd p{out_, POLLIN, 0};
      poll(&p, 1, 50);
    }
  }
  return -1;
}

std::string AcpChild::stderr_text() const {
  std::ifstream f(err_path_);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

std::vector<Json> UpdatesOf(const std::vector<Json>& messages, const std::string& sid) {
  std::vector<Json> out;
  for (const Json& m : messages)
    if (m.value("method", "") == "session/update" && m["params"].value("sessionId", "") == sid)
      out.push_back(m["params"]["update"]);
  return out;
}

}  // namespace sepp::acptest
