#include "front/serve/guard.h"

#include <algorithm>
#include <cctype>

#include "base/strings.h"

namespace sepp::front::serve {

bool IsLoopback(const std::string& host) {
  return host == "localhost" || host == "::1" || StartsWith(host, "127.");
}

bool IsWildcard(const std::string& host) { return host == "0.0.0.0" || host == "::"; }

std::vector<std::string> HostsFor(const std::string& host, int port) {
  if (IsWildcard(host)) return {};
  std::vector<std::string> names;
  if (IsLoopback(host)) {
    names = {"localhost", "127.0.0.1", "[::1]"};
    if (host != "127.0.0.1" && host != "::1" && host != "localhost") names.push_back(host);
  } else {
    names.push_back(host.find(':') != std::string::npos ? "[" + host + "]" : host);
  }
  std::vector<std::string> out;
  for (const auto& n : names) {
    out.push_back(ToLower(n) + ":" + std::to_string(port));
    if (port == 80) out.push_back(ToLower(n));  // the default port may be left out
  }
  return out;
}

bool ConstantTimeEquals(std::string_view a, std::string_view b) {
  // Every byte of the longer one is looked at whatever the contents, so the
  // time says nothing about how much of a guess was right.
  size_t n = std::max(a.size(), b.size());
  unsigned char diff = a.size() == b.size() ? 0 : 1;
  for (size_t i = 0; i < n; ++i) {
    unsigned char x = i < a.size() ? static_cast<unsigned char>(a[i]) : 0;
    unsigned char y = i < b.size() ? static_cast<unsigned char>(b[i]) : 0;
    diff |= static_cast<unsigned char>(x ^ y);
  }
  return diff == 0;
}

std::optional<std::string_view> BearerToken(std::string_view authorization) {
  authorization = Trim(authorization);
  if (authorization.size() < 7 || ToLower(authorization.substr(0, 7)) != "bearer ")
    return std::nullopt;
  std::string_view token = Trim(authorization.substr(7));
  if (token.empty()) return std::nullopt;
  return token;
}

bool HostAllowed(const GuardConfig& c, std::string_view host_header) {
  if (c.allowed_hosts.empty()) return true;
  // Every request asks: compared in place (the allowed names are lower case).
  std::string_view h = Trim(host_header);
  for (const auto& allowed : c.allowed_hosts) {
    if (allowed.size() != h.size()) continue;
    bool same = true;
    for (size_t i = 0; i < h.size() && same; ++i)
      same = allowed[i] == static_cast<char>(std::tolower(static_cast<unsigned char>(h[i])));
    if (same) return true;
  }
  return false;
}

OriginVerdict CheckOrigin(const GuardConfig& c, std::string_view origin,
                          std::string_view host_header) {
  if (origin.empty()) return OriginVerdict::kNone;
  std::string o = ToLower(Trim(origin));
  if (o == "http://" + ToLower(Trim(host_header)) && HostAllowed(c, host_header))
    return OriginVerdict::kSameOrigin;
  for (const auto& allowed : c.cors_origins)
    if (allowed == "*" || ToLower(allowed) == o) return OriginVerdict::kCors;
  return OriginVerdict::kForbidden;
}

net::Headers CorsHeaders(std::string_view origin) {
  return {{"Access-Control-Allow-Origin", std::string(origin)},
          {"Vary", "Origin"},
          {"Access-Control-Allow-Methods", "GET, POST, PUT, DELETE, OPTIONS"},
          {"Access-Control-Allow-Headers", "Authorization, Content-Type, Last-Event-ID, Accept"},
          {"Access-Control-Max-Age", "600"}};
}

}  // namespace sepp::front::serve
