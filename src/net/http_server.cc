// The server core: one event-loop thread plus worker threads.
//
// The loop (epoll, level-triggered) owns every connection that is not in a
// worker's hands: it accepts, reads, parses heads and bodies, and keeps the
// idle keep-alive connections. Per connection, requests in order:
//   head   must arrive completely within head_timeout_s of its first byte
//          (slow senders are dropped, with 408 if they sent anything) and
//          fit max_head_bytes (else 431); a malformed head gets 400 and the
//          connection closes; between requests idle_timeout_s applies
//   body   Content-Length or chunked (both at once is refused: request
//          smuggling), at most max_body_bytes (else 413), silence of at most
//          idle_timeout_s; "Expect: 100-continue" is answered
//   answer inline (options.answer_inline says so): the handler runs on the
//          loop and its answer goes to the connection's output buffer, sent
//          as the socket takes it; pipelined requests after it are parsed
//          only once it is out, so answers keep the order of the requests.
//          Otherwise the connection leaves the loop for a worker thread,
//          which runs the handler and writes through at once (streams),
//          and comes back to the loop when the answer is complete and the
//          connection reusable.
// The connection closes after a close-delimited or aborted response, after
// "Connection: close" or an HTTP/1.0 request without keep-alive, after an
// upgrade's handler returns, and on any error.
//
// Why level-triggered: a connection is read once per readiness report and a
// request usually arrives in one segment, so one recv() per request; edge
// triggering would need a second recv() to see EAGAIN every time. Interest
// changes only when a connection goes to a worker or waits for room to
// write, never on the inline path.
//
// Timeouts cost no clock call per request: the loop reads the clock once per
// wake-up and sweeps the deadlines a few times per shortest timeout.
#include "net/http_server.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <list>
#include <mutex>
#include <thread>
#include <vector>

#include "net/http_server_response.h"
#include "net/http_wire.h"

namespace sepp::net {
namespace {

using Clock = std::chrono::steady_clock;

// Buffers larger than this are freed when a connection falls idle.
constexpr size_t kKeepBytes = 64 * 1024;

Clock::duration Secs(double s) { return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s)); }

std::string PeerName(const sockaddr_storage& addr) {
  char host[INET6_ADDRSTRLEN] = "?";
  int port = 0;
  if (addr.ss_family == AF_INET) {
    auto* a = reinterpret_cast<const sockaddr_in*>(&addr);
    inet_ntop(AF_INET, &a->sin_addr, host, sizeof host);
    port = ntohs(a->sin_port);
  } else if (addr.ss_family == AF_INET6) {
    auto* a = reinterpret_cast<const sockaddr_in6*>(&addr);
    inet_ntop(AF_INET6, &a->sin6_addr, host, sizeof host);
    port = ntohs(a->sin6_port);
  }
  return std::string(host) + ":" + std::to_string(port);
}

void AppendError(std::string* out, int status, std::string_view message) {
  internal::AppendHead(out, status, {});
  out->append("Content-Type: text/plain; charset=utf-8\r\nContent-Length: ");
  internal::AppendNumber(out, message.size() + 1);
  out->append("\r\nConnection: close\r\n\r\n");
  out->append(message);
  out->push_back('\n');
}

}  // namespace

std::string HttpServerRequest::Header(std::string_view name) const { return FindHeader(headers, name); }

std::string HttpServerRequest::Path() const { return target.substr(0, target.find('?')); }

class HttpServer::Loop {
 public:
  Loop(const HttpHandler& handler, const HttpServerOptions& options, UniqueFd listen_fd);
  ~Loop();
  Status Start();
  void Stop();

 private:
  enum class Phase {
    kIdle,     // between requests: nothing buffered of the next one
    kHead,     // part of a head has arrived
    kBody,     // the head is parsed, the body is arriving
    kWorker,   // a worker has the connection (not in epoll)
    kFlush,    // an answer must go out before anything else happens
  };
  struct Connection {
    UniqueFd fd;
    std::string peer;
    std::string in;         // read, not yet consumed
    size_t scanned = 0;     // how far `in` was searched for the head's end
    std::string out;        // answered on the loop, not yet sent
    size_t out_sent = 0;
    Phase phase = Phase::kIdle;
    Phase after_flush = Phase::kIdle;  // where a kFlush goes back to
    uint32_t interest = 0;  // what epoll watches for it
    Clock::time_point deadline;
    bool client_closed = false;  // read 0: the client sent all it will
    bool close_after_flush = false;
    bool go_to_worker = false;   // after the flush, the request goes to a worker
    bool keep_alive = true;
    bool chunked = false;
    uint64_t length = 0;
    ChunkedDecoder decoder;
    RequestHead head;        // parse storage, swapped with req's (no allocation)
    std::string start_line;
    HttpServerRequest req;
    std::list<std::unique_ptr<Connection>>::iterator self;
  };

