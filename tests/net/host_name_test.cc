// Host names from outside: one normal form, and everything a resolver might
// read differently from a string comparison refused.
#include "net/host_name.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

#include "net/url.h"

namespace sepp::net {
namespace {

TEST(HostName, NormalisesCaseAndOneTrailingDot) {
  EXPECT_EQ(NormalizeHost("LocalHost").value(), "localhost");
  EXPECT_EQ(NormalizeHost("localhost.").value(), "localhost");
  EXPECT_EQ(NormalizeHost("API.Example.COM.").value(), "api.example.com");
  EXPECT_EQ(NormalizeHost("_dmarc.example.com").value(), "_dmarc.example.com");
  EXPECT_EQ(NormalizeHost("10.0.0.1").value(), "10.0.0.1");
  EXPECT_EQ(NormalizeHost("::1").value(), "::1");
  EXPECT_EQ(NormalizeHost("FE80::AB").value(), "fe80::ab");
  EXPECT_EQ(NormalizeHost("xn--bcher-kva.example").value(), "xn--bcher-kva.example");
  EXPECT_EQ(NormalizeHost(std::string(63, 'a') + ".com").value(), std::string(63, 'a') + ".com");
}

TEST(HostName, RefusesWhatAResolverWouldReadDifferently) {
  struct Case {
    std::string host, says;
  };
  for (const Case& c : std::vector<Case>{
           {std::string("localhost\0.example.com", 22), "NUL"},
           {"evil.test\r\nX-Injected: 1", "control character"},
           {"a\tb.com", "control character"},
           {"exa mple.com", "' '"},
           {"caf\xc3\xa9.com", "non-ASCII"},
           {"", "empty"},
           {".", "only a dot"},
           {"a..b", "empty label"},
           {".example.com", "empty label"},
           {"example.com..", "empty label"},
           {"-bad.com", "'-'"},
           {"bad-.com", "'-'"},
           {std::string(64, 'a') + ".com", "63"},
           {std::string(254, 'a'), "253"},
           {"user@host", "'@'"},
           {"host/path", "'/'"},
           {"127.1", "number"},
           {"2130706433", "number"},
           {"0x7f.0.0.1", "number"},
           {"0177.0.0.1", "number"},
           {"256.1.1.1", "number"},
           {"fe80::1%eth0", "IPv6"},
           {"::g", "IPv6"},
           {"1:2", "IPv6"},
       }) {
    auto r = NormalizeHost(c.host);
    ASSERT_FALSE(r.ok()) << c.host;
    EXPECT_EQ(r.error().kind, "bad_host");
    EXPECT_NE(r.error().message.find(c.says), std::string::npos) << c.host << ": " << r.error().message;
  }
}

TEST(HostName, HostAndPort) {
  auto a = ParseHostPort("Example.COM.:8443", 443);
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->host, "example.com");
  EXPECT_EQ(a->port, 8443);
  EXPECT_EQ(ParseHostPort("example.com", 443)->port, 443);
  auto v6 = ParseHostPort("[::1]:80", 443);
  ASSERT_TRUE(v6.ok());
  EXPECT_EQ(v6->host, "::1");
  EXPECT_EQ(v6->port, 80);
  for (const char* bad : {"h:", "h:0", "h:65536", "h:+80", "h:8o", "::1:80", "[::1", "[::1]x", "[h]:1", "[::1]:",
                          "h:1:2", ":80"}) {
    EXPECT_FALSE(ParseHostPort(bad, 443).ok()) << bad;
  }
  EXPECT_FALSE(ParseHostPort(std::string("a\0b:80", 6), 443).ok());
}

TEST(HostName, UrlsUseTheSameRules) {
  EXPECT_EQ(ParseUrl("http://LocalHost.:8080/x")->host, "localhost");
  EXPECT_FALSE(ParseUrl(std::string("http://localhost\0.example.com/", 30)).ok());
  EXPECT_FALSE(ParseUrl("http://127.1/").ok());
}

// Random bytes never crash it, and whatever it accepts is a fixed point made
// of the allowed characters only.
TEST(HostName, RandomInputIsRefusedOrNormal) {
  std::mt19937 rng(17);
  const std::string alphabet = std::string("aZ09-_.:[]%@/ \t\r\n\x7f\x80\xff", 25) + std::string(1, '\0');
  int accepted = 0;
  for (int round = 0; round < 20000; ++round) {
    std::string s;
    int n = rng() % 24;
    for (int i = 0; i < n; ++i) s += alphabet[rng() % alphabet.size()];
    auto r = NormalizeHost(s);
    if (!r.ok()) continue;
    ++accepted;
    for (char c : *r)
      ASSERT_NE(std::string("abcdefghijklmnopqrstuvwxyz0123456789-_.:").find(c), std::string::npos) << s;
    auto again = NormalizeHost(*r);
    ASSERT_TRUE(again.ok()) << s;
    EXPECT_EQ(*again, *r) << s;
  }
  EXPECT_GT(accepted, 0);  // the alphabet can spell valid names; the check above ran
}

}  // namespace
}  // namespace sepp::net
