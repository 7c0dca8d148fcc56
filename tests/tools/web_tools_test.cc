// The web tools' HTML reader, redirects and the egress rules, against
// local HTTP servers: allowed and denied names, private addresses reached
// by name or by a redirect, a redirect loop, the size cap, no network.
#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <cstring>

#include "net/http_server.h"
#include "tools/html_text.h"
#include "tools/tool.h"
#include "tools/web_fetch.h"
#include "tools/web_tools.h"

namespace sepp::tools {
namespace {

using sandbox::DenialKind;
using sandbox::NetMode;
using sandbox::Policy;

TEST(HtmlToMarkdown, KeepsStructureAndDropsScriptsStylesAndNavigation) {
  HtmlText t = HtmlToMarkdown(
      "<html><head><title>A &amp; B</title><style>p{}</style></head><body>"
      "<nav>menu</nav><script>alert('x<p>')</script>"
      "<h1>Heading</h1><p>Some <b>bold</b> and <a href=\"/x?a=1&amp;b=2\">a link</a>.</p>"
      "<ul><li>one</li><li>two<ol><li>inner</li></ol></li></ul>"
      "<pre>  code\n    indented</pre><table><tr><th>k</th><th>v</th></tr><tr><td>1</td><td>2</td></tr></table>"
      "<footer>foot</footer></body></html>");
  EXPECT_EQ(t.title, "A & B");
  const std::string& m = t.markdown;
  EXPECT_NE(m.find("# Heading"), std::string::npos) << m;
  EXPECT_NE(m.find("Some **bold** and [a link](/x?a=1&b=2)."), std::string::npos) << m;
  EXPECT_NE(m.find("- one\n- two\n  1. inner"), std::string::npos) << m;
  EXPECT_NE(m.find("```\n  code\n    indented\n```"), std::string::npos) << m;
  EXPECT_NE(m.find("| k | v\n| 1 | 2"), std::string::npos) << m;
  for (const char* gone : {"menu", "alert", "foot", "p{}"}) EXPECT_EQ(m.find(gone), std::string::npos) << gone;
}

TEST(HtmlToMarkdown, PrefersMainAndSurvivesBrokenMarkup) {
  HtmlText t = HtmlToMarkdown("<div>frame</div><main><p>content</p></main><div>more frame</div>");
  EXPECT_EQ(t.markdown, "content");
  // Unclosed tags, a stray '<', an unterminated comment: text, no crash.
  HtmlText broken = HtmlToMarkdown("<p>1 < 2 <b>bold <i>x <!-- never closed");
  EXPECT_NE(broken.markdown.find("1 < 2"), std::string::npos) << broken.markdown;
  EXPECT_EQ(DecodeEntities("&lt;&#65;&#x42;&unknown;&"), "<AB&unknown;&");
  EXPECT_EQ(DecodeEntities("&#1114112;"), "&#1114112;");  // beyond Unicode: left as written
}

// Hostile pages: random soups of tags, quotes, entities and bytes. The
// reader must end, never throw, and never keep a dropped element's text.
TEST(HtmlToMarkdown, SurvivesRandomTagSoup) {
  const char* pieces[] = {"<",      ">",     "</",      "<p>",    "<pre>",  "</pre>", "<script>",
                          "</script>", "&",  "&#",      "&#x",    ";",      "\"",     "'",
                          "<a href=", "<!--", "-->",     "<li>",   "<ol>",   "</ul>",  "<main>",
                          "text",   " ",     "\n",      "\xff",   "\0",    "SECRET"};
  uint32_t seed = 12345;
  auto next = [&] { return seed = seed * 1103515245u + 12345u; };
  for (int round = 0; round < 3000; ++round) {
    std::string page;
    int n = static_cast<int>(next() % 60);
    for (int i = 0; i < n; ++i) page += pieces[(next() >> 8) % (sizeof pieces / sizeof *pieces)];
    HtmlText t = HtmlToMarkdown(page);
    EXPECT_LE(t.markdown.size(), page.size() * 4 + 16) << page;
  }
  HtmlText hidden = HtmlToMarkdown("<p>a</p><script>SECRET<p>x</p></script><p>b</p>");
  EXPECT_EQ(hidden.markdown.find("SECRET"), std::string::npos) << hidden.markdown;
}

TEST(ResolveLocation, HandlesEveryFormAndRefusesOtherSchemes) {
  EXPECT_EQ(ResolveLocation("http://a.test/x/y?q", "/z"), "http://a.test/z");
  EXPECT_EQ(ResolveLocation("http://a.test/x/y?q", "z"), "http://a.test/x/z");
  EXPECT_EQ(ResolveLocation("https://a.test:8443/x", "//b.test/p"), "https://b.test/p");
  EXPECT_EQ(ResolveLocation("http://a.test/", "HTTPS://c.test/"), "HTTPS://c.test/");
  EXPECT_EQ(ResolveLocation("http://a.test/", "file:///etc/passwd"), "");
  EXPECT_EQ(ResolveLocation("http://a.test/", ""), "");
}

// A page server on loopback; names below stand in for DNS through the
// proxy's resolver, which maps every name to it.
class WebFetchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    server_ = std::make_unique<net::HttpServer>([this](const net::HttpServerRequest& r,
                                                       net::ResponseWriter& w) { Handle(r, w); });
    ASSERT_TRUE(server_->Start().ok());
    port_ = server_->port();
  }
  void Handle(const net::HttpServerRequest& r, net::ResponseWriter& w) {
    std::string p = r.Path();
    if (p == "/page") {
      w.Send(200, {{"Content-Type", "text/html; charset=utf-8"}},
             "<title>T</title><p>hello from " + r.Header("host") + "</p>");
    } else if (p == "/to-private") {
      w.Send(302, {{"Location", "http://127.0.0.1:" + std::to_string(port_) + "/page"}}, "");
    } else if (p == "/to-denied") {
      w.Send(302, {{"Location", "http://other.test:" + std::to_string(port_) + "/page"}}, "");
    } else if (p == "/relative") {
      w.Send(301, {{"Location", "page"}}, "");
    } else if (p == "/loop") {
      w.Send(302, {{"Location", "/loop"}}, "");
    } else if (p == "/big") {
      w.Send(200, {{"Content-Type", "text/plain"}}, std::string(100000, 'x'));
    } else {
      w.Send(404, {}, "no");
    }
  }
  // Every name resolves to the page server (127.0.0.1), as a name that
  // points at this machine would.
  WebRequest Request(const std::string& host, const std::string& path) {
    WebRequest r;
    r.url = "http://" + host + ":" + std::to_string(port_) + path;
    r.resolve = [this](const std::string&, int) -> Result<std::vector<sandbox::Endpoint>> {
      sandbox::Endpoint e{};
      auto* a = reinterpret_cast<sockaddr_in*>(&e.addr);
      a->sin_family = AF_INET;
      a->sin_port = htons(static_cast<uint16_t>(port_));
      a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
      e.len = sizeof(sockaddr_in);
      return std::vector<sandbox::Endpoint>{e};
    };
    return r;
  }
  Policy Allowing(std::vector<std::string> domains) {
    Policy p;
    p.net = NetMode::kProxy;
    p.allow_domains = std::move(domains);
    return p;
  }
  std::unique_ptr<net::HttpServer> server_;
  int port_ = 0;
};

