#include "session/pg_conn.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <utility>

#include <openssl/evp.h>

#include <openssl/err.h>

#include "base/sigpipe_block.h"
#include "session/pg_scram.h"
#include "session/pg_tls.h"

namespace sepp::session {
namespace {

using Clock = std::chrono::steady_clock;

// A single message must fit in this; a larger length is a protocol error
// (or not PostgreSQL at all) rather than a reason to allocate.
constexpr uint32_t kMaxMessage = 256u << 20;

void PutInt32(std::string& out, int32_t v) {
  uint32_t n = htonl(static_cast<uint32_t>(v));
  out.append(reinterpret_cast<const char*>(&n), 4);
}
void PutInt16(std::string& out, int16_t v) {
  uint16_t n = htons(static_cast<uint16_t>(v));
  out.append(reinterpret_cast<const char*>(&n), 2);
}
void PutString(std::string& out, std::string_view s) {
  out.append(s);
  out.push_back('\0');
}
// type byte, then length (itself included) and body.
std::string Frame(char type, std::string_view body) {
  std::string out(1, type);
  PutInt32(out, static_cast<int32_t>(body.size() + 4));
  out.append(body);
  return out;
}

// Reads a message body front to back; any overrun sets bad.
struct BodyReader {
  std::string_view s;
  bool bad = false;
  int32_t Int32() {
    if (s.size() < 4) return bad = true, 0;
    uint32_t n;
    std::memcpy(&n, s.data(), 4);
    s.remove_prefix(4);
    return static_cast<int32_t>(ntohl(n));
  }
  int16_t Int16() {
    if (s.size() < 2) return bad = true, 0;
    uint16_t n;
    std::memcpy(&n, s.data(), 2);
    s.remove_prefix(2);
    return static_cast<int16_t>(ntohs(n));
  }
  std::string String() {
    size_t z = s.find('\0');
    if (z == std::string_view::npos) return bad = true, std::string();
    std::string out(s.substr(0, z));
    s.remove_prefix(z + 1);
    return out;
  }
  std::string_view Bytes(size_t n) {
    if (s.size() < n) return bad = true, std::string_view();
    std::string_view out = s.substr(0, n);
    s.remove_prefix(n);
    return out;
  }
};

// An ErrorResponse as an Error: the server's message, detail and hint;
// kind pg_<SQLSTATE>.
Error ServerError(std::string_view body) {
  std::string code, message, detail, hint;
  BodyReader r{body};
  while (!r.bad && !r.s.empty() && r.s[0] != '\0') {
    char field = r.s[0];
    r.s.remove_prefix(1);
    std::string value = r.String();
    if (field == 'C') code = value;
    if (field == 'M') message = value;
    if (field == 'D') detail = value;
    if (field == 'H') hint = value;
  }
  std::string text = "PostgreSQL: " + (message.empty() ? std::string("error") : message);
  if (!detail.empty()) text += " (" + detail + ")";
  if (!hint.empty()) text += "; " + hint;
  if (!code.empty()) text += " [SQLSTATE " + code + "]";
  // Connection exceptions and "the server is shutting down / starting up /
  // out of connections": the database is away, not the request wrong.
  if (code.rfind("08", 0) == 0 || code.rfind("57P", 0) == 0 || code == "53300")
    return Error::Make(text, "unavailable");
  return Error::Make(text, "pg_" + (code.empty() ? std::string("XX000") : code));
}

std::string Md5Hex(std::string_view data) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(data.data(), data.size(), out, &len, EVP_md5(), nullptr);
  static const char* hex = "0123456789abcdef";
  std::string s;
  for (unsigned int i = 0; i < len; ++i) {
    s += hex[out[i] >> 4];
    s += hex[out[i] & 15];
  }
  return s;
}

Clock::time_point After(double seconds) {
  return Clock::now() +
         std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
}

double Left(Clock::time_point deadline) {
  return std::chrono::duration<double>(deadline - Clock::now()).count();
}

}  // namespace

PgConn::~PgConn() {
  if (fd_.valid() && !broken_) {
    std::string bye = Frame('X', "");
    short want = 0;
    (void)Write(bye.data(), bye.size(), &want);  // no wait: the socket buffer takes it
  }
}

