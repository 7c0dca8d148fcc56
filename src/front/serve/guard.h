// Who may talk to `sepp serve`, decided before any route runs:
//   token   every API route wants "Authorization: Bearer <token>", compared
//           in constant time (the token is never logged or echoed)
//   Host    must name the address the server listens on, so a web page on
//           a rebound DNS name (evil.example -> 127.0.0.1) cannot reach it
//   Origin  a browser's cross-site request is refused (CSRF) unless its
//           origin is the server's own or one the user allowed for CORS
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "net/http_client.h"

namespace sepp::front::serve {

struct GuardConfig {
  std::string token;                       // empty: no token (--no-token)
  std::vector<std::string> allowed_hosts;  // lower-case "host:port"; empty: any
  std::vector<std::string> cors_origins;   // exact origins, "*" for any
};

// The Host values that name host:port (for a loopback address also
// "localhost", "127.0.0.1" and "[::1]"); empty for a wildcard address
// (0.0.0.0, ::), where any name may lead here.
std::vector<std::string> HostsFor(const std::string& host, int port);
bool IsLoopback(const std::string& host);
bool IsWildcard(const std::string& host);

// Equal contents, in time that depends only on the lengths.
bool ConstantTimeEquals(std::string_view a, std::string_view b);
// The credentials of "Bearer <token>" (scheme case-insensitive), else nullopt.
std::optional<std::string_view> BearerToken(std::string_view authorization);

bool HostAllowed(const GuardConfig& c, std::string_view host_header);

enum class OriginVerdict {
  kNone,        // no Origin header: not a browser's cross-site request
  kSameOrigin,  // the server's own pages (the inspector)
  kCors,        // allowed by --cors-allow-origin: answer with CORS headers
  kForbidden,
};
OriginVerdict CheckOrigin(const GuardConfig& c, std::string_view origin,
                          std::string_view host_header);

// The CORS headers for an allowed origin.
net::Headers CorsHeaders(std::string_view origin);

}  // namespace sepp::front::serve
