// Project agent definitions (.sepp/agents, .claude/agents) come from files
// a command may have written: they load only in a trusted project, and a
// change withdraws the trust. The user's own (~/.sepp/agents) always load.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>

#include "agent/agent_definitions.h"
#include "base/project_trust.h"

namespace sepp::agent {
namespace {
namespace fs = std::filesystem;

class AgentDefinitionsTrustTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/sepp-agdef-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    root_ = tmpl;
    project_ = root_ / "project";
    setenv("SEPP_HOME", (root_ / "home").c_str(), 1);
    Write(root_ / "home/agents/mine.md", "---\ndescription: the user's own\n---\n");
    Write(project_ / ".sepp/agents/theirs.md", "---\ndescription: the project's\n---\n");
    Write(project_ / ".claude/agents/claude.md", "---\ndescription: claude's\n---\n");
  }
  void TearDown() override {
    unsetenv("SEPP_HOME");
    fs::remove_all(root_);
  }
  static void Write(const fs::path& p, const std::string& text) {
    fs::create_directories(p.parent_path());
    std::ofstream(p) << text;
  }
  std::vector<std::string> Names(std::vector<std::string>* warnings) {
    std::vector<std::string> names;
    for (const auto& d : LoadAgentDefinitions(project_, warnings)) names.push_back(d.name);
    return names;
  }
  fs::path root_, project_;
};

TEST_F(AgentDefinitionsTrustTest, UntrustedProjectDefinitionsAreIgnoredWithANote) {
  std::vector<std::string> warnings;
  EXPECT_EQ(Names(&warnings), std::vector<std::string>{"mine"});
  ASSERT_EQ(warnings.size(), 2u);
  EXPECT_NE(warnings[0].find(".claude/agents"), std::string::npos) << warnings[0];
  EXPECT_NE(warnings[1].find(".sepp/agents (theirs.md)"), std::string::npos) << warnings[1];
  EXPECT_NE(warnings[1].find("sepp trust " + fs::canonical(project_).string()), std::string::npos)
      << warnings[1];
}

TEST_F(AgentDefinitionsTrustTest, TrustedProjectLoadsUntilAFileChanges) {
  ASSERT_TRUE(TrustProject(ReadProjectConfig(project_)).ok());
  std::vector<std::string> warnings;
  EXPECT_EQ(Names(&warnings), (std::vector<std::string>{"mine", "claude", "theirs"}));
  EXPECT_TRUE(warnings.empty());
  Write(project_ / ".sepp/agents/theirs.md", "---\ndescription: changed behind the user\n---\n");
  warnings.clear();
  EXPECT_EQ(Names(&warnings), std::vector<std::string>{"mine"});
  ASSERT_FALSE(warnings.empty());
  EXPECT_NE(warnings[0].find("changed"), std::string::npos) << warnings[0];
}

}  // namespace
}  // namespace sepp::agent
