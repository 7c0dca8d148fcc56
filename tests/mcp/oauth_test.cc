// OAuth for remote MCP servers (ext/mcp/oauth.h) against an authorization
// server and an MCP server in this process (loopback only): the legitimate
// sign-in that must work, next to the attacks it must refuse — metadata
// naming another resource (no token is ever requested or sent), a forged
// redirect with another state (ignored), and a server that keeps asking
// for a scope it never gets (no endless sign-ins). The conformance suite
// (tests/mcp/conformance) covers the discovery variants.
#include "ext/mcp/oauth.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <atomic>
#include <filesystem>
#include <mutex>
#include <set>

#include "base/file.h"
#include "base/json.h"
#include "base/strings.h"
#include "ext/mcp/client.h"
#include "ext/mcp/http_transport.h"
#include "ext/mcp/oauth_store.h"
#include "ext/mcp/oauth_wire.h"
#include "net/http_server.h"

namespace sepp::ext::mcp {
namespace {
namespace fs = std::filesystem;

// One server playing both parts: protected resource at /mcp, its metadata,
// and an authorization server that approves every sign-in.
struct Fixture {
  std::mutex mu;
  std::string resource_override;   // the PRM's "resource"; "" = this server's /mcp
  std::string tools_call_scope;    // a scope tools/call needs beyond "basic"
  std::vector<std::string> grantable = {"basic", "write"};  // what a sign-in can get
  std::string last_challenge_sent;
  int authorizations = 0, token_requests = 0, registrations = 0, refreshes = 0;
  int expires_in = 3600;
  std::string refresh_resource;
  std::string pkce_challenge, last_verifier;
  std::vector<std::string> bearer_seen;
  std::map<std::string, std::string> token_scopes;
  std::set<std::string> refresh_tokens;  // access tokens whose "rt-" refresh token is valid
  std::atomic<int> token_counter{0};
  net::HttpServer server{[this](const net::HttpServerRequest& r, net::ResponseWriter& w) { Handle(r, w); }};
  std::string base() { return "http://127.0.0.1:" + std::to_string(server.port()); }

  void Json200(net::ResponseWriter& w, const Json& j) {
    w.Send(200, {{"Content-Type", "application/json"}}, DumpJson(j));
  }

  void Handle(const net::HttpServerRequest& r, net::ResponseWriter& w) {
    std::lock_guard lock(mu);
    std::string path = r.Path();
    std::string query = r.target.find('?') == std::string::npos ? "" : r.target.substr(r.target.find('?') + 1);
    if (path == "/.well-known/oauth-protected-resource/mcp") {
      Json200(w, {{"resource", resource_override.empty() ? base() + "/mcp" : resource_override},
                  {"authorization_servers", {base()}}});
    } else if (path == "/.well-known/oauth-authorization-server") {
      Json200(w, {{"issuer", base()}, {"authorization_endpoint", base() + "/authorize"},
                  {"token_endpoint", base() + "/token"}, {"registration_endpoint", base() + "/register"},
                  {"code_challenge_methods_supported", {"S256"}},
                  {"token_endpoint_auth_methods_supported", {"none"}}});
    } else if (path == "/register") {
      ++registrations;
      w.Send(201, {{"Content-Type", "application/json"}}, DumpJson(Json{{"client_id", "client-1"}}));
    } else if (path == "/authorize") {
      ++authorizations;
      pkce_challenge = QueryValue(query, "code_challenge");
      std::string redirect = QueryValue(query, "redirect_uri");
      std::string scope = QueryValue(query, "scope");
      // The "browser": the test follows this redirect itself.
      w.Send(302, {{"Location", redirect + "?code=code-" + PercentEncode(scope) + "&state=" +
                                    PercentEncode(QueryValue(query, "state"))}}, "");
    } else if (path == "/token") {
      ++token_requests;
      std::string token = "tok-" + std::to_string(++token_counter) + "-secretish";
      if (QueryValue(r.body, "grant_type") == "refresh_token") {
        std::string old_token = QueryValue(r.body, "refresh_token");
        old_token = old_token.rfind("rt-", 0) == 0 ? old_token.substr(3) : "";
        if (!refresh_tokens.count(old_token)) {
          w.Send(400, {{"Content-Type", "application/json"}}, R"({"error":"invalid_grant"})");
          return;
        }
        ++refreshes;
        refresh_resource = QueryValue(r.body, "resource");
        token_scopes[token] = token_scopes[old_token];
        refresh_tokens.insert(token);
        Json200(w, {{"access_token", token}, {"token_type", "Bearer"}, {"expires_in", expires_in},
                    {"refresh_token", "rt-" + token}});
        return;
      }
      last_verifier = QueryValue(r.body, "code_verifier");
      std::string code = QueryValue(r.body, "code");
      std::string granted;
      for (const auto& s : Split(code.rfind("code-", 0) == 0 ? code.substr(5) : "", ' '))
        if (std::find(grantable.begin(), grantable.end(), s) != grantable.end()) granted += " " + s + " ";
      token_scopes[token] = granted;
      refresh_tokens.insert(token);
      Json200(w, {{"access_token", token}, {"token_type", "Bearer"}, {"expires_in", expires_in},
                  {"refresh_token", "rt-" + token}});
    } else if (path == "/mcp") {
      auto msg = ParseJson(r.body);
      std::string method = msg.ok() ? msg->value("method", "") : "";
      std::string auth = r.Header("authorization");
      bearer_seen.push_back(auth);
      std::string token = auth.rfind("Bearer ", 0) == 0 ? auth.substr(7) : "";
      std::string meta = base() + "/.well-known/oauth-protected-resource/mcp";
      if (!token_scopes.count(token)) {
        last_challenge_sent = "Bearer scope=\"basic\", resource_metadata=\"" + meta + "\"";
        w.Send(401, {{"WWW-Authenticate", last_challenge_sent}}, "");
        return;
      }
      if (method == "tools/call" && !tools_call_scope.empty() &&
          token_scopes[token].find(" " + tools_call_scope + " ") == std::string::npos) {
        w.Send(403, {{"WWW-Authenticate", "Bearer error=\"insufficient_scope\", scope=\"basic " +
                                              tools_call_scope + "\", resource_metadata=\"" + meta + "\""}}, "");
        return;
      }
      if (!msg.ok() || !msg->contains("id")) {
        w.Send(202, {}, "");
        return;
      }
      Json result = Json::object();
      if (method == "initialize")
        result = {{"protocolVersion", "2025-11-25"}, {"capabilities", {{"tools", Json::object()}}},
                  {"serverInfo", {{"name", "oauth-test"}, {"version", "1"}}}};
      else if (method == "tools/list")
        result = {{"tools", {{{"name", "t"}, {"inputSchema", {{"type", "object"}}}}}}};
      else if (method == "tools/call")
        result = {{"content", {{{"type", "text"}, {"text", "done"}}}}};
      Json200(w, {{"jsonrpc", "2.0"}, {"id", (*msg)["id"]}, {"result", result}});
    } else {
      w.Send(404, {}, "");
    }
  }
};

class OAuthTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/sepp-oauth-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    home_ = tmpl;
    setenv("SEPP_HOME", home_.c_str(), 1);
    ASSERT_TRUE(fx_.server.Start().ok());
  }
  void TearDown() override {
    fx_.server.Stop();
    unsetenv("SEPP_HOME");
    std::error_code ec;
    fs::remove_all(home_, ec);
  }

