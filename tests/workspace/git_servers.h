// Loopback stand-ins for git remotes, for the tests of git inside the
// sandbox (tests/workspace, tests/e2e): a dumb-HTTP git server (a bare
// repository's plain files) and a target that answers like an SSH server
// and keeps the client's banner. Each counts its connections.
#pragma once
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <mutex>
#include <string>
#include <thread>

namespace sepp::testing_git {

namespace fs = std::filesystem;

// A loopback listener with an accept loop that stops with the object.
class LoopbackServer {
 public:
  LoopbackServer() {
    fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a);
    socklen_t len = sizeof a;
    getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len);
    port_ = ntohs(a.sin_port);
    listen(fd_, 16);
    if (pipe(stop_) != 0) std::abort();
  }
  virtual ~LoopbackServer() { Stop(); }
  void Start() { thread_ = std::thread([this] { Loop(); }); }
  void Stop() {
    if (thread_.joinable()) {
      (void)!write(stop_[1], "x", 1);
      thread_.join();
    }
    if (fd_ >= 0) close(fd_), close(stop_[0]), close(stop_[1]);
    fd_ = -1;
  }
  int port() const { return port_; }
  int connections() const { return connections_; }

 protected:
  virtual void Serve(int client) = 0;
  // One line (to '\n', at most 4 KiB), or what came before the peer closed.
  static std::string ReadLine(int fd) {
    std::string line;
    char c;
    while (line.size() < 4096) {
      pollfd p{fd, POLLIN, 0};
      if (poll(&p, 1, 10000) <= 0 || recv(fd, &c, 1, 0) != 1) break;
      line += c;
      if (c == '\n') break;
    }
    return line;
  }
  static void Send(int fd, const std::string& s) { send(fd, s.data(), s.size(), MSG_NOSIGNAL); }

 private:
  void Loop() {
    for (;;) {
      pollfd fds[2] = {{fd_, POLLIN, 0}, {stop_[0], POLLIN, 0}};
      if (poll(fds, 2, -1) < 0) continue;
      if (fds[1].revents) return;
      int c = accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (c < 0) continue;
      ++connections_;
      Serve(c);
      close(c);
    }
  }
  int fd_ = -1;
  int port_ = 0;
  int stop_[2] = {-1, -1};
  std::atomic<int> connections_{0};
  std::thread thread_;
};

// git's "dumb" HTTP protocol: plain files of a bare repository (after
// `git update-server-info`), one request per connection.
class DumbGitServer : public LoopbackServer {
 public:
  explicit DumbGitServer(fs::path root) : root_(std::move(root)) { Start(); }
  ~DumbGitServer() override { Stop(); }

 protected:
  void Serve(int c) override {
    std::string request = ReadLine(c);
    while (true) {  // the rest of the head
      std::string h = ReadLine(c);
      if (h.empty() || h == "\r\n" || h == "\n") break;
    }
    std::string path;
    if (request.rfind("GET /", 0) == 0) path = request.substr(4, request.find(' ', 4) - 4);
    path = path.substr(0, path.find('?'));
    std::string body;
    bool found = !path.empty() && path.find("..") == std::string::npos;
    if (found) {
      std::ifstream in(root_ / path.substr(1), std::ios::binary);
      found = static_cast<bool>(in);
      body.assign(std::istreambuf_iterator<char>(in), {});
    }
    Send(c, std::string(found ? "HTTP/1.1 200 OK" : "HTTP/1.1 404 Not Found") +
                "\r\nContent-Type: application/octet-stream\r\nContent-Length: " +
                std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" + body);
  }

 private:
  fs::path root_;
};

// Stands in for an SSH server: sends a banner, keeps the client's.
class SshLikeTarget : public LoopbackServer {
 public:
  SshLikeTarget() { Start(); }
  ~SshLikeTarget() override { Stop(); }
  std::string client_banner() {
    std::lock_guard<std::mutex> lock(mu_);
    return banner_;
  }

 protected:
  void Serve(int c) override {
    Send(c, "SSH-2.0-SeppTestTarget\r\n");
    std::string line = ReadLine(c);
    std::lock_guard<std::mutex> lock(mu_);
    banner_ = line;
  }

 private:
  std::mutex mu_;
  std::string banner_;
};

// Makes root/srv/remote.git: a bare repository whose main branch has one
// commit "seed commit", ready to be served as plain files. 0 on success.
inline int MakeDumbRemote(const fs::path& root) {
  fs::path srv = root / "srv";
  std::string seed = (root / "seed").string();
  std::string bare = (srv / "remote.git").string();
  fs::create_directories(srv);
  std::string cmd = "set -e; export GIT_CEILING_DIRECTORIES='" + root.string() + "' GIT_CONFIG_NOSYSTEM=1; "
                    "git init -q --bare '" + bare + "'; git init -q '" + seed + "'; cd '" + seed +
                    "'; echo hello > f; git add f; "
                    "git -c user.name=t -c user.email=t@t commit -q -m 'seed commit'; "
                    "git push -q '" + bare + "' HEAD:refs/heads/main; cd '" + bare +
                    "'; git symbolic-ref HEAD refs/heads/main; git update-server-info";
  return std::system(cmd.c_str());
}

}  // namespace sepp::testing_git
