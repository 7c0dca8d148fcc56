#include "net/host_name.h"

#include <arpa/inet.h>

#include <cctype>

namespace sepp::net {
namespace {

Error BadHost(std::string_view why) { return Error::Make("invalid host name: " + std::string(why), "bad_host"); }
Error BadPort() { return Error::Make("invalid port: it must be a number from 1 to 65535", "bad_host"); }

// Strict dotted quad: four decimal fields 0-255, no leading zeros (which
// some resolvers read as octal), nothing else.
bool IsDottedQuad(std::string_view s) {
  int fields = 0;
  while (true) {
    size_t dot = s.find('.');
    std::string_view f = s.substr(0, dot);
    if (f.empty() || f.size() > 3 || (f.size() > 1 && f[0] == '0')) return false;
    int v = 0;
    for (char c : f) {
      if (c < '0' || c > '9') return false;
      v = v * 10 + (c - '0');
    }
    if (v > 255) return false;
    ++fields;
    if (dot == std::string_view::npos) break;
    s.remove_prefix(dot + 1);
  }
  return fields == 4;
}

bool IsIpv6(const std::string& s) {
  in6_addr a;
  return s.find(':') != std::string::npos && inet_pton(AF_INET6, s.c_str(), &a) == 1;
}

}  // namespace

bool IsIpLiteral(std::string_view host) { return IsDottedQuad(host) || IsIpv6(std::string(host)); }

Result<std::string> NormalizeHost(std::string_view in) {
  if (in.empty()) return BadHost("the name is empty");
  std::string host;
  host.reserve(in.size());
  for (char c : in) {
    unsigned char u = static_cast<unsigned char>(c);
    if (u == 0) return BadHost("it contains a NUL byte");
    if (u < 0x20 || u == 0x7f) return BadHost("it contains a control character");
    if (u >= 0x80) return BadHost("it contains a non-ASCII byte (use the punycode form, xn--...)");
    host.push_back(static_cast<char>(std::tolower(u)));
  }
  if (host.find(':') != std::string::npos) {
    if (!IsIpv6(host)) return BadHost("\"" + host + "\" is not a valid IPv6 address");
    return host;
  }
  if (host.back() == '.') host.pop_back();
  if (host.empty()) return BadHost("the name is only a dot");
  if (host.size() > 253) return BadHost("it is longer than 253 characters");
  if (IsDottedQuad(host)) return host;
  bool all_numeric = true;  // "1.2.3", "2130706433": numbers a resolver turns into addresses
  size_t start = 0;
  while (start <= host.size()) {
    size_t dot = host.find('.', start);
    if (dot == std::string::npos) dot = host.size();
    std::string_view label(host.data() + start, dot - start);
    if (label.empty()) return BadHost("\"" + host + "\" has an empty label (two dots in a row)");
    if (label.size() > 63) return BadHost("a label of \"" + host + "\" is longer than 63 characters");
    if (label.front() == '-' || label.back() == '-')
      return BadHost("a label of \"" + host + "\" starts or ends with '-'");
    for (char c : label) {
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_')
        return BadHost("\"" + host + "\" contains '" + std::string(1, c) +
                       "' (only letters, digits, '-', '_' and dots are allowed)");
    }
    // Hex ("0x7f") is as much an address to inet_aton as decimal is.
    std::string_view digits = label;
    bool hex = digits.size() > 2 && digits[0] == '0' && digits[1] == 'x';
    if (hex) digits.remove_prefix(2);
    bool numeric = true;
    for (char c : digits)
      if (!(hex ? std::isxdigit(static_cast<unsigned char>(c)) : std::isdigit(static_cast<unsigned char>(c))))
        numeric = false;
    all_numeric = all_numeric && numeric;
    start = dot + 1;
  }
  if (all_numeric) return BadHost("\"" + host + "\" is a number, not a name or a dotted-quad address");
  return host;
}

Result<HostPort> ParseHostPort(std::string_view authority, int default_port) {
  HostPort out;
  std::string_view host = authority, port;
  if (!authority.empty() && authority[0] == '[') {
    size_t close = authority.find(']');
    if (close == std::string_view::npos) return BadHost("unterminated [IPv6] address");
    host = authority.substr(1, close - 1);
    std::string_view after = authority.substr(close + 1);
    if (!after.empty()) {
      if (after[0] != ':') return BadHost("unexpected text after the [IPv6] address");
      port = after.substr(1);
      if (port.empty()) return BadPort();
    }
    if (host.find(':') == std::string_view::npos) return BadHost("brackets hold an IPv6 address only");
  } else {
    size_t colon = authority.find(':');
    if (colon != std::string_view::npos) {
      if (authority.find(':', colon + 1) != std::string_view::npos)
        return BadHost("an IPv6 address must be written in brackets, [addr]:port");
      host = authority.substr(0, colon);
      port = authority.substr(colon + 1);
      if (port.empty()) return BadPort();
    }
  }
  auto name = NormalizeHost(host);
  if (!name.ok()) return name.error();
  out.host = std::move(*name);
  out.port = default_port;
  if (!port.empty()) {
    if (port.size() > 5) return BadPort();
    int p = 0;
    for (char c : port) {
      if (c < '0' || c > '9') return BadPort();
      p = p * 10 + (c - '0');
    }
    if (p < 1 || p > 65535) return BadPort();
    out.port = p;
  }
  return out;
}

}  // namespace sepp::net
