// /v1/config/mcp and /v1/config/skills end to end: sandbox-agent's shapes on
// sepp's own files (.sepp/mcp.toml, .sepp/skills), written through the fs
// worker, so a .sepp/ that is a symlink out of the workspace leads nowhere;
// hostile names, bodies and folders next to the legitimate calls.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "base/file.h"
#include "ext/mcp/config.h"
#include "serve/serve_child.h"

namespace sepp::servetest {
namespace {

namespace fs = std::filesystem;

constexpr const char* kToken = "config-test-token-0123456789";

std::string Slurp(const fs::path& p) {
  auto r = ReadFile(p);
  return r.ok() ? *r : "";
}

class ConfigE2e : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/sepp-serve-config-XXXXXX";
    root_ = mkdtemp(tmpl);
    fs::create_directories(root_ / "home");
    fs::create_directories(root_ / "project/app");
    fs::create_directories(root_ / "outside");
    server_ = std::make_unique<ServeChild>(
        project(), std::map<std::string, std::string>{{"HOME", (root_ / "home").string()},
                                                      {"SEPP_HOME", (root_ / "home").string()},
                                                      {"ANTHROPIC_BASE_URL", "http://127.0.0.1:9"},
                                                      {"ANTHROPIC_API_KEY", "test-key-not-secret"}},
        std::vector<std::string>{"--token", kToken});
  }
  void TearDown() override {
    server_.reset();
    fs::remove_all(root_);
  }
  std::string project() const { return (root_ / "project").string(); }
  net::HttpResponse Call(const std::string& method, const std::string& what, const std::string& dir,
                         const std::string& name, const std::string& body = "") {
    std::string key = what == "mcp" ? "mcpName" : "skillName";
    return Fetch(method, server_->url("/v1/config/" + what + "?directory=" + dir + "&" + key + "=" + name),
                 {{"Authorization", std::string("Bearer ") + kToken}, {"Content-Type", "application/json"}}, body);
  }
  static std::string TypeOf(const net::HttpResponse& r) {
    auto j = ParseJson(r.body);
    return j.ok() && j->is_object() ? j->value("type", "") : "";
  }

  fs::path root_;
  std::unique_ptr<ServeChild> server_;
};

