// The server side of RFC 6455 WebSockets: the opening handshake's checks
// and answer, a decoder of client frames that rejects hostile ones with the
// close code the RFC names, and a connection that sends and receives whole
// messages on a socket the HTTP core handed over (ResponseWriter::Upgrade).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

#include "base/result.h"
#include "net/http_server.h"

namespace sepp::net {

// Close codes (RFC 6455 7.4.1).
namespace ws_close {
inline constexpr int kNormal = 1000;
inline constexpr int kGoingAway = 1001;
inline constexpr int kProtocolError = 1002;
inline constexpr int kUnsupportedData = 1003;
inline constexpr int kInvalidData = 1007;  // text that is not UTF-8
inline constexpr int kPolicy = 1008;
inline constexpr int kTooBig = 1009;
inline constexpr int kInternal = 1011;
}  // namespace ws_close

// Sec-WebSocket-Accept for a Sec-WebSocket-Key: base64(SHA-1(key + GUID)).
std::string WebSocketAccept(std::string_view key);

// Checks a request is a version-13 WebSocket opening handshake and returns
// the headers of the 101 answer; the error says what was missing (the
// caller answers it with 400).
Result<Headers> WebSocketHandshake(const HttpServerRequest& req);

enum class WsOpcode : uint8_t { kContinuation = 0, kText = 1, kBinary = 2, kClose = 8, kPing = 9, kPong = 10 };

// One frame's bytes, unmasked (server to client).
std::string EncodeWsFrame(WsOpcode opcode, std::string_view payload);
// A client's frame: masked with `mask` (for tests that play the client).
std::string EncodeMaskedWsFrame(WsOpcode opcode, std::string_view payload, uint32_t mask, bool fin = true);
// A close frame's payload: the code, then the reason.
std::string WsClosePayload(int code, std::string_view reason);

// Turns the bytes a client sends into messages (fragments joined) and
// control frames. Every rule a client can break ends decoding with the
// close code to answer: unmasked frames, reserved bits, unknown opcodes,
// fragmented or oversized control frames, a continuation with nothing to
// continue, a new message inside a fragmented one, a 64-bit length with the
// top bit set (1002); a message over max_message_bytes (1009); text or a
// close reason that is not UTF-8 (1007); a malformed close code (1002).
class WsDecoder {
 public:
  explicit WsDecoder(size_t max_message_bytes) : max_message_(max_message_bytes) {}

  struct Event {
    WsOpcode opcode;      // kText or kBinary (a whole message), kClose, kPing or kPong
    std::string payload;  // for kClose: the reason
    int close_code = 0;   // kClose: the code sent (1005 when there was none)
  };
  void Feed(std::string_view bytes) { buf_.append(bytes); }
  // The next complete event, if any: Result false = a violation (its
  // close_code() says which code to close with).
  Result<bool> Next(Event* out);
  int close_code() const { return violation_; }

 private:
  Error Violation(int code, std::string why);
  std::string buf_;
  size_t max_message_;
  std::string message_;  // fragments so far
  WsOpcode message_opcode_ = WsOpcode::kText;
  bool in_message_ = false;
  int violation_ = 0;
};

// A WebSocket on an upgraded socket (non-blocking fd, owned by the HTTP
// core). One thread reads and writes; Send waits for room at most
// timeout_s. Pings are answered and a close is echoed inside Receive.
class WebSocketConn {
 public:
  WebSocketConn(int fd, std::string early, size_t max_message_bytes, double send_timeout_s = 30);

  int fd() const { return fd_; }
  bool Send(WsOpcode opcode, std::string_view payload);
  bool SendText(std::string_view text) { return Send(WsOpcode::kText, text); }
  bool SendBinary(std::string_view bytes) { return Send(WsOpcode::kBinary, bytes); }
  // Sends a close frame (once) and shuts down our side.
  void Close(int code, std::string_view reason);

  // Reads what the socket has (call when poll says fd is readable) and
  // returns the next message, if one is complete. closed() once the client
  // closed, vanished or broke the protocol (then answered with its code).
  Result<bool> Receive(WsDecoder::Event* out);
  bool closed() const { return closed_; }
  // The close code of the end: the client's, or the one we sent.
  int close_code() const { return close_code_; }

 private:
  int fd_;
  WsDecoder decoder_;
  double send_timeout_s_;
  bool closed_ = false, close_sent_ = false;
  int close_code_ = 0;
};

}  // namespace sepp::net