  // The browser: GET the authorization URL, follow its one redirect to
  // sepp's loopback port. forged_first: a redirect with another state first.
  OAuthOptions Options(bool forged_first = false) {
    OAuthOptions o;
    o.server_name = "remote";
    o.authorize_timeout_s = 20;
    o.on_authorize = [this, forged_first](const std::string& url) {
      browser_urls_.push_back(url);
      std::thread([url, forged_first] {
        net::HttpRequest req;
        req.method = "GET";
        req.url = url;
        auto r = net::HttpFetch(req, nullptr);
        if (!r.ok()) return;
        std::string location = r->head.Header("location");
        if (forged_first) {
          std::string redirect = location.substr(0, location.find('?'));
          net::HttpRequest forged;
          forged.method = "GET";
          forged.url = redirect + "?code=attacker-code&state=not-the-one";
          auto f = net::HttpFetch(forged, nullptr);
          if (f.ok()) forged_status_ = f->head.status;
        }
        net::HttpRequest follow;
        follow.method = "GET";
        follow.url = location;
        (void)net::HttpFetch(follow, nullptr);
      }).detach();
    };
    return o;
  }

  std::unique_ptr<McpClient> Connect(OAuthOptions o) {
    auto oauth = std::make_shared<OAuthClient>(fx_.base() + "/mcp", std::move(o));
    auto transport = std::make_unique<HttpTransport>(fx_.base() + "/mcp", net::Headers{}, oauth);
    return std::make_unique<McpClient>(std::move(transport), ClientHooks{});
  }

  fs::path home_;
  Fixture fx_;
  std::vector<std::string> browser_urls_;
  static inline std::atomic<int> forged_status_{0};
};

