// Host names as they come from outside (URLs, CONNECT targets, allowlists):
// one validation and one normal form for every check that compares names.
//
// A name that reaches an allowlist check and a resolver must be the same
// string for both: a NUL byte, a control character or a second spelling
// (`LocalHost`, `localhost.`) would let the two disagree.
#pragma once
#include <string>
#include <string_view>

#include "base/result.h"

namespace sepp::net {

// The normal form of a host: a DNS name (labels of letters, digits, '-' and
// '_', 1 to 63 bytes each, at most 253 in all, no leading or trailing '-'),
// an IPv4 literal in dotted-quad form, or an IPv6 literal (without
// brackets). Lower case, one trailing dot removed. Anything else (NUL,
// control characters, spaces, empty labels, "%" zone ids, "1.2.3" or
// "0x7f.1" shorthand a resolver would still accept) is an error of kind
// "bad_host" that says what was wrong.
Result<std::string> NormalizeHost(std::string_view host);

// True when `host` (already normal) is an IPv4 or IPv6 literal.
bool IsIpLiteral(std::string_view host);

struct HostPort {
  std::string host;  // normal form
  int port = 0;
};

// "host:port", "host" (default_port) or "[v6]:port", host normalised, port
// 1-65535 in decimal digits. Errors of kind "bad_host".
Result<HostPort> ParseHostPort(std::string_view authority, int default_port);

}  // namespace sepp::net