  void Run();
  void Accept();
  void OnEvent(Connection* c, uint32_t events);
  // Each of these returns false once it has closed the connection (c is
  // gone then) or, for ReadHead and ReadBody, when more bytes are needed.
  void Advance(Connection* c);
  bool ReadHead(Connection* c);
  bool ReadBody(Connection* c);
  bool Answer(Connection* c);
  bool Flush(Connection* c);
  void Fail(Connection* c, int status, std::string_view message);
  void Watch(Connection* c, uint32_t interest);
  void Close(Connection* c);
  void Sweep();
  void TakeBack();
  void Worker();
  void Serve(Connection* c);

  const HttpHandler& handler_;
  const HttpServerOptions& options_;
  UniqueFd listen_fd_, epoll_fd_;
  UniqueFd wake_fd_;  // eventfd: a worker handed a connection back, or Stop()
  UniqueFd stop_fd_;  // eventfd, readable once Stop() begins: ends workers' waits
  std::atomic<bool> stopping_{false};
  std::thread thread_;
  Clock::time_point now_, next_sweep_;
  Clock::duration sweep_every_;
  std::list<std::unique_ptr<Connection>> connections_;  // loop thread only
  char scratch_[16384];

  // Hand-offs between the loop and the workers.
  std::mutex mu_;
  std::condition_variable work_cv_;
  std::deque<Connection*> work_;      // for a worker
  std::vector<Connection*> done_;     // back to the loop
  int idle_workers_ = 0;
  std::list<std::thread> workers_;
};

HttpServer::Loop::Loop(const HttpHandler& handler, const HttpServerOptions& options, UniqueFd listen_fd)
    : handler_(handler), options_(options), listen_fd_(std::move(listen_fd)) {
  double shortest = std::min(options_.head_timeout_s, options_.idle_timeout_s);
  sweep_every_ = Secs(std::clamp(shortest / 4, 0.01, 1.0));
}

HttpServer::Loop::~Loop() { Stop(); }

