// URLs as the HTTP client needs them: scheme, host, port, request target.
#pragma once
#include <string>
#include <string_view>

#include "base/result.h"

namespace sepp::net {

struct Url {
  std::string scheme;    // "http" or "https", lower case
  std::string host;      // lower case; IPv6 literals without brackets
  int port = 0;          // explicit or the scheme's default
  std::string target;    // path + query, at least "/"; no fragment
  std::string userinfo;  // "user:pass" as written (percent-encoded), or empty

  bool https() const { return scheme == "https"; }
  // "host:port", with brackets around IPv6 literals.
  std::string HostPort() const;
  // "host" or "host:port" when the port is not the default: the Host header.
  std::string HostHeader() const;
};

// Accepts http:// and https:// URLs (case-insensitive scheme). Errors have
// kind "bad_url" and quote the URL with any userinfo removed.
Result<Url> ParseUrl(std::string_view text);

// Decodes %XX escapes (invalid escapes are kept as written).
std::string PercentDecode(std::string_view text);

}  // namespace sepp::net
