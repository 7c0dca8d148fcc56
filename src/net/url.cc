// URL parsing for http(s) only (RFC 3986 authority + path, nothing fancier):
//   scheme "://" [userinfo "@"] host [":" port] [path] ["?" query] ["#" frag]
// host is a name, an IPv4 address or "[" IPv6 "]", validated and normalised
// by NormalizeHost (net/host_name.h). Anything else is refused with a
// message that says what was expected.
#include "net/url.h"

#include <cctype>

#include "net/host_name.h"

namespace sepp::net {
namespace {

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

Error BadUrl(std::string_view url, std::string_view why) {
  // Never echo credentials: drop the userinfo before quoting the URL.
  std::string shown(url);
  size_t scheme_end = shown.find("://");
  if (scheme_end != std::string::npos) {
    size_t auth_begin = scheme_end + 3;
    size_t auth_end = shown.find_first_of("/?#", auth_begin);
    size_t at = shown.rfind('@', auth_end == std::string::npos ? shown.size() : auth_end);
    if (at != std::string::npos && at >= auth_begin) shown.erase(auth_begin, at + 1 - auth_begin);
  }
  return Error::Make("invalid URL \"" + shown + "\": " + std::string(why), "bad_url");
}

}  // namespace

std::string Url::HostPort() const {
  std::string h = host.find(':') != std::string::npos ? "[" + host + "]" : host;
  return h + ":" + std::to_string(port);
}

std::string Url::HostHeader() const {
  std::string h = host.find(':') != std::string::npos ? "[" + host + "]" : host;
  int def = https() ? 443 : 80;
  return port == def ? h : h + ":" + std::to_string(port);
}

Result<Url> ParseUrl(std::string_view text) {
  Url url;
  size_t sep = text.find("://");
  if (sep == std::string_view::npos) return BadUrl(text, "expected http://host/... or https://host/...");
  url.scheme = Lower(text.substr(0, sep));
  if (url.scheme != "http" && url.scheme != "https") {
    return BadUrl(text, "only http and https URLs are supported");
  }
  std::string_view rest = text.substr(sep + 3);
  size_t auth_end = rest.find_first_of("/?#");
  std::string_view authority = rest.substr(0, auth_end);
  std::string_view tail = auth_end == std::string_view::npos ? "" : rest.substr(auth_end);

  size_t at = authority.rfind('@');
  if (at != std::string_view::npos) {
    url.userinfo.assign(authority.substr(0, at));
    authority.remove_prefix(at + 1);
  }
  if (authority.empty()) return BadUrl(text, "the host is missing");
  auto hp = ParseHostPort(authority, url.https() ? 443 : 80);
  if (!hp.ok()) return BadUrl(text, hp.error().message);
  url.host = std::move(hp->host);
  url.port = hp->port;
  size_t hash = tail.find('#');
  if (hash != std::string_view::npos) tail = tail.substr(0, hash);
  for (char c : tail) {
    if (c == ' ' || c == '\r' || c == '\n' || c == '\t' || c == '\0') {
      return BadUrl(text, "the path contains spaces or control characters (percent-encode them)");
    }
  }
  url.target = tail.empty() || tail[0] == '?' ? "/" + std::string(tail) : std::string(tail);
  return url;
}

std::string PercentDecode(std::string_view text) {
  auto hex = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size() && hex(text[i + 1]) >= 0 && hex(text[i + 2]) >= 0) {
      out.push_back(static_cast<char>(hex(text[i + 1]) * 16 + hex(text[i + 2])));
      i += 2;
    } else {
      out.push_back(text[i]);
    }
  }
  return out;
}

}  // namespace sepp::net
