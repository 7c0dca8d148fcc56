#include "session/pg_url.h"

#include <cstdlib>
#include <pwd.h>
#include <unistd.h>

#include "base/strings.h"

namespace sepp::session {
namespace {

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

Result<std::string> Decode(std::string_view s, std::string_view what) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '%') {
      out += s[i];
      continue;
    }
    int hi = i + 2 < s.size() ? HexValue(s[i + 1]) : -1;
    int lo = i + 2 < s.size() ? HexValue(s[i + 2]) : -1;
    if (hi < 0 || lo < 0)
      return Error::Make("the store URL's " + std::string(what) +
                             " has a bad percent escape (write %XX with two hex digits)",
                         "invalid_argument");
    out += static_cast<char>(hi * 16 + lo);
    i += 2;
  }
  return out;
}

Result<int> Number(std::string_view text, std::string_view what, int lo, int hi) {
  if (text.empty() || text.size() > 9 || text.find_first_not_of("0123456789") != std::string_view::npos)
    return Error::Make("the store URL's " + std::string(what) + " \"" + std::string(text.substr(0, 32)) +
                           "\" is not a number",
                       "invalid_argument");
  int v = std::atoi(std::string(text).c_str());
  if (v < lo || v > hi)
    return Error::Make("the store URL's " + std::string(what) + " must be between " +
                           std::to_string(lo) + " and " + std::to_string(hi),
                       "invalid_argument");
  return v;
}

std::string CurrentUser() {
  if (const char* u = std::getenv("PGUSER"); u && *u) return u;
  if (struct passwd* pw = getpwuid(geteuid())) return pw->pw_name;
  return "postgres";
}

}  // namespace

bool IsPgUrl(std::string_view text) {
  return StartsWith(text, "postgres://") || StartsWith(text, "postgresql://");
}

std::string PgConfig::Describe() const {
  std::string h = unix_socket() ? "[socket " + host + "]" : host;
  return "postgres://" + user + "@" + h + ":" + std::to_string(port) + "/" + database;
}

