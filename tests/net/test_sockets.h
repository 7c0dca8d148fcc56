// Raw-socket helpers for net tests: a one-shot server that answers with
// fixed bytes, and a client that sends fixed bytes and reads the answer.
#pragma once
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <atomic>
#include <chrono>
#include <functional>
#include <string>
#include <thread>

namespace sepp::net::testing {

inline int ListenLocal(int* port) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a = {};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  listen(fd, 16);
  socklen_t len = sizeof a;
  getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  *port = ntohs(a.sin_port);
  return fd;
}

inline int ConnectLocal(int port) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a = {};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = htons(static_cast<uint16_t>(port));
  if (connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

inline void SendRaw(int fd, const std::string& s) {
  size_t off = 0;
  while (off < s.size()) {
    ssize_t n = send(fd, s.data() + off, s.size() - off, MSG_NOSIGNAL);
    if (n <= 0) return;
    off += static_cast<size_t>(n);
  }
}

// Reads until EOF or timeout.
inline std::string ReadUntilClose(int fd, int timeout_ms = 5000) {
  std::string out;
  char buf[4096];
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  for (;;) {
    int left = static_cast<int>(
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count());
    if (left <= 0) return out;
    pollfd p = {fd, POLLIN, 0};
    if (poll(&p, 1, left) <= 0) return out;
    ssize_t n = recv(fd, buf, sizeof buf, 0);
    if (n <= 0) return out;
    out.append(buf, static_cast<size_t>(n));
  }
}

// Reads until the first blank line (a request head).
inline std::string ReadHead(int fd) {
  std::string out;
  char c;
  while (out.find("\r\n\r\n") == std::string::npos && recv(fd, &c, 1, 0) == 1) out.push_back(c);
  return out;
}

// Accepts one connection, reads the request head, then runs `script` with
// the connection fd (write bytes, sleep, close...).
class OneShotServer {
 public:
  explicit OneShotServer(std::function<void(int fd, const std::string& head)> script) {
    listen_fd_ = ListenLocal(&port_);
    thread_ = std::thread([this, script] {
      int c = accept(listen_fd_, nullptr, nullptr);
      if (c < 0) return;
      std::string head = ReadHead(c);
      script(c, head);
      close(c);
    });
  }
  ~OneShotServer() {
    shutdown(listen_fd_, SHUT_RDWR);
    thread_.join();
    close(listen_fd_);
  }
  int port() const { return port_; }
  std::string url(const std::string& path = "/") const {
    return "http://127.0.0.1:" + std::to_string(port_) + path;
  }

 private:
  int listen_fd_ = -1;
  int port_ = 0;
  std::thread thread_;
};

}  // namespace sepp::net::testing
