// Non-blocking sockets driven by poll(): each wait watches the socket and the
// cancel eventfd, with the caller's timeout. OpenSSL runs over the same
// non-blocking socket (WANT_READ/WANT_WRITE map to a poll on the socket).
// SIGPIPE: plain writes use MSG_NOSIGNAL; TLS writes go through write(2)
// inside OpenSSL, so SIGPIPE is blocked on this thread around them and any
// pending one is consumed (we never change the process-wide disposition,
// which children would inherit).
#include "net/conn.h"

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <system_error>
#include <thread>
#include <vector>

#include <openssl/err.h>
#include <openssl/x509v3.h>

#include "base/sigpipe_block.h"

namespace sepp::net {
namespace {

using Clock = std::chrono::steady_clock;

std::string FirstOpenSslError() {
  unsigned long e = ERR_peek_last_error();
  ERR_clear_error();
  if (!e) return "unknown error";
  const char* reason = ERR_reason_error_string(e);
  return reason ? reason : "unknown error";
}

std::string Bracketed(const std::string& host) {
  return host.find(':') != std::string::npos ? "[" + host + "]" : host;
}

struct Address {
  sockaddr_storage addr;
  socklen_t len;
};

// getaddrinfo with the fallbacks we want; returns the gai error code.
int LookUp(const std::string& host, int port, std::vector<Address>* out, int* saved_errno) {
  struct addrinfo hints = {};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_ADDRCONFIG | AI_NUMERICSERV;
  struct addrinfo* res = nullptr;
  std::string service = std::to_string(port);
  int rc = getaddrinfo(host.c_str(), service.c_str(), &hints, &res);
  if (rc == EAI_NONAME || rc == EAI_FAIL) {
    // AI_ADDRCONFIG hides loopback-only hosts in some containers: retry without.
    hints.ai_flags = AI_NUMERICSERV;
    rc = getaddrinfo(host.c_str(), service.c_str(), &hints, &res);
  }
  if (rc != 0 && (host == "localhost" || host.ends_with(".localhost"))) {
    // RFC 6761: localhost is loopback, even when a static binary cannot load
    // the glibc NSS modules that would read /etc/hosts.
    hints.ai_flags = AI_NUMERICSERV | AI_NUMERICHOST;
    rc = getaddrinfo("127.0.0.1", service.c_str(), &hints, &res);
  }
  *saved_errno = errno;
  if (rc != 0) return rc;
  for (struct addrinfo* ai = res; ai; ai = ai->ai_next) {
    Address a;
    std::memcpy(&a.addr, ai->ai_addr, ai->ai_addrlen);
    a.len = ai->ai_addrlen;
    out->push_back(a);
  }
  freeaddrinfo(res);
  return 0;
}

// Resolves on a helper thread so that the connect timeout and cancellation
// also cover DNS (getaddrinfo itself cannot be interrupted). On timeout or
// cancel the thread is abandoned; it owns its share of the state.
Result<std::vector<Address>> Resolve(const std::string& host, int port, double timeout_s, int wake_fd) {
  struct State {
    std::vector<Address> addrs;
    int rc = 0, err = 0;
    UniqueFd done{eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)};
  };
  auto state = std::make_shared<State>();
  unsigned char buf[sizeof(struct in6_addr)];
  bool numeric = inet_pton(AF_INET, host.c_str(), buf) == 1 || inet_pton(AF_INET6, host.c_str(), buf) == 1;
  if (numeric || !state->done.valid()) {
    state->rc = LookUp(host, port, &state->addrs, &state->err);
  } else {
    try {
      std::thread([state, host, port] {
        state->rc = LookUp(host, port, &state->addrs, &state->err);
        uint64_t one = 1;
        (void)!write(state->done.get(), &one, sizeof one);
      }).detach();
    } catch (const std::system_error&) {
      state->rc = LookUp(host, port, &state->addrs, &state->err);  // no threads left: block
      uint64_t one = 1;
      (void)!write(state->done.get(), &one, sizeof one);
    }
    Status w = WaitFd(state->done.get(), POLLIN, timeout_s, wake_fd, "DNS");
    if (!w.ok()) return w.error();
  }
  if (state->rc != 0) {
    return Error::Make(state->rc == EAI_SYSTEM ? ErrnoText(state->err) : gai_strerror(state->rc), "connect");
  }
  return std::move(state->addrs);
}

}  // namespace

namespace {
struct ThreadWake {
  UniqueFd fd;
  bool in_use = false;
};
thread_local ThreadWake thread_wake;
}  // namespace

