// pi behind `sepp serve`: pi-acp 0.0.34 over pi 1.6's RPC mode (both pinned
// in tests/rpc/node, with the Node 22 pi needs), confined by pi's policy,
// against the scripted fake provider, through both APIs: the ACP transport
// and the session API. pi asks no permissions (it runs its tools at once),
// so there is none to answer; its tool call runs in the workspace, and a
// read of the user's ~/.ssh from inside its sandbox fails.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "serve/serve_child.h"
#include "support/fake_provider.h"

namespace sepp::servetest {
namespace {

namespace fs = std::filesystem;

constexpr const char* kToken = "pi-agents-token-0123456789abcdef";
constexpr const char* kKey = "sk-pi-agent-test-key-5e4d3c2b1a";
constexpr const char* kSshSecret = "PI-PRIVATE-KEY-MATERIAL-2718";

fs::path PiBin() { return fs::path(SEPP_SOURCE_DIR) / "tests/rpc/node/node_modules/.bin"; }

class PiAgent : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (!fs::exists(PiBin() / "pi-acp") || !fs::exists(PiBin() / "pi")) return;  // each test skips
    char tmpl[] = "/tmp/sepp-pi-XXXXXX";
    root_ = new fs::path(mkdtemp(tmpl));
    fs::path r = *root_;
    for (const char* d : {"home/.ssh", "sepp/agents/home/pi/.pi/agent", "project"}) fs::create_directories(r / d);
    std::ofstream(r / "home/.ssh/id_rsa") << kSshSecret << "\n";
    fake_ = new fake::FakeProvider();
    ASSERT_TRUE(fake_->Start().ok());
    std::ofstream(r / "sepp/settings.toml")
        << "[[serve.agents]]\nname = \"pi\"\nallow_domains = [\"127.0.0.1:" << fake_->port()
        << "\"]\nenv = [\"PI_OFFLINE=1\", \"PI_SKIP_VERSION_CHECK=1\"]\n";
    // pi's own configuration, in its private home: the fake provider as
    // an Anthropic-style one.
    fs::path agent_dir = r / "sepp/agents/home/pi/.pi/agent";
    std::ofstream(agent_dir / "models.json")
        << Json{{"providers",
                 {{"fake", {{"baseUrl", fake_->base_url()}, {"api", "anthropic-messages"}, {"apiKey", "ANTHROPIC_API_KEY"},
                            {"models", {{{"id", "fake-model"}, {"reasoning", false}}}}}}}}}
               .dump();
    std::ofstream(agent_dir / "settings.json") << R"({"defaultProvider": "fake", "defaultModel": "fake-model"})";
    std::map<std::string, std::string> env = {
        {"PATH", PiBin().string() + ":/usr/local/bin:/usr/bin:/bin"},
        {"HOME", (r / "home").string()},
        {"SEPP_HOME", (r / "sepp").string()},
        {"ANTHROPIC_API_KEY", kKey}};
    server_ = new ServeChild((r / "project").string(), env, {"--token", kToken, "--request-timeout", "240"});
  }
  static void TearDownTestSuite() {
    delete server_;
    delete fake_;
    if (root_) fs::remove_all(*root_);
    delete root_;
    server_ = nullptr;
  }
  void SetUp() override {
    if (!server_) GTEST_SKIP() << "tests/rpc/node is not installed: run scripts/setup";
  }