TEST_F(ConfigE2e, McpServersAreSeppsOwnProjectFile) {
  std::string dir = project() + "/app";
  EXPECT_EQ(Call("GET", "mcp", dir, "git").head.status, 404);
  auto put = Call("PUT", "mcp", dir, "git",
                  R"({"type":"local","command":"uvx","args":["mcp-server-git","--repo","."],"env":{"A":"1"},"timeoutMs":5000})");
  ASSERT_EQ(put.head.status, 204) << put.body;
  // The file is sepp's [[mcp.servers]], as sepp itself parses it.
  std::string text = Slurp(root_ / "project/app/.sepp/mcp.toml");
  auto servers = ext::mcp::ParseSeppServers(text, "mcp.toml");
  ASSERT_TRUE(servers.ok()) << servers.error().message << "\n" << text;
  ASSERT_EQ(servers->size(), 1u);
  EXPECT_EQ((*servers)[0].name, "git");
  EXPECT_EQ((*servers)[0].command, (std::vector<std::string>{"uvx", "mcp-server-git", "--repo", "."}));
  EXPECT_EQ((*servers)[0].env.at("A"), "1");
  EXPECT_EQ((*servers)[0].tool_timeout_s, 5);
  auto got = ParseJson(Call("GET", "mcp", dir, "git").body);
  ASSERT_TRUE(got.ok());
  EXPECT_EQ((*got)["type"], "local");
  EXPECT_EQ((*got)["command"], "uvx");
  EXPECT_EQ((*got)["args"].size(), 3u);
  EXPECT_EQ((*got)["timeoutMs"], 5000);

  ASSERT_EQ(Call("PUT", "mcp", dir, "docs", R"({"type":"remote","url":"https://example.com/mcp","bearerTokenEnvVar":"DOCS_TOKEN"})").head.status, 204);
  auto remote = ParseJson(Call("GET", "mcp", dir, "docs").body);
  EXPECT_EQ((*remote)["url"], "https://example.com/mcp");
  EXPECT_EQ((*remote)["bearerTokenEnvVar"], "DOCS_TOKEN");
  EXPECT_EQ(Call("DELETE", "mcp", dir, "git").head.status, 204);
  EXPECT_EQ(Call("GET", "mcp", dir, "git").head.status, 404);
  EXPECT_EQ(Call("GET", "mcp", dir, "docs").head.status, 200) << "the other server stays";
  EXPECT_EQ(Call("DELETE", "mcp", dir, "git").head.status, 404);

  struct Bad {
    std::string name, body, says;
  };
  for (const Bad& b : std::vector<Bad>{
           {"bad name", R"({"type":"local","command":"x"})", "mcpName"},
           {"ok", R"({"type":"local"})", "command"},
           {"ok", R"({"type":"remote","url":"ftp://x"})", "http"},
           {"ok", R"({"type":"remote","url":"https://x","transport":"sse"})", "Streamable HTTP"},
           {"ok", R"({"type":"remote","url":"https://x","envHeaders":{"A":"B"}})", "envHeaders"},
           {"ok", R"({"type":"local","command":"x","shell":true})", "unknown field"},
           {"ok", R"({"type":"ssh"})", "type"},
           {"ok", "not json", "JSON"}}) {
    auto r = Call("PUT", "mcp", dir, b.name == "bad name" ? "bad%20name" : b.name, b.body);
    EXPECT_EQ(r.head.status, 400) << b.body << " " << r.body;
    EXPECT_NE(r.body.find(b.says), std::string::npos) << r.body;
  }
  EXPECT_EQ(Call("GET", "mcp", dir, "ok").head.status, 404) << "nothing of a refused PUT was written";
  // A folder outside the workspaces is refused.
  auto outside = Call("PUT", "mcp", (root_ / "outside").string(), "git", R"({"type":"local","command":"x"})");
  EXPECT_EQ(outside.head.status, 403);
  EXPECT_EQ(TypeOf(outside), "urn:sepp:error:permission_denied");
  EXPECT_FALSE(fs::exists(root_ / "outside/.sepp"));
}

TEST_F(ConfigE2e, ASymlinkedSeppFolderLeadsNowhere) {
  fs::create_directories(root_ / "project/evil");
  fs::create_directory_symlink(root_ / "outside", root_ / "project/evil/.sepp");
  auto r = Call("PUT", "mcp", project() + "/evil", "git", R"({"type":"local","command":"x"})");
  EXPECT_EQ(r.head.status / 100, 4) << r.body;
  EXPECT_FALSE(fs::exists(root_ / "outside/mcp.toml"));
  fs::create_directories(root_ / "project/src-skill");
  std::ofstream(root_ / "project/src-skill/SKILL.md") << "---\nname: s\ndescription: d\n---\n";
  auto s = Call("PUT", "skills", project() + "/evil", "s", R"({"sources":[{"type":"local","source":"src-skill"}]})");
  EXPECT_EQ(s.head.status / 100, 4) << s.body;
  EXPECT_FALSE(fs::exists(root_ / "outside/skills"));
}

TEST_F(ConfigE2e, SkillsAreCopiedIntoTheProjectsSkillFolder) {
  fs::create_directories(root_ / "project/uploads/review/scripts");
  std::ofstream(root_ / "project/uploads/review/SKILL.md")
      << "---\nname: review\ndescription: reviews a change\n---\nRead the diff.\n";
  std::ofstream(root_ / "project/uploads/review/scripts/run.sh") << "echo review\n";
  fs::create_symlink(root_ / "outside", root_ / "project/uploads/review/escape");
  EXPECT_EQ(Call("GET", "skills", project(), "review").head.status, 404);
  auto put = Call("PUT", "skills", project(), "review", R"({"sources":[{"type":"local","source":"uploads/review"}]})");
  ASSERT_EQ(put.head.status, 204) << put.body;
  EXPECT_EQ(Slurp(root_ / "project/.sepp/skills/review/scripts/run.sh"), "echo review\n");
  EXPECT_FALSE(fs::exists(root_ / "project/.sepp/skills/review/escape")) << "symlinks are not copied";
  auto got = ParseJson(Call("GET", "skills", project(), "review").body);
  ASSERT_TRUE(got.ok());
  EXPECT_EQ((*got)["sources"][0]["type"], "local");
  EXPECT_EQ((*got)["sources"][0]["source"], fs::canonical(root_ / "project/.sepp/skills/review").string());
  EXPECT_EQ((*got)["sources"][0]["skills"][0], "review");

  auto github = Call("PUT", "skills", project(), "x", R"({"sources":[{"type":"github","source":"o/r"}]})");
  EXPECT_EQ(github.head.status, 400);
  EXPECT_NE(github.body.find("network"), std::string::npos);
  auto not_skill = Call("PUT", "skills", project(), "x", R"({"sources":[{"type":"local","source":"uploads"}]})");
  EXPECT_EQ(not_skill.head.status, 400);
  EXPECT_NE(not_skill.body.find("SKILL.md"), std::string::npos);
  auto out = Call("PUT", "skills", project(), "x", R"({"sources":[{"type":"local","source":"../outside"}]})");
  EXPECT_EQ(out.head.status, 403);
  EXPECT_EQ(Call("PUT", "skills", project(), "..", R"({"sources":[{"type":"local","source":"uploads/review"}]})").head.status, 400);
  EXPECT_EQ(Call("DELETE", "skills", project(), "review").head.status, 204);
  EXPECT_FALSE(fs::exists(root_ / "project/.sepp/skills/review"));
  EXPECT_TRUE(fs::exists(root_ / "project/uploads/review/SKILL.md")) << "the source stays";
  EXPECT_EQ(Call("DELETE", "skills", project(), "review").head.status, 404);
  EXPECT_TRUE(fs::exists(root_ / "outside")) << "nothing outside was touched";
}

TEST_F(ConfigE2e, TheQueryNamesTheFolderAndTheEntry) {
  auto r = Fetch("GET", server_->url("/v1/config/mcp?mcpName=git"), {{"Authorization", std::string("Bearer ") + kToken}});
  EXPECT_EQ(r.head.status, 400);
  EXPECT_NE(r.body.find("directory"), std::string::npos);
  EXPECT_EQ(Fetch("POST", server_->url("/v1/config/mcp?directory=/&mcpName=x"),
                  {{"Authorization", std::string("Bearer ") + kToken}}).head.status, 405);
  EXPECT_EQ(Fetch("GET", server_->url("/v1/config/other"), {{"Authorization", std::string("Bearer ") + kToken}}).head.status, 404);
  EXPECT_EQ(Fetch("GET", server_->url("/v1/config/mcp?directory=/&mcpName=x")).head.status, 401);
}

}  // namespace
}  // namespace sepp::servetest
