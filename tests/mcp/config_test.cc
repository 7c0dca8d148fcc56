// [[mcp.servers]] parsing, the imports from Claude Code and Codex, the
// capability vocabulary, and confirmation keyed to the content.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "base/project_trust.h"
#include "ext/capabilities.h"
#include "ext/mcp/config.h"
#include "ext/mcp/servers.h"

namespace sepp::ext::mcp {
namespace {
namespace fs = std::filesystem;

constexpr const char* kIssueExample = R"([[mcp.servers]]
name = "git"
command = ["uvx", "mcp-server-git"]
[mcp.servers.capabilities]
fs_read = ["./"]
fs_write = ["./"]
exec = ["git"]
)";

TEST(McpConfig, ParsesTheIssueExample) {
  auto r = ParseSeppServers(kIssueExample, "settings.toml");
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->size(), 1u);
  const ServerConfig& s = (*r)[0];
  EXPECT_EQ(s.name, "git");
  EXPECT_EQ(s.command, (std::vector<std::string>{"uvx", "mcp-server-git"}));
  EXPECT_EQ(s.capabilities.fs_read, std::vector<std::string>{"./"});
  EXPECT_EQ(s.capabilities.exec, std::vector<std::string>{"git"});
  // Written back and read again: the same server.
  auto again = ParseSeppServers(ToToml(s), "again.toml");
  ASSERT_TRUE(again.ok()) << again.error().message << "\n" << ToToml(s);
  EXPECT_EQ((*again)[0].Runs(), s.Runs());
  EXPECT_EQ((*again)[0].capabilities, s.capabilities);
}

TEST(McpConfig, EveryKeyAndItsErrors) {
  auto full = ParseSeppServers(R"([[mcp.servers]]
name = "t"
command = ["node", "s.js"]
cwd = "sub"
env = { A = "1" }
enabled = false
startup_timeout_sec = 5
tool_timeout_sec = 7.5
enabled_tools = ["x", "y"]
disabled_tools = ["y"]
)", "f.toml");
  ASSERT_TRUE(full.ok()) << full.error().message;
  const ServerConfig& s = (*full)[0];
  EXPECT_EQ(s.cwd.value_or(""), "sub");
  EXPECT_EQ(s.env.at("A"), "1");
  EXPECT_FALSE(s.enabled);
  EXPECT_EQ(s.tool_timeout_s, 7.5);
  EXPECT_TRUE(s.ToolEnabled("x"));
  EXPECT_FALSE(s.ToolEnabled("y"));
  EXPECT_FALSE(s.ToolEnabled("z"));

  auto http = ParseSeppServers(R"([[mcp.servers]]
name = "remote"
url = "https://example.com/mcp"
headers = { X-Team = "a" }
bearer_token_env_var = "EXAMPLE_TOKEN"
)", "f.toml");
  ASSERT_TRUE(http.ok()) << http.error().message;
  EXPECT_EQ((*http)[0].headers.at("X-Team"), "a");
  EXPECT_EQ((*http)[0].bearer_token_env_var, "EXAMPLE_TOKEN");
  auto round = ParseSeppServers(ToToml((*http)[0]), "again.toml");
  ASSERT_TRUE(round.ok()) << round.error().message;
  EXPECT_EQ((*round)[0].Runs(), (*http)[0].Runs());

  struct Case {
    const char* text;
    const char* message;
  } cases[] = {
      {"[[mcp.servers]]\nname = \"a\"\ncommand = [\"x\"]\nbogus = 1\n", "f.toml:4: mcp.servers.bogus: unknown key"},
      {"[mcp]\nserver = []\n", "f.toml:2: mcp.server: unknown key"},
      {"[[mcp.servers]]\nname = \"a\"\ncommand = [\"x\"]\n[mcp.servers.capabilities]\nnetwork = [\"a\"]\n",
       "f.toml:5: capabilities.network: unknown capability"},
      {"[[mcp.servers]]\nname = \"a\"\ncommand = \"x\"\n", "f.toml:3: command: expected a list"},
      {"[[mcp.servers]]\nname = \"a b\"\ncommand = [\"x\"]\n", "must be 1-64 letters"},
      {"[[mcp.servers]]\nname = \"a\"\n", "needs exactly one of command"},
      {"[[mcp.servers]]\nname = \"a\"\ncommand = [\"x\"]\nurl = \"https://x\"\n", "needs exactly one"},
      {"[[mcp.servers]]\nname = \"a\"\nurl = \"ftp://x\"\n", "must start with http"},
      {"[[mcp.servers]]\nname = \"a\"\ncommand = [\"x\"]\ntool_timeout_sec = -1\n", "f.toml:4: tool_timeout_sec"},
      {"[[mcp.servers]]\nname = \"a\"\ncommand = [\"x\"]\n[[mcp.servers]]\nname = \"a\"\ncommand = [\"y\"]\n",
       "used twice"},
      {"[[mcp.servers]]\nname = \"a\"\ncommand = [\"x\"]\n[mcp.servers.capabilities]\nnet = [\"https://x.com\"]\n",
       "is not a domain"},
      {"[[mcp.servers]]\nname = \"a\"\ncommand = [\"x\"]\n[mcp.servers.capabilities]\nenv = [\"A-B\"]\n",
       "is not a variable name"},
      {"[[mcp.servers]]\nname = \"a\"\nurl = \"https://x\"\nheaders = { A = \"x\\ny\" }\n",
       "cannot hold a line break"},
      {"[[[", "f.toml:1"},
  };
  for (const auto& c : cases) {
    auto r = ParseSeppServers(c.text, "f.toml");
    ASSERT_FALSE(r.ok()) << c.text;
    EXPECT_NE(r.error().message.find(c.message), std::string::npos)
        << c.text << "\n=> " << r.error().message;
  }
}

