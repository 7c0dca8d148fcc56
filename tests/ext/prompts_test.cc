// Prompt templates: pi's and Claude's argument rules, front matter, the
// folders' precedence, and slash commands from templates and skills.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "base/ids.h"
#include "ext/prompts/prompt_template.h"
#include "ext/prompts/slash_commands.h"

namespace sepp::ext {
namespace {
namespace fs = std::filesystem;

PromptTemplate T(const std::string& body, ArgumentRules rules,
                 std::vector<std::string> names = {}) {
  PromptTemplate t;
  t.name = "t";
  t.body = body;
  t.rules = rules;
  t.argument_names = std::move(names);
  return t;
}

TEST(PromptTemplate, PiRulesAreOneBasedWithSlices) {
  auto pi = ArgumentRules::kPi;
  // The research's measured case: the two ecosystems differ on $1.
  EXPECT_EQ(ExpandTemplate(T("Please review $1 with focus $2. All: $ARGUMENTS", pi), "src/a.c perf"),
            "Please review src/a.c with focus perf. All: src/a.c perf");
  EXPECT_EQ(ExpandTemplate(T("[$@] [${@:2}] [${@:2:1}] [$3] [$10]", pi), "a b c"),
            "[a b c] [b c] [b] [c] []");
  EXPECT_EQ(ExpandTemplate(T("no placeholders", pi), "dropped args"), "no placeholders");
  EXPECT_EQ(ExpandTemplate(T("cost $ 5 and ${@:x} and $", pi), "a"), "cost $ 5 and ${@:x} and $");
  EXPECT_EQ(ExpandTemplate(T("$1|$2", pi), "\"two words\" 'and more'"), "two words|and more");
}

TEST(PromptTemplate, ClaudeRulesAreZeroBasedWithNamesAndTheFallback) {
  auto cl = ArgumentRules::kClaude;
  EXPECT_EQ(ExpandTemplate(T("Please review $1 with focus $2. All: $ARGUMENTS", cl), "src/a.c perf"),
            "Please review perf with focus . All: src/a.c perf");
  EXPECT_EQ(ExpandTemplate(T("$0 / $ARGUMENTS[1] / $ARGUMENTS[9]", cl), "x y"), "x / y / ");
  EXPECT_EQ(ExpandTemplate(T("file=$file line=$line_no $filename", cl, {"file", "line_no"}), "a.c 7"),
            "file=a.c line=7 $filename");
  EXPECT_EQ(ExpandTemplate(T("costs \\$5", cl), ""), "costs $5");
  EXPECT_EQ(ExpandTemplate(T("Review the diff.", cl), "carefully now"),
            "Review the diff.\n\nARGUMENTS: carefully now");
  EXPECT_EQ(ExpandTemplate(T("Review the diff.", cl), "   "), "Review the diff.");
}

TEST(PromptTemplate, SplitArgumentsLikeAShell) {
  EXPECT_EQ(SplitArguments("a  'b c' \"d \\\"e\\\"\" f\\ g"),
            (std::vector<std::string>{"a", "b c", "d \"e\"", "f g"}));
  EXPECT_EQ(SplitArguments("it's broken"), (std::vector<std::string>{"it's", "broken"}));
  EXPECT_EQ(SplitArguments("''"), (std::vector<std::string>{""}));
  EXPECT_TRUE(SplitArguments("   ").empty());
}

TEST(PromptTemplate, FrontMatterDescriptionHintAndNames) {
  auto t = ParsePromptTemplate("---\ndescription: Review code\nargument-hint: <path> [focus]\n"
                               "arguments: [path, focus]\n---\nReview $path for $focus\n",
                               "/x/review.md", ArgumentRules::kClaude);
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_EQ(t->name, "review");
  EXPECT_EQ(t->description, "Review code");
  EXPECT_EQ(t->argument_hint, "<path> [focus]");
  EXPECT_EQ(ExpandTemplate(*t, "src/ speed"), "Review src/ for speed\n");
  auto plain = ParsePromptTemplate("\n\n  Summarise the changes\nmore\n", "/x/sum.md", ArgumentRules::kPi);
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(plain->description, "Summarise the changes");
  auto bad = ParsePromptTemplate("---\narguments: [\"1x\"]\n---\n", "/x/b.md", ArgumentRules::kClaude);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("/x/b.md:2: the argument name \"1x\""), std::string::npos);
  auto unterminated = ParsePromptTemplate("---\ndescription: x\n", "/x/u.md", ArgumentRules::kPi);
  ASSERT_FALSE(unterminated.ok());
  EXPECT_NE(unterminated.error().message.find("/x/u.md:1:"), std::string::npos);
  auto badname = ParsePromptTemplate("x", "/x/has space.md", ArgumentRules::kPi);
  EXPECT_FALSE(badname.ok());
}

class Commands : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("sepp-prompts-" + ShortId());
    fs::create_directories(root_);
  }
  void TearDown() override { fs::remove_all(root_); }
  void Write(const fs::path& p, const std::string& text) {
    fs::create_directories(p.parent_path());
    std::ofstream(p) << text;
  }
  fs::path root_;
};