ssize_t PgConn::Write(const char* data, size_t n, short* want) {
  *want = POLLOUT;
  if (!ssl_) return ::send(fd_.get(), data, n, MSG_NOSIGNAL);
  SigpipeBlock no_sigpipe;  // OpenSSL writes with write(2)
  ERR_clear_error();
  int rc = SSL_write(ssl_.get(), data, static_cast<int>(std::min<size_t>(n, 1 << 30)));
  if (rc > 0) return rc;
  return TlsWouldBlock(rc, want);
}

ssize_t PgConn::Read(char* buf, size_t n, short* want) {
  *want = POLLIN;
  if (!ssl_) return ::recv(fd_.get(), buf, n, 0);
  SigpipeBlock no_sigpipe;  // a read may write (a key update, an alert)
  ERR_clear_error();
  int rc = SSL_read(ssl_.get(), buf, static_cast<int>(std::min<size_t>(n, 1 << 30)));
  if (rc > 0) return rc;
  return TlsWouldBlock(rc, want);
}

// SSL_read/SSL_write's failure as the socket calls': -1 with EAGAIN and
// *want set when it must wait, 0 when the peer closed, -1 with EPROTO else.
ssize_t PgConn::TlsWouldBlock(int rc, short* want) {
  switch (SSL_get_error(ssl_.get(), rc)) {
    case SSL_ERROR_WANT_READ:
      *want = POLLIN;
      errno = EAGAIN;
      return -1;
    case SSL_ERROR_WANT_WRITE:
      *want = POLLOUT;
      errno = EAGAIN;
      return -1;
    case SSL_ERROR_ZERO_RETURN:
      return 0;
    case SSL_ERROR_SYSCALL:
      if (errno == 0) return 0;  // EOF without close_notify
      return -1;
    default:
      tls_error_ = SslErrorText();
      errno = EPROTO;
      return -1;
  }
}

std::string PgConn::IoErrorText() {
  if (errno == EPROTO && !tls_error_.empty()) return "TLS: " + std::exchange(tls_error_, "");
  return ErrnoText(errno);
}

Error PgConn::Broken(std::string what) {
  broken_ = true;
  return Error::Make("the PostgreSQL store " + config_.Describe() + " is unavailable: " + what,
                     "unavailable");
}

Result<std::unique_ptr<PgConn>> PgConn::Connect(const PgConfig& config) {
  std::unique_ptr<PgConn> c(new PgConn(config));
  if (Status s = c->Dial(); !s.ok()) return s.error();
  auto tls = StartPgTls(c->fd_.get(), config, config.connect_timeout_s);
  if (!tls.ok()) return tls.error();
  c->ssl_ = std::move(*tls);
  if (Status s = c->Startup(); !s.ok()) return s.error();
  return c;
}

