// End to end: `sepp -p` with a configured MCP server (the scripted probe
// server of tests/mcp), confined with its declared capabilities, against the
// fake provider: the model sees mcp__probe__* tools, calls them, and what
// the server may not read never reaches the model.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "base/file.h"
#include "base/ids.h"
#include "base/json.h"
#include "e2e/run_sepp.h"
#include "support/fake_provider.h"

namespace sepp::e2e {
namespace {
namespace fs = std::filesystem;

constexpr char kKey[] = "sk-e2e-mcp-secret-key-0123456789";
constexpr char kSsh[] = "E2E-MCP-SSH-KEY";

class McpE2E : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("sepp-e2e-mcp-" + ShortId());
    ws_ = root_ / "ws";
    home_ = root_ / "home";
    fs::create_directories(ws_);
    fs::create_directories(home_ / ".ssh");
    fs::create_directories(home_ / ".sepp");
    std::ofstream(home_ / ".ssh/id_rsa") << kSsh << "\n";
    std::ofstream(ws_ / "data.txt") << "data for the model\n";
    std::ofstream(home_ / ".sepp/mcp.toml")
        << "[[mcp.servers]]\nname = \"probe\"\ncommand = [\"node\", \""
        << (fs::path(SEPP_SOURCE_DIR) / "tests/mcp/servers/probe_server.mjs").string()
        << "\"]\n[mcp.servers.capabilities]\nfs_read = [\"./\", \"~\"]\n";
    ASSERT_TRUE(fp_.Start().ok());
  }
  void TearDown() override {
    fp_.Stop();
    std::error_code ec;
    fs::remove_all(root_, ec);
  }
  RunOutput Sepp(std::vector<std::string> args, const Json& script) {
    fp_.SetScript({{"responses", script}});
    RunOptions o;
    o.args = std::move(args);
    o.env = {{"PATH", "/usr/local/bin:/usr/bin:/bin"},
             {"HOME", home_.string()},
             {"SEPP_HOME", (home_ / ".sepp").string()},
             {"SEPP_PROVIDER", "anthropic"},
             {"LANG", "C.UTF-8"},
             {"ANTHROPIC_BASE_URL", fp_.base_url()},
             {"ANTHROPIC_API_KEY", kKey}};
    o.cwd = ws_.string();
    return RunSepp(o);
  }
  static std::vector<std::string> ToolNames(const fake::RecordedRequest& r) {
    std::vector<std::string> out;
    for (const auto& t : r.body.value("tools", Json::array())) out.push_back(t.value("name", ""));
    return out;
  }

  fs::path root_, ws_, home_;
  fake::FakeProvider fp_;
};

TEST_F(McpE2E, UnconfirmedServerIsNotStarted) {
  auto r = Sepp({"-p", "hi"}, {{{"text", "ok"}}});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("MCP server probe not started"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("sepp mcp trust probe"), std::string::npos) << r.err;
  auto reqs = fp_.requests();
  ASSERT_FALSE(reqs.empty());
  for (const auto& n : ToolNames(reqs[0])) EXPECT_EQ(n.rfind("mcp__", 0), std::string::npos) << n;
  // sepp ext list says the same, with what the server would be allowed.
  auto list = Sepp({"ext", "list", "--json"}, Json::array());
  ASSERT_EQ(list.exit_code, 0) << list.err;
  Json found;
  // Held: a range-for over a member of the temporary parse() result would
  // iterate a destroyed object.
  Json listing = Json::parse(list.out);
  for (const auto& e : listing["extensions"])
    if (e["kind"] == "mcp-server" && e["name"] == "probe") found = e;
  ASSERT_TRUE(found.is_object()) << list.out;
  EXPECT_EQ(found["tier"], 4);
  EXPECT_FALSE(found["loaded"].get<bool>());
  EXPECT_EQ(found["trust"], "unconfirmed");
  EXPECT_NE(DumpJson(found["may"]).find("fs_read ./"), std::string::npos) << found;
  EXPECT_NE(DumpJson(found["errors"]).find("sepp mcp trust probe"), std::string::npos) << found;
}

TEST_F(McpE2E, ConfirmedServerToolsReachTheModelConfined) {
  auto trust = Sepp({"mcp", "trust", "probe"}, Json::array());
  ASSERT_EQ(trust.exit_code, 0) << trust.err;
  EXPECT_NE(trust.out.find("may: fs_read ./"), std::string::npos) << trust.out;
  auto list = Sepp({"mcp", "list"}, Json::array());
  EXPECT_NE(list.out.find("confirmed"), std::string::npos) << list.out;

  Json read_data = {{"name", "mcp__probe__read"}, {"arguments", {{"path", (ws_ / "data.txt").string()}}}};
  Json read_ssh = {{"name", "mcp__probe__read"}, {"arguments", {{"path", (home_ / ".ssh/id_rsa").string()}}}};
  Json env_key = {{"name", "mcp__probe__env"}, {"arguments", {{"name", "ANTHROPIC_API_KEY"}}}};
  auto r = Sepp({"-p", "read it"}, {{{"tool_calls", {read_data, read_ssh, env_key}}}, {{"text", "Done."}}});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "Done.\n");
  auto reqs = fp_.requests();
  ASSERT_GE(reqs.size(), 2u);
  auto names = ToolNames(reqs[0]);
  EXPECT_NE(std::find(names.begin(), names.end(), "mcp__probe__read"), names.end());
  EXPECT_NE(std::find(names.begin(), names.end(), "read"), names.end());
  std::string body = DumpJson(reqs.back().body);
  EXPECT_NE(body.find("data for the model"), std::string::npos) << body;
  EXPECT_EQ(body.find(kSsh), std::string::npos);
  EXPECT_EQ(body.find(kKey), std::string::npos);
  EXPECT_NE(body.find("(unset)"), std::string::npos);

  // The declaration changes: asked again, not started.
  std::ofstream(home_ / ".sepp/mcp.toml", std::ios::app) << "exec = [\"sh\"]\n";
  auto changed = Sepp({"-p", "hi"}, {{{"text", "ok"}}});
  EXPECT_NE(changed.err.find("changed since they were confirmed"), std::string::npos) << changed.err;
}

}  // namespace
}  // namespace sepp::e2e