Result<PgConfig> ParsePgUrl(std::string_view url) {
  std::string_view rest;
  if (StartsWith(url, "postgres://"))
    rest = url.substr(11);
  else if (StartsWith(url, "postgresql://"))
    rest = url.substr(13);
  else
    return Error::Make("a PostgreSQL store is given as postgres://user@host:port/database",
                       "invalid_argument");
  PgConfig c;
  std::string_view query;
  if (size_t q = rest.find('?'); q != std::string_view::npos) {
    query = rest.substr(q + 1);
    rest = rest.substr(0, q);
  }
  std::string_view path;
  if (size_t slash = rest.find('/'); slash != std::string_view::npos) {
    path = rest.substr(slash + 1);
    rest = rest.substr(0, slash);
  }
  if (size_t at = rest.rfind('@'); at != std::string_view::npos) {
    std::string_view userinfo = rest.substr(0, at);
    rest = rest.substr(at + 1);
    std::string_view user = userinfo, pass;
    bool has_pass = false;
    if (size_t colon = userinfo.find(':'); colon != std::string_view::npos) {
      user = userinfo.substr(0, colon);
      pass = userinfo.substr(colon + 1);
      has_pass = true;
    }
    auto u = Decode(user, "user");
    if (!u.ok()) return u.error();
    c.user = *u;
    if (has_pass) {
      auto p = Decode(pass, "password");
      if (!p.ok()) return p.error();
      c.password = *p;
    }
  }
  // host[:port]; an IPv6 address is in brackets.
  std::string_view host = rest, port;
  bool has_port = false;
  if (StartsWith(rest, "[")) {
    size_t close = rest.find(']');
    if (close == std::string_view::npos)
      return Error::Make("the store URL's host has a '[' without ']'", "invalid_argument");
    host = rest.substr(1, close - 1);
    std::string_view after = rest.substr(close + 1);
    if (StartsWith(after, ":")) port = after.substr(1), has_port = true;
  } else if (size_t colon = rest.rfind(':'); colon != std::string_view::npos) {
    host = rest.substr(0, colon);
    port = rest.substr(colon + 1);
    has_port = true;
  }
  auto h = Decode(host, "host");
  if (!h.ok()) return h.error();
  c.host = *h;
  if (has_port) {
    auto p = Number(port, "port", 1, 65535);
    if (!p.ok()) return p.error();
    c.port = *p;
  }
  auto db = Decode(path, "database");
  if (!db.ok()) return db.error();
  c.database = *db;

  while (!query.empty()) {
    size_t amp = query.find('&');
    std::string_view pair = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
    if (pair.empty()) continue;
    size_t eq = pair.find('=');
    std::string key(pair.substr(0, eq));
    auto value = Decode(eq == std::string_view::npos ? std::string_view() : pair.substr(eq + 1), key);
    if (!value.ok()) return value.error();
    if (key == "host") {
      c.host = *value;
    } else if (key == "port") {
      auto p = Number(*value, "port", 1, 65535);
      if (!p.ok()) return p.error();
      c.port = *p;
    } else if (key == "user") {
      c.user = *value;
    } else if (key == "password") {
      c.password = *value;
    } else if (key == "dbname") {
      c.database = *value;
    } else if (key == "application_name") {
      c.application_name = *value;
    } else if (key == "connect_timeout" || key == "statement_timeout") {
      auto s = Number(*value, key, 1, 3600);
      if (!s.ok()) return s.error();
      (key == "connect_timeout" ? c.connect_timeout_s : c.statement_timeout_s) = *s;
    } else if (key == "sslmode") {
      static const std::pair<const char*, PgSslMode> kModes[] = {
          {"disable", PgSslMode::kDisable},   {"prefer", PgSslMode::kPrefer},
          {"require", PgSslMode::kRequire},   {"verify-ca", PgSslMode::kVerifyCa},
          {"verify-full", PgSslMode::kVerifyFull}};
      bool known = false;
      for (const auto& [name, mode] : kModes)
        if (*value == name) c.ssl_mode = mode, known = true;
      if (!known)
        return Error::Make("the store URL's sslmode \"" + value->substr(0, 32) +
                               "\" is not one sepp speaks (disable, prefer, require, verify-ca, "
                               "verify-full)",
                           "invalid_argument");
    } else if (key == "synchronous_commit") {
      if (*value != "on" && *value != "off" && *value != "local" && *value != "remote_write" &&
          *value != "remote_apply")
        return Error::Make("the store URL's synchronous_commit must be on, off, local, "
                           "remote_write or remote_apply",
                           "invalid_argument");
      c.synchronous_commit = *value;
    } else if (key == "sslrootcert") {
      c.ssl_root_cert = *value;
    } else if (key == "outbox_kb") {
      auto n = Number(*value, key, 1, 1 << 20);
      if (!n.ok()) return n.error();
      c.outbox_max_bytes = static_cast<size_t>(*n) << 10;
    } else if (key == "pool_size") {
      auto n = Number(*value, key, 1, 64);
      if (!n.ok()) return n.error();
      c.pool_size = *n;
    } else {
      return Error::Make("the store URL has an unknown parameter \"" + key.substr(0, 32) +
                             "\" (known: host, port, user, password, dbname, connect_timeout, "
                             "statement_timeout, pool_size, application_name, outbox_kb, sslmode, "
                             "sslrootcert, synchronous_commit)",
                         "invalid_argument");
    }
  }
  if (c.host.empty()) c.host = "/var/run/postgresql";
  if (c.ssl_root_cert.empty()) {
    const char* home = std::getenv("HOME");
    if (home && *home) c.ssl_root_cert = std::string(home) + "/.postgresql/root.crt";
  }
  if (c.user.empty()) c.user = CurrentUser();
  if (c.database.empty()) c.database = c.user;
  if (c.password.empty())
    if (const char* p = std::getenv("PGPASSWORD")) c.password = p;
  return c;
}

}  // namespace sepp::session