CancelWake::CancelWake(CancelToken* token) : token_(token) {
  if (!token) return;
  ThreadWake& mine = thread_wake;
  if (!mine.in_use && !mine.fd.valid()) mine.fd.Reset(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
  if (!mine.in_use && mine.fd.valid()) {
    mine.in_use = true;
    borrowed_ = true;
    fd_ = mine.fd.get();
  } else {
    own_.Reset(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
    fd_ = own_.get();
  }
  reg_ = token->OnCancel([this] {
    uint64_t one = 1;
    if (fd_ >= 0) (void)!write(fd_, &one, sizeof one);
    written_ = true;
  });
}

CancelWake::~CancelWake() {
  reg_.reset();  // no callback runs after this
  if (!borrowed_) return;
  // Readable again only for the next cancel: what this one wrote is read.
  if (written_) {
    uint64_t v;
    (void)!read(fd_, &v, sizeof v);
  }
  thread_wake.in_use = false;
}

bool CancelWake::fired() const { return token_ && token_->cancelled(); }

Error AbortedError() { return Error::Make("request cancelled", "aborted"); }

std::string Seconds(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g s", s);
  return buf;
}

Status WaitFd(int fd, short events, double timeout_s, int wake_fd, std::string_view what) {
  auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(timeout_s));
  for (;;) {
    struct pollfd p[2] = {{fd, events, 0}, {wake_fd, POLLIN, 0}};
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left < 0) left = 0;
    int n = poll(p, wake_fd >= 0 ? 2 : 1, static_cast<int>(std::min<long long>(left, 1 << 30)));
    if (n < 0) {
      if (errno == EINTR) continue;
      return Error::Make("poll failed: " + ErrnoText(errno), "io");
    }
    if (wake_fd >= 0 && (p[1].revents & POLLIN)) return AbortedError();
    if (p[0].revents) return Ok();  // ready, or an error the next call reports
    if (n == 0 && Clock::now() >= deadline) {
      return Error::Make("timed out after " + Seconds(timeout_s) + " waiting for " + std::string(what), "timeout");
    }
  }
}

Result<std::unique_ptr<Conn>> Conn::Dial(const std::string& host, int port, double timeout_s, int wake_fd,
                                         std::string_view role) {
  std::string peer = Bracketed(host) + ":" + std::to_string(port);
  std::string what = std::string(role) + peer;
  const char* hint = role.empty() ? " — check the URL and your network/proxy settings"
                                  : " — check the proxy URL in HTTPS_PROXY/HTTP_PROXY";
  std::string kind = role.empty() ? "connect" : "proxy";
  if (wake_fd >= 0) {
    struct pollfd p = {wake_fd, POLLIN, 0};
    if (poll(&p, 1, 0) > 0) return AbortedError();
  }

  auto addrs = Resolve(host, port, timeout_s, wake_fd);
  if (!addrs.ok()) {
    if (addrs.error().kind == "aborted") return addrs.error();
    if (addrs.error().kind == "timeout") {
      return Error::Make("timed out after " + Seconds(timeout_s) + " waiting for DNS to resolve " + host +
                             " — check your network and DNS settings",
                         "timeout");
    }
    return Error::Make("cannot reach " + what + ": " + addrs.error().message + hint, kind);
  }

  auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(timeout_s));
  std::string last_error = "no addresses";
  for (const Address& ai : *addrs) {
    UniqueFd fd(socket(ai.addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
    if (!fd.valid()) {
      last_error = ErrnoText(errno);
      continue;
    }
    int one = 1;
    setsockopt(fd.get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (connect(fd.get(), reinterpret_cast<const sockaddr*>(&ai.addr), ai.len) != 0) {
      if (errno != EINPROGRESS) {
        last_error = ErrnoText(errno);
        continue;
      }
      double left = std::chrono::duration<double>(deadline - Clock::now()).count();
      Status w = WaitFd(fd.get(), POLLOUT, left > 0 ? left : 0, wake_fd, what);
      if (!w.ok()) {
        if (w.error().kind == "timeout") {
          return Error::Make("timed out after " + Seconds(timeout_s) + " waiting for " + what +
                                 " to accept the connection" + hint,
                             "timeout");
        }
        return w.error();
      }
      int err = 0;
      socklen_t len = sizeof err;
      getsockopt(fd.get(), SOL_SOCKET, SO_ERROR, &err, &len);
      if (err != 0) {
        last_error = ErrnoText(err);
        continue;
      }
    }
    return std::unique_ptr<Conn>(new Conn(std::move(fd), wake_fd, peer));
  }
  return Error::Make("cannot reach " + what + ": " + last_error + hint, kind);
}

Conn::~Conn() {
  if (ssl_) SSL_free(ssl_);  // no close_notify: we are done either way
}

Error Conn::IoError(std::string_view action, int err) const {
  return Error::Make("connection to " + peer_ + " failed while " + std::string(action) + ": " + ErrnoText(err),
                     "io");
}

Status Conn::StartTls(SSL_CTX* ctx, const std::string& host, double timeout_s) {
  ssl_ = SSL_new(ctx);
  if (!ssl_) return Error::Make("cannot start TLS: " + FirstOpenSslError(), "tls");
  SSL_set_fd(ssl_, fd_.get());
  unsigned char ipbuf[16];
  bool is_ip = inet_pton(AF_INET, host.c_str(), ipbuf) == 1 || inet_pton(AF_INET6, host.c_str(), ipbuf) == 1;
  if (is_ip) {
    X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl_), host.c_str());
  } else {
    SSL_set_tlsext_host_name(ssl_, host.c_str());  // SNI
    SSL_set1_host(ssl_, host.c_str());
  }
  auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(timeout_s));
  for (;;) {
    ERR_clear_error();
    int rc;
    {
      SigpipeBlock block;
      rc = SSL_connect(ssl_);
    }
    if (rc == 1) return Ok();
    int err = SSL_get_error(ssl_, rc);
    if (err == SSL_ERROR_WANT_READ || err == SSL_ERROR_WANT_WRITE) {
      double left = std::chrono::duration<double>(deadline - Clock::now()).count();
      Status w = WaitFd(fd_.get(), err == SSL_ERROR_WANT_READ ? POLLIN : POLLOUT, left > 0 ? left : 0, wake_fd_,
                        peer_ + " (TLS handshake)");
      if (!w.ok()) {
        if (w.error().kind == "timeout") {
          return Error::Make("timed out after " + Seconds(timeout_s) + " waiting for " + peer_ +
                                 " to complete the TLS handshake",
                             "timeout");
        }
        return w.error();
      }
      continue;
    }
    long verify = SSL_get_verify_result(ssl_);
    if (verify != X509_V_OK) {
      return Error::Make("TLS certificate of " + host + " did not verify: " +
                             X509_verify_cert_error_string(verify) +
                             " — if a proxy intercepts TLS here, point SSL_CERT_FILE at its CA certificate",
                         "tls");
    }
    std::string why = err == SSL_ERROR_SYSCALL ? (errno ? ErrnoText(errno) : "connection closed by peer")
                                               : FirstOpenSslError();
    return Error::Make("TLS handshake with " + peer_ + " failed: " + why +
                           " — check that the URL really serves https on this port",
                       "tls");
  }
}