  static net::Headers Auth() { return {{"Authorization", std::string("Bearer ") + kToken}}; }
  static net::Headers JsonAuth() {
    net::Headers h = Auth();
    h.emplace_back("Content-Type", "application/json");
    return h;
  }
  static std::string project() { return (*root_ / "project").string(); }
  static Json Request(int id, const std::string& method, Json params) {
    return {{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", std::move(params)}};
  }
  static Json Post(const std::string& path, const Json& msg) {
    auto r = Fetch("POST", server_->url(path), JsonAuth(), msg.dump(), 300);
    EXPECT_EQ(r.head.status, 200) << r.body;
    auto j = ParseJson(r.body);
    return j.ok() ? *j : Json();
  }
  static std::string Read(const std::string& file) {
    std::ifstream in(*root_ / "project" / file);
    std::string line;
    std::getline(in, line);
    return line;
  }
  static void Script(Json responses) { fake_->SetScript(Json{{"responses", std::move(responses)}}); }

  static fs::path* root_;
  static fake::FakeProvider* fake_;
  static ServeChild* server_;
};

fs::path* PiAgent::root_ = nullptr;
fake::FakeProvider* PiAgent::fake_ = nullptr;
ServeChild* PiAgent::server_ = nullptr;

Json PiBash(const std::string& command) {
  return {{"tool_calls", {{{"name", "bash"}, {"arguments", {{"command", command}}}}}}};
}

TEST_F(PiAgent, PiRunsAToolThroughTheAcpTransport) {
  Script({PiBash("echo made-by-pi > pi-acp.txt"), {{"text", "done"}}});
  Json init = Post("/v1/acp/pi-1?agent=pi", Request(0, "initialize", {{"protocolVersion", 1}}));
  ASSERT_EQ(init["result"]["protocolVersion"], 1) << init.dump();
  Json s = Post("/v1/acp/pi-1", Request(1, "session/new", {{"cwd", project()}, {"mcpServers", Json::array()}}));
  std::string sid = s["result"].value("sessionId", "");
  ASSERT_FALSE(sid.empty()) << s.dump();
  Json answer = Post("/v1/acp/pi-1", Request(2, "session/prompt",
                                             {{"sessionId", sid}, {"prompt", {{{"type", "text"}, {"text", "go"}}}}}));
  EXPECT_EQ(answer["result"]["stopReason"], "end_turn") << answer.dump();
  EXPECT_EQ(Read("pi-acp.txt"), "made-by-pi");
  EXPECT_EQ(Fetch("DELETE", server_->url("/v1/acp/pi-1"), Auth()).head.status, 204);
}

TEST_F(PiAgent, PiRunsAToolThroughTheSessionApiAndCannotReadSsh) {
  std::string ssh = (*root_ / "home/.ssh/id_rsa").string();
  Script({PiBash("cat " + ssh), PiBash("echo made-by-pi-api > pi-api.txt"), {{"text", "all done"}}});
  auto created = Fetch("POST", server_->url("/v1/sessions/api-pi"), JsonAuth(),
                       Json{{"agent", "pi"}, {"directory", project()}}.dump(), 300);
  ASSERT_EQ(created.head.status, 200) << created.body;
  auto sent = Fetch("POST", server_->url("/v1/sessions/api-pi/messages"), JsonAuth(),
                    Json{{"message", "work"}}.dump());
  ASSERT_EQ(sent.head.status, 204) << sent.body;
  net::Headers h = Auth();
  h.emplace_back("Accept", "text/event-stream");
  auto read = ReadSse(server_->url("/v1/sessions/api-pi/events/sse?offset=0"), h,
                      [](const SseRead& r) {
                        for (const auto& e : r.events)
                          if (e.data.find("\"sepp.agent.settled\"") != std::string::npos ||
                              e.data.find("\"session.ended\"") != std::string::npos)
                            return true;
                        return false;
                      },
                      240);
  std::string all;
  int tool_results = 0;
  for (const auto& e : read.events) {
    all += e.data + "\n";
    auto j = ParseJson(e.data);
    if (j.ok() && (*j)["type"] == "item.completed" && (*j)["data"]["item"].value("kind", "") == "tool_result")
      ++tool_results;
  }
  EXPECT_NE(all.find("\"status\":\"done\""), std::string::npos) << all.substr(0, 6000);
  EXPECT_EQ(tool_results, 2) << all.substr(0, 6000);
  EXPECT_EQ(all.find(kSshSecret), std::string::npos) << "~/.ssh was read";
  EXPECT_EQ(all.find(kKey), std::string::npos);
  EXPECT_EQ(Read("pi-api.txt"), "made-by-pi-api") << all.substr(0, 6000);
  // A second client reads the same history from the server.
  auto paged = Fetch("GET", server_->url("/v1/sessions/api-pi/events?offset=0&limit=10000"), Auth());
  auto j = ParseJson(paged.body);
  ASSERT_TRUE(j.ok()) << paged.body;
  EXPECT_EQ((*j)["events"].size(), read.events.size());
  auto ended = Fetch("POST", server_->url("/v1/sessions/api-pi/terminate"), Auth());
  EXPECT_EQ(ended.head.status, 204);
}

}  // namespace
}  // namespace sepp::servetest
