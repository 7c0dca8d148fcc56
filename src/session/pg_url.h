// Internal to src/session: where a PostgreSQL store is, from its URL.
//
//   postgres://[user[:password]@][host][:port][/database][?param=value&...]
//   (postgresql:// too). host may be a percent-encoded socket folder
//   (postgres://%2Ftmp%2Fpg/sepp) or given as ?host=/tmp/pg; with no host
//   the default socket folder /var/run/postgresql is used. Parameters:
//   host, port, user, password, dbname, connect_timeout (s, default 5),
//   statement_timeout (s: how long one request may wait for the server,
//   default 30), pool_size (default 4), application_name, outbox_kb (how
//   much of one session's entries is kept on local disk while the database
//   is away, default 65536: pg_outbox.h), sslmode and sslrootcert (as
//   libpq: sslmode disable | prefer (the default: TLS when the server offers
//   it, unverified) | require (TLS, unverified) | verify-ca (TLS, the
//   certificate chains to sslrootcert) | verify-full (verify-ca, and the
//   certificate names the host); sslrootcert is a PEM file of CA
//   certificates, "system" for the system's, default
//   ~/.postgresql/root.crt). A unix socket never uses TLS.
//   synchronous_commit (on | off | local | remote_write | remote_apply: set
//   for sepp's connections only; docs/serve.md, "The store", says what off
//   trades: the last ~0.6 s of appends if the database server crashes).
//   A password not in the URL comes from PGPASSWORD (the environment only;
//   a URL on a command line shows in `ps`).
#pragma once
#include <cstddef>
#include <string>
#include <string_view>

#include "base/result.h"

namespace sepp::session {

enum class PgSslMode { kDisable, kPrefer, kRequire, kVerifyCa, kVerifyFull };

struct PgConfig {
  std::string host;  // a name or address, or (starting with '/') a socket folder
  int port = 5432;
  std::string user;
  std::string password;
  std::string database;
  std::string application_name = "sepp";
  double connect_timeout_s = 5;
  double statement_timeout_s = 30;
  int pool_size = 4;
  size_t outbox_max_bytes = size_t{64} << 20;
  PgSslMode ssl_mode = PgSslMode::kPrefer;
  std::string ssl_root_cert;  // "" for the default, "system"
  std::string synchronous_commit;  // "" leaves the server's setting
  // Where sessions keep entries while the database is away; OpenPgStore
  // fills it in (SeppHome()/pg-outbox/<database key>) when empty.
  std::string outbox_dir;

  bool unix_socket() const { return !host.empty() && host[0] == '/'; }
  // For messages: the URL without its password.
  std::string Describe() const;
};

// True for postgres:// and postgresql:// URLs.
bool IsPgUrl(std::string_view text);
Result<PgConfig> ParsePgUrl(std::string_view url);

}  // namespace sepp::session