bool Conn::IdleAndOpen() const {
  if (ssl_ && SSL_pending(ssl_) > 0) return false;
  pollfd p{fd_.get(), POLLIN, 0};
  return poll(&p, 1, 0) == 0;
}

Status Conn::WriteAll(std::string_view data, double timeout_s) {
  while (!data.empty()) {
    ssize_t n;
    int err = 0;
    bool want_read = false;
    if (ssl_) {
      ERR_clear_error();
      int rc;
      {
        SigpipeBlock block;
        rc = SSL_write(ssl_, data.data(), static_cast<int>(std::min<size_t>(data.size(), 1 << 30)));
      }
      if (rc > 0) {
        n = rc;
      } else {
        int e = SSL_get_error(ssl_, rc);
        if (e == SSL_ERROR_WANT_WRITE || e == SSL_ERROR_WANT_READ) {
          n = -1;
          err = EAGAIN;
          want_read = e == SSL_ERROR_WANT_READ;
        } else {
          n = -1;
          err = errno ? errno : EPIPE;
        }
      }
    } else {
      n = send(fd_.get(), data.data(), data.size(), MSG_NOSIGNAL);
      err = n < 0 ? errno : 0;
    }
    if (n >= 0) {
      data.remove_prefix(static_cast<size_t>(n));
      continue;
    }
    if (err == EINTR) continue;
    if (err == EAGAIN || err == EWOULDBLOCK) {
      Status w = WaitFd(fd_.get(), want_read ? POLLIN : POLLOUT, timeout_s, wake_fd_, peer_ + " to accept data");
      if (!w.ok()) return w;
      continue;
    }
    return IoError("sending", err);
  }
  return Ok();
}

Result<size_t> Conn::Read(char* buf, size_t n, double idle_timeout_s) {
  for (;;) {
    short wait_for = POLLIN;
    if (ssl_) {
      ERR_clear_error();
      int rc = SSL_read(ssl_, buf, static_cast<int>(std::min<size_t>(n, 1 << 30)));
      if (rc > 0) return static_cast<size_t>(rc);
      int e = SSL_get_error(ssl_, rc);
      if (e == SSL_ERROR_ZERO_RETURN) return size_t{0};
      if (e == SSL_ERROR_WANT_WRITE) {
        wait_for = POLLOUT;
      } else if (e != SSL_ERROR_WANT_READ) {
        if (e == SSL_ERROR_SYSCALL && errno == 0) return size_t{0};
        int err = errno;
        if (e == SSL_ERROR_SYSCALL && err) return IoError("receiving", err);
        return Error::Make("TLS error on the connection to " + peer_ + ": " + FirstOpenSslError(), "io");
      }
    } else {
      ssize_t rc = recv(fd_.get(), buf, n, 0);
      if (rc >= 0) return static_cast<size_t>(rc);
      if (errno == EINTR) continue;
      if (errno != EAGAIN && errno != EWOULDBLOCK) return IoError("receiving", errno);
    }
    Status w = WaitFd(fd_.get(), wait_for, idle_timeout_s, wake_fd_, peer_ + " to send data");
    if (!w.ok()) return w.error();
  }
}

}  // namespace sepp::net
