// The front matter parser: the YAML subset, and every error naming the
// file and the line, against hostile input too.
#include <gtest/gtest.h>

#include "ext/front_matter.h"

#include <random>

namespace sepp::ext {
namespace {

using Kind = FrontMatterValue::Kind;

FrontMatter Parse(const std::string& text) {
  auto r = ParseFrontMatter(text, "f.md");
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
  return r.ok() ? *r : FrontMatter{};
}

std::string ErrorOf(const std::string& text) {
  auto r = ParseFrontMatter(text, "f.md");
  EXPECT_FALSE(r.ok());
  return r.ok() ? "" : r.error().message;
}

TEST(FrontMatter, NoBlockIsAllBody) {
  FrontMatter fm = Parse("# Title\n---\nnot front matter\n");
  EXPECT_FALSE(fm.present);
  EXPECT_EQ(fm.body, "# Title\n---\nnot front matter\n");
}

TEST(FrontMatter, ScalarsQuotedPlainAndColonsInValues) {
  FrontMatter fm = Parse(
      "---\r\nname: pdf-tools\r\ndescription: Use when: the user has a PDF # comment\n"
      "single: 'it''s here'\ndouble: \"a \\\"b\\\" \\u00e9\\n\"\nempty:\n---\nBody\n");
  EXPECT_TRUE(fm.present);
  EXPECT_EQ(fm.Get("name"), "pdf-tools");
  EXPECT_EQ(fm.Get("description"), "Use when: the user has a PDF");
  EXPECT_EQ(fm.Get("single"), "it's here");
  EXPECT_EQ(fm.Get("double"), "a \"b\" \xC3\xA9\n");
  EXPECT_EQ(fm.Get("empty"), "");
  EXPECT_EQ(fm.body, "Body\n");
  EXPECT_EQ(fm.body_line, 8);
  EXPECT_EQ(fm.Find("single")->line, 4);
}

TEST(FrontMatter, PlainValuesFoldOverIndentedLines) {
  FrontMatter fm = Parse("---\ndescription: first part\n  second part\nname: x\n---\n");
  EXPECT_EQ(fm.Get("description"), "first part second part");
  EXPECT_EQ(fm.Get("name"), "x");
}

TEST(FrontMatter, BlockScalarsLiteralAndFolded) {
  FrontMatter fm = Parse(
      "---\nlit: |\n  line one\n  line two\n\nfold: >-\n  a\n  b\n\n  c\nnext: y\n---\n");
  EXPECT_EQ(fm.Get("lit"), "line one\nline two\n");
  EXPECT_EQ(fm.Get("fold"), "a b\nc");
  EXPECT_EQ(fm.Get("next"), "y");
}

TEST(FrontMatter, ListsFlowAndBlockAndAMapOneLevel) {
  FrontMatter fm = Parse(
      "---\nflow: [Read, \"Bash(git:*)\", 'x y']\nblock:\n  - one\n  - \"two\"\ncol0:\n- a\n- b\n"
      "metadata:\n  author: me\n  version: '1.0'\nallowed-tools: Read Grep\n---\n");
  ASSERT_EQ(fm.Find("flow")->kind, Kind::kList);
  EXPECT_EQ(fm.Find("flow")->list, (std::vector<std::string>{"Read", "Bash(git:*)", "x y"}));
  EXPECT_EQ(fm.Find("block")->list, (std::vector<std::string>{"one", "two"}));
  EXPECT_EQ(fm.Find("col0")->list, (std::vector<std::string>{"a", "b"}));
  ASSERT_EQ(fm.Find("metadata")->kind, Kind::kMap);
  EXPECT_EQ(fm.Find("metadata")->map.size(), 2u);
  EXPECT_EQ(fm.Find("metadata")->map[1].second, "1.0");
  EXPECT_EQ(fm.Get("flow"), "Read Bash(git:*) x y");
  EXPECT_EQ(fm.Get("allowed-tools"), "Read Grep");
}

TEST(FrontMatter, DeeperNestingIsKeptAsNestedAndTheRestStillParses) {
  // Claude's `hooks:` in a skill is deeper than the subset: skipped, not fatal.
  FrontMatter fm = Parse(
      "---\nname: a\nhooks:\n  PreToolUse:\n    - matcher: Bash\n      hooks:\n        - type: "
      "command\nflowmap: {a: 1}\nitems:\n  - key: v\ndescription: d\n---\nbody");
  EXPECT_EQ(fm.Find("hooks")->kind, Kind::kNested);
  EXPECT_EQ(fm.Find("flowmap")->kind, Kind::kNested);
  EXPECT_EQ(fm.Find("items")->kind, Kind::kNested);
  EXPECT_EQ(fm.Get("description"), "d");
  EXPECT_EQ(fm.body, "body");
}

TEST(FrontMatter, HostileDeepNestingCostsOnePass) {
  std::string text = "---\ndeep:\n";
  for (int i = 1; i < 1500; ++i) text += std::string(i, ' ') + "k" + std::to_string(i) + ":\n";
  text += "name: after\n---\n";
  FrontMatter fm = Parse(text);
  EXPECT_EQ(fm.Find("deep")->kind, Kind::kNested);
  EXPECT_EQ(fm.Get("name"), "after");
  std::string flow = "---\nx: " + std::string(100000, '[') + "\n---\n";
  auto r = ParseFrontMatter(flow, "f.md");
  EXPECT_FALSE(r.ok());  // an unclosed '[' on its line
  EXPECT_NE(r.error().message.find("f.md:2:"), std::string::npos) << r.error().message;
}

TEST(FrontMatter, ErrorsNameTheFileAndLine) {
  EXPECT_NE(ErrorOf("---\nname: x\n").find("f.md:1: the front matter opened here has no closing"),
            std::string::npos);
  EXPECT_NE(ErrorOf("---\nname: x\nname: y\n---\n").find("f.md:3: the key \"name\" appears twice "
                                                         "(first on line 2)"),
            std::string::npos);
  EXPECT_NE(ErrorOf("---\nok: 1\njust text\n---\n").find("f.md:3: expected \"key: value\""),
            std::string::npos);
  EXPECT_NE(ErrorOf("---\na: \"open\n---\n").find("f.md:2: the double-quoted string is not closed"),
            std::string::npos);
  EXPECT_NE(ErrorOf("---\na: 'open\n---\n").find("f.md:2: the single-quoted"), std::string::npos);
  EXPECT_NE(ErrorOf("---\nlist:\n\t- a\n---\n").find("f.md:3: a tab in the indentation"),
            std::string::npos);
  EXPECT_NE(ErrorOf("---\n  indented: 1\n---\n").find("f.md:2: this line is indented"),
            std::string::npos);
  EXPECT_NE(ErrorOf("---\na: \"bad \\q\"\n---\n").find("f.md:2: unknown escape \\q"),
            std::string::npos);
  EXPECT_NE(ErrorOf("---\na: [1, 2\n---\n").find("f.md:2: the list opened with '['"),
            std::string::npos);
  EXPECT_NE(ErrorOf("---\na:b\n---\n").find("f.md:2:"), std::string::npos);
}

TEST(FrontMatter, BinaryAndHugeInputAreRefusedClearly) {
  std::string bin("---\nname: x\n---\n\0\x01\x02", 19);
  EXPECT_NE(ErrorOf(bin).find("f.md: not a text file"), std::string::npos);
  EXPECT_NE(ErrorOf("---\nname: \xff\xfe\n---\n").find("not UTF-8"), std::string::npos);
  std::string huge = "---\n";
  for (size_t i = 0; i < kMaxFrontMatterLines + 10; ++i) huge += "k" + std::to_string(i) + ": v\n";
  EXPECT_NE(ErrorOf(huge).find("longer than 2000 lines"), std::string::npos);
  // A huge body after a small block is fine: only the block is parsed.
  FrontMatter fm = Parse("---\nname: x\n---\n" + std::string(1 << 20, 'b'));
  EXPECT_EQ(fm.body.size(), 1u << 20);
}

TEST(FrontMatter, ByteOrderMarkAndDotsCloser) {
  FrontMatter fm = Parse("\xEF\xBB\xBF---\nname: x\n...\nbody");
  EXPECT_TRUE(fm.present);
  EXPECT_EQ(fm.Get("name"), "x");
  EXPECT_EQ(fm.body, "body");
}

// Mutated files: never a crash or a hang, and every error names the file
// (and, past the first check, a line).
TEST(FrontMatter, MutatedInputAlwaysParsesOrNamesTheFile) {
  const std::string seeds[] = {
      "---\nname: a\ndescription: \"x y\"\nlist:\n  - a\n  - 'b'\nmeta:\n  k: v\n---\nbody",
      "---\nd: |\n  one\n  two\nf: [a, b]\ng: >-\n  x\n---\n",
      "---\nhooks:\n  Pre:\n    - matcher: B\n---\n"};
  const char alphabet[] = "-:[]{}'\"|># \n\t\\u0a";
  std::mt19937 rng(11);
  int parsed = 0;
  for (int i = 0; i < 20000; ++i) {
    std::string s = seeds[rng() % 3];
    for (int k = 0, n = 1 + rng() % 4; k < n && !s.empty(); ++k) {
      size_t at = rng() % s.size();
      switch (rng() % 3) {
        case 0: s[at] = alphabet[rng() % (sizeof alphabet - 1)]; break;
        case 1: s.erase(at, 1 + rng() % 4); break;
        default: s.insert(at, 1, alphabet[rng() % (sizeof alphabet - 1)]);
      }
    }
    auto r = ParseFrontMatter(s, "m.md");
    if (r.ok()) {
      ++parsed;
      continue;
    }
    ASSERT_EQ(r.error().message.rfind("m.md", 0), 0u) << r.error().message;
    ASSERT_EQ(r.error().kind, "parse");
  }
  EXPECT_GT(parsed, 1000);  // the mutations are not all fatal
}

}  // namespace
}  // namespace sepp::ext
