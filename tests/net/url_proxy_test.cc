#include <map>

#include <gtest/gtest.h>

#include "net/proxy.h"
#include "net/url.h"

namespace sepp::net {
namespace {

TEST(Url, ParsesTheUsualShapes) {
  auto u = ParseUrl("HTTPS://API.Example.com/v1/messages?x=1#frag");
  ASSERT_TRUE(u.ok());
  EXPECT_EQ(u->scheme, "https");
  EXPECT_EQ(u->host, "api.example.com");
  EXPECT_EQ(u->port, 443);
  EXPECT_EQ(u->target, "/v1/messages?x=1");
  EXPECT_EQ(u->HostHeader(), "api.example.com");
  EXPECT_EQ(u->HostPort(), "api.example.com:443");

  auto v = ParseUrl("http://user:p%40ss@127.0.0.1:8080");
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(v->port, 8080);
  EXPECT_EQ(v->target, "/");
  EXPECT_EQ(v->userinfo, "user:p%40ss");
  EXPECT_EQ(v->HostHeader(), "127.0.0.1:8080");

  auto w = ParseUrl("http://[::1]:9/x");
  ASSERT_TRUE(w.ok());
  EXPECT_EQ(w->host, "::1");
  EXPECT_EQ(w->HostPort(), "[::1]:9");
  EXPECT_EQ(ParseUrl("http://h?q")->target, "/?q");
}

TEST(Url, RejectsBadUrlsWithoutEchoingCredentials) {
  for (const char* bad : {"ftp://x/", "api.example.com", "http://", "http://h:0/", "http://h:65536/", "http://h:x/",
                          "http://[::1/", "http://a b/", "http://h/a b", "http://h/\r\nX: y"}) {
    auto r = ParseUrl(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.error().kind, "bad_url");
  }
  auto r = ParseUrl("http://user:hunter2secret@h:99999/");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message.find("hunter2secret"), std::string::npos) << r.error().message;
}

struct FakeEnv {
  std::map<std::string, std::string> vars;
  GetEnv get() const {
    return [this](const char* n) -> const char* {
      auto it = vars.find(n);
      return it == vars.end() ? nullptr : it->second.c_str();
    };
  }
};

Url U(const char* s) { return ParseUrl(s).value(); }

TEST(Proxy, ChoosesBySchemeLowerCaseFirst) {
  FakeEnv env{{{"HTTPS_PROXY", "http://upper:1"}, {"https_proxy", "lower:2"}, {"HTTP_PROXY", "http://plain:3"}}};
  auto p = ProxyFromEnvironment(U("https://api.example.com/"), env.get());
  ASSERT_TRUE(p.ok() && p->has_value());
  EXPECT_EQ((*p)->host, "lower");
  EXPECT_EQ((*p)->port, 2);
  auto q = ProxyFromEnvironment(U("http://api.example.com/"), env.get());
  ASSERT_TRUE(q.ok() && q->has_value());
  EXPECT_EQ((*q)->host, "plain");
}

TEST(Proxy, AllProxyFallbackAndLoopbackBypass) {
  FakeEnv env{{{"ALL_PROXY", "http://all:9"}}};
  auto p = ProxyFromEnvironment(U("https://x.com/"), env.get());
  ASSERT_TRUE(p.ok() && p->has_value());
  EXPECT_EQ((*p)->host, "all");
  for (const char* local : {"http://localhost:1/", "http://127.0.0.1:5/", "http://[::1]:5/"}) {
    auto l = ProxyFromEnvironment(U(local), env.get());
    ASSERT_TRUE(l.ok());
    EXPECT_FALSE(l->has_value()) << local;
  }
}

TEST(Proxy, NoProxyRules) {
  EXPECT_TRUE(NoProxyMatches("*", U("https://a.com/")));
  EXPECT_TRUE(NoProxyMatches("example.com", U("https://example.com/")));
  EXPECT_TRUE(NoProxyMatches("example.com", U("https://api.example.com/")));
  EXPECT_TRUE(NoProxyMatches(".example.com", U("https://api.example.com/")));
  EXPECT_TRUE(NoProxyMatches("*.example.com", U("https://api.example.com/")));
  EXPECT_FALSE(NoProxyMatches("example.com", U("https://notexample.com/")));
  EXPECT_TRUE(NoProxyMatches("foo, example.com:443 ", U("https://example.com/")));
  EXPECT_FALSE(NoProxyMatches("example.com:8443", U("https://example.com/")));
  EXPECT_TRUE(NoProxyMatches("10.0.0.1", U("http://10.0.0.1:8/")));
  EXPECT_TRUE(NoProxyMatches("[fe80::1]:80", U("http://[fe80::1]/")));
  EXPECT_FALSE(NoProxyMatches("", U("http://a/")));
  EXPECT_FALSE(NoProxyMatches(",,, ,", U("http://a/")));

  FakeEnv env{{{"HTTPS_PROXY", "http://p:1"}, {"NO_PROXY", "internal.corp,.example.com"}}};
  auto p = ProxyFromEnvironment(U("https://api.example.com/"), env.get());
  ASSERT_TRUE(p.ok());
  EXPECT_FALSE(p->has_value());
}

TEST(Proxy, BadValuesNameTheVariableNotTheSecret) {
  FakeEnv env{{{"HTTPS_PROXY", "http://user:topsecretpw@:99999"}}};
  auto p = ProxyFromEnvironment(U("https://x.com/"), env.get());
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error().kind, "proxy");
  EXPECT_NE(p.error().message.find("HTTPS_PROXY"), std::string::npos);
  EXPECT_EQ(p.error().message.find("topsecretpw"), std::string::npos);
  FakeEnv tls{{{"HTTPS_PROXY", "https://p:1"}}};
  EXPECT_FALSE(ProxyFromEnvironment(U("https://x.com/"), tls.get()).ok());
}

TEST(Proxy, BasicAuthorization) {
  EXPECT_EQ(BasicAuthorization("Aladdin:open%20sesame"), "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==");
  EXPECT_EQ(BasicAuthorization("a:b"), "Basic YTpi");
  EXPECT_EQ(BasicAuthorization("ab:c"), "Basic YWI6Yw==");
  EXPECT_EQ(BasicAuthorization("user"), "Basic dXNlcjo=");
}

}  // namespace
}  // namespace sepp::net
