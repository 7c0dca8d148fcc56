// MCP servers from ACP session/new `mcpServers`, end to end through
// `sepp --acp` against the fake provider: the client's stdio server starts
// confined with the defaults of ext/mcp/client_servers.h (the workspace
// read-only, nothing else), by attack — it cannot read ~/.ssh, write in the
// workspace or outside it, or see a provider key — next to its legitimate
// calls (reading the workspace, the env value the client gave), which
// succeed. Its prompts are in available_commands_update.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "acp/acp_child.h"
#include "support/fake_provider.h"

namespace sepp::acptest {
namespace {
namespace fs = std::filesystem;

constexpr char kSsh[] = "ACP-MCP-SSH-PRIVATE-KEY";
constexpr char kKey[] = "sk-acp-mcp-provider-key-0123456789";

TEST(AcpMcp, ASessionServerIsConfinedToTheDefaultsAndItsWorkSucceeds) {
  char tmpl[] = "/tmp/sepp-acp-mcp-XXXXXX";
  fs::path root = mkdtemp(tmpl);
  fs::path home = root / "home", ws = root / "home/project", outside = root / "outside";
  fs::create_directories(home / ".ssh");
  fs::create_directories(ws);
  fs::create_directories(outside);
  std::ofstream(home / ".ssh/id_rsa") << kSsh << "\n";
  std::ofstream(ws / "notes.txt") << "workspace notes for the model\n";
  fake::FakeProvider fake;
  ASSERT_TRUE(fake.Start().ok());

  auto call = [](const std::string& tool, Json args) { return Json{{"name", tool}, {"arguments", std::move(args)}}; };
  fake.SetScript({{"responses",
                   {{{"tool_calls",
                      {call("mcp__probe__read", {{"path", (ws / "notes.txt").string()}}),
                       call("mcp__probe__read", {{"path", (home / ".ssh/id_rsa").string()}}),
                       call("mcp__probe__write", {{"path", (ws / "made-by-server.txt").string()}}),
                       call("mcp__probe__write", {{"path", (outside / "escaped.txt").string()}}),
                       call("mcp__probe__env", {{"name", "PROBE_GIVEN"}}),
                       call("mcp__probe__env", {{"name", "ANTHROPIC_API_KEY"}})}}},
                    {{"text", "Checked."}}}}});
  {
    AcpChild c(ws.string(), {{"HOME", home.string()}, {"SEPP_HOME", (home / ".sepp").string()},
                             {"ANTHROPIC_BASE_URL", fake.base_url()}, {"ANTHROPIC_API_KEY", kKey}});
    Json init = c.Call(0, "initialize", {{"protocolVersion", 1}, {"clientCapabilities", Json::object()}});
    ASSERT_TRUE(init.contains("result")) << init.dump();
    EXPECT_EQ(init["result"]["agentCapabilities"]["mcpCapabilities"]["http"], true);

    // A malformed entry is refused with where and what.
    Json bad = c.Call(1, "session/new", {{"cwd", ws.string()}, {"mcpServers", {{{"name", "x"}, {"args", 3}}}}});
    ASSERT_TRUE(bad.contains("error")) << bad.dump();
    EXPECT_NE(bad["error"]["message"].get<std::string>().find("mcpServers[0] (stdio) needs a \"command\""),
              std::string::npos) << bad.dump();

    Json probe = {{"name", "probe"},
                  {"command", "node"},
                  {"args", {(fs::path(SEPP_SOURCE_DIR) / "tests/mcp/servers/probe_server.mjs").string()}},
                  {"env", {{{"name", "PROBE_GIVEN"}, {"value", "given-by-the-client"}}}}};
    Json s = c.Call(2, "session/new", {{"cwd", ws.string()}, {"mcpServers", {probe}}});
    ASSERT_TRUE(s.contains("result")) << s.dump() << c.stderr_text();
    std::string sid = s["result"]["sessionId"];
    c.Send({{"jsonrpc", "2.0"}, {"id", 3}, {"method", "session/prompt"},
            {"params", {{"sessionId", sid}, {"prompt", {{{"type", "text"}, {"text", "check the server"}}}}}}});
    Json answer = c.Response(3);
    EXPECT_EQ(answer["result"]["stopReason"], "end_turn") << answer.dump() << c.stderr_text();

    bool greet = false;
    for (const Json& u : UpdatesOf(c.seen(), sid))
      if (u.value("sessionUpdate", "") == "available_commands_update")
        for (const Json& cmd : u["availableCommands"]) greet |= cmd.value("name", "") == "mcp__probe__greet";
    EXPECT_TRUE(greet) << "the server's prompt is a command of the session";
    c.CloseStdin();
    EXPECT_EQ(c.Wait(), 0) << c.stderr_text();
  }

  auto reqs = fake.requests();
  ASSERT_EQ(reqs.size(), 2u);
  std::vector<std::string> results;
  for (const Json& block : reqs[1].body["messages"].back()["content"])
    if (block.value("type", "") == "tool_result") results.push_back(block.dump());
  ASSERT_EQ(results.size(), 6u) << reqs[1].body.dump();
  EXPECT_NE(results[0].find("workspace notes for the model"), std::string::npos) << results[0];
  EXPECT_EQ(results[1].find(kSsh), std::string::npos) << results[1];
  EXPECT_NE(results[1].find("\"is_error\":true"), std::string::npos) << results[1];  // masked
  EXPECT_NE(results[2].find("\"is_error\":true"), std::string::npos) << results[2];  // read-only
  EXPECT_FALSE(fs::exists(ws / "made-by-server.txt"));
  EXPECT_NE(results[3].find("\"is_error\":true"), std::string::npos) << results[3];
  EXPECT_FALSE(fs::exists(outside / "escaped.txt"));
  EXPECT_NE(results[4].find("given-by-the-client"), std::string::npos) << results[4];
  EXPECT_NE(results[5].find("(unset)"), std::string::npos) << results[5];
  EXPECT_EQ(reqs[1].body.dump().find(kKey), std::string::npos);
  fake.Stop();
  std::error_code ec;
  fs::remove_all(root, ec);
}

// list_changed while the session runs: the first prompt's tool call makes
// the server add a tool and a prompt; the client's command menu is updated
// when that turn ends, and the next prompt's request offers the new tool,
// which the model calls.
TEST(AcpMcp, ToolsAndPromptsAServerAddsFollowTheSession) {
  char tmpl[] = "/tmp/sepp-acp-mcp-XXXXXX";
  fs::path root = mkdtemp(tmpl);
  fs::path home = root / "home", ws = root / "home/project";
  fs::create_directories(ws);
  fake::FakeProvider fake;
  ASSERT_TRUE(fake.Start().ok());
  auto call = [](const std::string& tool) { return Json{{"name", tool}, {"arguments", Json::object()}}; };
  fake.SetScript({{"responses",
                   {{{"tool_calls", {call("mcp__probe__add_late")}}}, {{"text", "Added."}},
                    {{"tool_calls", {call("mcp__probe__late")}}}, {{"text", "Ran."}}}}});
  {
    AcpChild c(ws.string(), {{"HOME", home.string()}, {"SEPP_HOME", (home / ".sepp").string()},
                             {"ANTHROPIC_BASE_URL", fake.base_url()}, {"ANTHROPIC_API_KEY", kKey}});
    ASSERT_TRUE(c.Call(0, "initialize", {{"protocolVersion", 1}}).contains("result"));
    Json probe = {{"name", "probe"},
                  {"command", "node"},
                  {"args", {(fs::path(SEPP_SOURCE_DIR) / "tests/mcp/servers/probe_server.mjs").string()}}};
    Json s = c.Call(1, "session/new", {{"cwd", ws.string()}, {"mcpServers", {probe}}});
    ASSERT_TRUE(s.contains("result")) << s.dump() << c.stderr_text();
    std::string sid = s["result"]["sessionId"];
    auto prompt = [&](int id, const std::string& text) {
      c.Send({{"jsonrpc", "2.0"}, {"id", id}, {"method", "session/prompt"},
              {"params", {{"sessionId", sid}, {"prompt", {{{"type", "text"}, {"text", text}}}}}}});
      return c.Response(id);
    };
    EXPECT_EQ(prompt(2, "add")["result"]["stopReason"], "end_turn") << c.stderr_text();
    EXPECT_EQ(prompt(3, "use it")["result"]["stopReason"], "end_turn") << c.stderr_text();
    int updates = 0;
    bool late_command = false;
    for (const Json& u : UpdatesOf(c.seen(), sid)) {
      if (u.value("sessionUpdate", "") != "available_commands_update") continue;
      ++updates;
      for (const Json& cmd : u["availableCommands"]) late_command |= cmd.value("name", "") == "mcp__probe__late";
    }
    EXPECT_EQ(updates, 2) << "once at session/new, once after the turn that changed the list";
    EXPECT_TRUE(late_command);
    c.CloseStdin();
    EXPECT_EQ(c.Wait(), 0) << c.stderr_text();
  }
  auto reqs = fake.requests();
  ASSERT_EQ(reqs.size(), 4u);
  auto offers = [](const fake::RecordedRequest& r, const std::string& name) {
    for (const Json& t : r.body.value("tools", Json::array()))
      if (t.value("name", "") == name) return true;
    return false;
  };
  EXPECT_FALSE(offers(reqs[0], "mcp__probe__late"));
  EXPECT_TRUE(offers(reqs[2], "mcp__probe__late"));
  EXPECT_NE(reqs[3].body["messages"].back().dump().find("late tool ran"), std::string::npos)
      << reqs[3].body["messages"].back().dump();
  fake.Stop();
  std::error_code ec;
  fs::remove_all(root, ec);
}

}  // namespace
}  // namespace sepp::acptest