TEST(McpConfig, ImportsClaudeAndCodexWithoutCapabilities) {
  auto claude = ParseClaudeServers(R"({"mcpServers": {
    "fs": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "."], "env": {"K": "v"}},
    "remote": {"type": "http", "url": "https://example.com/mcp"}}})", ".mcp.json");
  ASSERT_TRUE(claude.ok()) << claude.error().message;
  ASSERT_EQ(claude->size(), 2u);
  EXPECT_EQ((*claude)[0].command.size(), 4u);
  EXPECT_EQ((*claude)[0].env.at("K"), "v");
  EXPECT_TRUE((*claude)[0].capabilities.empty());
  EXPECT_EQ((*claude)[1].url, "https://example.com/mcp");
  EXPECT_FALSE(ParseClaudeServers(R"({"mcpServers": {"x": {"type": "ws", "url": "ws://x"}}})", "j").ok());
  EXPECT_FALSE(ParseClaudeServers("{not json", "j").ok());

  auto codex = ParseCodexServers(R"(
model = "o3"
[mcp_servers.docs]
command = "docs-server"
args = ["--stdio"]
env = { TOKEN = "t" }
tool_timeout_sec = 30
enabled_tools = ["search"]
)", "config.toml");
  ASSERT_TRUE(codex.ok()) << codex.error().message;
  ASSERT_EQ(codex->size(), 1u);
  EXPECT_EQ((*codex)[0].command, (std::vector<std::string>{"docs-server", "--stdio"}));
  EXPECT_EQ((*codex)[0].tool_timeout_s, 30);
  EXPECT_EQ((*codex)[0].origin, "codex");
  EXPECT_TRUE((*codex)[0].capabilities.empty());
}

TEST(Capabilities, MapOntoThePolicyWithSecretsMasked) {
  setenv("HOME", "/home/someone", 1);
  Capabilities caps;
  caps.fs_read = {"~"};
  caps.fs_write = {"./out"};
  caps.net = {"api.example.com"};
  caps.env = {"API_TOKEN"};
  caps.exec = {"git"};
  sandbox::Policy p = ToPolicy(caps, "/work/ws");
  EXPECT_NE(std::find(p.read_roots.begin(), p.read_roots.end(), "/home/someone"), p.read_roots.end());
  EXPECT_NE(std::find(p.write_roots.begin(), p.write_roots.end(), "/work/ws/out"), p.write_roots.end());
  EXPECT_NE(std::find(p.deny_paths.begin(), p.deny_paths.end(), "/home/someone/.ssh"), p.deny_paths.end());
  EXPECT_EQ(p.net, sandbox::NetMode::kProxy);
  EXPECT_EQ(p.exec_only, std::vector<std::string>{"git"});
  EXPECT_NE(std::find(p.env_allow_secrets.begin(), p.env_allow_secrets.end(), "API_TOKEN"),
            p.env_allow_secrets.end());
  sandbox::Policy none = ToPolicy({}, "/work/ws");
  EXPECT_TRUE(none.write_roots.empty());
  EXPECT_EQ(none.net, sandbox::NetMode::kOff);
  ASSERT_TRUE(none.exec_only.has_value());
  EXPECT_TRUE(none.exec_only->empty());
  EXPECT_EQ(std::find(none.read_roots.begin(), none.read_roots.end(), "/work/ws"), none.read_roots.end());
  EXPECT_EQ(Describe(caps)[0], "fs_read ~");
  auto round = CapabilitiesFromJson(ToJson(caps));
  ASSERT_TRUE(round.ok());
  EXPECT_EQ(*round, caps);
  EXPECT_FALSE(CapabilitiesFromJson({{"root", {"x"}}}).ok());
}

class ConfirmationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/sepp-mcp-confirm-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    root_ = tmpl;
    setenv("SEPP_HOME", (root_ / "sepp-home").c_str(), 1);
    fs::create_directories(root_ / "ws");
  }
  void TearDown() override {
    unsetenv("SEPP_HOME");
    std::error_code ec;
    fs::remove_all(root_, ec);
  }
  fs::path root_;
};

