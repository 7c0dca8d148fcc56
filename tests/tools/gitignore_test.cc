#include "tools/gitignore.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <sstream>

#include "tool_test_util.h"

namespace sepp::tools {
namespace {

struct Case {
  const char* rules;
  const char* path;
  bool is_dir;
  bool ignored;
};

TEST(IgnoreRules, Table) {
  const Case cases[] = {
      {"*.o", "a.o", false, true},
      {"*.o", "src/deep/a.o", false, true},
      {"*.o", "a.c", false, false},
      {"# comment\n\n*.o", "x.o", false, true},
      {"\\#notes", "#notes", false, true},
      {"build/", "build", true, true},
      {"build/", "build", false, false},  // dir-only rule, a file
      {"build/", "src/build", true, true},
      {"/build", "build", true, true},  // anchored
      {"/build", "src/build", true, false},
      {"doc/frotz", "doc/frotz", false, true},  // middle slash anchors
      {"doc/frotz", "a/doc/frotz", false, false},
      {"**/foo", "foo", false, true},
      {"**/foo", "x/y/foo", false, true},
      {"**/foo/bar", "x/foo/bar", false, true},
      {"abc/**", "abc/x/y", false, true},
      {"abc/**", "abc", true, false},
      {"a/**/b", "a/b", false, true},
      {"a/**/b", "a/x/y/b", false, true},
      {"*.log\n!keep.log", "keep.log", false, false},
      {"*.log\n!keep.log", "other.log", false, true},
      {"!keep.log\n*.log", "keep.log", false, true},  // last match wins
      {"\\!important", "!important", false, true},
      {"trail   ", "trail", false, true},
      {"trail\\ ", "trail ", false, true},
      {"*.o\r\n", "x.o", false, true},  // CRLF files
      {"[Bb]uild", "Build", true, true},
      {"?.txt", "a.txt", false, true},
      {"?.txt", "ab.txt", false, false},
      {"/", "x", false, false},
  };
  for (const auto& c : cases) {
    IgnoreRules rules;
    rules.AddFile(c.rules, "");
    EXPECT_EQ(rules.Ignored(c.path, c.is_dir), c.ignored)
        << "rules: " << c.rules << " path: " << c.path << (c.is_dir ? "/" : "");
  }
}

TEST(IgnoreRules, NestedBaseAppliesBelowItsFolder) {
  IgnoreRules rules;
  rules.AddFile("*.tmp", "");
  rules.AddFile("/gen\n!*.tmp", "sub");
  EXPECT_TRUE(rules.Ignored("sub/gen", true));
  EXPECT_FALSE(rules.Ignored("gen", true));           // anchored to sub/
  EXPECT_FALSE(rules.Ignored("sub/x.tmp", false));     // re-included below sub/
  EXPECT_TRUE(rules.Ignored("other/x.tmp", false));
  EXPECT_TRUE(rules.Ignored("subway/x.tmp", false));   // "sub" is not a prefix of "subway/"
  rules.Truncate(1);
  EXPECT_TRUE(rules.Ignored("sub/x.tmp", false));
}

// git itself is the oracle: the same rules and paths through
// `git check-ignore` must agree with IgnoreRules.
TEST(IgnoreRules, AgreesWithGitCheckIgnore) {
  if (std::system("git --version > /dev/null 2>&1") != 0) GTEST_SKIP() << "no git";
  testing::TempDir dir;
  const std::string rules =
      "*.o\n/out\nlogs/\n!logs/keep\ndoc/*.html\n**/cache/**\n*~\n!important.o\n[Tt]emp*\n"
      "a/**/z\n\\#hash\nspace\\ \n";
  dir.Write(".gitignore", rules);
  dir.Write("sub/.gitignore", "*.md\n!README.md\n/local\n");
  const std::vector<std::pair<std::string, bool>> paths = {
      {"x.o", false},         {"important.o", false}, {"src/y.o", false},   {"out", true},
      {"src/out", true},      {"logs", true},         {"x/logs", false},      {"doc/a.html", false},
      {"doc/x/a.html", false}, {"a/cache/b", false},  {"cache/x", false},   {"file~", false},
      {"Temp1", false},       {"temp", true},         {"a/z", false},       {"a/b/c/z", false},
      {"#hash", false},       {"space ", false},      {"sub/x.md", false},  {"sub/README.md", false},
      {"sub/local", true},    {"local", true},        {"sub/deep/y.md", false}, {"main.c", false},
  };
  ASSERT_EQ(std::system(("cd '" + dir.path().string() + "' && git init -q").c_str()), 0);
  std::string input;
  for (auto& [p, is_dir] : paths) {
    if (is_dir)
      dir.Mkdir(p);
    else
      dir.Write(p, "");
  }
  IgnoreRules ours;
  ours.AddFile(rules, "");
  ours.AddFile("*.md\n!README.md\n/local\n", "sub");
  for (auto& [p, is_dir] : paths) {
    std::string cmd = "cd '" + dir.path().string() + "' && git -c core.excludesFile=/dev/null check-ignore -q '" + p +
                      (is_dir ? "/" : "") + "'";
    bool git_ignored = std::system(cmd.c_str()) == 0;
    EXPECT_EQ(ours.Ignored(p, is_dir), git_ignored) << p << (is_dir ? "/" : "");
  }
}

}  // namespace
}  // namespace sepp::tools
