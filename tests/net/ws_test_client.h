// A WebSocket client for tests, on a raw socket: sends any handshake and
// any frame (masked as a client must, or hostile on purpose) and reads the
// server's frames one by one.
#pragma once
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdint>
#include <optional>
#include <string>

#include "net/websocket.h"
#include "test_sockets.h"

namespace sepp::net::testing {

struct WsFrame {
  int opcode = -1;  // -1: the socket ended (or the wait timed out) first
  std::string payload;
  int close_code() const {
    return payload.size() < 2 ? 0 : (static_cast<uint8_t>(payload[0]) << 8) | static_cast<uint8_t>(payload[1]);
  }
};

class WsTestClient {
 public:
  // Connects and sends the opening handshake for `target` with extra head
  // lines (e.g. "Authorization: Bearer t\r\n"); status() is the answer's.
  WsTestClient(int port, const std::string& target, const std::string& extra_head = "") {
    fd_ = ConnectLocal(port);
    SendRaw(fd_, "GET " + target + " HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(port) +
                     "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n"
                     "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n" + extra_head + "\r\n");
    head_ = ReadHead(fd_);
    if (head_.size() > 12) status_ = std::atoi(head_.c_str() + 9);
  }
  ~WsTestClient() {
    if (fd_ >= 0) close(fd_);
  }
  WsTestClient(const WsTestClient&) = delete;
  WsTestClient& operator=(const WsTestClient&) = delete;

  int status() const { return status_; }
  const std::string& head() const { return head_; }
  int fd() const { return fd_; }

  void Send(WsOpcode opcode, const std::string& payload) { SendRaw(fd_, EncodeMaskedWsFrame(opcode, payload, 0x1b2c3d4e)); }
  void SendText(const std::string& text) { Send(WsOpcode::kText, text); }
  void SendBytes(const std::string& bytes) { SendRaw(fd_, bytes); }

  // The next frame, waiting at most timeout_ms.
  WsFrame Next(int timeout_ms = 10000) {
    for (;;) {
      if (auto f = Parse()) return *f;
      pollfd p = {fd_, POLLIN, 0};
      if (poll(&p, 1, timeout_ms) <= 0) return {};
      char tmp[8192];
      ssize_t n = recv(fd_, tmp, sizeof tmp, 0);
      if (n <= 0) return {};
      buf_.append(tmp, static_cast<size_t>(n));
    }
  }
  // Concatenates binary frames until `want` shows up in them (or a
  // non-binary frame / the end comes, which is kept in *other).
  std::string ReadOutputUntil(const std::string& want, WsFrame* other = nullptr, int timeout_ms = 15000) {
    std::string out;
    while (out.find(want) == std::string::npos) {
      WsFrame f = Next(timeout_ms);
      if (f.opcode != 2) {
        if (other) *other = f;
        break;
      }
      out += f.payload;
    }
    return out;
  }

 private:
  std::optional<WsFrame> Parse() {
    if (buf_.size() < 2) return std::nullopt;
    uint64_t len = static_cast<uint8_t>(buf_[1]) & 0x7f;
    size_t at = 2;
    if (len == 126) {
      if (buf_.size() < 4) return std::nullopt;
      len = (static_cast<uint8_t>(buf_[2]) << 8) | static_cast<uint8_t>(buf_[3]);
      at = 4;
    } else if (len == 127) {
      if (buf_.size() < 10) return std::nullopt;
      len = 0;
      for (int i = 0; i < 8; ++i) len = (len << 8) | static_cast<uint8_t>(buf_[2 + i]);
      at = 10;
    }
    if (buf_.size() < at + len) return std::nullopt;
    WsFrame f{static_cast<uint8_t>(buf_[0]) & 0x0f, buf_.substr(at, len)};
    buf_.erase(0, at + len);
    return f;
  }

  int fd_ = -1;
  int status_ = 0;
  std::string head_, buf_;
};

}  // namespace sepp::net::testing
