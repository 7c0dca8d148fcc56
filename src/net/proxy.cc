#include "net/proxy.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <vector>

namespace sepp::net {
namespace {

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool IsLoopback(const std::string& host) {
  return host == "localhost" || host.ends_with(".localhost") || host == "::1" ||
         host.starts_with("127.");
}

const char* FirstSet(const GetEnv& getenv, std::initializer_list<const char*> names,
                     const char** which) {
  for (const char* name : names) {
    const char* v = getenv(name);
    if (v && *v) {
      *which = name;
      return v;
    }
  }
  return nullptr;
}

}  // namespace

bool NoProxyMatches(std::string_view no_proxy, const Url& target) {
  std::string list = Lower(no_proxy);
  std::vector<std::string> entries;
  std::string cur;
  for (char c : list) {
    if (c == ',' || c == ' ' || c == '\t') {
      if (!cur.empty()) entries.push_back(cur);
      cur.clear();
    } else {
      cur.push_back(c);
    }
  }
  if (!cur.empty()) entries.push_back(cur);

  for (std::string entry : entries) {
    if (entry == "*") return true;
    int port = 0;
    // "[::1]:8080", "host:8080", bare IPv6 "::1".
    if (entry.front() == '[') {
      size_t close = entry.find(']');
      if (close == std::string::npos) continue;
      std::string after = entry.substr(close + 1);
      entry = entry.substr(1, close - 1);
      if (after.size() > 1 && after[0] == ':') port = std::atoi(after.c_str() + 1);
    } else if (std::count(entry.begin(), entry.end(), ':') == 1) {
      size_t colon = entry.find(':');
      port = std::atoi(entry.c_str() + colon + 1);
      entry = entry.substr(0, colon);
    }
    if (port != 0 && port != target.port) continue;
    if (entry.starts_with("*.")) entry.erase(0, 1);
    if (entry.starts_with(".")) entry.erase(0, 1);
    if (entry.empty()) continue;
    const std::string& host = target.host;
    if (host == entry) return true;
    if (host.size() > entry.size() && host.ends_with(entry) &&
        host[host.size() - entry.size() - 1] == '.') {
      return true;
    }
  }
  return false;
}

Result<std::optional<Url>> ProxyFromEnvironment(const Url& target, const GetEnv& getenv) {
  if (IsLoopback(target.host)) return std::optional<Url>();
  const char* which = nullptr;
  const char* value =
      target.https()
          ? FirstSet(getenv, {"https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"}, &which)
          : FirstSet(getenv, {"http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY"}, &which);
  if (!value) return std::optional<Url>();
  const char* unused = nullptr;
  if (const char* no = FirstSet(getenv, {"no_proxy", "NO_PROXY"}, &unused)) {
    if (NoProxyMatches(no, target)) return std::optional<Url>();
  }
  std::string text = value;
  if (text.find("://") == std::string::npos) text = "http://" + text;
  auto url = ParseUrl(text);
  if (!url.ok()) {
    return Error::Make(std::string(which) + " is not a usable proxy URL (" + url.error().message +
                           ") — fix or unset it",
                       "proxy");
  }
  if (url->https()) {
    return Error::Make(std::string(which) +
                           " uses https://; only http:// proxies are supported (the tunnel to "
                           "the server is still TLS) — use http://host:port",
                       "proxy");
  }
  return std::optional<Url>(std::move(url.value()));
}

std::string BasicAuthorization(std::string_view userinfo) {
  static const char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string raw = PercentDecode(userinfo);
  if (raw.find(':') == std::string::npos) raw += ":";
  std::string out = "Basic ";
  size_t i = 0;
  for (; i + 2 < raw.size(); i += 3) {
    unsigned v = (static_cast<unsigned char>(raw[i]) << 16) |
                 (static_cast<unsigned char>(raw[i + 1]) << 8) | static_cast<unsigned char>(raw[i + 2]);
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += kAlphabet[(v >> 6) & 63];
    out += kAlphabet[v & 63];
  }
  size_t rest = raw.size() - i;
  if (rest == 1) {
    unsigned v = static_cast<unsigned char>(raw[i]) << 16;
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += "==";
  } else if (rest == 2) {
    unsigned v = (static_cast<unsigned char>(raw[i]) << 16) | (static_cast<unsigned char>(raw[i + 1]) << 8);
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += kAlphabet[(v >> 6) & 63];
    out += '=';
  }
  return out;
}

}  // namespace sepp::net