TEST_F(WebFetchTest, AnAllowedNameIsFetchedAndARelativeRedirectFollowed) {
  WebOutcome o = WebSend(Request("docs.test", "/page"), Allowing({"docs.test"}), nullptr);
  ASSERT_TRUE(o.response.ok()) << o.response.error().message;
  EXPECT_EQ(o.response->status, 200);
  EXPECT_NE(o.response->body.find("hello from docs.test"), std::string::npos);
  EXPECT_TRUE(o.denials.empty());
  WebOutcome r = WebSend(Request("docs.test", "/relative"), Allowing({"docs.test"}), nullptr);
  ASSERT_TRUE(r.response.ok()) << r.response.error().message;
  EXPECT_EQ(r.response->redirects, 1);
  EXPECT_NE(r.response->final_url.find("/page"), std::string::npos);
}

TEST_F(WebFetchTest, ANameOffTheAllowlistIsRefusedAsATypedNetworkDenial) {
  WebOutcome o = WebSend(Request("evil.test", "/page"), Allowing({"docs.test"}), nullptr);
  ASSERT_FALSE(o.response.ok());
  ASSERT_EQ(o.denials.size(), 1u);
  EXPECT_EQ(o.denials[0].kind, DenialKind::kNetwork);
  EXPECT_EQ(o.denials[0].target, "evil.test");
}

