// The file tools keep to the sandbox policy: secrets, outside reads and
// writes, protected paths, symlinks out of the workspace.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "sandbox/defaults.h"
#include "tool_test_util.h"
#include "base/file.h"
#include "tools/access.h"

namespace sepp::tools {
namespace {

namespace fs = std::filesystem;

class AccessTest : public testing::ToolTest {
 protected:
  AccessTest() {
    secrets_.Write("id_rsa", "PRIVATE KEY");
    outside_.Write("notes.txt", "outside text");
    policy_ = sandbox::DefaultToolPolicy(ctx_.cwd);
    policy_.deny_paths.push_back(secrets_.path().string());
    policy_.read_roots.push_back(outside_.path().string());
    ctx_.policy = &policy_;
    fs::create_directories(ctx_.cwd / ".git" / "hooks");
    tools_ = MakeBuiltinTools();
  }
  ToolResult Run(const std::string& tool, const Json& args) { return Call(*tools_->Find(tool), args); }

  testing::TempDir secrets_, outside_;
  sandbox::Policy policy_;
  std::unique_ptr<ToolRegistry> tools_;
};

TEST_F(AccessTest, SecretsAreNeverRead) {
  std::string key = (secrets_.path() / "id_rsa").string();
  for (const auto& [tool, args] : std::vector<std::pair<std::string, Json>>{
           {"read", {{"path", key}}},
           {"ls", {{"path", secrets_.path().string()}}},
           {"grep", {{"pattern", "PRIVATE"}, {"path", secrets_.path().string()}}},
           {"find", {{"pattern", "*"}, {"path", secrets_.path().string()}}}}) {
    ToolResult r = Run(tool, args);
    EXPECT_TRUE(r.is_error) << tool;
    EXPECT_TRUE(r.details.value("denied", false)) << tool;
    EXPECT_EQ(r.text.find("PRIVATE KEY"), std::string::npos) << tool;
    EXPECT_NE(r.text.find("secret location"), std::string::npos) << tool << ": " << r.text;
  }
}

TEST_F(AccessTest, ASymlinkInTheWorkspaceDoesNotLeadOut) {
  fs::create_symlink(secrets_.path() / "id_rsa", ctx_.cwd / "innocent.txt");
  ToolResult r = Run("read", {{"path", "innocent.txt"}});
  EXPECT_TRUE(r.is_error);
  EXPECT_EQ(r.text.find("PRIVATE KEY"), std::string::npos);
  ToolResult g = Run("grep", {{"pattern", "PRIVATE"}});
  EXPECT_EQ(g.text.find("PRIVATE KEY"), std::string::npos) << g.text;
  ToolResult w = Run("write", {{"path", "innocent.txt"}, {"content", "x"}});
  EXPECT_TRUE(w.is_error);
  EXPECT_EQ(ReadFile(secrets_.path() / "id_rsa").value(), "PRIVATE KEY");
}

TEST_F(AccessTest, WritesStayInTheWorkspaceAndOffProtectedPaths) {
  ToolResult out = Run("write", {{"path", (outside_.path() / "x.txt").string()}, {"content", "x"}});
  EXPECT_TRUE(out.is_error);
  EXPECT_NE(out.text.find("outside the workspace"), std::string::npos);
  EXPECT_FALSE(fs::exists(outside_.path() / "x.txt"));
  ToolResult hook = Run("write", {{"path", ".git/hooks/pre-commit"}, {"content", "#!/bin/sh\ncurl evil"}});
  EXPECT_TRUE(hook.is_error);
  EXPECT_NE(hook.text.find("protected"), std::string::npos);
  EXPECT_FALSE(fs::exists(ctx_.cwd / ".git/hooks/pre-commit"));
  // Next to them, ordinary work goes on.
  EXPECT_FALSE(Run("write", {{"path", "src/ok.txt"}, {"content", "fine"}}).is_error);
  EXPECT_FALSE(Run("read", {{"path", (outside_.path() / "notes.txt").string()}}).is_error);
}

TEST_F(AccessTest, ReadsOutsideTheReadRootsAreRefused) {
  testing::TempDir elsewhere;
  elsewhere.Write("private.txt", "elsewhere");
  ToolResult r = Run("read", {{"path", (elsewhere.path() / "private.txt").string()}});
  EXPECT_TRUE(r.is_error);
  EXPECT_NE(r.text.find("outside the folders this session may read"), std::string::npos);
}

TEST_F(AccessTest, SandboxOffAllowsEverything) {
  policy_.enabled = false;
  EXPECT_FALSE(Run("read", {{"path", (secrets_.path() / "id_rsa").string()}}).is_error);
}

}  // namespace
}  // namespace sepp::tools
