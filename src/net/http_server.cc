// The server core: an accept thread plus one thread per connection.
//
// Per connection, a loop of requests (HTTP/1.1 keep-alive):
//   head   must arrive completely within head_timeout_s (slow senders are
//          dropped, with 408 if they sent anything) and fit max_head_bytes
//          (else 431); a malformed head gets 400 and the connection closes
//   body   Content-Length or chunked (both at once is refused: request
//          smuggling), at most max_body_bytes (else 413); "Expect:
//          100-continue" is answered
//   answer the handler's, on the same thread; a streamed answer is written
//          through at once, piece by piece
// The connection closes after a close-delimited or aborted response, after
// "Connection: close" or an HTTP/1.0 request, and on any error. Each
// connection has its own thread, so one slow client never blocks another;
// max_connections bounds the threads.
#include "net/http_server.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <cerrno>
#include <chrono>
#include <cstring>

#include "base/log.h"
#include "net/conn.h"
#include "net/http_wire.h"

namespace sepp::net {
namespace {

using Clock = std::chrono::steady_clock;

const char* Reason(int status) {
  switch (status) {
    case 100: return "Continue";
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
    case 429: return "Too Many Requests";
    case 431: return "Request Header Fields Too Large";
    case 500: return "Internal Server Error";
    case 501: return "Not Implemented";
    case 502: return "Bad Gateway";
    case 503: return "Service Unavailable";
    case 529: return "Overloaded";
    default: return "Status";
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

std::string HeadText(int status, const Headers& headers) {
  std::string out = "HTTP/1.1 " + std::to_string(status) + " " + Reason(status) + "\r\n";
  for (const auto& [k, v] : headers) {
    bool bad = false;
    for (char c : k + v) bad |= c == '\r' || c == '\n';
    if (bad) continue;  // never let a handler split the response
    out += k + ": " + v + "\r\n";
  }
  return out;
}

void SendError(int fd, int status, std::string_view message, int stop_fd) {
  std::string body = std::string(message) + "\n";
  std::string text = HeadText(status, {{"Content-Type", "text/plain; charset=utf-8"}}) +
                     "Content-Length: " + std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" + body;
  SendAll(fd, text, 5, stop_fd);
}

bool IsManaged(const std::string& name) {
  std::string l;
  for (char c : name) l += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return l == "content-length" || l == "transfer-encoding" || l == "connection";
}

class Writer : public ResponseWriter {
 public:
  Writer(int fd, int stop_fd, double timeout_s, const std::atomic<bool>* stopping, bool keep_alive)
      : fd_(fd), stop_fd_(stop_fd), timeout_s_(timeout_s), stopping_(stopping), keep_alive_(keep_alive) {}

  bool Send(int status, const Headers& headers, std::string_view body) override {
    if (answered_) return false;
    answered_ = ended_ = true;
    std::string text = HeadText(status, Filter(headers));
    text += "Content-Length: " + std::to_string(body.size()) + "\r\n";
    if (!keep_alive_) text += "Connection: close\r\n";
    text += "\r\n";
    text.append(body);
    return Put(text);
  }

  bool Begin(int status, const Headers& headers, bool chunked) override {
    if (answered_) return false;
    answered_ = true;
    chunked_ = chunked;
    if (!chunked) keep_alive_ = false;
    std::string text = HeadText(status, Filter(headers));
    if (chunked) text += "Transfer-Encoding: chunked\r\n";
    if (!keep_alive_) text += "Connection: close\r\n";
    text += "\r\n";
    return Put(text);
  }

  bool Write(std::string_view piece) override {
    if (!answered_ || ended_) return false;
    if (piece.empty()) return !gone_;
    if (!chunked_) return Put(piece);
    char size[32];
    std::snprintf(size, sizeof size, "%zx\r\n", piece.size());
    std::string text = size;
    text.append(piece);
    text += "\r\n";
    return Put(text);
  }

  bool End() override {
    if (!answered_ || ended_) return false;
    ended_ = true;
    return chunked_ ? Put("0\r\n\r\n") : true;
  }

  void Abort() override {
    aborted_ = gone_ = true;
    ::shutdown(fd_, SHUT_RDWR);
  }

  bool client_gone() const override {
    if (gone_ || stopping_->load()) return true;
    // A peer that closed (or reset) shows as RDHUP/HUP/ERR without reading:
    // handlers that wait for events between writes notice it at once.
    struct pollfd p = {fd_, POLLRDHUP, 0};
    if (poll(&p, 1, 0) > 0 && (p.revents & (POLLRDHUP | POLLHUP | POLLERR))) gone_ = true;
    return gone_;
  }

  bool answered() const { return answered_; }
  bool ended() const { return ended_; }
  bool reusable() const { return keep_alive_ && ended_ && !aborted_ && !gone_; }

 private:
  static Headers Filter(const Headers& headers) {
    Headers out;
    for (const auto& h : headers) {
      if (!IsManaged(h.first)) out.push_back(h);
    }
    return out;
  }
  bool Put(std::string_view text) {
    if (gone_) return false;
    if (!SendAll(fd_, text, timeout_s_, stop_fd_)) gone_ = true;
    return !gone_;
  }

  int fd_, stop_fd_;
  double timeout_s_;
  const std::atomic<bool>* stopping_;
  bool keep_alive_;
  bool answered_ = false, ended_ = false, chunked_ = true, aborted_ = false;
  mutable bool gone_ = false;
};

}  // namespace

struct HttpServer::Connection {
  UniqueFd fd;
  std::string peer;
  std::thread thread;
  std::atomic<bool> done{false};
};

std::string HttpServerRequest::Header(std::string_view name) const { return FindHeader(headers, name); }

std::string HttpServerRequest::Path() const { return target.substr(0, target.find('?')); }

HttpServer::HttpServer(HttpHandler handler, HttpServerOptions options)
    : handler_(std::move(handler)), options_(std::move(options)) {}

HttpServer::~HttpServer() { Stop(); }

Status HttpServer::Start() {
  struct sockaddr_in6 a6 = {};
  struct sockaddr_in a4 = {};
  bool v6 = options_.host.find(':') != std::string::npos;
  if (v6) {
    a6.sin6_family = AF_INET6;
    a6.sin6_port = htons(static_cast<uint16_t>(options_.port));
    if (inet_pton(AF_INET6, options_.host.c_str(), &a6.sin6_addr) != 1) {
      return Error::Make("cannot listen on " + options_.host + ": not an IP address", "bad_url");
    }
  } else {
    a4.sin_family = AF_INET;
    a4.sin_port = htons(static_cast<uint16_t>(options_.port));
    std::string host = options_.host == "localhost" ? "127.0.0.1" : options_.host;
    if (inet_pton(AF_INET, host.c_str(), &a4.sin_addr) != 1) {
      return Error::Make("cannot listen on " + options_.host + ": not an IP address", "bad_url");
    }
  }
  UniqueFd fd(socket(v6 ? AF_INET6 : AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  if (!fd.valid()) return Error::Make("cannot create a socket: " + ErrnoText(errno), "io");
  int one = 1;
  setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  int rc = v6 ? bind(fd.get(), reinterpret_cast<sockaddr*>(&a6), sizeof a6)
              : bind(fd.get(), reinterpret_cast<sockaddr*>(&a4), sizeof a4);
  if (rc != 0) {
    return Error::Make("cannot listen on " + options_.host + ":" + std::to_string(options_.port) + ": " +
                           ErrnoText(errno) + " — pick another port (0 picks a free one)",
                       "io");
  }
  if (listen(fd.get(), 128) != 0) return Error::Make("listen failed: " + ErrnoText(errno), "io");
  struct sockaddr_storage bound = {};
  socklen_t len = sizeof bound;
  getsockname(fd.get(), reinterpret_cast<sockaddr*>(&bound), &len);
  port_ = ntohs(bound.ss_family == AF_INET6 ? reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port
                                            : reinterpret_cast<sockaddr_in*>(&bound)->sin_port);
  stop_fd_.Reset(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
  listen_fd_ = std::move(fd);
  accept_thread_ = std::thread([this] { AcceptLoop(); });
  return Ok();
}

void HttpServer::Stop() {
  if (!accept_thread_.joinable()) return;
  stopping_ = true;
  uint64_t one = 1;
  (void)!write(stop_fd_.get(), &one, sizeof one);
  accept_thread_.join();
  std::list<std::unique_ptr<Connection>> conns;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& c : connections_) ::shutdown(c->fd.get(), SHUT_RDWR);
    conns.swap(connections_);
  }
  for (auto& c : conns) {
    if (c->thread.joinable()) c->thread.join();
  }
  listen_fd_.Reset();
}

void HttpServer::ReapFinished() {
  std::list<std::unique_ptr<Connection>> finished;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto it = connections_.begin(); it != connections_.end();) {
      if ((*it)->done.load()) {
        finished.push_back(std::move(*it));
        it = connections_.erase(it);
      } else {
        ++it;
      }
    }
  }
  for (auto& c : finished) c->thread.join();
}

void HttpServer::AcceptLoop() {
  for (;;) {
    struct pollfd p[2] = {{listen_fd_.get(), POLLIN, 0}, {stop_fd_.get(), POLLIN, 0}};
    int n = poll(p, 2, 1000);
    if (stopping_) return;
    ReapFinished();
    if (n <= 0) continue;
    struct sockaddr_storage addr = {};
    socklen_t len = sizeof addr;
    int cfd = accept4(listen_fd_.get(), reinterpret_cast<sockaddr*>(&addr), &len, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (cfd < 0) {
      if (errno == EMFILE || errno == ENFILE) std::this_thread::sleep_for(std::chrono::milliseconds(50));
      continue;
    }
    int one = 1;
    setsockopt(cfd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    char host[INET6_ADDRSTRLEN] = "?";
    int port = 0;
    if (addr.ss_family == AF_INET) {
      auto* a = reinterpret_cast<sockaddr_in*>(&addr);
      inet_ntop(AF_INET, &a->sin_addr, host, sizeof host);
      port = ntohs(a->sin_port);
    } else if (addr.ss_family == AF_INET6) {
      auto* a = reinterpret_cast<sockaddr_in6*>(&addr);
      inet_ntop(AF_INET6, &a->sin6_addr, host, sizeof host);
      port = ntohs(a->sin6_port);
    }
    auto conn = std::make_unique<Connection>();
    conn->fd.Reset(cfd);
    conn->peer = std::string(host) + ":" + std::to_string(port);
    std::lock_guard<std::mutex> lock(mu_);
    if (static_cast<int>(connections_.size()) >= options_.max_connections) {
      SendError(cfd, 503, "too many connections", -1);
      continue;  // conn (and the fd) dies here
    }
    Connection* raw = conn.get();
    connections_.push_back(std::move(conn));
    raw->thread = std::thread([this, raw] {
      Serve(raw);
      ::shutdown(raw->fd.get(), SHUT_RDWR);
      raw->done = true;
    });
  }
}

void HttpServer::Serve(Connection* conn) {
  const int fd = conn->fd.get();
  const int stop = stop_fd_.get();
  std::string buf;
  char tmp[16384];
  // Reads more into buf, waiting at most `timeout_s`; false on EOF/error/timeout/stop.
  auto fill = [&](double timeout_s, bool* timed_out) {
    for (;;) {
      ssize_t n = recv(fd, tmp, sizeof tmp, 0);
      if (n > 0) {
        buf.append(tmp, static_cast<size_t>(n));
        return true;
      }
      if (n == 0) return false;
      if (errno == EINTR) continue;
      if (errno != EAGAIN && errno != EWOULDBLOCK) return false;
      Status w = WaitFd(fd, POLLIN, timeout_s, stop, "client");
      if (!w.ok()) {
        if (timed_out) *timed_out = w.error().kind == "timeout";
        return false;
      }
    }
  };

  for (;;) {
    // --- head ---
    auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                       std::chrono::duration<double>(options_.head_timeout_s));
    size_t scanned = 0, end;
    bool first_wait = buf.empty();
    while ((end = FindHeadEnd(buf, scanned)) == std::string::npos) {
      if (buf.size() > options_.max_head_bytes) {
        return SendError(fd, 431, "request head too large", stop);
      }
      scanned = buf.size();
      // Between requests the idle timeout applies; once bytes arrive, the head deadline.
      double left = first_wait && buf.empty() ? options_.idle_timeout_s
                                              : std::chrono::duration<double>(deadline - Clock::now()).count();
      if (left <= 0) return SendError(fd, 408, "request head took too long", stop);
      bool timed_out = false;
      if (!fill(left, &timed_out)) {
        if (timed_out && !buf.empty()) SendError(fd, 408, "request head took too long", stop);
        return;
      }
      if (first_wait) {
        first_wait = false;
        deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                      std::chrono::duration<double>(options_.head_timeout_s));
      }
    }
    if (end > options_.max_head_bytes) return SendError(fd, 431, "request head too large", stop);
    auto head = ParseRequestHead(std::string_view(buf).substr(0, end));
    buf.erase(0, end);
    if (!head.ok()) return SendError(fd, 400, head.error().message, stop);
    const RequestLine* line = &head->line;

    HttpServerRequest req;
    req.method = line->method;
    req.target = line->target;
    req.headers = std::move(head->headers);
    req.peer = conn->peer;
    bool keep_alive = line->minor >= 1 ? !HeaderHasToken(req.headers, "Connection", "close")
                                       : HeaderHasToken(req.headers, "Connection", "keep-alive");

    // --- body ---
    std::string te = req.Header("Transfer-Encoding");
    std::string cl = req.Header("Content-Length");
    if (HeaderHasToken(req.headers, "Expect", "100-continue")) {
      if (!SendAll(fd, "HTTP/1.1 100 Continue\r\n\r\n", options_.idle_timeout_s, stop)) return;
    }
    if (!te.empty()) {
      if (!HeaderHasToken(req.headers, "Transfer-Encoding", "chunked") || te.find(',') != std::string::npos) {
        return SendError(fd, 501, "only chunked transfer coding is supported", stop);
      }
      ChunkedDecoder decoder;
      for (;;) {
        auto used = decoder.Feed(buf, &req.body);
        if (!used.ok()) return SendError(fd, 400, used.error().message, stop);
        buf.erase(0, *used);
        if (req.body.size() > options_.max_body_bytes) return SendError(fd, 413, "request body too large", stop);
        if (decoder.done()) break;
        if (!fill(options_.idle_timeout_s, nullptr)) return;
      }
    } else if (!cl.empty()) {
      uint64_t length = std::stoull(cl);
      if (length > options_.max_body_bytes) return SendError(fd, 413, "request body too large", stop);
      while (buf.size() < length) {
        if (!fill(options_.idle_timeout_s, nullptr)) return;
      }
      req.body = buf.substr(0, length);
      buf.erase(0, length);
    }

    // --- answer ---
    Writer writer(fd, stop, options_.idle_timeout_s, &stopping_, keep_alive);
    handler_(req, writer);
    if (!writer.answered()) writer.Send(500, {{"Content-Type", "text/plain"}}, "handler gave no answer\n");
    if (!writer.ended() && !writer.client_gone()) writer.End();
    if (!writer.reusable() || stopping_) return;
  }
}

}  // namespace sepp::net
