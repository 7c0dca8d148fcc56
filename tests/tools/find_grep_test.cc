#include <gtest/gtest.h>

#include "sandbox/defaults.h"

#include "base/strings.h"
#include "tool_test_util.h"
#include "tools/truncate.h"
#include "tools/walk.h"

namespace sepp::tools {
namespace {

// A small repository with ignored folders and files at several levels.
class TreeTest : public testing::ToolTest {
 protected:
  void SetUp() override {
    dir_.Mkdir(".git");
    dir_.Write(".git/config", "TODO in git config\n");
    dir_.Write(".gitignore", "node_modules/\n*.log\nbuild/\n!build/keep.txt\n/dist\n");
    dir_.Write("README.md", "# Project\nTODO: write docs\n");
    dir_.Write("src/main.cc", "int main() {\n  // TODO: parse args\n  return 0;\n}\n");
    dir_.Write("src/util.h", "#pragma once\n// todo lower case\n");
    dir_.Write("src/.gitignore", "generated.h\n");
    dir_.Write("src/generated.h", "// TODO generated\n");
    dir_.Write("src/deep/er/leaf.cc", "void leaf() {}  // TODO leaf\n");
    dir_.Write("node_modules/pkg/index.js", "// TODO in dependency\n");
    dir_.Write("build/out.txt", "TODO build output\n");
    dir_.Write("build/keep.txt", "TODO kept?\n");
    dir_.Write("debug.log", "TODO log\n");
    dir_.Write("dist/bundle.js", "TODO dist\n");
    dir_.Write("lib/dist/ok.js", "// TODO not anchored here\n");
    dir_.Write("bin/tool", std::string("TODO\0binary", 11));
    dir_.Write("latin1.txt", "caf\xE9 TODO\n");
  }
  std::unique_ptr<Tool> find_ = MakeFindTool();
  std::unique_ptr<Tool> grep_ = MakeGrepTool();
};

TEST_F(TreeTest, WalkSkipsGitAndIgnored) {
  std::vector<std::string> seen;
  Walk(dir_.path(), {}, [&](const WalkEntry& e) {
    seen.push_back(e.rel + (e.is_dir ? "/" : ""));
    return true;
  });
  EXPECT_EQ(Join(seen, " "),
            ".gitignore README.md bin/ bin/tool latin1.txt lib/ lib/dist/ lib/dist/ok.js src/ "
            "src/.gitignore src/deep/ src/deep/er/ src/deep/er/leaf.cc src/main.cc src/util.h");
}

TEST_F(TreeTest, FindByNameAtAnyDepth) {
  ToolResult r = Call(*find_, {{"pattern", "*.cc"}});
  EXPECT_FALSE(r.is_error) << r.text;
  EXPECT_EQ(r.text, "src/deep/er/leaf.cc\nsrc/main.cc\n");
  EXPECT_EQ(r.details["count"], 2);
}

TEST_F(TreeTest, FindWithPathGlobAndBraces) {
  EXPECT_EQ(Call(*find_, {{"pattern", "src/**/*.{h,cc}"}}).text,
            "src/deep/er/leaf.cc\nsrc/main.cc\nsrc/util.h\n");
  EXPECT_EQ(Call(*find_, {{"pattern", "*.js"}}).text, "lib/dist/ok.js\n");
  EXPECT_EQ(Call(*find_, {{"pattern", "**/er"}}).text, "src/deep/er/\n");
}

TEST_F(TreeTest, FindBelowARootInsideTheRepoHonoursParentGitignore) {
  dir_.Write("src/deep/trace.log", "x");
  ToolResult r = Call(*find_, {{"pattern", "*"}, {"path", "src/deep"}});
  EXPECT_EQ(r.text, "src/deep/er/\nsrc/deep/er/leaf.cc\n");
}

TEST_F(TreeTest, FindOutsideTheWorkspaceShowsAbsolutePaths) {
  testing::TempDir other;
  other.Write("x/y.txt", "");
  // Outside the workspace only where the policy lets the tools read.
  EXPECT_TRUE(Call(*find_, {{"pattern", "*.txt"}, {"path", other.path().string()}}).is_error);
  sandbox::Policy policy = sandbox::DefaultToolPolicy(ctx_.cwd);
  policy.read_roots.push_back(other.path().string());
  ctx_.policy = &policy;
  EXPECT_EQ(Call(*find_, {{"pattern", "*.txt"}, {"path", other.path().string()}}).text,
            (other.path() / "x/y.txt").string() + "\n");
  EXPECT_EQ(Call(*find_, {{"pattern", "*.txt"}, {"path", other.path().string() + "/"}}).text,
            (other.path() / "x/y.txt").string() + "\n");
}

TEST_F(TreeTest, FindLimitAndErrors) {
  ToolResult r = Call(*find_, {{"pattern", "*"}, {"limit", 2}});
  EXPECT_TRUE(r.truncated);
  EXPECT_TRUE(StartsWith(r.text, ".gitignore\nREADME.md\n[Showing the first 2 matches; there are more."))
      << r.text;
  EXPECT_NE(Call(*find_, {{"pattern", "*.zig"}}).text.find("No paths match *.zig"), std::string::npos);
  EXPECT_TRUE(Call(*find_, Json::object()).is_error);
  EXPECT_TRUE(Call(*find_, {{"pattern", ""}}).is_error);
  EXPECT_TRUE(Call(*find_, {{"pattern", "*"}, {"path", "README.md"}}).is_error);
  EXPECT_TRUE(Call(*find_, {{"pattern", "*"}, {"path", "missing"}}).is_error);
  EXPECT_TRUE(Call(*find_, {{"pattern", 7}}).is_error);
  EXPECT_TRUE(Call(*find_, {{"pattern", "*"}, {"path", std::string("src\0x", 5)}}).is_error);
}

TEST_F(TreeTest, GrepSkipsIgnoredGitAndBinary) {
  ToolResult r = Call(*grep_, {{"pattern", "TODO"}});
  EXPECT_FALSE(r.is_error) << r.text;
  EXPECT_EQ(r.text,
            "README.md:2: TODO: write docs\n"
            "latin1.txt:1: caf\xEF\xBF\xBD TODO\n"
            "lib/dist/ok.js:1: // TODO not anchored here\n"
            "src/deep/er/leaf.cc:1: void leaf() {}  // TODO leaf\n"
            "src/main.cc:2:   // TODO: parse args\n");
  EXPECT_EQ(r.details["matches"], 5);
  EXPECT_EQ(r.details["files"], 5);
}

TEST_F(TreeTest, GrepOptions) {
  EXPECT_EQ(Call(*grep_, {{"pattern", "todo"}, {"ignore_case", true}, {"glob", "*.h"}}).text,
            "src/util.h:2: // todo lower case\n");
  EXPECT_EQ(Call(*grep_, {{"pattern", "leaf() {}"}, {"literal", true}}).text,
            "src/deep/er/leaf.cc:1: void leaf() {}  // TODO leaf\n");
  EXPECT_EQ(Call(*grep_, {{"pattern", "^int \\w+\\(\\)"}, {"path", "src"}}).text,
            "src/main.cc:1: int main() {\n");
  // An explicit file is searched even when ignored.
  EXPECT_EQ(Call(*grep_, {{"pattern", "TODO"}, {"path", "debug.log"}}).text, "debug.log:1: TODO log\n");
}

TEST_F(TreeTest, GrepContextLines) {
  dir_.Write("ctx.txt", "a\nb\nmatch1\nc\nd\ne\nf\ng\nmatch2\nh\n");
  EXPECT_EQ(Call(*grep_, {{"pattern", "match"}, {"path", "ctx.txt"}, {"context", 1}}).text,
            "ctx.txt-2- b\nctx.txt:3: match1\nctx.txt-4- c\n--\n"
            "ctx.txt-8- g\nctx.txt:9: match2\nctx.txt-10- h\n");
  // Overlapping contexts merge; the edges of the file clip them.
  EXPECT_EQ(Call(*grep_, {{"pattern", "^[ab]$"}, {"path", "ctx.txt"}, {"context", 2}}).text,
            "ctx.txt:1: a\nctx.txt:2: b\nctx.txt-3- match1\nctx.txt-4- c\n");
}

TEST_F(TreeTest, GrepLimitAndLongLines) {
  std::string many;
  for (int i = 0; i < 300; ++i) many += "hit " + std::to_string(i) + "\n";
  dir_.Write("many.txt", many);
  ToolResult r = Call(*grep_, {{"pattern", "hit"}, {"path", "many.txt"}});
  EXPECT_TRUE(r.truncated);
  EXPECT_EQ(CountLines(r.text), 101u);
  EXPECT_NE(r.text.find("[Stopped at the limit of 100 matching lines"), std::string::npos);
  r = Call(*grep_, {{"pattern", "hit"}, {"path", "many.txt"}, {"limit", 3}});
  EXPECT_TRUE(StartsWith(r.text, "many.txt:1: hit 0\nmany.txt:2: hit 1\nmany.txt:3: hit 2\n[Stopped"));
  dir_.Write("wide.txt", "needle " + std::string(5000, 'x') + "\n");
  r = Call(*grep_, {{"pattern", "needle"}, {"path", "wide.txt"}});
  EXPECT_NE(r.text.find("… [4507 more bytes]"), std::string::npos) << r.text;
}

TEST_F(TreeTest, GrepErrorsAndNoMatch) {
  ToolResult r = Call(*grep_, {{"pattern", "foo("}});
  EXPECT_TRUE(r.is_error);
  EXPECT_NE(r.text.find("Invalid regular expression: missing closing parenthesis at offset 4"),
            std::string::npos)
      << r.text;
  EXPECT_NE(r.text.find("literal=true"), std::string::npos);
  EXPECT_FALSE(Call(*grep_, {{"pattern", "foo("}, {"literal", true}}).is_error);
  r = Call(*grep_, {{"pattern", "zzz_nothing"}});
  EXPECT_FALSE(r.is_error);
  EXPECT_EQ(r.text, "No matches for zzz_nothing in ..");
  EXPECT_TRUE(Call(*grep_, Json::object()).is_error);
  EXPECT_NE(Call(*grep_, {{"pattern", "x"}, {"ignore_case", "yes"}}).text.find("expected a boolean"),
            std::string::npos);
  EXPECT_TRUE(Call(*grep_, {{"pattern", "x"}, {"context", 100}}).is_error);
  EXPECT_TRUE(Call(*grep_, {{"pattern", "x"}, {"limit", 0}}).is_error);
  EXPECT_TRUE(Call(*grep_, {{"pattern", "x"}, {"path", "nope"}}).is_error);
  EXPECT_TRUE(Call(*grep_, {{"pattern", "x"}, {"glob", ""}}).is_error);
}

TEST_F(TreeTest, GrepCatastrophicPatternGivesUp) {
  dir_.Write("evil.txt", std::string(5000, 'a') + "!\n");
  ToolResult r = Call(*grep_, {{"pattern", "(a|aa)+$"}, {"path", "evil.txt"}});
  EXPECT_FALSE(r.is_error);  // finishes; either no match or a note that it gave up
  EXPECT_TRUE(r.text.find("too expensive") != std::string::npos || StartsWith(r.text, "No matches"))
      << r.text;
}

TEST_F(TreeTest, GrepEmptyMatchesAndUtf8Patterns) {
  dir_.Write("u.txt", "naïve café\nplain\n");
  EXPECT_EQ(Call(*grep_, {{"pattern", "caf."}, {"path", "u.txt"}}).text, "u.txt:1: naïve café\n");
  EXPECT_EQ(Call(*grep_, {{"pattern", "^"}, {"path", "u.txt"}}).text, "u.txt:1: naïve café\nu.txt:2: plain\n");
  EXPECT_EQ(Call(*grep_, {{"pattern", "CAFÉ"}, {"path", "u.txt"}, {"ignore_case", true}}).text,
            "u.txt:1: naïve café\n");
}

TEST_F(TreeTest, HugeAndOddArguments) {
  // A 1 MB pattern either compiles and runs or fails with PCRE2's reason.
  ToolResult r = Call(*grep_, {{"pattern", std::string(1 << 20, 'q')}});
  EXPECT_TRUE(StartsWith(r.text, "No matches") || StartsWith(r.text, "Invalid regular expression"))
      << r.text.substr(0, 200);
  EXPECT_LT(r.text.size(), 1024u);  // the echo of the pattern is bounded
  r = Call(*grep_, {{"pattern", std::string(1 << 20, 'q')}, {"literal", true}});
  EXPECT_LT(r.text.size(), 1024u);
  r = Call(*find_, {{"pattern", std::string(1 << 20, 'q')}});
  EXPECT_LT(r.text.size(), 1024u);
  // A file name that is not UTF-8 is shown sanitised.
  dir_.Write("odd\xff.txt", "TODO odd\n");
  r = Call(*find_, {{"pattern", "odd*"}});
  EXPECT_EQ(r.text, "odd\xEF\xBF\xBD.txt\n");
  r = Call(*grep_, {{"pattern", "TODO odd"}});
  EXPECT_EQ(r.text, "odd\xEF\xBF\xBD.txt:1: TODO odd\n");
  // Many {a,b} groups within the cap, and a deep ** pattern.
  EXPECT_FALSE(Call(*find_, {{"pattern", "{a,b}{c,d}{e,f}{g,h}{i,j}*"}}).is_error);
  EXPECT_FALSE(Call(*find_, {{"pattern", "**/**/**/**/*.cc"}}).is_error);
}

TEST_F(TreeTest, Summaries) {
  EXPECT_EQ(grep_->Summary({{"pattern", "TODO"}, {"path", "src/"}}), "grep TODO src/");
  EXPECT_EQ(grep_->Summary({{"pattern", "TODO"}}), "grep TODO");
  EXPECT_EQ(find_->Summary({{"pattern", "*.cc"}}), "find *.cc");
  EXPECT_EQ(find_->Summary({{"pattern", "*.cc"}, {"path", "src"}}), "find *.cc in src");
}

}  // namespace
}  // namespace sepp::tools