Status PgConn::Dial() {
  auto deadline = After(config_.connect_timeout_s);
  auto connect_one = [&](int family, const sockaddr* addr, socklen_t len) -> Status {
    UniqueFd fd(::socket(family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
    if (!fd.valid()) return Broken("socket: " + ErrnoText(errno));
    if (::connect(fd.get(), addr, len) != 0) {
      if (errno != EINPROGRESS && errno != EAGAIN) return Broken(ErrnoText(errno));
      pollfd p{fd.get(), POLLOUT, 0};
      int n = ::poll(&p, 1, static_cast<int>(std::max(0.0, Left(deadline)) * 1000));
      if (n == 0)
        return Broken("no answer within " + std::to_string(static_cast<int>(config_.connect_timeout_s)) +
                      " s (connect_timeout)");
      int err = 0;
      socklen_t elen = sizeof err;
      ::getsockopt(fd.get(), SOL_SOCKET, SO_ERROR, &err, &elen);
      if (n < 0 || err) return Broken(ErrnoText(n < 0 ? errno : err));
    }
    if (family != AF_UNIX) {
      int one = 1;  // small requests: no Nagle delay between them
      ::setsockopt(fd.get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    }
    fd_ = std::move(fd);
    return Ok();
  };
  if (config_.unix_socket()) {
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::string path = config_.host + "/.s.PGSQL." + std::to_string(config_.port);
    if (path.size() >= sizeof addr.sun_path)
      return Error::Make("the socket path " + path + " is too long for a unix socket", "invalid_argument");
    std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
    return connect_one(AF_UNIX, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  }
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* list = nullptr;
  std::string port = std::to_string(config_.port);
  if (int rc = ::getaddrinfo(config_.host.c_str(), port.c_str(), &hints, &list); rc != 0)
    return Broken("cannot resolve " + config_.host + ": " + gai_strerror(rc));
  Status last = Broken("no address for " + config_.host);
  for (addrinfo* a = list; a; a = a->ai_next) {
    last = connect_one(a->ai_family, a->ai_addr, a->ai_addrlen);
    if (last.ok()) break;
  }
  ::freeaddrinfo(list);
  if (last.ok()) broken_ = false;
  return last;
}

Status PgConn::Send(std::string_view bytes) {
  auto deadline = After(config_.statement_timeout_s);
  while (!bytes.empty()) {
    short want = POLLOUT;
    ssize_t n = Write(bytes.data(), bytes.size(), &want);
    if (n > 0) {
      bytes.remove_prefix(static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n == 0) return Broken("the server closed the connection");
    if (n < 0 && errno != EAGAIN) return Broken("sending: " + IoErrorText());
    pollfd p{fd_.get(), want, 0};
    double left = Left(deadline);
    if (left <= 0 || ::poll(&p, 1, static_cast<int>(left * 1000) + 1) == 0)
      return Broken("timed out sending to the server");
  }
  return Ok();
}

Result<PgConn::Message> PgConn::Receive(double timeout_s, int wake_fd, bool* woken) {
  auto deadline = After(timeout_s);
  for (;;) {
    if (in_.size() - in_pos_ >= 5) {
      uint32_t len;
      std::memcpy(&len, in_.data() + in_pos_ + 1, 4);
      len = ntohl(len);
      if (len < 4 || len > kMaxMessage)
        return Broken("the server sent a message of " + std::to_string(len) +
                      " bytes: not the PostgreSQL protocol");
      if (in_.size() - in_pos_ >= 1 + static_cast<size_t>(len)) {
        Message m{in_[in_pos_], std::string_view(in_).substr(in_pos_ + 5, len - 4)};
        in_pos_ += 1 + len;
        return m;
      }
    }
    // Consumed bytes go before reading more (not per message: a page of
    // rows is thousands of messages in one buffer).
    in_.erase(0, in_pos_);
    in_pos_ = 0;
    char buf[65536];
    short want = POLLIN;
    // TLS may hold decrypted bytes the socket no longer shows: read first.
    if (ssl_) {
      ssize_t got = Read(buf, sizeof buf, &want);
      if (got > 0) {
        in_.append(buf, static_cast<size_t>(got));
        continue;
      }
      if (got == 0) return Broken("the server closed the connection");
      if (errno != EAGAIN && errno != EINTR) return Broken("receiving: " + IoErrorText());
    }
    pollfd p[2] = {{fd_.get(), want, 0}, {wake_fd, POLLIN, 0}};
    double left = Left(deadline);
    int n = ::poll(p, wake_fd >= 0 ? 2 : 1, left <= 0 ? 0 : static_cast<int>(left * 1000) + 1);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Broken("poll: " + ErrnoText(errno));
    if (wake_fd >= 0 && (p[1].revents & POLLIN)) {
      if (woken) *woken = true;
      return Error::Make("woken", "woken");
    }
    if (n == 0) {
      if (woken) return Error::Make("timed out", "timeout");  // an idle wait, not a failure
      return Broken("timed out after " + std::to_string(static_cast<int>(timeout_s)) +
                    " s waiting for the server (statement_timeout)");
    }
    if (ssl_) continue;  // read at the top
    ssize_t got = Read(buf, sizeof buf, &want);
    if (got == 0) return Broken("the server closed the connection");
    if (got < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      return Broken("receiving: " + IoErrorText());
    }
    in_.append(buf, static_cast<size_t>(got));
  }
}

Status PgConn::Startup() {
  std::string body;
  PutInt32(body, 196608);  // protocol 3.0
  PutString(body, "user");
  PutString(body, config_.user);
  PutString(body, "database");
  PutString(body, config_.database);
  PutString(body, "application_name");
  PutString(body, config_.application_name);
  PutString(body, "client_encoding");
  PutString(body, "UTF8");
  if (!config_.synchronous_commit.empty()) {  // a run-time parameter, for this connection
    PutString(body, "synchronous_commit");
    PutString(body, config_.synchronous_commit);
  }
  body.push_back('\0');
  std::string msg;
  PutInt32(msg, static_cast<int32_t>(body.size() + 4));
  msg += body;
  if (Status s = Send(msg); !s.ok()) return s;
  for (;;) {
    auto m = Receive(config_.connect_timeout_s);
    if (!m.ok()) return m.error();
    switch (m->type) {
      case 'R':
        if (Status s = Authenticate(*m); !s.ok()) return s;
        break;
      case 'K': {
        BodyReader r{m->body};
        backend_pid_ = r.Int32();
        break;
      }
      case 'Z':
        return Ok();
      case 'E': {
        Error e = ServerError(m->body);
        broken_ = true;
        e.message = "could not open the PostgreSQL store " + config_.Describe() + ": " + e.message;
        // A refused login is the user's to fix; anything else (starting up,
        // shutting down, no such database yet) may pass: unavailable.
        e.kind = e.kind == "pg_28P01" || e.kind == "pg_28000" ? "auth" : "unavailable";
        return e;
      }
      case 'S':
      case 'N':
        break;
      default:
        return Broken(std::string("unexpected message '") + m->type + "' during startup");
    }
  }
}

Status PgConn::Authenticate(const Message& request) {
  BodyReader r{request.body};
  int32_t code = r.Int32();
  if (code == 0) return Ok();
  auto need_password = [&]() -> Status {
    if (!config_.password.empty()) return Ok();
    broken_ = true;
    return Error::Make("the PostgreSQL server " + config_.Describe() + " wants a password for " +
                           config_.user + ": set PGPASSWORD (or put it in the store URL)",
                       "auth");
  };
  if (code == 3) {  // cleartext
    if (Status s = need_password(); !s.ok()) return s;
    std::string body;
    PutString(body, config_.password);
    return Send(Frame('p', body));
  }
  if (code == 5) {  // md5(md5(password + user) + salt)
    if (Status s = need_password(); !s.ok()) return s;
    std::string_view salt = r.Bytes(4);
    if (r.bad) return Broken("a malformed MD5 request");
    std::string body;
    PutString(body, "md5" + Md5Hex(Md5Hex(config_.password + config_.user) + std::string(salt)));
    return Send(Frame('p', body));
  }
  if (code == 10) {
    if (Status s = need_password(); !s.ok()) return s;
    return Scram(r.s);
  }
  broken_ = true;
  return Error::Make("the PostgreSQL server " + config_.Describe() +
                         " asks for authentication method " + std::to_string(code) +
                         " (GSSAPI, SSPI or Kerberos), which sepp does not speak: allow "
                         "scram-sha-256, md5, password or trust for it in pg_hba.conf",
                     "auth");
}

Status PgConn::Scram(std::string_view mechanisms) {
  bool offered = false;
  BodyReader list{mechanisms};
  while (!list.bad && !list.s.empty() && list.s[0] != '\0')
    if (list.String() == "SCRAM-SHA-256") offered = true;
  if (!offered) {
    broken_ = true;
    return Error::Make("the PostgreSQL server offers no SASL mechanism sepp speaks "
                       "(sepp speaks SCRAM-SHA-256 without channel binding)",
                       "auth");
  }
  ScramClient scram(config_.password);
  std::string first = scram.First();
  std::string body;
  PutString(body, "SCRAM-SHA-256");
  PutInt32(body, static_cast<int32_t>(first.size()));
  body += first;
  if (Status s = Send(Frame('p', body)); !s.ok()) return s;
  for (int step = 0; step < 2; ++step) {
    auto m = Receive(config_.connect_timeout_s);
    if (!m.ok()) return m.error();
    if (m->type == 'E') {
      Error e = ServerError(m->body);
      broken_ = true;
      e.message = "could not open the PostgreSQL store " + config_.Describe() + ": " + e.message;
      e.kind = "auth";
      return e;
    }
    BodyReader r{m->body};
    int32_t code = r.Int32();
    if (m->type != 'R' || r.bad || code != (step == 0 ? 11 : 12))
      return Broken("the server broke off the SCRAM exchange");
    if (step == 0) {
      auto final = scram.Final(r.s);
      if (!final.ok()) return broken_ = true, final.error();
      if (Status s = Send(Frame('p', *final)); !s.ok()) return s;
    } else if (Status s = scram.Verify(r.s); !s.ok()) {
      broken_ = true;
      return s;
    }
  }
  return Ok();
}

Result<PgRows> PgConn::Collect() {
  PgRows rows;
  std::optional<Error> error;
  for (;;) {
    auto m = Receive(config_.statement_timeout_s);
    if (!m.ok()) return m.error();
    BodyReader r{m->body};
    switch (m->type) {
      case 'T': {
        rows = PgRows();
        int16_t n = r.Int16();
        for (int16_t i = 0; i < n && !r.bad; ++i) {
          rows.columns.push_back(r.String());
          r.Bytes(18);  // table oid, attribute, type oid, size, modifier, format
        }
        break;
      }
      case 'D': {
        int16_t n = r.Int16();
        std::vector<std::optional<std::string>> row;
        row.reserve(static_cast<size_t>(std::max<int16_t>(n, 0)));
        for (int16_t i = 0; i < n && !r.bad; ++i) {
          int32_t len = r.Int32();
          if (len < 0)
            row.emplace_back(std::nullopt);
          else
            row.emplace_back(std::string(r.Bytes(static_cast<size_t>(len))));
        }
        rows.rows.push_back(std::move(row));
        break;
      }
      case 'C':
        rows.command = r.String();
        break;
      case 'E':
        if (!error) error = ServerError(m->body);
        if (error->kind == "unavailable") broken_ = true;  // it hangs up next
        break;
      case 'A': {
        PgNotification n;
        n.pid = r.Int32();
        n.channel = r.String();
        n.payload = r.String();
        if (!r.bad) notifications_.push_back(std::move(n));
        break;
      }
      case '1':
        parsed_ = true;
        break;
      case 'Z':
        if (error) return *error;
        return rows;
      case '2': case '3': case 'n': case 'I': case 's': case 'S': case 'N':
        break;
      default:
        return Broken(std::string("unexpected message '") + m->type + "'");
    }
    if (r.bad) return Broken(std::string("a malformed '") + m->type + "' message");
  }
}

Result<PgRows> PgConn::Exec(std::string_view sql) {
  if (broken_) return Broken("the connection was lost before");
  std::string body;
  PutString(body, sql);
  if (Status s = Send(Frame('Q', body)); !s.ok()) return s.error();
  return Collect();
}

Result<PgRows> PgConn::Query(std::string_view sql, const PgParams& params) {
  if (broken_) return Broken("the connection was lost before");
  std::string out;
  std::string name;
  auto known = statements_.find(sql);
  bool parse = known == statements_.end();
  if (parse) {
    name = "sepp" + std::to_string(statements_.size() + 1);
    std::string p;
    PutString(p, name);
    PutString(p, sql);
    PutInt16(p, 0);  // parameter types: inferred
    out += Frame('P', p);
  } else {
    name = known->second;
  }
  std::string b;
  PutString(b, "");  // unnamed portal
  PutString(b, name);
  PutInt16(b, 0);  // all parameters in text
  PutInt16(b, static_cast<int16_t>(params.size()));
  for (const auto& v : params) {
    if (!v) {
      PutInt32(b, -1);
      continue;
    }
    PutInt32(b, static_cast<int32_t>(v->size()));
    b += *v;
  }
  PutInt16(b, 0);  // all results in text
  out += Frame('B', b);
  std::string e;
  PutString(e, "");
  PutInt32(e, 0);  // all rows
  out += Frame('E', e);
  out += Frame('S', "");
  // One write, one round trip: parse (first time only), bind, execute, sync.
  if (Status s = Send(out); !s.ok()) return s.error();
  parsed_ = false;
  auto rows = Collect();
  if (parse && parsed_) statements_.emplace(std::string(sql), name);
  return rows;
}

Result<std::vector<PgNotification>> PgConn::WaitNotifications(double timeout_s, int wake_fd) {
  if (broken_) return Broken("the connection was lost before");
  auto deadline = After(timeout_s);
  // At least one look at the socket, so a zero timeout still sees what came.
  for (bool first = true; notifications_.empty(); first = false) {
    double left = Left(deadline);
    if (left <= 0 && !first) break;
    bool woken = false;
    auto m = Receive(left, wake_fd, &woken);
    if (!m.ok()) {
      if (woken || m.error().kind == "timeout") break;
      return m.error();
    }
    BodyReader r{m->body};
    if (m->type == 'A') {
      PgNotification n;
      n.pid = r.Int32();
      n.channel = r.String();
      n.payload = r.String();
      if (r.bad) return Broken("a malformed notification");
      notifications_.push_back(std::move(n));
    } else if (m->type == 'E') {
      // e.g. the server shutting down: it says why, then closes.
      Error e = ServerError(m->body);
      return Broken(e.message);
    } else if (m->type != 'N' && m->type != 'S') {
      return Broken(std::string("unexpected message '") + m->type + "' while idle");
    }
  }
  std::vector<PgNotification> out(notifications_.begin(), notifications_.end());
  notifications_.clear();
  return out;
}

}  // namespace sepp::session
