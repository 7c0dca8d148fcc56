#include "tools/glob.h"

#include <gtest/gtest.h>

namespace sepp::tools {
namespace {

struct SegmentCase {
  const char* pattern;
  const char* name;
  bool match;
};

TEST(MatchSegment, Table) {
  const SegmentCase cases[] = {
      {"*", "anything", true},        {"*", "", true},
      {"*.cc", "main.cc", true},      {"*.cc", "main.h", false},
      {"*.cc", ".cc", true},          {"a*b*c", "aXXbYYc", true},
      {"a*b*c", "aXXbYY", false},     {"?", "x", true},
      {"?", "", false},               {"?", "é", true},
      {"??", "é", false},             {"[abc]x", "bx", true},
      {"[abc]x", "dx", false},        {"[a-c]", "b", true},
      {"[!a-c]", "b", false},         {"[^a-c]", "z", true},
      {"[]]", "]", true},             {"[", "[", true},
      {"\\*", "*", true},             {"\\*", "a", false},
      {"**", "deep", true},           {"a*", "a", true},
      {"*a*a*a*a*a*a*a*b", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", false},
      {"Makefile", "Makefile", true}, {"Makefile", "makefile", false},
  };
  for (const auto& c : cases)
    EXPECT_EQ(MatchSegment(c.pattern, c.name), c.match) << c.pattern << " vs " << c.name;
}

struct GlobCase {
  const char* pattern;
  const char* path;
  bool match;
};

TEST(Glob, Table) {
  const GlobCase cases[] = {
      {"*.cc", "main.cc", true},
      {"*.cc", "src/deep/main.cc", true},  // no '/': names at any depth
      {"*.cc", "src/main.h", false},
      {"src/*.cc", "src/main.cc", true},
      {"src/*.cc", "src/deep/main.cc", false},
      {"src/**/*.cc", "src/main.cc", true},
      {"src/**/*.cc", "src/a/b/c/main.cc", true},
      {"src/**/*.cc", "lib/main.cc", false},
      {"**/*.cc", "main.cc", true},
      {"**/*.cc", "a/b/main.cc", true},
      {"**/test", "x/test", true},
      {"src/**", "src/a/b", true},
      {"src/**", "src", false},
      {"**", "anything/at/all", true},
      {"*.{h,cc}", "x/y.h", true},
      {"*.{h,cc}", "y.cc", true},
      {"*.{h,cc}", "y.c", false},
      {"{src,lib}/**/*.{h,cc}", "lib/x/y.h", true},
      {"{src,lib}/**/*.{h,cc}", "doc/x/y.h", false},
      {"{a,{b,c}}.txt", "c.txt", true},
      {"{x}.txt", "{x}.txt", true},
      {"{unbalanced.txt", "{unbalanced.txt", true},
      {"./src/*.cc", "src/a.cc", true},
      {"/src/*.cc", "src/a.cc", true},
      {"test_?.py", "tests/test_1.py", true},
      {"[A-Z]*.md", "README.md", true},
      {"[A-Z]*.md", "readme.md", false},
  };
  for (const auto& c : cases) {
    auto g = Glob::Compile(c.pattern);
    ASSERT_TRUE(g.ok()) << c.pattern;
    EXPECT_EQ(g->Matches(c.path), c.match) << c.pattern << " vs " << c.path;
  }
}

TEST(Glob, HostilePatterns) {
  EXPECT_FALSE(Glob::Compile("").ok());
  EXPECT_FALSE(Glob::Compile("/").ok());
  // 2^11 alternatives.
  std::string many;
  for (int i = 0; i < 11; ++i) many += "{a,b}";
  EXPECT_FALSE(Glob::Compile(many).ok());
  // Deep ** chains stay fast (memoised).
  std::string stars;
  for (int i = 0; i < 30; ++i) stars += "**/";
  stars += "x";
  auto g = Glob::Compile(stars);
  ASSERT_TRUE(g.ok());
  std::string path;
  for (int i = 0; i < 40; ++i) path += "d/";
  EXPECT_FALSE(g->Matches(path + "y"));
  EXPECT_TRUE(g->Matches(path + "x"));
}

}  // namespace
}  // namespace sepp::tools
