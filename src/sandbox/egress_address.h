// Which destination addresses the egress proxy treats as "not the
// internet": this machine's own addresses (loopback, unspecified, and every
// address of every interface, from getifaddrs) and the ranges that name
// other machines' private services (RFC 1918, carrier-grade NAT, link-local,
// unique-local IPv6, multicast, reserved). A name reaches those only when
// the policy lists it exactly (not through a wildcard): a wildcard entry
// must not become a way into the host's own services or its LAN.
#pragma once
#include <sys/socket.h>

#include <array>
#include <string>
#include <vector>

namespace sepp::sandbox {

// Addresses of this machine's interfaces, read now (they change: VPNs,
// DHCP), as 16-byte IPv6 forms (IPv4 as ::ffff:a.b.c.d).
using Ipv6Bytes = std::array<unsigned char, 16>;
std::vector<Ipv6Bytes> OwnInterfaceAddresses();

// Why `sa` is not a public internet address ("an address of this machine",
// "a private network address", ...), or "" when it is one. IPv4-mapped,
// IPv4-compatible and NAT64 IPv6 forms are judged by their IPv4 address.
std::string RestrictedAddressReason(const sockaddr* sa, const std::vector<Ipv6Bytes>& own);

}  // namespace sepp::sandbox
