#include "net/websocket.h"

#include <poll.h>
#include <sys/socket.h>

#include <openssl/sha.h>

#include <cerrno>
#include <cstring>

#include "base/base64.h"
#include "base/strings.h"
#include "net/http_server_response.h"
#include "net/http_wire.h"

namespace sepp::net {
namespace {

constexpr std::string_view kGuid = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";

bool IsControl(WsOpcode op) { return static_cast<uint8_t>(op) >= 8; }

bool KnownOpcode(uint8_t op) { return op <= 2 || (op >= 8 && op <= 10); }

// Codes a peer may send in a close frame (RFC 6455 7.4.1-2).
bool ValidCloseCode(int code) {
  if (code >= 3000 && code <= 4999) return true;
  return code >= 1000 && code <= 1014 && code != 1004 && code != 1005 && code != 1006;
}

std::string FrameHead(WsOpcode opcode, size_t size, bool fin, bool masked) {
  std::string out;
  out.push_back(static_cast<char>((fin ? 0x80 : 0) | static_cast<uint8_t>(opcode)));
  uint8_t mask_bit = masked ? 0x80 : 0;
  if (size < 126) {
    out.push_back(static_cast<char>(mask_bit | size));
  } else if (size <= 0xffff) {
    out.push_back(static_cast<char>(mask_bit | 126));
    out.push_back(static_cast<char>(size >> 8));
    out.push_back(static_cast<char>(size & 0xff));
  } else {
    out.push_back(static_cast<char>(mask_bit | 127));
    for (int i = 7; i >= 0; --i) out.push_back(static_cast<char>((static_cast<uint64_t>(size) >> (8 * i)) & 0xff));
  }
  return out;
}

}  // namespace

std::string WebSocketAccept(std::string_view key) {
  std::string text(key);
  text.append(kGuid);
  unsigned char digest[SHA_DIGEST_LENGTH];
  SHA1(reinterpret_cast<const unsigned char*>(text.data()), text.size(), digest);
  return Base64Encode(std::string_view(reinterpret_cast<const char*>(digest), sizeof digest));
}

Result<Headers> WebSocketHandshake(const HttpServerRequest& req) {
  if (req.method != "GET") return Error::Make("a WebSocket is opened with GET, not " + req.method, "usage");
  if (!HeaderHasToken(req.headers, "Upgrade", "websocket"))
    return Error::Make("this route is a WebSocket: send \"Upgrade: websocket\" and \"Connection: Upgrade\"", "usage");
  if (!HeaderHasToken(req.headers, "Connection", "upgrade"))
    return Error::Make("a WebSocket upgrade needs \"Connection: Upgrade\"", "usage");
  if (req.Header("Sec-WebSocket-Version") != "13")
    return Error::Make("only WebSocket version 13 is spoken: send \"Sec-WebSocket-Version: 13\"", "version");
  std::string key = req.Header("Sec-WebSocket-Key");
  auto raw = Base64Decode(key);
  if (!raw || raw->size() != 16)
    return Error::Make("Sec-WebSocket-Key must be 16 random bytes in base64 (RFC 6455 4.1)", "usage");
  return Headers{{"Upgrade", "websocket"}, {"Sec-WebSocket-Accept", WebSocketAccept(key)}};
}

std::string EncodeWsFrame(WsOpcode opcode, std::string_view payload) {
  std::string out = FrameHead(opcode, payload.size(), true, false);
  out.append(payload);
  return out;
}

std::string EncodeMaskedWsFrame(WsOpcode opcode, std::string_view payload, uint32_t mask, bool fin) {
  std::string out = FrameHead(opcode, payload.size(), fin, true);
  char key[4] = {static_cast<char>(mask >> 24), static_cast<char>(mask >> 16), static_cast<char>(mask >> 8),
                 static_cast<char>(mask)};
  out.append(key, 4);
  for (size_t i = 0; i < payload.size(); ++i) out.push_back(static_cast<char>(payload[i] ^ key[i % 4]));
  return out;
}

std::string WsClosePayload(int code, std::string_view reason) {
  std::string out;
  out.push_back(static_cast<char>((code >> 8) & 0xff));
  out.push_back(static_cast<char>(code & 0xff));
  out.append(reason.substr(0, 123));  // a control frame holds at most 125 bytes
  return out;
}

Error WsDecoder::Violation(int code, std::string why) {
  violation_ = code;
  buf_.clear();
  return Error::Make("WebSocket: " + why, "protocol");
}

Result<bool> WsDecoder::Next(Event* out) {
  if (violation_) return Error::Make("WebSocket: the connection broke the protocol already", "protocol");
  for (;;) {
    if (buf_.size() < 2) return false;
    const auto* b = reinterpret_cast<const uint8_t*>(buf_.data());
    bool fin = b[0] & 0x80;
    if (b[0] & 0x70) return Violation(ws_close::kProtocolError, "reserved bits set (no extension was agreed)");
    uint8_t op = b[0] & 0x0f;
    if (!KnownOpcode(op)) return Violation(ws_close::kProtocolError, "unknown opcode " + std::to_string(op));
    auto opcode = static_cast<WsOpcode>(op);
    if (!(b[1] & 0x80)) return Violation(ws_close::kProtocolError, "a client's frame must be masked (RFC 6455 5.1)");
    uint64_t len = b[1] & 0x7f;
    size_t at = 2;
    if (IsControl(opcode) && (!fin || len > 125))
      return Violation(ws_close::kProtocolError, "a control frame must be whole and at most 125 bytes");
    if (len == 126) {
      if (buf_.size() < 4) return false;
      len = (uint64_t{b[2]} << 8) | b[3];
      at = 4;
    } else if (len == 127) {
      if (buf_.size() < 10) return false;
      if (b[2] & 0x80) return Violation(ws_close::kProtocolError, "a 64-bit length with its top bit set");
      len = 0;
      for (int i = 0; i < 8; ++i) len = (len << 8) | b[2 + i];
      at = 10;
    }
    // Refused before it is buffered: a length is a promise, not a reason to wait for 2^62 bytes.
    if (!IsControl(opcode) && len + message_.size() > max_message_)
      return Violation(ws_close::kTooBig, "a message over " + std::to_string(max_message_) + " bytes");
    if (buf_.size() < at + 4 + len) return false;
    const uint8_t* key = b + at;
    std::string payload(buf_, at + 4, len);
    for (size_t i = 0; i < payload.size(); ++i) payload[i] = static_cast<char>(payload[i] ^ key[i % 4]);
    buf_.erase(0, at + 4 + len);

    if (IsControl(opcode)) {
      out->opcode = opcode;
      out->close_code = 0;
      if (opcode == WsOpcode::kClose) {
        if (payload.size() == 1) return Violation(ws_close::kProtocolError, "a close frame with a one-byte body");
        out->close_code = 1005;
        if (payload.size() >= 2) {
          int code = (static_cast<uint8_t>(payload[0]) << 8) | static_cast<uint8_t>(payload[1]);
          if (!ValidCloseCode(code))
            return Violation(ws_close::kProtocolError, "close code " + std::to_string(code) + " is not one a peer may send");
          out->close_code = code;
          payload.erase(0, 2);
        }
        if (!IsValidUtf8(payload)) return Violation(ws_close::kInvalidData, "a close reason that is not UTF-8");
      }
      out->payload = std::move(payload);
      return true;
    }
    if (opcode == WsOpcode::kContinuation) {
      if (!in_message_) return Violation(ws_close::kProtocolError, "a continuation frame with no message to continue");
    } else {
      if (in_message_) return Violation(ws_close::kProtocolError, "a new message inside a fragmented one");
      in_message_ = true;
      message_opcode_ = opcode;
      message_.clear();
    }
    message_.append(payload);
    if (!fin) continue;
    in_message_ = false;
    if (message_opcode_ == WsOpcode::kText && !IsValidUtf8(message_))
      return Violation(ws_close::kInvalidData, "a text message that is not UTF-8");
    out->opcode = message_opcode_;
    out->close_code = 0;
    out->payload = std::move(message_);
    message_.clear();
    return true;
  }
}

WebSocketConn::WebSocketConn(int fd, std::string early, size_t max_message_bytes, double send_timeout_s)
    : fd_(fd), decoder_(max_message_bytes), send_timeout_s_(send_timeout_s) {
  decoder_.Feed(early);
}

bool WebSocketConn::Send(WsOpcode opcode, std::string_view payload) {
  if (close_sent_) return false;
  std::string frame = EncodeWsFrame(opcode, payload);
  if (!internal::SendAll(fd_, frame, send_timeout_s_, -1)) {
    closed_ = true;
    return false;
  }
  return true;
}

void WebSocketConn::Close(int code, std::string_view reason) {
  if (close_sent_) return;
  Send(WsOpcode::kClose, WsClosePayload(code, reason));
  close_sent_ = true;
  if (!close_code_) close_code_ = code;
  ::shutdown(fd_, SHUT_WR);
}

Result<bool> WebSocketConn::Receive(WsDecoder::Event* out) {
  for (;;) {
    auto next = decoder_.Next(out);
    if (!next.ok()) {
      Close(decoder_.close_code(), next.error().message.substr(0, 120));
      closed_ = true;
      return next.error();
    }
    if (*next) {
      if (out->opcode == WsOpcode::kPing) {
        Send(WsOpcode::kPong, out->payload);
        continue;
      }
      if (out->opcode == WsOpcode::kPong) continue;
      if (out->opcode == WsOpcode::kClose) {
        if (!close_code_) close_code_ = out->close_code;
        // Echo the code (RFC 6455 5.5.1); "no code" is answered with 1000.
        Close(out->close_code == 1005 ? ws_close::kNormal : out->close_code, "");
        closed_ = true;
      }
      return true;
    }
    if (closed_) return false;
    char buf[16384];
    ssize_t n = recv(fd_, buf, sizeof buf, 0);
    if (n > 0) {
      decoder_.Feed(std::string_view(buf, static_cast<size_t>(n)));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return false;
    closed_ = true;  // gone without a close frame (1006)
    if (!close_code_) close_code_ = 1006;
    return false;
  }
}

}  // namespace sepp::net
