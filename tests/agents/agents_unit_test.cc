// The external agents' catalog (settings, locating), their policies
// (examples/policies/ID.toml = the built-in default) and the install
// command, without starting an adapter. npm is tested offline: the package
// installed is a local folder (--from), never the registry.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "base/file.h"
#include "front/serve/agent_catalog.h"
#include "front/serve/agent_launch.h"
#include "serve/serve_child.h"

namespace sepp::front::serve {
namespace {

namespace fs = std::filesystem;

class AgentsUnit : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/sepp-agents-unit-XXXXXX";
    root_ = mkdtemp(tmpl);
    fs::create_directories(root_ / "sepp");
    fs::create_directories(root_ / "ws");
    setenv("SEPP_HOME", (root_ / "sepp").c_str(), 1);
  }
  void TearDown() override { fs::remove_all(root_); }
  fs::path Settings(const std::string& text) {
    fs::path f = root_ / "sepp/settings.toml";
    std::ofstream(f) << text;
    return f;
  }
  fs::path root_;
};

std::string ReadAll(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST_F(AgentsUnit, TheExamplePoliciesAreTheBuiltInDefaults) {
  for (const auto& spec : BuiltinAgents()) {
    fs::path file = fs::path(SEPP_SOURCE_DIR) / "examples/policies" / (spec.id + ".toml");
    EXPECT_EQ(ReadAll(file), spec.default_policy) << file << " and the built-in policy of " << spec.id
                                                  << " differ: keep them the same";
  }
}

TEST_F(AgentsUnit, SettingsChangeABuiltInAndAddCommandsWithClearErrors) {
  auto specs = LoadAgentSpecs(Settings(R"(
[[serve.agents]]
name = "claude"
allow_domains = ["127.0.0.1:8080"]
env = ["EXTRA=1"]

[[serve.agents]]
name = "mine"
command = ["/opt/mine/bin/acp", "--stdio"]
credentials = ["MINE_KEY"]
policy = "mine.toml"
)"));
  ASSERT_TRUE(specs.ok()) << specs.error().message;
  const AgentSpec* claude = nullptr;
  const AgentSpec* mine = nullptr;
  for (const auto& s : *specs) {
    if (s.id == "claude") claude = &s;
    if (s.id == "mine") mine = &s;
  }
  ASSERT_TRUE(claude && mine);
  EXPECT_EQ(claude->package, "@zed-industries/claude-agent-acp");
  EXPECT_EQ(claude->allow_domains, std::vector<std::string>{"127.0.0.1:8080"});
  EXPECT_EQ(mine->command[1], "--stdio");
  EXPECT_EQ(mine->package, "");
  EXPECT_EQ(mine->policy_file, root_ / "sepp/mine.toml");

  struct Bad {
    const char* text;
    const char* says;
  } bad[] = {
      {"[[serve.agents]]\nname = \"x\"\n", "needs a command"},
      {"[[serve.agents]]\nname = \"x\"\ncommand = []\n", "non-empty list"},
      {"[[serve.agents]]\nname = \"../x\"\ncommand = [\"a\"]\n", "name of 1-64"},
      {"[[serve.agents]]\nname = \"sepp\"\ncommand = [\"a\"]\n", "built-in agent"},
      {"[[serve.agents]]\nname = \"x\"\ncommand = [\"a\"]\nsecrets = [\"K\"]\n", "unknown key \"secrets\""},
      {"[[serve.agents]]\nname = \"x\"\ncommand = [\"a\"]\nenv = \"A\"\n", "list of strings"},
      {"[serve]\nagents = 3\n", "[[serve.agents]]"},
  };
  for (const auto& b : bad) {
    auto r = LoadAgentSpecs(Settings(b.text));
    ASSERT_FALSE(r.ok()) << b.text;
    EXPECT_NE(r.error().message.find(b.says), std::string::npos) << r.error().message;
    EXPECT_NE(r.error().message.find("settings.toml:"), std::string::npos) << "names the file and line";
  }
}

TEST_F(AgentsUnit, AnAgentsPolicyHasItsHomeItsInstallationAndOnlyItsSecrets) {
  auto specs = LoadAgentSpecs(Settings("[[serve.agents]]\nname = \"codex\"\nallow_domains = [\"127.0.0.1:9\"]\n"));
  ASSERT_TRUE(specs.ok());
  const AgentSpec* codex = nullptr;
  for (const auto& s : *specs)
    if (s.id == "codex") codex = &s;
  ASSERT_TRUE(codex);
  AgentLocation where;
  where.package_root = root_ / "install/node_modules";
  fs::path data = root_ / "sepp/agents";
  auto p = AgentPolicy(*codex, where, data, {root_ / "ws", root_ / "ws2"});
  ASSERT_TRUE(p.ok()) << p.error().message;
  fs::path home = data / "home/codex";
  EXPECT_TRUE(fs::is_directory(home / ".codex"));
  EXPECT_EQ(p->env_set["HOME"], home.string());
  EXPECT_EQ(p->env_set["CODEX_HOME"], (home / ".codex").string());
  auto has = [](const std::vector<std::string>& v, const std::string& s) {
    return std::find(v.begin(), v.end(), s) != v.end();
  };
  EXPECT_TRUE(has(p->write_roots, (root_ / "ws").string()));
  EXPECT_TRUE(has(p->write_roots, (root_ / "ws2").string()));
  EXPECT_TRUE(has(p->write_roots, home.string()));
  EXPECT_TRUE(has(p->read_roots, (root_ / "install/node_modules").string()));
  EXPECT_FALSE(has(p->read_roots, (root_ / "sepp").string())) << "the rest of sepp's folder stays hidden";
  EXPECT_EQ(p->net, sandbox::NetMode::kProxy);
  EXPECT_TRUE(has(p->allow_domains, "api.openai.com"));
  EXPECT_TRUE(has(p->allow_domains, "127.0.0.1:9"));
  EXPECT_EQ(p->env_allow_secrets, std::vector<std::string>{"OPENAI_API_KEY"});
  EXPECT_TRUE(has(p->deny_paths, (fs::path(getenv("HOME") ? getenv("HOME") : "/") / ".ssh").string()));

  // A hostile allowlist entry from settings is refused with the reason.
  AgentSpec bad = *codex;
  bad.allow_domains = {"127.0.0.1:99999"};
  auto refused = AgentPolicy(bad, where, data, {root_ / "ws"});
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message.find("host:port"), std::string::npos) << refused.error().message;
}

TEST_F(AgentsUnit, AnAgentIsFoundInTheDataFolderBeforePath) {
  fs::path on_path = root_ / "bin";
  fs::create_directories(on_path);
  std::ofstream(on_path / "claude-agent-acp") << "#!/bin/sh\n";
  fs::permissions(on_path / "claude-agent-acp", fs::perms::owner_all);
  AgentSpec claude = BuiltinAgents()[0];
  fs::path data = root_ / "sepp/agents";
  auto loc = LocateAgent(claude, data, "/nonexistent:" + on_path.string());
  EXPECT_TRUE(loc.installed);
  EXPECT_EQ(loc.found_in, "PATH");
  fs::path bin = data / "npm/node_modules/.bin";
  fs::create_directories(bin);
  fs::copy_file(on_path / "claude-agent-acp", bin / "claude-agent-acp");
  loc = LocateAgent(claude, data, on_path.string());
  EXPECT_EQ(loc.found_in, "data folder");
  EXPECT_FALSE(LocateAgent(claude, root_ / "none", "/nonexistent").installed);
}

// `sepp serve install-agent`: npm into the data folder, from a local
// package (no network); already there the second time; errors that say
// what to do.
TEST_F(AgentsUnit, InstallAgentRunsNpmIntoTheDataFolder) {
  if (system("command -v npm >/dev/null 2>&1") != 0) GTEST_SKIP() << "npm is not installed";
  fs::path pkg = root_ / "pkg";
  fs::create_directories(pkg / "bin");
  std::ofstream(pkg / "package.json")
      << R"({"name":"@zed-industries/claude-agent-acp","version":"0.23.1-local","bin":{"claude-agent-acp":"bin/acp.js"}})";
  std::ofstream(pkg / "bin/acp.js") << "#!/usr/bin/env node\n";
  std::map<std::string, std::string> env = {{"HOME", root_.string()},
                                            {"SEPP_HOME", (root_ / "sepp").string()},
                                            {"npm_config_cache", (root_ / "npm-cache").string()},
                                            {"npm_config_offline", "true"},
                                            {"npm_config_update_notifier", "false"}};
  std::string out, err;
  int rc = servetest::RunSepp({"serve", "install-agent", "claude", "--from", pkg.string()}, env, &out, &err);
  ASSERT_EQ(rc, 0) << out << err;
  EXPECT_NE(out.find("claude installed 0.23.1-local"), std::string::npos) << out;
  EXPECT_TRUE(fs::exists(root_ / "sepp/agents/npm/node_modules/.bin/claude-agent-acp"));
  rc = servetest::RunSepp({"serve", "install-agent", "claude"}, env, &out, &err);
  EXPECT_EQ(rc, 0) << err;
  EXPECT_NE(out.find("already installed"), std::string::npos) << out;

  rc = servetest::RunSepp({"serve", "install-agent", "nobody"}, env, &out, &err);
  EXPECT_EQ(rc, 2);
  EXPECT_NE(err.find("claude, codex, pi"), std::string::npos) << err;
  std::ofstream(root_ / "sepp/settings.toml") << "[[serve.agents]]\nname = \"mine\"\ncommand = [\"mine-acp\"]\n";
  rc = servetest::RunSepp({"serve", "install-agent", "mine"}, env, &out, &err);
  EXPECT_EQ(rc, 2);
  EXPECT_NE(err.find("install mine-acp yourself"), std::string::npos) << err;
  // npm's own failure comes back with its words.
  rc = servetest::RunSepp({"serve", "install-agent", "codex", "--from", (root_ / "missing").string()}, env, &out,
                          &err);
  EXPECT_EQ(rc, 1);
  EXPECT_NE(err.find("npm could not install"), std::string::npos) << err;
}

}  // namespace
}  // namespace sepp::front::serve
