// Internal to src/session: one connection to a PostgreSQL server, speaking
// the frontend/backend protocol v3 directly (docs/serve.md, "The store" says
// why not libpq: Debian's libpq.a needs GSSAPI and LDAP, which have no static
// archives, so it cannot go into the static binary).
//
// What it speaks: startup over a unix socket or TCP; trust, cleartext, MD5
// and SCRAM-SHA-256 authentication (the server's signature is checked); the
// simple query protocol (Exec) and the extended one with text parameters
// (Query, each statement parsed once per connection and kept by name);
// LISTEN/NOTIFY (notifications that arrive during a query are queued for
// WaitNotifications); TLS over TCP as the URL's sslmode asks (pg_tls.h).
// No COPY, no client certificates.
//
// Every wait is bounded by the config's timeouts. An I/O failure or a
// protocol violation marks the connection broken(): it is never used again
// (the pool dials a new one). A server error (ErrorResponse) leaves it
// usable; its Error has kind "pg_<SQLSTATE>" and the server's message,
// detail and hint. Failures to reach the server have kind "unavailable".
//
// Not thread-safe: one thread at a time (the pool hands it out).
#pragma once
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <sys/types.h>
#include <vector>

#include "base/fd.h"
#include "base/result.h"
#include "session/pg_tls.h"
#include "session/pg_url.h"

namespace sepp::session {

struct PgNotification {
  int32_t pid = 0;  // the notifying backend
  std::string channel;
  std::string payload;
};

// Rows of a query in text form; a NULL is nullopt.
struct PgRows {
  std::vector<std::string> columns;
  std::vector<std::vector<std::optional<std::string>>> rows;
  std::string command;  // CommandComplete tag: "INSERT 0 1", "SELECT 3"
};

using PgParams = std::vector<std::optional<std::string>>;

class PgConn {
 public:
  static Result<std::unique_ptr<PgConn>> Connect(const PgConfig& config);
  ~PgConn();  // sends Terminate when still healthy
  PgConn(const PgConn&) = delete;
  PgConn& operator=(const PgConn&) = delete;

  // One or more statements, no parameters; the last statement's rows.
  Result<PgRows> Exec(std::string_view sql);
  // One statement with $1.. parameters (text; nullopt is NULL).
  Result<PgRows> Query(std::string_view sql, const PgParams& params = {});

  // Notifications queued so far, or else waits up to timeout_s for one.
  // wake_fd (-1 for none) readable ends the wait early with an empty list.
  Result<std::vector<PgNotification>> WaitNotifications(double timeout_s, int wake_fd = -1);

  bool broken() const { return broken_; }
  int32_t backend_pid() const { return backend_pid_; }
  const PgConfig& config() const { return config_; }

 private:
  // body points into in_: valid until the next Receive.
  struct Message {
    char type = 0;
    std::string_view body;
  };
  explicit PgConn(PgConfig config) : config_(std::move(config)) {}
  Status Dial();
  Status Startup();
  Status Authenticate(const Message& request);
  Status Scram(std::string_view mechanisms);
  Status Send(std::string_view bytes);
  // The next message, or an error (the connection is then broken unless
  // the error is a timeout of WaitNotifications).
  Result<Message> Receive(double timeout_s, int wake_fd = -1, bool* woken = nullptr);
  // Reads up to ReadyForQuery, collecting rows and the first error.
  Result<PgRows> Collect();
  Error Broken(std::string what);
  // One send/recv, through TLS when it is on: bytes moved, 0 when the peer
  // closed, -1 with errno (EAGAIN: wait for *want on the socket).
  ssize_t Write(const char* data, size_t n, short* want);
  ssize_t Read(char* buf, size_t n, short* want);
  ssize_t TlsWouldBlock(int rc, short* want);
  std::string IoErrorText();  // errno's text, or OpenSSL's for EPROTO

  PgConfig config_;
  UniqueFd fd_;
  SslPtr ssl_;  // null for a plain connection
  std::string tls_error_;
  bool broken_ = false;
  int32_t backend_pid_ = 0;
  std::string in_;     // received; parsed up to in_pos_
  size_t in_pos_ = 0;
  std::deque<PgNotification> notifications_;
  std::map<std::string, std::string, std::less<>> statements_;  // sql -> name
  bool parsed_ = false;  // a ParseComplete came in the last Collect
};

}  // namespace sepp::session
