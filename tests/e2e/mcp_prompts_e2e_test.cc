// End to end: server-everything's prompts (tests/mcp/node) as slash
// commands of `sepp -p` and `sepp --rpc` (get_commands), the server confined, against the
// fake provider: what the model receives is the server's expansion; a
// missing argument is an error before anything is sent.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "base/ids.h"
#include "base/json.h"
#include "base/strings.h"
#include "e2e/run_sepp.h"
#include "support/fake_provider.h"

namespace sepp::e2e {
namespace {
namespace fs = std::filesystem;

const fs::path kEverything = fs::path(SEPP_SOURCE_DIR) /
                             "tests/mcp/node/node_modules/@modelcontextprotocol/server-everything/dist/index.js";

class McpPromptsE2E : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(fs::exists(kEverything)) << "run scripts/setup (npm ci in tests/mcp/node)";
    root_ = fs::temp_directory_path() / ("sepp-e2e-mcp-prompts-" + ShortId());
    ws_ = root_ / "ws";
    home_ = root_ / "home";
    fs::create_directories(ws_);
    fs::create_directories(home_ / ".sepp");
    std::ofstream(home_ / ".sepp/mcp.toml") << "[[mcp.servers]]\nname = \"everything\"\ncommand = [\"node\", \""
                                            << kEverything.string() << "\"]\nstartup_timeout_sec = 30\n";
    ASSERT_TRUE(fp_.Start().ok());
    auto trust = Sepp({"mcp", "trust", "everything"}, Json::array());
    ASSERT_EQ(trust.exit_code, 0) << trust.err;
  }
  void TearDown() override {
    fp_.Stop();
    std::error_code ec;
    fs::remove_all(root_, ec);
  }
  RunOutput Sepp(std::vector<std::string> args, const Json& script, std::string stdin_data = "") {
    fp_.SetScript({{"responses", script}});
    RunOptions o;
    o.args = std::move(args);
    o.env = {{"PATH", "/usr/local/bin:/usr/bin:/bin"},
             {"HOME", home_.string()},
             {"SEPP_HOME", (home_ / ".sepp").string()},
             {"SEPP_PROVIDER", "anthropic"},
             {"LANG", "C.UTF-8"},
             {"ANTHROPIC_BASE_URL", fp_.base_url()},
             {"ANTHROPIC_API_KEY", "sk-e2e-mcp-prompts-0123456789"}};
    o.cwd = ws_.string();
    o.stdin_data = std::move(stdin_data);
    return RunSepp(o);
  }
  // The last user message's text of the last request the model got.
  std::string LastUserText() {
    auto reqs = fp_.requests();
    if (reqs.empty()) return "(no request)";
    const Json& msgs = reqs.back().body["messages"];
    for (auto it = msgs.rbegin(); it != msgs.rend(); ++it)
      if ((*it)["role"] == "user") return DumpJson((*it)["content"]);
    return "(no user message)";
  }

  fs::path root_, ws_, home_;
  fake::FakeProvider fp_;
};

TEST_F(McpPromptsE2E, PrintModeSendsTheServersExpansion) {
  auto r = Sepp({"-p", "/mcp__everything__args-prompt Paris state=Texas"}, {{{"text", "Sunny."}}});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "Sunny.\n");
  EXPECT_NE(LastUserText().find("What's weather in Paris, Texas?"), std::string::npos) << LastUserText();
  EXPECT_EQ(LastUserText().find("mcp__everything"), std::string::npos) << LastUserText();

  // Two messages, one an embedded resource: its text reaches the model.
  r = Sepp({"-p", "/mcp__everything__resource-prompt Text 1"}, {{{"text", "Read."}}});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string sent = LastUserText();
  EXPECT_NE(sent.find("This prompt includes the Text resource with id: 1"), std::string::npos) << sent;
  EXPECT_NE(sent.find("Resource 1: This is a plaintext resource"), std::string::npos) << sent;
}

TEST_F(McpPromptsE2E, AMissingArgumentOrAServerErrorIsSaidAndNothingIsSent) {
  auto r = Sepp({"-p", "/mcp__everything__args-prompt"}, {{{"text", "never"}}});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("/mcp__everything__args-prompt needs the argument city"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("usage: /mcp__everything__args-prompt <city> [state]"), std::string::npos) << r.err;
  EXPECT_TRUE(fp_.requests().empty());
  r = Sepp({"-p", "/mcp__everything__resource-prompt Nope 1"}, {{{"text", "never"}}});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("Invalid resourceType"), std::string::npos) << r.err;
  EXPECT_TRUE(fp_.requests().empty());
}

// (The expansion itself is the runtime's, the same for every front end; an
// RPC prompt is aborted when stdin closes, so -p shows it above.)
TEST_F(McpPromptsE2E, RpcListsThem) {
  std::string in = Json({{"type", "get_commands"}, {"id", "c"}}).dump() + "\n";
  auto r = Sepp({"--rpc", "--no-session"}, Json::array(), in);
  std::string commands;
  for (const auto& line : Split(r.out, '\n')) {
    if (line.empty()) continue;
    Json m = Json::parse(line, nullptr, false);
    if (m.is_object() && m.value("id", "") == "c") commands = DumpJson(m);
  }
  ASSERT_FALSE(commands.empty()) << r.out << r.err;
  for (const char* name : {"mcp__everything__simple-prompt", "mcp__everything__args-prompt",
                           "mcp__everything__resource-prompt"})
    EXPECT_NE(commands.find(std::string("\"name\":\"") + name + "\""), std::string::npos) << name << commands;
  EXPECT_NE(commands.find("\"source\":\"mcp\""), std::string::npos) << commands;
}

}  // namespace
}  // namespace sepp::e2e