TEST_F(OAuthTest, SignsInWithPkceAndKeepsTheTokenPrivate) {
  forged_status_ = 0;
  auto client = Connect(Options(/*forged_first=*/true));
  auto info = client->Initialize(20);
  ASSERT_TRUE(info.ok()) << info.error().message;
  auto tools = client->ListTools();
  ASSERT_TRUE(tools.ok()) << tools.error().message;
  EXPECT_EQ(tools->size(), 1u);
  {
    std::lock_guard lock(fx_.mu);
    EXPECT_EQ(fx_.authorizations, 1);
    EXPECT_EQ(fx_.registrations, 1);
    EXPECT_EQ(CodeChallengeS256(fx_.last_verifier), fx_.pkce_challenge) << "the PKCE verifier matches";
  }
  EXPECT_EQ(forged_status_.load(), 400) << "a redirect with another state is refused";
  ASSERT_EQ(browser_urls_.size(), 1u);
  const std::string& url = browser_urls_[0];
  EXPECT_NE(url.find("code_challenge_method=S256"), std::string::npos);
  EXPECT_NE(url.find("resource=" + PercentEncode(fx_.base() + "/mcp")), std::string::npos) << url;
  EXPECT_NE(url.find("scope=basic"), std::string::npos) << "the challenge's scope";

  // The token: stored 0600, one record for this server, and the forged code never used.
  struct stat st{};
  ASSERT_EQ(stat(OAuthStorePath().c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  auto text = ReadFile(OAuthStorePath());
  ASSERT_TRUE(text.ok());
  EXPECT_NE(text->find("tok-1-secretish"), std::string::npos);
  EXPECT_EQ(text->find("attacker-code"), std::string::npos);

  // A second run uses the stored token: no sign-in.
  client.reset();
  auto again = Connect(Options());
  ASSERT_TRUE(again->Initialize(20).ok());
  ASSERT_TRUE(again->ListTools().ok());
  std::lock_guard lock(fx_.mu);
  EXPECT_EQ(fx_.authorizations, 1);
}

TEST_F(OAuthTest, RefreshesAnExpiringTokenAndARevokedOneWithoutAskingAgain) {
  fx_.expires_in = 1;  // inside the 30 s margin: refreshed before the next request
  auto client = Connect(Options());
  ASSERT_TRUE(client->Initialize(20).ok());
  ASSERT_TRUE(client->ListTools().ok());
  {
    std::lock_guard lock(fx_.mu);
    EXPECT_EQ(fx_.authorizations, 1);
    EXPECT_GE(fx_.refreshes, 1);
    EXPECT_EQ(fx_.refresh_resource, fx_.base() + "/mcp") << "the resource indicator on the refresh too";
    fx_.expires_in = 3600;
  }
  ASSERT_TRUE(client->ListTools().ok());  // refreshed once more, now to a long-lived token
  {
    // The server forgets every access token (revoked): a 401, and the
    // refresh token gets a new one.
    std::lock_guard lock(fx_.mu);
    fx_.token_scopes.clear();
    fx_.refreshes = 0;
  }
  ASSERT_TRUE(client->ListTools().ok());
  std::lock_guard lock(fx_.mu);
  EXPECT_EQ(fx_.refreshes, 1);
  EXPECT_EQ(fx_.authorizations, 1) << "no second sign-in";
}

TEST_F(OAuthTest, MetadataNamingAnotherResourceGetsNoToken) {
  fx_.resource_override = "http://127.0.0.1:1/elsewhere";
  auto client = Connect(Options());
  auto info = client->Initialize(20);
  ASSERT_FALSE(info.ok());
  EXPECT_NE(info.error().message.find("names another resource"), std::string::npos) << info.error().message;
  std::lock_guard lock(fx_.mu);
  EXPECT_EQ(fx_.authorizations, 0);
  EXPECT_EQ(fx_.token_requests, 0);
  ASSERT_FALSE(fx_.bearer_seen.empty());
  for (const auto& a : fx_.bearer_seen) EXPECT_EQ(a, "") << "no token was ever sent";
}

TEST_F(OAuthTest, StepsUpForANewScopeAndStopsWhenItCannotHelp) {
  fx_.tools_call_scope = "write";
  auto client = Connect(Options());
  ASSERT_TRUE(client->Initialize(20).ok());
  auto r = client->Request("tools/call", {{"name", "t"}, {"arguments", Json::object()}});
  ASSERT_TRUE(r.ok()) << r.error().message;
  {
    std::lock_guard lock(fx_.mu);
    EXPECT_EQ(fx_.authorizations, 2) << "the sign-in, then one step-up";
    ASSERT_EQ(browser_urls_.size(), 2u);
    EXPECT_NE(browser_urls_[1].find("scope=basic%20write"), std::string::npos) << browser_urls_[1];
    // Now tools/call needs a scope no sign-in grants.
    fx_.tools_call_scope = "admin";
  }
  auto r2 = client->Request("tools/call", {{"name", "t"}, {"arguments", Json::object()}});
  ASSERT_FALSE(r2.ok());
  EXPECT_NE(r2.error().message.find("needs scope"), std::string::npos) << r2.error().message;
  EXPECT_EQ(r2.error().message.find("secretish"), std::string::npos) << "no token in the message";
  std::lock_guard lock(fx_.mu);
  EXPECT_EQ(fx_.authorizations, 3) << "one step-up for the new scope, none for the same scope again";
}

}  // namespace
}  // namespace sepp::ext::mcp
