#include "ext/mcp/oauth_wire.h"

#include <sys/random.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>

#include "base/sha256.h"
#include "base/strings.h"
#include "net/url.h"

namespace sepp::ext::mcp {
namespace {

bool IsTokenChar(char c) {
  // RFC 9110 tchar, plus '/' and '=' seen in token68 values.
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         std::string_view("!#$%&'*+-.^_`|~/=").find(c) != std::string_view::npos;
}

void SkipSpace(std::string_view s, size_t& i) {
  while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == ',')) ++i;
}

std::string Token(std::string_view s, size_t& i) {
  size_t start = i;
  while (i < s.size() && IsTokenChar(s[i]) && s[i] != '=') ++i;
  return std::string(s.substr(start, i - start));
}

// A quoted string (with \ escapes) or a token; i is after it.
std::string Value(std::string_view s, size_t& i) {
  if (i < s.size() && s[i] == '"') {
    std::string out;
    for (++i; i < s.size() && s[i] != '"'; ++i) {
      if (s[i] == '\\' && i + 1 < s.size()) ++i;
      out.push_back(s[i]);
    }
    if (i < s.size()) ++i;  // the closing quote
    return out;
  }
  size_t start = i;
  while (i < s.size() && s[i] != ',' && s[i] != ' ' && s[i] != '\t') ++i;
  return std::string(s.substr(start, i - start));
}

std::string PathOf(const std::string& url) {
  auto u = net::ParseUrl(url);
  if (!u.ok()) return "";
  std::string path = u->target.substr(0, u->target.find('?'));
  while (!path.empty() && path.back() == '/') path.pop_back();
  return path;
}

}  // namespace

std::map<std::string, std::string> ParseBearerChallenge(std::string_view header) {
  // challenge = scheme [ token68 / #auth-param ], challenges separated by
  // commas; a new challenge starts where a token is followed by a space
  // and not by '='.
  std::map<std::string, std::string> out;
  bool in_bearer = false, found = false;
  size_t i = 0;
  while (i < header.size()) {
    SkipSpace(header, i);
    if (i >= header.size()) break;
    size_t before = i;
    std::string name = Token(header, i);
    if (name.empty()) {  // a stray character: skip it
      ++i;
      continue;
    }
    size_t j = i;
    while (j < header.size() && (header[j] == ' ' || header[j] == '\t')) ++j;
    if (j < header.size() && header[j] == '=') {
      i = j + 1;
      while (i < header.size() && (header[i] == ' ' || header[i] == '\t')) ++i;
      std::string value = Value(header, i);
      if (in_bearer && !out.count(ToLower(name))) out[ToLower(name)] = value;
      continue;
    }
    // A scheme name: a new challenge.
    if (found && in_bearer) break;  // only the first Bearer challenge
    in_bearer = ToLower(name) == "bearer";
    found = found || in_bearer;
    if (i == before) ++i;
  }
  return out;
}

std::string UrlOrigin(const std::string& url) {
  auto u = net::ParseUrl(url);
  if (!u.ok()) return "";
  return u->scheme + "://" + u->HostHeader();
}

std::string CanonicalResource(const std::string& url) { return url.substr(0, url.find('#')); }

std::vector<std::string> ProtectedResourceMetadataUrls(const std::string& server_url) {
  std::string origin = UrlOrigin(server_url);
  if (origin.empty()) return {};
  std::string path = PathOf(server_url);
  std::vector<std::string> out;
  if (!path.empty()) out.push_back(origin + "/.well-known/oauth-protected-resource" + path);
  out.push_back(origin + "/.well-known/oauth-protected-resource");
  return out;
}

std::vector<std::string> AuthorizationServerMetadataUrls(const std::string& issuer) {
  std::string origin = UrlOrigin(issuer);
  if (origin.empty()) return {};
  std::string path = PathOf(issuer);
  if (path.empty())
    return {origin + "/.well-known/oauth-authorization-server",
            origin + "/.well-known/openid-configuration"};
  return {origin + "/.well-known/oauth-authorization-server" + path,
          origin + "/.well-known/openid-configuration" + path,
          origin + path + "/.well-known/openid-configuration"};
}

std::string PercentEncode(std::string_view text) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : text) {
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
        c == '.' || c == '_' || c == '~') {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(hex[c >> 4]);
      out.push_back(hex[c & 15]);
    }
  }
  return out;
}

std::string FormEncode(const std::vector<std::pair<std::string, std::string>>& fields) {
  std::string out;
  for (const auto& [k, v] : fields) {
    if (!out.empty()) out.push_back('&');
    out += PercentEncode(k) + "=" + PercentEncode(v);
  }
  return out;
}

std::string QueryValue(std::string_view query, std::string_view name) {
  for (const auto& part : Split(query, '&')) {
    size_t eq = part.find('=');
    std::string key = ReplaceAll(part.substr(0, eq), "+", " ");
    if (net::PercentDecode(key) != name) continue;
    if (eq == std::string::npos) return "";
    return net::PercentDecode(ReplaceAll(part.substr(eq + 1), "+", " "));
  }
  return "";
}

namespace {
std::string Base64With(std::string_view bytes, const char* alphabet, bool pad) {
  std::string out;
  size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    unsigned v = (static_cast<unsigned char>(bytes[i]) << 16) |
                 (static_cast<unsigned char>(bytes[i + 1]) << 8) | static_cast<unsigned char>(bytes[i + 2]);
    for (int s = 18; s >= 0; s -= 6) out.push_back(alphabet[(v >> s) & 63]);
  }
  size_t rest = bytes.size() - i;
  if (rest > 0) {
    unsigned v = static_cast<unsigned char>(bytes[i]) << 16;
    if (rest == 2) v |= static_cast<unsigned char>(bytes[i + 1]) << 8;
    out.push_back(alphabet[(v >> 18) & 63]);
    out.push_back(alphabet[(v >> 12) & 63]);
    if (rest == 2) out.push_back(alphabet[(v >> 6) & 63]);
    if (pad) out.append(rest == 1 ? "==" : "=");
  }
  return out;
}
}  // namespace

std::string Base64(std::string_view bytes) {
  return Base64With(bytes, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/", true);
}

std::string Base64Url(std::string_view bytes) {
  return Base64With(bytes, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_", false);
}

std::string RandomBytes(size_t n) {
  std::string out(n, '\0');
  size_t got = 0;
  while (got < n) {
    ssize_t r = getrandom(out.data() + got, n - got, 0);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) std::abort();  // no randomness: never hand out a guessable verifier
    got += static_cast<size_t>(r);
  }
  return out;
}

std::string MakeCodeVerifier() { return Base64Url(RandomBytes(32)); }

std::string CodeChallengeS256(std::string_view verifier) {
  std::string hex = Sha256Hex(verifier), bytes;
  for (size_t i = 0; i + 1 < hex.size(); i += 2)
    bytes.push_back(static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16)));
  return Base64Url(bytes);
}

std::string MergeScopes(std::string_view a, std::string_view b) {
  std::vector<std::string> out;
  for (std::string_view list : {a, b})
    for (const auto& s : Split(list, ' '))
      if (!s.empty() && std::find(out.begin(), out.end(), s) == out.end()) out.push_back(s);
  return Join(out, " ");
}

}  // namespace sepp::ext::mcp
