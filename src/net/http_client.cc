// HTTP/1.1 client over plain sockets + OpenSSL, driven by poll().
//
// Why not Beast: the API is blocking and one request owns one connection at
// a time, so a poll() loop over one socket plus a cancel eventfd gives exact
// timeouts and immediate cancellation with a few hundred lines that compile
// in seconds, where Beast's templates cost minutes per file on two cores and
// still need a hand-written cancellation path.
//
// Flow of one call:
//   1. parse the URL, choose a proxy (request.proxy or the environment)
//   2. take a kept-alive connection for this target and route from the pool
//      (net/conn_pool.h), or connect (to the proxy or the server) within
//      connect_timeout_s; https via proxy: "CONNECT host:port" and expect
//      2xx; then TLS with SNI + certificate + hostname verification
//   3. send "METHOD target HTTP/1.1" (absolute-URI target through an http
//      proxy), Host, Content-Length, the caller's headers
//   4. read the head (skipping 1xx), then the body by its framing: chunked,
//      Content-Length, or until close; every read waits at most
//      read_timeout_s of silence
//   5. a body read exactly to its end on an HTTP/1.1 connection the server
//      keeps open goes back to the pool; anything else is closed. If a
//      kept-alive connection fails before any byte of an answer (the server
//      closed it meanwhile), the request is sent once more on a new one.
// Cancellation wakes any wait at once.
#include <cctype>
#include <cstdlib>
#include <optional>

#include "base/log.h"
#include "net/conn.h"
#include "net/conn_pool.h"
#include "net/http_client.h"
#include "net/http_wire.h"
#include "net/proxy.h"
#include "net/tls.h"
#include "net/url.h"

namespace sepp::net {
namespace {

constexpr size_t kMaxHeadBytes = 64 * 1024;
constexpr size_t kReadChunk = 16 * 1024;

// Buffered reads of one response.
class Reader {
 public:
  Reader(Conn* conn, double idle_timeout_s) : conn_(conn), idle_(idle_timeout_s) {}

  // Reads more bytes into buf_; false at EOF.
  // Reads more bytes into buf_, waiting at most `within` seconds of silence
  // (the read timeout unless given); false at EOF.
  Result<bool> Fill(double within = -1) {
    char tmp[kReadChunk];
    auto n = conn_->Read(tmp, sizeof tmp, within >= 0 ? within : idle_);
    if (!n.ok()) return n.error();
    buf_.append(tmp, *n);
    received_ += *n;
    return *n > 0;
  }

  Result<MessageHead> ReadHead(std::string_view what) {
    size_t scanned = 0;
    for (;;) {
      size_t end = FindHeadEnd(buf_, scanned);
      if (end != std::string::npos) {
        auto head = ParseHead(std::string_view(buf_).substr(0, end));
        buf_.erase(0, end);
        if (!head.ok()) {
          return Error::Make(std::string(what) + " sent an invalid response: " + head.error().message, "io");
        }
        return head;
      }
      if (buf_.size() > kMaxHeadBytes) {
        return Error::Make(std::string(what) + " sent response headers larger than 64 KiB", "io");
      }
      scanned = buf_.size();
      auto more = Fill();
      if (!more.ok()) return more.error();
      if (!*more) {
        return Error::Make(std::string(what) + " closed the connection before sending a response" +
                               " — the server or a proxy dropped it; try again",
                           "io");
      }
    }
  }

  std::string& buf() { return buf_; }
  // Whether any byte of a response arrived (a request that got none may be
  // sent again on a new connection).
  bool received_any() const { return received_ > 0; }

