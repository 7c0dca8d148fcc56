// The web tools end to end: a session without network is refused, the
// model asks for the domain with retry_with_access and a flag grants it;
// web_search uses only a configured provider. Local HTTP servers on loopback stand in for the web.
#include <gtest/gtest.h>

#include <filesystem>

#include "base/ids.h"
#include "e2e/run_sepp.h"
#include "net/http_server.h"
#include "support/fake_provider.h"
#include "support/tool_results.h"

namespace sepp::e2e {
namespace {

namespace fs = std::filesystem;

class WebE2E : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::path(SEPP_BINARY_DIR) / "test-tmp" / ("web-e2e-" + NewId().substr(0, 12));
    fs::create_directories(root_ / "ws");
    fs::create_directories(root_ / "home");
    web_ = std::make_unique<net::HttpServer>([this](const net::HttpServerRequest& r,
                                                    net::ResponseWriter& w) {
      if (r.Path() == "/search") {
        w.Send(200, {{"Content-Type", "application/json"}},
               R"({"results":[{"title":"Sepp docs","url":"http://localhost/docs","content":"a sandboxed agent"}]})");
        return;
      }
      w.Send(200, {{"Content-Type", "text/html"}},
             "<html><title>Local page</title><body><nav>menu</nav><p>the answer is 42</p></body></html>");
    });
    ASSERT_TRUE(web_->Start().ok());
    ASSERT_TRUE(fp_.Start().ok());
  }
  void TearDown() override {
    fp_.Stop();
    web_->Stop();
    fs::remove_all(root_);
  }
  RunOutput Run(const Json& script, std::vector<std::string> flags,
                std::map<std::string, std::string> extra_env = {}) {
    fp_.SetScript({{"responses", script}});
    RunOptions o;
    o.args = {"-p", "look it up"};
    o.args.insert(o.args.end(), flags.begin(), flags.end());
    o.env = {{"PATH", "/usr/bin:/bin"},
             {"HOME", (root_ / "home").string()},
             {"SEPP_HOME", (root_ / "home" / ".sepp").string()},
             {"ANTHROPIC_BASE_URL", fp_.base_url()},
             {"ANTHROPIC_API_KEY", "sk-web-e2e-provider-key"}};
    o.env.insert(extra_env.begin(), extra_env.end());
    o.cwd = (root_ / "ws").string();
    return RunSepp(o);
  }
  std::string ResultFor(const std::string& id) { return fake::LastToolResult(fp_, id); }
  std::string PageUrl() { return "http://localhost:" + std::to_string(web_->port()) + "/page"; }
  fs::path root_;
  std::unique_ptr<net::HttpServer> web_;
  fake::FakeProvider fp_;
};

Json FetchThenRetry(const std::string& url) {
  return Json{
      {{"tool_calls", {{{"id", "f1"}, {"name", "fetch_content"}, {"arguments", {{"url", url}}}}}}},
      {{"tool_calls", {{{"id", "r1"}, {"name", "retry_with_access"},
                        {"arguments", {{"call_id", "f1"}, {"domains", {"localhost"}},
                                       {"justification", "the user asked about that page"}}}}}}},
      {{"text", "done"}}};
}

TEST_F(WebE2E, WithoutNetworkTheFetchIsRefusedAndAGrantedRetryReadsThePage) {
  auto r = Run(FetchThenRetry(PageUrl()), {"--allow-domain", "localhost"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(ResultFor("f1").find("no network"), std::string::npos) << ResultFor("f1");
  EXPECT_EQ(ResultFor("f1").find("the answer is 42"), std::string::npos);
  std::string retried = ResultFor("r1");
  EXPECT_NE(retried, "") << r.err;
  EXPECT_NE(retried.find("# Local page"), std::string::npos) << retried;
  EXPECT_NE(retried.find("the answer is 42"), std::string::npos) << retried;
  EXPECT_EQ(retried.find("menu"), std::string::npos) << retried;
}

TEST_F(WebE2E, AnUngrantedRetryStaysRefused) {
  auto r = Run(FetchThenRetry(PageUrl()), {});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(ResultFor("r1").find("the answer is 42"), std::string::npos) << ResultFor("r1");
  EXPECT_NE(ResultFor("r1").find("denied"), std::string::npos) << ResultFor("r1");
}

TEST_F(WebE2E, WebSearchUsesOnlyAConfiguredProvider) {
  Json script = {
      {{"tool_calls", {{{"id", "s1"}, {"name", "web_search"}, {"arguments", {{"query", "sepp"}}}}}}},
      {{"text", "done"}}};
  auto none = Run(script, {});
  ASSERT_EQ(none.exit_code, 0) << none.err;
  EXPECT_NE(ResultFor("s1").find("no web search provider is configured"), std::string::npos)
      << ResultFor("s1");
  auto with = Run(script, {},
                  {{"SEPP_SEARXNG_URL", "http://localhost:" + std::to_string(web_->port())}});
  ASSERT_EQ(with.exit_code, 0) << with.err;
  std::string got = ResultFor("s1");
  EXPECT_NE(got.find("sepp"), std::string::npos) << got << with.err;
  EXPECT_NE(got.find("1. Sepp docs"), std::string::npos) << got;
  EXPECT_NE(got.find("a sandboxed agent"), std::string::npos) << got;
}

}  // namespace
}  // namespace sepp::e2e
