#include "sandbox/egress_address.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netinet/in.h>

#include <cstring>

namespace sepp::sandbox {
namespace {

Ipv6Bytes Mapped(uint32_t v4) {
  Ipv6Bytes b{};
  b[10] = b[11] = 0xff;
  b[12] = static_cast<unsigned char>(v4 >> 24);
  b[13] = static_cast<unsigned char>(v4 >> 16);
  b[14] = static_cast<unsigned char>(v4 >> 8);
  b[15] = static_cast<unsigned char>(v4);
  return b;
}

bool InV4(uint32_t a, uint32_t net, int bits) {
  return bits == 0 || (a >> (32 - bits)) == (net >> (32 - bits));
}

constexpr uint32_t V4(unsigned a, unsigned b, unsigned c, unsigned d) {
  return (a << 24) | (b << 16) | (c << 8) | d;
}

std::string V4Reason(uint32_t a) {
  if (InV4(a, V4(127, 0, 0, 0), 8) || InV4(a, V4(0, 0, 0, 0), 8)) return "an address of this machine";
  if (InV4(a, V4(169, 254, 0, 0), 16)) return "a link-local address";
  if (InV4(a, V4(10, 0, 0, 0), 8) || InV4(a, V4(172, 16, 0, 0), 12) || InV4(a, V4(192, 168, 0, 0), 16))
    return "a private network address";
  if (InV4(a, V4(100, 64, 0, 0), 10)) return "a carrier-grade NAT address";
  if (InV4(a, V4(192, 0, 0, 0), 24) || InV4(a, V4(198, 18, 0, 0), 15)) return "a reserved address";
  if (InV4(a, V4(224, 0, 0, 0), 4)) return "a multicast address";
  if (InV4(a, V4(240, 0, 0, 0), 4)) return "a reserved address";  // with 255.255.255.255
  return "";
}

}  // namespace

std::vector<Ipv6Bytes> OwnInterfaceAddresses() {
  std::vector<Ipv6Bytes> out;
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) return out;
  for (ifaddrs* i = list; i; i = i->ifa_next) {
    if (!i->ifa_addr) continue;
    if (i->ifa_addr->sa_family == AF_INET) {
      out.push_back(Mapped(ntohl(reinterpret_cast<const sockaddr_in*>(i->ifa_addr)->sin_addr.s_addr)));
    } else if (i->ifa_addr->sa_family == AF_INET6) {
      Ipv6Bytes b;
      std::memcpy(b.data(), reinterpret_cast<const sockaddr_in6*>(i->ifa_addr)->sin6_addr.s6_addr, 16);
      out.push_back(b);
    }
  }
  freeifaddrs(list);
  return out;
}

std::string RestrictedAddressReason(const sockaddr* sa, const std::vector<Ipv6Bytes>& own) {
  Ipv6Bytes b;
  if (sa->sa_family == AF_INET) {
    b = Mapped(ntohl(reinterpret_cast<const sockaddr_in*>(sa)->sin_addr.s_addr));
  } else if (sa->sa_family == AF_INET6) {
    std::memcpy(b.data(), reinterpret_cast<const sockaddr_in6*>(sa)->sin6_addr.s6_addr, 16);
  } else {
    return "not an internet address";
  }
  for (const auto& mine : own)
    if (mine == b) return "an address of this machine";
  auto zero = [&](int from, int to) {
    for (int i = from; i < to; ++i)
      if (b[i]) return false;
    return true;
  };
  uint32_t tail = (uint32_t(b[12]) << 24) | (uint32_t(b[13]) << 16) | (uint32_t(b[14]) << 8) | b[15];
  // ::ffff:a.b.c.d (mapped), ::a.b.c.d (compatible), 64:ff9b::a.b.c.d (NAT64).
  bool mapped = zero(0, 10) && b[10] == 0xff && b[11] == 0xff;
  bool compatible = zero(0, 12) && tail > 1;
  bool nat64 = b[0] == 0x00 && b[1] == 0x64 && b[2] == 0xff && b[3] == 0x9b && zero(4, 12);
  if (mapped || compatible || nat64) {
    std::string why = V4Reason(tail);
    if (!why.empty()) return why;
    // The same address as some interface's IPv4 one.
    for (const auto& mine : own)
      if (mine == Mapped(tail)) return "an address of this machine";
    return "";
  }
  if (zero(0, 15) && b[15] <= 1) return "an address of this machine";  // :: and ::1
  if (b[0] == 0xfe && (b[1] & 0xc0) == 0x80) return "a link-local address";
  if (b[0] == 0xfe && (b[1] & 0xc0) == 0xc0) return "a site-local address";
  if ((b[0] & 0xfe) == 0xfc) return "a private network address";  // fc00::/7
  if (b[0] == 0xff) return "a multicast address";
  return "";
}

}  // namespace sepp::sandbox