TEST_F(WebFetchTest, APrivateAddressIsRefusedThroughAWildcardAndThroughARedirect) {
  // *.test allows the name, but it resolves to this machine: refused.
  WebOutcome wild = WebSend(Request("docs.test", "/page"), Allowing({"*.test"}), nullptr);
  ASSERT_FALSE(wild.response.ok());
  EXPECT_FALSE(wild.denials.empty());
  // An allowed page redirecting to 127.0.0.1 (not named): refused at the hop.
  WebOutcome hop = WebSend(Request("docs.test", "/to-private"), Allowing({"docs.test"}), nullptr);
  ASSERT_FALSE(hop.response.ok());
  EXPECT_NE(hop.response.error().message.find("after 1 redirect"), std::string::npos)
      << hop.response.error().message;
  ASSERT_FALSE(hop.denials.empty());
  // ... and to a name off the allowlist.
  WebOutcome other = WebSend(Request("docs.test", "/to-denied"), Allowing({"docs.test"}), nullptr);
  ASSERT_FALSE(other.response.ok());
  ASSERT_FALSE(other.denials.empty());
  EXPECT_EQ(other.denials[0].target, "other.test");
}

TEST_F(WebFetchTest, RedirectLoopsStopAndLargeBodiesAreCut) {
  WebOutcome loop = WebSend(Request("docs.test", "/loop"), Allowing({"docs.test"}), nullptr);
  ASSERT_FALSE(loop.response.ok());
  EXPECT_EQ(loop.response.error().kind, "redirects");
  WebRequest big = Request("docs.test", "/big");
  big.max_bytes = 1000;
  WebOutcome b = WebSend(big, Allowing({"docs.test"}), nullptr);
  ASSERT_TRUE(b.response.ok()) << b.response.error().message;
  EXPECT_EQ(b.response->body.size(), 1000u);
  EXPECT_TRUE(b.response->truncated);
}

TEST_F(WebFetchTest, WithoutNetworkNothingIsReachedAndTheDenialNamesTheHost) {
  Policy off;  // the default: net off
  WebOutcome o = WebSend(Request("docs.test", "/page"), off, nullptr);
  ASSERT_FALSE(o.response.ok());
  ASSERT_EQ(o.denials.size(), 1u);
  EXPECT_EQ(o.denials[0].kind, DenialKind::kNetwork);
  EXPECT_EQ(o.denials[0].target, "docs.test");
  EXPECT_NE(o.denials[0].text.find("--allow-domain docs.test"), std::string::npos);
}

TEST_F(WebFetchTest, TheToolShowsThePageAsMarkdownAndRejectsBadArguments) {
  std::unique_ptr<Tool> fetch;
  for (auto& t : MakeWebTools())
    if (t->name() == "fetch_content") fetch = std::move(t);
  ASSERT_TRUE(fetch);
  // localhost, named exactly, may be loopback (no stand-in resolver here).
  Policy p = Allowing({"localhost"});
  ToolContext ctx;
  ctx.policy = &p;
  ToolResult r = fetch->Run(Json{{"url", "http://localhost:" + std::to_string(port_) + "/page"}}, ctx);
  EXPECT_FALSE(r.is_error) << r.text;
  EXPECT_NE(r.text.find("# T"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("hello from localhost"), std::string::npos) << r.text;
  ToolResult bad = fetch->Run(Json{{"url", 5}}, ctx);
  EXPECT_TRUE(bad.is_error);
  ToolResult none = fetch->Run(Json::object(), ctx);
  EXPECT_TRUE(none.is_error);
  ToolResult scheme = fetch->Run(Json{{"url", "file:///etc/passwd"}}, ctx);
  EXPECT_TRUE(scheme.is_error) << scheme.text;
}

TEST_F(WebFetchTest, APageTooLongForTheResultGoesOutWholeAsTheCallsStream) {
  std::unique_ptr<Tool> fetch;
  for (auto& t : MakeWebTools())
    if (t->name() == "fetch_content") fetch = std::move(t);
  ASSERT_TRUE(fetch);
  Policy p = Allowing({"localhost"});
  std::string streamed;
  ToolContext ctx;
  ctx.policy = &p;
  ctx.on_output = [&](std::string_view chunk) { streamed += chunk; };
  ToolResult r = fetch->Run(Json{{"url", "http://localhost:" + std::to_string(port_) + "/big"}}, ctx);
  ASSERT_FALSE(r.is_error) << r.text;
  EXPECT_TRUE(r.truncated);
  EXPECT_LT(r.text.size(), 60000u);
  // The whole page (the output sidecar keeps it), and how long it was.
  EXPECT_NE(streamed.find(std::string(100000, 'x')), std::string::npos);
  EXPECT_EQ(r.details.value("output_bytes", size_t{0}), streamed.size());
  // A short page is not streamed.
  streamed.clear();
  ToolResult small = fetch->Run(Json{{"url", "http://localhost:" + std::to_string(port_) + "/page"}}, ctx);
  EXPECT_FALSE(small.truncated);
  EXPECT_TRUE(streamed.empty());
}

}  // namespace
}  // namespace sepp::tools