 private:
  Conn* conn_;
  double idle_;
  std::string buf_;
  size_t received_ = 0;
};

Error ClosedMidBody(const std::string& peer) {
  return Error::Make("connection to " + peer +
                         " closed in the middle of the response — the server or a proxy dropped it; try again",
                     "io");
}

// A consumer that stops early (a stream decoder that has its whole answer)
// usually stops a few bytes before the body's end: the event stream's last
// bytes and the chunked terminator are on their way or already here. Reading
// them, when they come at once and are few, keeps the connection for the
// next call (one TLS handshake per conversation, not per turn); a body that
// goes on is left, and its connection closed.
constexpr size_t kMaxTailBytes = 64 * 1024;
constexpr double kTailWaitS = 1.0;

// Delivers the body per its framing. Returns Ok when complete or when the
// consumer stops early. *complete: the body was read exactly to its end by
// its framing (chunked or Content-Length), so the connection could carry
// another request.
Status ReadBody(Reader& reader, const MessageHead& head, const std::string& method, int status,
                const std::string& peer, const HttpHandlers& handlers, bool* complete) {
  auto deliver = [&](std::string_view piece) { return piece.empty() || !handlers.on_body || handlers.on_body(piece); };
  *complete = false;
  std::string& buf = reader.buf();
  if (method == "HEAD" || status == 204 || status == 304) {
    *complete = buf.empty();
    return Ok();
  }

  if (HeaderHasToken(head.headers, "Transfer-Encoding", "chunked")) {
    ChunkedDecoder decoder;
    std::string out;
    for (;;) {
      auto used = decoder.Feed(buf, &out);
      if (!used.ok()) return Error::Make(peer + " sent an invalid chunked body: " + used.error().message, "io");
      buf.erase(0, *used);
      if (!deliver(out)) {
        // Read the rest (discarded), if it is short and quick.
        size_t tail = 0;
        while (!decoder.done() && tail <= kMaxTailBytes) {
          out.clear();
          auto rest = decoder.Feed(buf, &out);
          if (!rest.ok()) return Ok();
          buf.erase(0, *rest);
          tail += out.size();
          if (decoder.done() || tail > kMaxTailBytes) break;
          auto more = reader.Fill(kTailWaitS);
          if (!more.ok() || !*more) return Ok();
        }
        *complete = decoder.done() && buf.empty();
        return Ok();
      }
      out.clear();
      if (decoder.done()) {
        *complete = buf.empty();
        return Ok();
      }
      auto more = reader.Fill();
      if (!more.ok()) return more.error();
      if (!*more) return ClosedMidBody(peer);
    }
  }

  std::string length_text = FindHeader(head.headers, "Content-Length");
  if (!length_text.empty()) {
    uint64_t length = 0;
    if (length_text.size() > 18) return Error::Make(peer + " sent an invalid Content-Length", "io");
    for (char c : length_text) {
      if (c < '0' || c > '9') return Error::Make(peer + " sent an invalid Content-Length", "io");
      length = length * 10 + static_cast<uint64_t>(c - '0');
    }
    while (length > 0) {
      if (buf.empty()) {
        auto more = reader.Fill();
        if (!more.ok()) return more.error();
        if (!*more) return ClosedMidBody(peer);
      }
      size_t take = static_cast<size_t>(std::min<uint64_t>(length, buf.size()));
      bool go_on = deliver(std::string_view(buf).substr(0, take));
      buf.erase(0, take);
      length -= take;
      if (!go_on) {
        if (length > kMaxTailBytes) return Ok();
        while (length > 0) {  // the short rest, discarded (see kMaxTailBytes)
          if (buf.empty()) {
            auto more = reader.Fill(kTailWaitS);
            if (!more.ok() || !*more) return Ok();
          }
          size_t skip = static_cast<size_t>(std::min<uint64_t>(length, buf.size()));
          buf.erase(0, skip);
          length -= skip;
        }
        *complete = buf.empty();
        return Ok();
      }
    }
    *complete = buf.empty();
    return Ok();
  }

  // Neither: the body runs until the server closes the connection.
  for (;;) {
    if (!deliver(buf)) return Ok();
    buf.clear();
    auto more = reader.Fill();
    if (!more.ok()) return more.error();
    if (!*more) return Ok();
  }
}

Status CheckHeaderText(std::string_view s) {
  for (char c : s) {
    if (c == '\r' || c == '\n' || c == '\0') {
      return Error::Make("an HTTP request header contains a line break or NUL byte", "bad_request");
    }
  }
  return Ok();
}

bool IsManagedHeader(std::string_view name) {
  for (std::string_view m : {"host", "content-length", "connection", "transfer-encoding", "proxy-authorization"}) {
    if (name.size() == m.size()) {
      bool eq = true;
      for (size_t i = 0; i < m.size(); ++i) {
        if (std::tolower(static_cast<unsigned char>(name[i])) != m[i]) eq = false;
      }
      if (eq) return true;
    }
  }
  return false;
}

Result<std::optional<Url>> ChooseProxy(const HttpRequest& request, const Url& url) {
  if (request.proxy == "direct") return std::optional<Url>();
  if (request.proxy.empty()) return ProxyFromEnvironment(url, [](const char* n) { return std::getenv(n); });
  auto p = ParseUrl(request.proxy.find("://") == std::string::npos ? "http://" + request.proxy : request.proxy);
  if (!p.ok() || p->https()) return Error::Make("the proxy URL is not a usable http:// URL", "proxy");
  return std::optional<Url>(std::move(p.value()));
}

// Opens a CONNECT tunnel to url through the proxy connection.
Status OpenTunnel(Conn* conn, const Url& proxy, const Url& url, double timeout_s) {
  std::string req = "CONNECT " + url.HostPort() + " HTTP/1.1\r\nHost: " + url.HostPort() + "\r\n";
  if (!proxy.userinfo.empty()) req += "Proxy-Authorization: " + BasicAuthorization(proxy.userinfo) + "\r\n";
  req += "\r\n";
  if (Status s = conn->WriteAll(req, timeout_s); !s.ok()) return s;
  Reader reader(conn, timeout_s);
  std::string what = "proxy " + proxy.HostPort();
  auto head = reader.ReadHead(what);
  if (!head.ok()) {
    Error e = head.error();
    if (e.kind == "io") e.kind = "proxy";
    return e;
  }
  auto status = ParseStatusLine(head->start_line);
  if (!status.ok()) return Error::Make(what + " sent an invalid answer to CONNECT", "proxy");
  if (status->status == 407) {
    return Error::Make(what + " requires authentication (407) — put user:password@ in the proxy URL", "proxy");
  }
  if (status->status < 200 || status->status > 299) {
    return Error::Make(what + " refused to connect to " + url.HostPort() + ": " + std::to_string(status->status) +
                           " " + status->reason,
                       "proxy");
  }
  if (!reader.buf().empty()) return Error::Make(what + " sent data before the TLS handshake", "proxy");
  return Ok();
}

// Connections are pooled per target and route (the proxy, with its
// credentials, is part of the route).
std::string PoolKey(const Url& url, const std::optional<Url>& proxy) {
  std::string key = url.scheme + "://" + url.HostPort();
  if (proxy) key += " via " + proxy->userinfo + "@" + proxy->HostPort();
  return key;
}

// A new connection to the target, through the proxy if any, with TLS for https.
Result<std::unique_ptr<Conn>> Open(const HttpRequest& request, const Url& url,
                                   const std::optional<Url>& proxy, int wake_fd) {
  const Url& hop = proxy ? *proxy : url;
  auto conn = Conn::Dial(hop.host, hop.port, request.connect_timeout_s, wake_fd, proxy ? "proxy " : "");
  if (!conn.ok()) return conn.error();
  if (url.https()) {
    if (proxy) {
      if (Status s = OpenTunnel(conn->get(), *proxy, url, request.connect_timeout_s); !s.ok()) return s.error();
    }
    auto ctx = ClientTlsContext();
    if (!ctx.ok()) return ctx.error();
    if (Status s = (*conn)->StartTls(*ctx, url.host, request.connect_timeout_s); !s.ok()) return s.error();
  }
  return conn;
}

}  // namespace

std::string HttpResponseHead::Header(std::string_view name) const { return FindHeader(headers, name); }

Status HttpSend(const HttpRequest& request, const HttpHandlers& handlers, CancelToken* cancel) {
  if (cancel && cancel->cancelled()) return AbortedError();
  auto url = ParseUrl(request.url);
  if (!url.ok()) return url.error();
  for (const auto& [k, v] : request.headers) {
    if (Status s = CheckHeaderText(k); !s.ok()) return s;
    if (Status s = CheckHeaderText(v); !s.ok()) return s;
  }
  if (Status s = CheckHeaderText(request.method); !s.ok()) return s;
  auto proxy = ChooseProxy(request, *url);
  if (!proxy.ok()) return proxy.error();

  bool absolute = *proxy && !url->https();
  std::string head = request.method + " " + (absolute ? "http://" + url->HostHeader() + url->target : url->target) +
                     " HTTP/1.1\r\nHost: " + url->HostHeader() + "\r\n";
  if (absolute && !(*proxy)->userinfo.empty()) {
    head += "Proxy-Authorization: " + BasicAuthorization((*proxy)->userinfo) + "\r\n";
  }
  bool has_user_agent = false;
  for (const auto& [k, v] : request.headers) {
    if (IsManagedHeader(k)) continue;
    if (FindHeader(Headers{{k, "1"}}, "User-Agent") == "1") has_user_agent = true;
    head += k + ": " + v + "\r\n";
  }
  if (!has_user_agent) head += "User-Agent: sepp/" SEPP_VERSION "\r\n";
  if (!request.body.empty() || request.method == "POST" || request.method == "PUT" || request.method == "PATCH") {
    head += "Content-Length: " + std::to_string(request.body.size()) + "\r\n";
  }
  head += "\r\n";
  head += request.body;

  CancelWake wake(cancel);
  std::string key = PoolKey(*url, *proxy);
  // A kept-alive connection may have been closed by the server just as we
  // send: if it answers nothing at all, the request was not taken and goes
  // once more on a new connection.
  for (int attempt = 0;; ++attempt) {
    std::unique_ptr<Conn> conn = attempt == 0 ? ConnPool::Shared().Take(key) : nullptr;
    bool reused = conn != nullptr;
    if (!conn) {
      auto opened = Open(request, *url, *proxy, wake.fd());
      if (!opened.ok()) return opened.error();
      conn = std::move(*opened);
    }
    Conn* c = conn.get();
    c->set_wake_fd(wake.fd());
    Reader reader(c, request.read_timeout_s);
    auto retry_on_new = [&](const Error& e) {
      return reused && !wake.fired() && !reader.received_any() && e.kind == "io";
    };
    if (Status s = c->WriteAll(head, request.read_timeout_s); !s.ok()) {
      if (retry_on_new(s.error())) continue;
      return s;
    }
    for (;;) {
      auto msg = reader.ReadHead(c->peer());
      if (!msg.ok()) {
        if (retry_on_new(msg.error())) break;
        return msg.error();
      }
      auto status = ParseStatusLine(msg->start_line);
      if (!status.ok()) return Error::Make(c->peer() + " sent an invalid status line", "io");
      if (status->status >= 100 && status->status < 200) continue;  // interim (100 Continue, 103)
      log::Debug(request.method + " " + url->scheme + "://" + url->HostHeader() + " -> " +
                 std::to_string(status->status) + (reused ? " (kept-alive connection)" : ""));
      HttpResponseHead response_head;
      response_head.status = status->status;
      response_head.headers = msg->headers;
      if (handlers.on_head) handlers.on_head(response_head);
      bool complete = false;
      Status body = ReadBody(reader, *msg, request.method, status->status, c->peer(), handlers, &complete);
      bool keep = body.ok() && complete && status->minor >= 1 &&
                  !HeaderHasToken(msg->headers, "Connection", "close");
      if (keep) ConnPool::Shared().Put(key, std::move(conn));
      return body;
    }
  }
}

Result<HttpResponse> HttpFetch(const HttpRequest& request, CancelToken* cancel, size_t max_body_bytes) {
  HttpResponse response;
  HttpHandlers handlers;
  bool too_big = false;
  handlers.on_head = [&](const HttpResponseHead& h) { response.head = h; };
  handlers.on_body = [&](std::string_view piece) {
    if (response.body.size() + piece.size() > max_body_bytes) {
      too_big = true;
      return false;
    }
    response.body.append(piece);
    return true;
  };
  Status s = HttpSend(request, handlers, cancel);
  if (!s.ok()) return s.error();
  if (too_big) {
    auto url = ParseUrl(request.url);
    return Error::Make((url.ok() ? url->HostHeader() : std::string("the server")) + " sent a body larger than " +
                           std::to_string(max_body_bytes) + " bytes; sepp stopped reading it",
                       "io");
  }
  return response;
}

}  // namespace sepp::net
