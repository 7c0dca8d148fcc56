// MCP servers of a `sepp serve` session (POST /v1/sessions/{id} "mcp",
// sandbox-agent's McpServerConfig by name): the binary as a child, the fake
// provider in process. The session's server is its tools, confined with
// the defaults of a client's servers (docs/mcp.md): its reading of the
// workspace reaches the model, ~/.ssh does not; a malformed server is a
// 400 naming it.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "serve/serve_child.h"
#include "support/fake_provider.h"

namespace sepp::servetest {
namespace {
namespace fs = std::filesystem;

constexpr const char* kToken = "serve-mcp-token-0123456789abcdef";
constexpr const char* kSsh = "SERVE-MCP-SSH-PRIVATE-KEY";

TEST(ServeMcp, ASessionsOwnServerIsItsToolsConfined) {
  char tmpl[] = "/tmp/sepp-serve-mcp-XXXXXX";
  fs::path root = mkdtemp(tmpl);
  fs::path home = root / "home", ws = root / "home/project";
  fs::create_directories(home / ".ssh");
  fs::create_directories(ws);
  std::ofstream(home / ".ssh/id_rsa") << kSsh << "\n";
  std::ofstream(ws / "notes.txt") << "notes the server may read\n";
  fake::FakeProvider fake;
  ASSERT_TRUE(fake.Start().ok());
  auto call = [](const std::string& path) {
    return Json{{"name", "mcp__probe__read"}, {"arguments", {{"path", path}}}};
  };
  fake.SetScript({{"responses",
                   {{{"tool_calls", {call((ws / "notes.txt").string()), call((home / ".ssh/id_rsa").string())}}},
                    {{"text", "Read."}}}}});
  {
    ServeChild server(ws.string(),
                      {{"HOME", home.string()}, {"SEPP_HOME", (home / ".sepp").string()},
                       {"ANTHROPIC_BASE_URL", fake.base_url()}, {"ANTHROPIC_API_KEY", "test-key-not-secret"}},
                      {"--token", kToken});
    net::Headers h = {{"Authorization", std::string("Bearer ") + kToken}, {"Content-Type", "application/json"}};
    auto bad = Fetch("POST", server.url("/v1/sessions/m0"), h,
                     Json{{"agent", "sepp"}, {"directory", ws.string()}, {"mcp", {{"probe", {{"type", "local"}}}}}}.dump());
    EXPECT_EQ(bad.head.status, 400) << bad.body;
    EXPECT_NE(bad.body.find("\\\"mcp\\\".probe: a local server needs \\\"command\\\""), std::string::npos) << bad.body;

    Json probe = {{"type", "local"},
                  {"command", "node"},
                  {"args", {(fs::path(SEPP_SOURCE_DIR) / "tests/mcp/servers/probe_server.mjs").string()}}};
    auto made = Fetch("POST", server.url("/v1/sessions/m1"), h,
                      Json{{"agent", "sepp"}, {"directory", ws.string()}, {"mcp", {{"probe", probe}}}}.dump());
    ASSERT_EQ(made.head.status, 200) << made.body;
    auto sent = Fetch("POST", server.url("/v1/sessions/m1/messages"), h, Json{{"message", "read"}}.dump());
    ASSERT_EQ(sent.head.status, 204) << sent.body;
    auto read = ReadSse(server.url("/v1/sessions/m1/events/sse?offset=0"), h, [](const SseRead& r) {
      return !r.events.empty() && ParseJson(r.events.back().data)->value("type", "") == "sepp.agent.settled";
    });
    ASSERT_EQ(read.status, 200) << read.body;
  }
  auto reqs = fake.requests();
  ASSERT_EQ(reqs.size(), 2u);
  bool offered = false;
  for (const Json& t : reqs[0].body.value("tools", Json::array())) offered |= t.value("name", "") == "mcp__probe__read";
  EXPECT_TRUE(offered);
  std::string results = reqs[1].body["messages"].back().dump();
  EXPECT_NE(results.find("notes the server may read"), std::string::npos) << results;
  EXPECT_EQ(results.find(kSsh), std::string::npos) << results;
  fake.Stop();
  std::error_code ec;
  fs::remove_all(root, ec);
}

}  // namespace
}  // namespace sepp::servetest