TEST_F(ConfirmationTest, NotStartedUntilConfirmedAndAskedAgainWhenTheDeclarationChanges) {
  ServerConfig s;
  s.name = "srv";
  s.command = {"/bin/true"};
  s.capabilities.fs_read = {"./"};
  McpConfig config;
  config.servers = {s};
  StartOptions opts;
  opts.workspace = root_ / "ws";
  auto unconfirmed = McpServers::Start(config, opts);
  ASSERT_EQ(unconfirmed->infos().size(), 1u);
  const ExtensionInfo& info = unconfirmed->infos()[0];
  EXPECT_FALSE(info.loaded);
  EXPECT_EQ(info.tier, Tier::kMcpServer);
  EXPECT_EQ(info.trust, "unconfirmed");
  ASSERT_FALSE(info.errors.empty());
  EXPECT_NE(info.errors[0].find("sepp mcp trust srv"), std::string::npos) << info.errors[0];
  EXPECT_EQ(info.may, std::vector<std::string>{"fs_read ./"});
  EXPECT_TRUE(unconfirmed->running().empty());

  std::string key = CapabilityKey(s.name, s.Runs(), s.capabilities);
  ASSERT_TRUE(Confirm(s.name, key).ok());
  EXPECT_EQ(ConfirmationOf(s.name, key), ConfirmState::kConfirmed);
  auto mode = fs::status(ExtensionTrustPath()).permissions();
  EXPECT_EQ(mode & fs::perms::group_read, fs::perms::none);
  EXPECT_EQ(mode & fs::perms::others_read, fs::perms::none);

  // Confirmed: it is started (and /bin/true, not a server, fails to answer).
  auto started = McpServers::Start(config, opts);
  EXPECT_EQ(started->infos()[0].trust, "confirmed");
  ASSERT_FALSE(started->infos()[0].errors.empty());
  EXPECT_NE(started->infos()[0].errors[0].find("could not start"), std::string::npos);

  // A widened declaration, or another command: asked again.
  ServerConfig wider = s;
  wider.capabilities.net = {"example.com"};
  EXPECT_EQ(ConfirmationOf(wider.name, CapabilityKey(wider.name, wider.Runs(), wider.capabilities)),
            ConfirmState::kChanged);
  ServerConfig other = s;
  other.command = {"/bin/false"};
  EXPECT_EQ(ConfirmationOf(other.name, CapabilityKey(other.name, other.Runs(), other.capabilities)),
            ConfirmState::kChanged);
  ASSERT_TRUE(Unconfirm(s.name).ok());
  EXPECT_EQ(ConfirmationOf(s.name, key), ConfirmState::kUnconfirmed);
}

TEST_F(ConfirmationTest, UntrustedProjectServersAreSkippedWithANote) {
  fs::path ws = root_ / "ws";
  std::ofstream(ws / ".mcp.json") << R"({"mcpServers": {"p": {"command": "x"}}})";
  auto config = LoadMcpConfig(ws);
  ASSERT_TRUE(config.ok()) << config.error().message;
  EXPECT_TRUE(config->servers.empty());
  ASSERT_FALSE(config->warnings.empty());
  ASSERT_TRUE(TrustProject(ReadProjectConfig(ws)).ok());
  auto trusted = LoadMcpConfig(ws);
  ASSERT_TRUE(trusted.ok());
  ASSERT_EQ(trusted->servers.size(), 1u);
  EXPECT_TRUE(trusted->servers[0].project);
  EXPECT_EQ(trusted->servers[0].origin, "claude");
}

TEST_F(ConfirmationTest, AddAndRemoveKeepTheUserFile) {
  ServerConfig a;
  a.name = "a";
  a.command = {"node", "a.js"};
  a.capabilities.exec = {"git"};
  ServerConfig b;
  b.name = "b";
  b.url = "https://example.com/mcp";
  ASSERT_TRUE(AddUserServer(a).ok());
  ASSERT_TRUE(AddUserServer(b).ok());
  auto config = LoadMcpConfig(root_ / "ws");
  ASSERT_TRUE(config.ok()) << config.error().message;
  ASSERT_EQ(config->servers.size(), 2u);
  EXPECT_EQ(config->servers[0].capabilities.exec, std::vector<std::string>{"git"});
  ASSERT_TRUE(RemoveUserServer("a").ok());
  EXPECT_FALSE(RemoveUserServer("a").ok());
  auto after = LoadMcpConfig(root_ / "ws");
  ASSERT_EQ(after->servers.size(), 1u);
  EXPECT_EQ(after->servers[0].name, "b");
}

}  // namespace
}  // namespace sepp::ext::mcp