Status HttpServer::Loop::Start() {
  epoll_fd_.Reset(epoll_create1(EPOLL_CLOEXEC));
  wake_fd_.Reset(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
  stop_fd_.Reset(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
  if (!epoll_fd_.valid() || !wake_fd_.valid() || !stop_fd_.valid()) return Error::Make("cannot create an epoll set: " + ErrnoText(errno), "io");
  struct epoll_event ev = {};
  ev.events = EPOLLIN;
  ev.data.ptr = &listen_fd_;
  epoll_ctl(epoll_fd_.get(), EPOLL_CTL_ADD, listen_fd_.get(), &ev);
  ev.data.ptr = &wake_fd_;
  epoll_ctl(epoll_fd_.get(), EPOLL_CTL_ADD, wake_fd_.get(), &ev);
  thread_ = std::thread([this] { Run(); });
  return Ok();
}

void HttpServer::Loop::Stop() {
  if (!thread_.joinable()) return;
  stopping_ = true;
  uint64_t one = 1;
  (void)!write(stop_fd_.get(), &one, sizeof one);
  (void)!write(wake_fd_.get(), &one, sizeof one);
  thread_.join();
  // The loop is gone: what workers hold is shut down so that their
  // handlers see failing writes and client_gone(), then they are joined.
  for (auto& c : connections_) ::shutdown(c->fd.get(), SHUT_RDWR);
  {
    std::lock_guard<std::mutex> lock(mu_);
    work_.clear();
  }
  work_cv_.notify_all();
  for (auto& t : workers_) t.join();
  workers_.clear();
  connections_.clear();
  listen_fd_.Reset();
}

void HttpServer::Loop::Run() {
  struct epoll_event events[128];
  now_ = Clock::now();
  next_sweep_ = now_ + sweep_every_;
  while (!stopping_) {
    int wait_ms = static_cast<int>(
        std::chrono::duration_cast<std::chrono::milliseconds>(next_sweep_ - now_).count()) + 1;
    int n = epoll_wait(epoll_fd_.get(), events, 128, std::max(wait_ms, 0));
    if (n < 0 && errno != EINTR) break;
    now_ = Clock::now();  // the one clock read per wake-up
    for (int i = 0; i < n; ++i) {
      void* tag = events[i].data.ptr;
      if (tag == &listen_fd_) {
        Accept();
      } else if (tag == &wake_fd_) {
        uint64_t count;
        (void)!read(wake_fd_.get(), &count, sizeof count);
        if (stopping_) return;
        TakeBack();
      } else {
        OnEvent(static_cast<Connection*>(tag), events[i].events);
      }
    }
    if (now_ >= next_sweep_) {
      Sweep();
      next_sweep_ = now_ + sweep_every_;
    }
  }
}

void HttpServer::Loop::Accept() {
  for (;;) {
    struct sockaddr_storage addr = {};
    socklen_t len = sizeof addr;
    int cfd = accept4(listen_fd_.get(), reinterpret_cast<sockaddr*>(&addr), &len, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (cfd < 0) {
      // Out of descriptors: the pending connection stays in the backlog and
      // the listener would report it at once again; the sweep retries.
      if (errno == EMFILE || errno == ENFILE) {
        struct epoll_event ev = {};
        ev.data.ptr = &listen_fd_;
        epoll_ctl(epoll_fd_.get(), EPOLL_CTL_MOD, listen_fd_.get(), &ev);
      }
      return;
    }
    if (static_cast<int>(connections_.size()) >= options_.max_connections) {
      static constexpr std::string_view kBusy =
          "HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain; charset=utf-8\r\n"
          "Content-Length: 21\r\nConnection: close\r\n\r\ntoo many connections\n";
      (void)!send(cfd, kBusy.data(), kBusy.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
      close(cfd);
      continue;
    }
    int one = 1;
    setsockopt(cfd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    auto conn = std::make_unique<Connection>();
    Connection* c = conn.get();
    c->fd.Reset(cfd);
    c->peer = PeerName(addr);
    c->deadline = now_ + Secs(options_.idle_timeout_s);
    connections_.push_back(std::move(conn));
    c->self = std::prev(connections_.end());
    struct epoll_event ev = {};
    ev.events = c->interest = EPOLLIN | EPOLLRDHUP;
    ev.data.ptr = c;
    epoll_ctl(epoll_fd_.get(), EPOLL_CTL_ADD, cfd, &ev);
  }
}

void HttpServer::Loop::OnEvent(Connection* c, uint32_t events) {
  if (c->phase == Phase::kFlush) {
    if (events & (EPOLLERR | EPOLLHUP)) return Close(c);
    if (Flush(c) && c->phase != Phase::kFlush && c->phase != Phase::kWorker) Advance(c);
    return;
  }
  // Read once: level triggering reports the rest on the next wait.
  ssize_t n = recv(c->fd.get(), scratch_, sizeof scratch_, 0);
  if (n > 0) {
    c->in.append(scratch_, static_cast<size_t>(n));
  } else if (n == 0) {
    c->client_closed = true;
  } else if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
    return Close(c);
  }
  Advance(c);
}

// Moves the connection on as far as its buffered bytes allow.
void HttpServer::Loop::Advance(Connection* c) {
  for (;;) {
    if (c->phase == Phase::kIdle || c->phase == Phase::kHead) {
      if (!ReadHead(c)) return;
    }
    if (c->phase == Phase::kBody) {
      if (!ReadBody(c)) return;
    }
    if (!Answer(c)) return;
    if (c->phase != Phase::kIdle) return;  // flushing or at a worker
    if (c->in.empty()) {
      if (c->client_closed) return Close(c);
      // A large request leaves no large buffers behind on an idle connection.
      if (c->in.capacity() > kKeepBytes) std::string().swap(c->in);
      if (c->req.body.capacity() > kKeepBytes) std::string().swap(c->req.body);
      if (c->out.capacity() > kKeepBytes) std::string().swap(c->out);
      return;
    }
  }
}

// False while the head is incomplete (or the connection failed).
bool HttpServer::Loop::ReadHead(Connection* c) {
  size_t end = FindHeadEnd(c->in, c->scanned);
  if (end == std::string::npos) {
    if (c->in.size() > options_.max_head_bytes) return Fail(c, 431, "request head too large"), false;
    c->scanned = c->in.size();
    if (c->client_closed) return Close(c), false;
    if (c->phase == Phase::kIdle && !c->in.empty()) {
      c->phase = Phase::kHead;
      c->deadline = now_ + Secs(options_.head_timeout_s);
    } else if (c->phase == Phase::kIdle) {
      c->deadline = now_ + Secs(options_.idle_timeout_s);
    }
    return false;
  }
  if (end > options_.max_head_bytes) return Fail(c, 431, "request head too large"), false;
  Status parsed = ParseRequestHeadInto(std::string_view(c->in).substr(0, end), &c->head, &c->start_line);
  c->in.erase(0, end);
  c->scanned = 0;
  if (!parsed.ok()) return Fail(c, 400, parsed.error().message), false;
  HttpServerRequest& req = c->req;
  req.method.swap(c->head.line.method);
  req.target.swap(c->head.line.target);
  req.headers.swap(c->head.headers);
  if (req.peer != c->peer) req.peer = c->peer;
  req.body.clear();
  c->keep_alive = c->head.line.minor >= 1 ? !HeaderHasToken(req.headers, "Connection", "close")
                                          : HeaderHasToken(req.headers, "Connection", "keep-alive");
  if (HeaderHasToken(req.headers, "Expect", "100-continue")) c->out.append("HTTP/1.1 100 Continue\r\n\r\n");
  c->chunked = false;
  c->length = 0;
  std::string_view te, cl;
  for (const auto& [k, v] : req.headers) {
    if (k.size() == 17 && strncasecmp(k.c_str(), "Transfer-Encoding", 17) == 0) te = v;
    if (k.size() == 14 && strncasecmp(k.c_str(), "Content-Length", 14) == 0) cl = v;
  }
  if (!te.empty()) {
    if (!HeaderHasToken(req.headers, "Transfer-Encoding", "chunked") || te.find(',') != std::string_view::npos) {
      return Fail(c, 501, "only chunked transfer coding is supported"), false;
    }
    c->chunked = true;
    c->decoder = ChunkedDecoder();
  } else if (!cl.empty()) {
    c->length = std::stoull(std::string(cl));  // digits only, at most 18 (ParseRequestHead)
    if (c->length > options_.max_body_bytes) return Fail(c, 413, "request body too large"), false;
  }
  c->phase = Phase::kBody;
  c->deadline = now_ + Secs(options_.idle_timeout_s);
  return true;
}

// False while the body is incomplete (or the connection failed).
bool HttpServer::Loop::ReadBody(Connection* c) {
  HttpServerRequest& req = c->req;
  bool complete;
  if (c->chunked) {
    auto used = c->decoder.Feed(c->in, &req.body);
    if (!used.ok()) return Fail(c, 400, used.error().message), false;
    c->in.erase(0, *used);
    if (req.body.size() > options_.max_body_bytes) return Fail(c, 413, "request body too large"), false;
    complete = c->decoder.done();
  } else {
    complete = c->in.size() >= c->length;
    if (complete && c->length) {
      req.body.assign(c->in, 0, c->length);
      c->in.erase(0, c->length);
    }
  }
  if (complete) return true;
  // The 100 Continue (if asked) must reach the client before it sends more.
  if (!c->out.empty() && !Flush(c)) return false;
  if (c->client_closed) return Close(c), false;
  c->deadline = now_ + Secs(options_.idle_timeout_s);
  return false;
}

bool HttpServer::Loop::Answer(Connection* c) {
  if (options_.answer_inline && options_.answer_inline(c->req)) {
    internal::BufferWriter writer(&c->out, c->keep_alive, c->client_closed);
    handler_(c->req, writer);
    if (!writer.answered()) writer.Send(500, {{"Content-Type", "text/plain"}}, "handler gave no answer\n");
    if (!writer.ended()) writer.End();
    if (writer.aborted()) return Close(c), false;
    c->close_after_flush = !writer.reusable();
    c->phase = Phase::kIdle;
    c->deadline = now_ + Secs(options_.idle_timeout_s);
    return Flush(c);
  }
  c->go_to_worker = true;
  return Flush(c);
}

// Sends what the loop answered; then closes, hands to a worker or goes back
// to the phase it was in.
bool HttpServer::Loop::Flush(Connection* c) {
  while (c->out_sent < c->out.size()) {
    ssize_t n = send(c->fd.get(), c->out.data() + c->out_sent, c->out.size() - c->out_sent, MSG_NOSIGNAL);
    if (n > 0) {
      c->out_sent += static_cast<size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      // Wait for room; read nothing meanwhile (answers keep request order).
      if (c->phase != Phase::kFlush) {
        c->after_flush = c->phase;
        c->phase = Phase::kFlush;
      }
      c->deadline = now_ + Secs(options_.idle_timeout_s);
      Watch(c, EPOLLOUT);
      return true;
    }
    return Close(c), false;
  }
  c->out.clear();
  c->out_sent = 0;
  if (c->close_after_flush) return Close(c), false;
  if (c->phase == Phase::kFlush) {
    c->phase = c->after_flush;
    Watch(c, EPOLLIN | EPOLLRDHUP);
  }
  if (c->go_to_worker) {
    c->go_to_worker = false;
    c->phase = Phase::kWorker;
    Watch(c, 0);
    {
      std::lock_guard<std::mutex> lock(mu_);
      work_.push_back(c);
      if (static_cast<int>(work_.size()) > idle_workers_) {
        workers_.emplace_back([this] { Worker(); });
      }
    }
    work_cv_.notify_one();
  }
  return true;
}

void HttpServer::Loop::Fail(Connection* c, int status, std::string_view message) {
  AppendError(&c->out, status, message);
  c->close_after_flush = true;
  c->go_to_worker = false;
  (void)Flush(c);
}

void HttpServer::Loop::Watch(Connection* c, uint32_t interest) {
  if (c->interest == interest) return;
  struct epoll_event ev = {};
  ev.events = interest;
  ev.data.ptr = c;
  epoll_ctl(epoll_fd_.get(), interest == 0 ? EPOLL_CTL_DEL : c->interest == 0 ? EPOLL_CTL_ADD : EPOLL_CTL_MOD,
            c->fd.get(), &ev);
  c->interest = interest;
}

void HttpServer::Loop::Close(Connection* c) {
  // Removed from the epoll set before the close: closing the descriptor is
  // not enough while a copy of it lives on (a child between fork and exec,
  // as the processes API starts them, holds every descriptor), and epoll
  // would go on reporting it with a pointer to the freed connection.
  Watch(c, 0);
  connections_.erase(c->self);
}

void HttpServer::Loop::Sweep() {
  // Descriptors may have been freed since accept4 ran out of them.
  struct epoll_event ev = {};
  ev.events = EPOLLIN;
  ev.data.ptr = &listen_fd_;
  epoll_ctl(epoll_fd_.get(), EPOLL_CTL_MOD, listen_fd_.get(), &ev);
  for (auto it = connections_.begin(); it != connections_.end();) {
    Connection* c = (it++)->get();
    if (c->phase == Phase::kWorker || now_ < c->deadline) continue;
    if (c->phase == Phase::kHead) {
      // One try to say why: a client that reads nothing keeps nothing open.
      AppendError(&c->out, 408, "request head took too long");
      (void)!send(c->fd.get(), c->out.data() + c->out_sent, c->out.size() - c->out_sent, MSG_NOSIGNAL | MSG_DONTWAIT);
    }
    Close(c);
  }
}

// Connections whose worker has finished: reusable ones rejoin the loop.
void HttpServer::Loop::TakeBack() {
  std::vector<Connection*> back;
  {
    std::lock_guard<std::mutex> lock(mu_);
    back.swap(done_);
  }
  for (Connection* c : back) {
    if (c->close_after_flush) {
      Close(c);
      continue;
    }
    c->phase = Phase::kIdle;
    c->deadline = now_ + Secs(options_.idle_timeout_s);
    Watch(c, EPOLLIN | EPOLLRDHUP);
    if (!c->in.empty() || c->client_closed) Advance(c);
  }
}

void HttpServer::Loop::Worker() {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    ++idle_workers_;
    work_cv_.wait(lock, [this] { return stopping_ || !work_.empty(); });
    --idle_workers_;
    if (stopping_) return;
    Connection* c = work_.front();
    work_.pop_front();
    lock.unlock();
    Serve(c);
    lock.lock();
    done_.push_back(c);
    uint64_t one = 1;
    (void)!write(wake_fd_.get(), &one, sizeof one);
  }
}

// On a worker: the handler, with a writer that sends at once.
void HttpServer::Loop::Serve(Connection* c) {
  internal::StreamWriter writer(c->fd.get(), stop_fd_.get(), options_.idle_timeout_s, &stopping_, c->keep_alive,
                                &c->in);
  handler_(c->req, writer);
  if (!writer.answered()) writer.Send(500, {{"Content-Type", "text/plain"}}, "handler gave no answer\n");
  if (!writer.ended() && !writer.client_gone()) writer.End();
  c->close_after_flush = !writer.reusable() || stopping_;
}

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
  if (listen(fd.get(), 511) != 0) return Error::Make("listen failed: " + ErrnoText(errno), "io");
  struct sockaddr_storage bound = {};
  socklen_t len = sizeof bound;
  getsockname(fd.get(), reinterpret_cast<sockaddr*>(&bound), &len);
  port_ = ntohs(bound.ss_family == AF_INET6 ? reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port
                                            : reinterpret_cast<sockaddr_in*>(&bound)->sin_port);
  auto loop = std::make_unique<Loop>(handler_, options_, std::move(fd));
  if (Status s = loop->Start(); !s.ok()) return s;
  loop_ = std::move(loop);
  return Ok();
}

void HttpServer::Stop() {
  if (loop_) loop_->Stop();
  loop_.reset();
}

}  // namespace sepp::net
