// Internal to src/session: where a PostgreSQL store is, from its URL.
//
//   postgres://[user[:password]@][host][:port][/database][?param=value&...]
//   (postgresql:// too). host may be a percent-encoded socket folder
//   (postgres://%2Ftmp%2Fpg/sepp) or given as ?host=/tmp/pg; with no host
//   the default socket folder /var/run/postgresql is used. Parameters:
//   host, port, user, password, dbname, connect_timeout (s, default 5),
//   statement_timeout (s: how long one request may wait for the server,
//   default 30), pool_size (default 4), application_name.
//   A password not in the URL comes from PGPASSWORD (the environment only;
//   a URL on a command line shows in `ps`).
#pragma once
#include <string>
#include <string_view>

#include "base/result.h"

namespace sepp::session {

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

  bool unix_socket() const { return !host.empty() && host[0] == '/'; }
  // For messages: the URL without its password.
  std::string Describe() const;
};

// True for postgres:// and postgresql:// URLs.
bool IsPgUrl(std::string_view text);
Result<PgConfig> ParsePgUrl(std::string_view url);

}  // namespace sepp::session
