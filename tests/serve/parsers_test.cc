// The parsers of outside input in front of every route (query strings, ids,
// Last-Event-ID numbers) and the guard's pieces, with hostile input: each
// either parses exactly or says what is wrong; nothing is guessed.
#include <gtest/gtest.h>

#include <random>

#include "front/serve/guard.h"
#include "front/serve/query.h"

namespace sepp::front::serve {
namespace {

TEST(ServeQuery, DecodesEscapesAndPlus) {
  auto q = ParseQuery("/v1/x?agent=sepp&path=%2Ftmp%2Fa+b&empty=&flag");
  ASSERT_TRUE(q.ok()) << q.error().message;
  EXPECT_EQ(q->at("agent"), "sepp");
  EXPECT_EQ(q->at("path"), "/tmp/a b");
  EXPECT_EQ(q->at("empty"), "");
  EXPECT_EQ(q->at("flag"), "");
  EXPECT_TRUE(ParseQuery("/v1/x")->empty());
  EXPECT_TRUE(ParseQuery("/v1/x?")->empty());
  EXPECT_TRUE(ParseQuery("/v1/x?&&")->empty());
}

TEST(ServeQuery, RefusesMalformedInputWithTheReason) {
  for (const char* bad : {"/?a=%", "/?a=%4", "/?a=%zz", "/?a=%4g", "/?%=1", "/?a=%00", "/?a=%0d%0a",
                          "/?a=\x01", "/?=v", "/?a=1&a=2", "/?a=%7f"}) {
    auto q = ParseQuery(bad);
    EXPECT_FALSE(q.ok()) << bad;
    if (!q.ok()) {
      EXPECT_EQ(q.error().kind, "invalid_request");
    }
  }
  std::string many = "/?";
  for (int i = 0; i < 40; ++i) many += "k" + std::to_string(i) + "=1&";
  EXPECT_FALSE(ParseQuery(many).ok());
  EXPECT_FALSE(ParseQuery("/?a=" + std::string(5000, 'x')).ok());
  EXPECT_FALSE(ParseQuery("/?" + std::string(100, 'k') + "=1").ok());
}

TEST(ServeQuery, RandomBytesNeverCrashAndOnlyCleanValuesPass) {
  std::mt19937 rng(13);
  for (int i = 0; i < 20000; ++i) {
    std::string s = "/?";
    int n = rng() % 40;
    for (int k = 0; k < n; ++k) s += static_cast<char>("a=&%+0fZ\x01\xff"[rng() % 11]);
    auto q = ParseQuery(s);
    if (!q.ok()) continue;
    for (const auto& [k, v] : *q) {
      EXPECT_FALSE(k.empty());
      for (unsigned char c : k + v) EXPECT_TRUE(c >= 0x20 && c != 0x7f) << s;
    }
  }
}

TEST(ServeQuery, CountsAreDecimalAndBounded) {
  EXPECT_EQ(*ParseCount("0", "n"), 0);
  EXPECT_EQ(*ParseCount("123456789012345678", "n"), 123456789012345678);
  for (const char* bad : {"", "-1", "+1", "1.0", "1e3", "0x1", " 1", "1 ", "1234567890123456789",
                          "99999999999999999999999"})
    EXPECT_FALSE(ParseCount(bad, "Last-Event-ID").ok()) << bad;
  auto e = ParseCount("abc", "Last-Event-ID");
  EXPECT_NE(e.error().message.find("Last-Event-ID"), std::string::npos);
}

TEST(ServeQuery, BoolsAreExplicit) {
  Query q = {{"a", "true"}, {"b", "0"}, {"c", "yes"}};
  EXPECT_TRUE(*QueryBool(q, "a", false));
  EXPECT_FALSE(*QueryBool(q, "b", true));
  EXPECT_FALSE(QueryBool(q, "c", true).ok());
  EXPECT_TRUE(*QueryBool(q, "absent", true));
}

TEST(ServeIds, OnlySafeCharacters) {
  EXPECT_TRUE(IsValidId("sdk-sepp-0f3a.b_c:1"));
  for (const char* bad : {"", ".", "..", "a/b", "a b", "a%2fb", "a\nb", "ä", "a\"b"})
    EXPECT_FALSE(IsValidId(bad)) << bad;
  EXPECT_TRUE(IsValidId(std::string(128, 'a')));
  EXPECT_FALSE(IsValidId(std::string(129, 'a')));
}

TEST(ServeGuard, TokensCompareExactly) {
  EXPECT_TRUE(ConstantTimeEquals("secret-token", "secret-token"));
  EXPECT_FALSE(ConstantTimeEquals("secret-token", "secret-tokem"));
  EXPECT_FALSE(ConstantTimeEquals("secret-token", "secret-token2"));
  EXPECT_FALSE(ConstantTimeEquals("secret-token", "secret"));
  EXPECT_FALSE(ConstantTimeEquals("secret-token", ""));
  EXPECT_FALSE(ConstantTimeEquals(std::string("a\0b", 3), "a"));
  EXPECT_EQ(*BearerToken("Bearer abc"), "abc");
  EXPECT_EQ(*BearerToken("bearer   abc "), "abc");
  EXPECT_FALSE(BearerToken("abc"));
  EXPECT_FALSE(BearerToken("Bearer "));
  EXPECT_FALSE(BearerToken("Basic abc"));
  EXPECT_FALSE(BearerToken("Bearerabc"));
}

TEST(ServeGuard, HostMustNameTheListenAddress) {
  GuardConfig c;
  c.allowed_hosts = HostsFor("127.0.0.1", 2468);
  EXPECT_TRUE(HostAllowed(c, "127.0.0.1:2468"));
  EXPECT_TRUE(HostAllowed(c, "LOCALHOST:2468"));
  EXPECT_TRUE(HostAllowed(c, "[::1]:2468"));
  for (const char* bad : {"evil.example:2468", "127.0.0.1", "127.0.0.1:80", "localhost.evil.example:2468",
                          "127.0.0.1:2468.evil", "", "127.0.0.2:2468"})
    EXPECT_FALSE(HostAllowed(c, bad)) << bad;
  c.allowed_hosts = HostsFor("10.1.2.3", 80);
  EXPECT_TRUE(HostAllowed(c, "10.1.2.3"));
  EXPECT_TRUE(HostAllowed(c, "10.1.2.3:80"));
  EXPECT_FALSE(HostAllowed(c, "localhost:80"));
  EXPECT_TRUE(HostsFor("0.0.0.0", 1).empty()) << "a wildcard bind cannot know its names";
}

TEST(ServeGuard, OriginsAreSameOriginOrAllowedOrRefused) {
  GuardConfig c;
  c.allowed_hosts = HostsFor("127.0.0.1", 2468);
  EXPECT_EQ(CheckOrigin(c, "", "127.0.0.1:2468"), OriginVerdict::kNone);
  EXPECT_EQ(CheckOrigin(c, "http://127.0.0.1:2468", "127.0.0.1:2468"), OriginVerdict::kSameOrigin);
  EXPECT_EQ(CheckOrigin(c, "http://evil.example", "127.0.0.1:2468"), OriginVerdict::kForbidden);
  EXPECT_EQ(CheckOrigin(c, "null", "127.0.0.1:2468"), OriginVerdict::kForbidden);
  EXPECT_EQ(CheckOrigin(c, "https://127.0.0.1:2468", "127.0.0.1:2468"), OriginVerdict::kForbidden);
  c.cors_origins = {"http://app.example"};
  EXPECT_EQ(CheckOrigin(c, "http://app.example", "127.0.0.1:2468"), OriginVerdict::kCors);
  EXPECT_EQ(CheckOrigin(c, "http://app.example.evil", "127.0.0.1:2468"), OriginVerdict::kForbidden);
}

}  // namespace
}  // namespace sepp::front::serve
