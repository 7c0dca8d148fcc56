#include "net/http_server_response.h"

#include <poll.h>
#include <sys/socket.h>

#include <cerrno>
#include <charconv>
#include <cstring>

#include "net/conn.h"

namespace sepp::net::internal {
namespace {

const char* Reason(int status) {
  switch (status) {
    case 100: return "Continue";
    case 101: return "Switching Protocols";
    case 200: return "OK";
    case 201: return "Created";
    case 202: return "Accepted";
    case 204: return "No Content";
    case 301: return "Moved Permanently";
    case 302: return "Found";
    case 304: return "Not Modified";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 408: return "Request Timeout";
    case 409: return "Conflict";
    case 413: return "Content Too Large";
    case 426: return "Upgrade Required";
    case 429: return "Too Many Requests";
    case 431: return "Request Header Fields Too Large";
    case 500: return "Internal Server Error";
    case 501: return "Not Implemented";
    case 502: return "Bad Gateway";
    case 503: return "Service Unavailable";
    case 504: return "Gateway Timeout";
    case 529: return "Overloaded";
    default: return "Status";
  }
}

// Case-insensitive, without building a lowered copy.
bool IEquals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && strncasecmp(a.data(), b.data(), a.size()) == 0;
}

bool IsManaged(std::string_view name) {
  return IEquals(name, "content-length") || IEquals(name, "transfer-encoding") || IEquals(name, "connection");
}

// One pass, no table: headers are short and this runs for each of them.
bool HasLineBreak(std::string_view s) {
  for (char c : s)
    if (c == '\r' || c == '\n') return true;
  return false;
}

void AppendTail(std::string* out, bool keep_alive) {
  if (!keep_alive) out->append("Connection: close\r\n");
  out->append("\r\n");
}

}  // namespace

void AppendNumber(std::string* out, uint64_t n, int base) {
  char digits[24];
  auto r = std::to_chars(digits, digits + sizeof digits, n, base);
  out->append(digits, static_cast<size_t>(r.ptr - digits));
}

void AppendHead(std::string* out, int status, const Headers& headers) {
  out->append("HTTP/1.1 ");
  AppendNumber(out, static_cast<uint64_t>(status));
  out->push_back(' ');
  out->append(Reason(status));
  out->append("\r\n");
  for (const auto& [k, v] : headers) {
    if (IsManaged(k) || HasLineBreak(k) || HasLineBreak(v)) continue;
    out->append(k).append(": ").append(v).append("\r\n");
  }
}

bool SendAll(int fd, std::string_view data, double timeout_s, int stop_fd) {
  while (!data.empty()) {
    ssize_t n = send(fd, data.data(), data.size(), MSG_NOSIGNAL);
    if (n > 0) {
      data.remove_prefix(static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      if (!WaitFd(fd, POLLOUT, timeout_s, stop_fd, "client").ok()) return false;
      continue;
    }
    return false;
  }
  return true;
}

// --- BufferWriter ---

bool BufferWriter::Send(int status, const Headers& headers, std::string_view body) {
  if (answered_) return false;
  answered_ = ended_ = true;
  AppendHead(out_, status, headers);
  out_->append("Content-Length: ");
  AppendNumber(out_, body.size());
  out_->append("\r\n");
  AppendTail(out_, keep_alive_);
  out_->append(body);
  return true;
}

bool BufferWriter::Begin(int status, const Headers& headers, bool chunked) {
  if (answered_) return false;
  answered_ = true;
  chunked_ = chunked;
  if (!chunked) keep_alive_ = false;
  AppendHead(out_, status, headers);
  if (chunked) out_->append("Transfer-Encoding: chunked\r\n");
  AppendTail(out_, keep_alive_);
  return true;
}

bool BufferWriter::Write(std::string_view piece) {
  if (!answered_ || ended_ || aborted_) return false;
  if (piece.empty()) return true;
  if (chunked_) {
    AppendNumber(out_, piece.size(), 16);
    out_->append("\r\n");
  }
  out_->append(piece);
  if (chunked_) out_->append("\r\n");
  return true;
}

bool BufferWriter::End() {
  if (!answered_ || ended_ || aborted_) return false;
  ended_ = true;
  if (chunked_) out_->append("0\r\n\r\n");
  return true;
}

Result<ResponseWriter::Upgraded> BufferWriter::Upgrade(const Headers&) {
  return Error::Make("a connection upgrade needs a worker thread: the request was declared inline", "internal");
}

// --- StreamWriter ---

bool StreamWriter::Send(int status, const Headers& headers, std::string_view body) {
  if (answered_) return false;
  answered_ = ended_ = true;
  text_.clear();
  AppendHead(&text_, status, headers);
  text_.append("Content-Length: ");
  AppendNumber(&text_, body.size());
  text_.append("\r\n");
  AppendTail(&text_, keep_alive_);
  // Small bodies go out with the head in one send; large ones are not copied.
  if (body.size() <= 16384) {
    text_.append(body);
    return Put(text_);
  }
  return Put(text_) && Put(body);
}

bool StreamWriter::Begin(int status, const Headers& headers, bool chunked) {
  if (answered_) return false;
  answered_ = true;
  chunked_ = chunked;
  if (!chunked) keep_alive_ = false;
  text_.clear();
  AppendHead(&text_, status, headers);
  if (chunked) text_.append("Transfer-Encoding: chunked\r\n");
  AppendTail(&text_, keep_alive_);
  return Put(text_);
}

bool StreamWriter::Write(std::string_view piece) {
  if (!answered_ || ended_) return false;
  if (piece.empty()) return !gone_;
  if (!chunked_) return Put(piece);
  text_.clear();
  AppendNumber(&text_, piece.size(), 16);
  text_.append("\r\n");
  text_.append(piece);
  text_.append("\r\n");
  return Put(text_);
}

bool StreamWriter::End() {
  if (!answered_ || ended_) return false;
  ended_ = true;
  return chunked_ ? Put("0\r\n\r\n") : true;
}

void StreamWriter::Abort() {
  aborted_ = gone_ = true;
  ::shutdown(fd_, SHUT_RDWR);
}

bool StreamWriter::client_gone() const {
  if (gone_ || stopping_->load()) return true;
  // A peer that closed (or reset) shows as RDHUP/HUP/ERR without reading:
  // handlers that wait for events between writes notice it at once.
  struct pollfd p = {fd_, POLLRDHUP, 0};
  if (poll(&p, 1, 0) > 0 && (p.revents & (POLLRDHUP | POLLHUP | POLLERR))) gone_ = true;
  return gone_;
}

Result<ResponseWriter::Upgraded> StreamWriter::Upgrade(const Headers& headers) {
  if (answered_) return Error::Make("the connection cannot be upgraded: the request was answered already", "internal");
  answered_ = ended_ = upgraded_ = true;
  text_.clear();
  AppendHead(&text_, 101, headers);
  text_.append("Connection: Upgrade\r\n\r\n");
  if (!Put(text_)) return Error::Make("the client left during the upgrade", "io");
  Upgraded u;
  u.fd = fd_;
  u.early.swap(*in_);
  return u;
}

bool StreamWriter::Put(std::string_view text) {
  if (gone_) return false;
  if (!SendAll(fd_, text, timeout_s_, stop_fd_)) gone_ = true;
  return !gone_;
}

}  // namespace sepp::net::internal
