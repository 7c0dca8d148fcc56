// The OAuth wire pieces (ext/mcp/oauth_wire.h): challenges as servers write
// them and as an attacker might, the discovery order the MCP spec gives,
// and PKCE against RFC 7636's own example.
#include "ext/mcp/oauth_wire.h"

#include <gtest/gtest.h>

#include <random>

namespace sepp::ext::mcp {
namespace {

TEST(OAuthWire, BearerChallengeParameters) {
  auto p = ParseBearerChallenge(
      R"(Bearer error="insufficient_scope", scope="mcp:basic mcp:write", resource_metadata="http://x/.well-known/oauth-protected-resource/mcp")");
  EXPECT_EQ(p["error"], "insufficient_scope");
  EXPECT_EQ(p["scope"], "mcp:basic mcp:write");
  EXPECT_EQ(p["resource_metadata"], "http://x/.well-known/oauth-protected-resource/mcp");
}

TEST(OAuthWire, BearerChallengeAmongOthersAndOddSpelling) {
  // Another scheme first, the scheme in another case, a token value, an escaped quote.
  auto p = ParseBearerChallenge(R"(Basic realm="r", BEARER realm=mcp, scope="a \"b\"", Other x="y")");
  EXPECT_EQ(p["realm"], "mcp");
  EXPECT_EQ(p["scope"], "a \"b\"");
  EXPECT_EQ(p.count("x"), 0u) << "a parameter of the next challenge is not Bearer's";
  EXPECT_TRUE(ParseBearerChallenge(R"(Basic realm="Bearer scope=x")").empty())
      << "Bearer inside another challenge's quoted string is no Bearer challenge";
  EXPECT_TRUE(ParseBearerChallenge("").empty());
}

TEST(OAuthWire, BearerChallengeFirstValueWins) {
  // A second resource_metadata (say, appended by a proxy) does not replace the first.
  auto p = ParseBearerChallenge(R"(Bearer resource_metadata="http://a/m", resource_metadata="http://evil/m")");
  EXPECT_EQ(p["resource_metadata"], "http://a/m");
}

TEST(OAuthWire, HostileChallengesNeverCrash) {
  std::mt19937 rng(12);
  const std::string alphabet = "Bearer =\",\\ \t\r\nscope";
  for (int i = 0; i < 20000; ++i) {
    std::string s;
    size_t n = rng() % 64;
    for (size_t k = 0; k < n; ++k)
      s.push_back(rng() % 4 ? alphabet[rng() % alphabet.size()] : static_cast<char>(rng()));
    auto p = ParseBearerChallenge(s);
    for (const auto& [k, v] : p) EXPECT_LE(v.size(), s.size());
  }
  EXPECT_EQ(ParseBearerChallenge("Bearer scope=\"unterminated")["scope"], "unterminated");
}

TEST(OAuthWire, ProtectedResourceMetadataPathFirst) {
  EXPECT_EQ(ProtectedResourceMetadataUrls("https://h:8443/api/mcp?x=1"),
            (std::vector<std::string>{"https://h:8443/.well-known/oauth-protected-resource/api/mcp",
                                      "https://h:8443/.well-known/oauth-protected-resource"}));
  EXPECT_EQ(ProtectedResourceMetadataUrls("http://h/"),
            (std::vector<std::string>{"http://h/.well-known/oauth-protected-resource"}));
  EXPECT_TRUE(ProtectedResourceMetadataUrls("file:///etc/passwd").empty());
}

TEST(OAuthWire, AuthorizationServerMetadataOrder) {
  EXPECT_EQ(AuthorizationServerMetadataUrls("https://as/tenant1/"),
            (std::vector<std::string>{"https://as/.well-known/oauth-authorization-server/tenant1",
                                      "https://as/.well-known/openid-configuration/tenant1",
                                      "https://as/tenant1/.well-known/openid-configuration"}));
  EXPECT_EQ(AuthorizationServerMetadataUrls("http://as:9"),
            (std::vector<std::string>{"http://as:9/.well-known/oauth-authorization-server",
                                      "http://as:9/.well-known/openid-configuration"}));
}

TEST(OAuthWire, PkceMatchesRfc7636) {
  EXPECT_EQ(CodeChallengeS256("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"),
            "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM");
  std::string v = MakeCodeVerifier();
  EXPECT_EQ(v.size(), 43u);
  EXPECT_EQ(v.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"),
            std::string::npos);
  EXPECT_NE(v, MakeCodeVerifier());
}

TEST(OAuthWire, Encodings) {
  EXPECT_EQ(Base64("id:s3cret"), "aWQ6czNjcmV0");
  EXPECT_EQ(Base64("ab"), "YWI=");
  EXPECT_EQ(Base64Url(std::string("\xfb\xff", 2)), "-_8");
  EXPECT_EQ(FormEncode({{"redirect_uri", "http://127.0.0.1:5/callback"}, {"scope", "a b"}}),
            "redirect_uri=http%3A%2F%2F127.0.0.1%3A5%2Fcallback&scope=a%20b");
  EXPECT_EQ(QueryValue("code=a%2Bb+c&state=xyz", "code"), "a+b c");
  EXPECT_EQ(QueryValue("code=1&state=xyz", "state"), "xyz");
  EXPECT_EQ(QueryValue("codes=1", "code"), "");
}

TEST(OAuthWire, ScopesAndResources) {
  EXPECT_EQ(MergeScopes("mcp:basic", "mcp:basic  mcp:write"), "mcp:basic mcp:write");
  EXPECT_EQ(MergeScopes("", ""), "");
  EXPECT_EQ(CanonicalResource("https://h/mcp#frag"), "https://h/mcp");
  EXPECT_EQ(UrlOrigin("https://H:443/x"), "https://h");
  EXPECT_EQ(UrlOrigin("not a url"), "");
}

}  // namespace
}  // namespace sepp::ext::mcp