TEST_F(Commands, FoldersPickTheRulesAndTheFirstOfANameWins) {
  Write(root_ / "p/.sepp/prompts/review.md", "pi: $1");
  Write(root_ / "p/.claude/commands/review.md", "claude: $1");
  Write(root_ / "p/.claude/commands/fix.md", "claude fix: $0");
  Write(root_ / "p/.claude/commands/notes.txt", "not a template");
  Write(root_ / "p/.claude/commands/broken.md", "---\nbad line\n---\n");
  std::vector<PromptRoot> roots = {
      {root_ / "p/.sepp/prompts", "project", ".sepp/prompts", ArgumentRules::kPi},
      {root_ / "p/.claude/commands", "project", ".claude/commands", ArgumentRules::kClaude}};
  PromptSet set = LoadPrompts(roots);
  ASSERT_EQ(set.prompts.size(), 2u);
  EXPECT_EQ(set.prompts[0].name, "fix");
  EXPECT_EQ(set.prompts[1].rules, ArgumentRules::kPi);
  size_t shadowed = 0, broken = 0;
  for (const auto& i : set.infos) {
    for (const auto& e : i.errors) {
      shadowed += e.find("shadowed by") == 0;
      broken += e.find("broken.md:2: expected \"key: value\"") != std::string::npos;
    }
  }
  EXPECT_EQ(shadowed, 1u);
  EXPECT_EQ(broken, 1u);
  SlashCommands cmds(std::move(set), nullptr);
  EXPECT_EQ(cmds.Expand("/review a b").value_or(""), "pi: a");
  EXPECT_EQ(cmds.Expand("/fix a b").value_or(""), "claude fix: a");
  EXPECT_EQ(cmds.Expand("/fix").value_or(""), "claude fix: ");
  EXPECT_FALSE(cmds.Expand("/etc/hosts looks odd").has_value());
  EXPECT_FALSE(cmds.Expand("review a").has_value());
  EXPECT_FALSE(cmds.Expand("/").has_value());
  ASSERT_EQ(cmds.List().size(), 2u);
  EXPECT_EQ(cmds.List()[0].source, "prompt");
}

TEST_F(Commands, SkillsAreCommandsInBothFormsAndATemplateKeepsItsName) {
  Write(root_ / "prompts/pdf.md", "template pdf $1");
  auto skills = std::make_shared<SkillSet>();
  for (const char* n : {"pdf", "lint", "secret"}) {
    Skill s;
    s.name = n;
    s.description = std::string("skill ") + n;
    s.body = std::string("Body of ") + n + "\n";
    s.dir = root_ / n;
    s.user_invocable = std::string(n) != "secret";
    skills->skills.push_back(s);
  }
  SlashCommands cmds(LoadPrompts({{root_ / "prompts", "user", "~/p", ArgumentRules::kPi}}), skills);
  EXPECT_EQ(cmds.Expand("/pdf x").value_or(""), "template pdf x");
  std::string pdf = cmds.Expand("/skill:pdf fill form.pdf").value_or("");
  EXPECT_NE(pdf.find("<skill_content name=\"pdf\">\nBody of pdf"), std::string::npos);
  EXPECT_NE(pdf.find("ARGUMENTS: fill form.pdf"), std::string::npos);
  EXPECT_NE(cmds.Expand("/lint").value_or("").find("Body of lint"), std::string::npos);
  EXPECT_FALSE(cmds.Expand("/secret").has_value());  // user-invocable: false
  // A Claude skill takes Claude's rules and ${CLAUDE_SKILL_DIR}.
  auto claude = std::make_shared<SkillSet>();
  Skill c;
  c.name = "fix";
  c.description = "d";
  c.body = "Run ${CLAUDE_SKILL_DIR}/scripts/fix.sh on $0, then $ARGUMENTS[1].\n";
  c.dir = root_ / "fix";
  c.claude_rules = true;
  claude->skills.push_back(c);
  SlashCommands cc(PromptSet{}, claude);
  std::string fixed = cc.Expand("/fix a.c b.c").value_or("");
  EXPECT_NE(fixed.find("Run " + (root_ / "fix").string() + "/scripts/fix.sh on a.c, then b.c."),
            std::string::npos) << fixed;
  EXPECT_EQ(fixed.find("ARGUMENTS:"), std::string::npos);
  std::vector<std::string> names;
  for (const auto& c : cmds.List()) names.push_back(c.source + ":" + c.name);
  EXPECT_EQ(names, (std::vector<std::string>{"prompt:pdf", "skill:skill:pdf", "skill:lint"}));
}

// The shipped examples load without a warning and do what their docs say.
TEST(Examples, TheExampleSkillAndTemplateLoadCleanly) {
  fs::path ex = fs::path(SEPP_SOURCE_DIR) / "examples";
  SkillSet skills = LoadSkills({{ex / "skills", "user", "examples/skills"}});
  ASSERT_EQ(skills.skills.size(), 1u);
  EXPECT_TRUE(skills.warnings.empty()) << skills.warnings[0];
  EXPECT_EQ(skills.skills[0].name, "release-notes");
  EXPECT_NE(skills.skills[0].body.find("scripts/changes.sh"), std::string::npos);
  PromptSet prompts = LoadPrompts({{ex / "prompts", "user", "examples/prompts", ArgumentRules::kPi}});
  ASSERT_EQ(prompts.prompts.size(), 1u);
  EXPECT_TRUE(prompts.warnings.empty());
  EXPECT_EQ(prompts.prompts[0].argument_hint, "<path> [focus...]");
  std::string out = ExpandTemplate(prompts.prompts[0], "src/main.cc error handling");
  EXPECT_NE(out.find("Review src/main.cc for bugs first"), std::string::npos);
  EXPECT_NE(out.find("\nerror handling\n"), std::string::npos);
}

}  // namespace
}  // namespace sepp::ext
