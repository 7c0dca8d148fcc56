// Skills: parsing, discovery with precedence and collisions, the catalog
// within its budget, and the skill tool — including attacks on what it
// reads outside the sandbox.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "base/ids.h"
#include "ext/skills/skill_catalog.h"
#include "ext/skills/skill_folders.h"
#include "ext/skills/skill_tool.h"
#include "sandbox/defaults.h"

namespace sepp::ext {
namespace {
namespace fs = std::filesystem;

void Write(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << text;
}

std::string SkillMd(const std::string& name, const std::string& desc, const std::string& body = "Do it.\n") {
  return "---\nname: " + name + "\ndescription: " + desc + "\n---\n" + body;
}

class Skills : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("sepp-skills-" + ShortId());
    fs::create_directories(root_);
    root_ = fs::canonical(root_);
  }
  void TearDown() override { fs::remove_all(root_); }
  fs::path root_;
};

TEST_F(Skills, ParseIsLenientWhereTheSpecAllowsAndStrictWhereItMatters) {
  auto ok = ParseSkill(SkillMd("Other_Name", "Does things"), root_ / "dir/SKILL.md", root_ / "dir");
  ASSERT_TRUE(ok.ok()) << ok.error().message;
  EXPECT_EQ(ok->name, "Other_Name");
  ASSERT_EQ(ok->warnings.size(), 2u);  // not the spec's form; differs from its folder
  EXPECT_NE(ok->warnings[1].find("differs from its folder \"dir\""), std::string::npos);

  auto noname = ParseSkill("---\ndescription: d\n---\n", root_ / "pdf/SKILL.md", root_ / "pdf");
  ASSERT_TRUE(noname.ok());
  EXPECT_EQ(noname->name, "pdf");

  auto nodesc = ParseSkill("---\nname: pdf\n---\nbody", root_ / "pdf/SKILL.md", root_ / "pdf");
  ASSERT_FALSE(nodesc.ok());
  EXPECT_NE(nodesc.error().message.find("SKILL.md:1: a skill needs a \"description\""),
            std::string::npos);
  auto badname = ParseSkill("---\nname: <x> y\ndescription: d\n---\n", root_ / "x/SKILL.md", root_ / "x");
  ASSERT_FALSE(badname.ok());
  EXPECT_NE(badname.error().message.find("SKILL.md:2: the name \"<x> y\" cannot be used"),
            std::string::npos);
  auto nofm = ParseSkill("just text", root_ / "x/SKILL.md", root_ / "x");
  ASSERT_FALSE(nofm.ok());
  EXPECT_NE(nofm.error().message.find("SKILL.md:1: a SKILL.md starts with front matter"),
            std::string::npos);
  auto listdesc = ParseSkill("---\nname: x\ndescription: [a, b]\n---\n", root_ / "x/SKILL.md", root_ / "x");
  ASSERT_FALSE(listdesc.ok());
  EXPECT_NE(listdesc.error().message.find("SKILL.md:3: \"description\" must be a single text"),
            std::string::npos);

  auto hidden = ParseSkill("---\nname: x\ndescription: d\ndisable-model-invocation: true\n"
                           "user-invocable: false\n---\n", root_ / "x/SKILL.md", root_ / "x");
  ASSERT_TRUE(hidden.ok());
  EXPECT_FALSE(hidden->model_invocable);
  EXPECT_FALSE(hidden->user_invocable);
  auto longdesc = ParseSkill(SkillMd("x", std::string(2000, 'd')), root_ / "x/SKILL.md", root_ / "x");
  ASSERT_TRUE(longdesc.ok());
  EXPECT_EQ(longdesc->description.size(), kMaxSkillDescriptionChars);
}

TEST_F(Skills, PrecedenceProjectFirstAndCollisionsAreReportedNotSilent) {
  fs::path ws = root_ / "repo" / "sub";
  fs::create_directories(root_ / "repo" / ".git");
  Write(ws / ".sepp/skills/deploy/SKILL.md", SkillMd("deploy", "project deploy"));
  Write(root_ / "repo/.agents/skills/lint/SKILL.md", SkillMd("lint", "repo lint"));
  Write(ws / ".claude/skills/deploy/SKILL.md", SkillMd("deploy", "claude deploy"));
  Write(root_ / "home/.claude/skills/deploy/SKILL.md", SkillMd("deploy", "user deploy"));
  Write(root_ / "home/.claude/skills/broken/SKILL.md", "---\nname: broken\n");
  Write(root_ / "home/.claude/skills/.hidden/SKILL.md", SkillMd("hidden", "never seen"));
  Write(root_ / "home/.claude/skills/node_modules/SKILL.md", SkillMd("nm", "never seen"));
  std::vector<SkillRoot> roots = {
      {ws / ".sepp/skills", "project", ".sepp/skills"},
      {ws / ".agents/skills", "project", ".agents/skills"},
      {root_ / "repo/.agents/skills", "project", "../.agents/skills"},
      {ws / ".claude/skills", "project", ".claude/skills"},
      {root_ / "home/.claude/skills", "user", "~/.claude/skills"}};
  SkillSet set = LoadSkills(roots);
  ASSERT_EQ(set.skills.size(), 2u);
  EXPECT_EQ(set.skills[0].name, "deploy");
  EXPECT_EQ(set.skills[0].description, "project deploy");
  EXPECT_EQ(set.skills[1].name, "lint");
  EXPECT_FALSE(set.skills[0].claude_rules);  // .sepp/skills
  EXPECT_FALSE(set.skills[1].claude_rules);  // .agents/skills
  size_t shadowed = 0, broken = 0;
  for (const auto& info : set.infos) {
    if (!info.loaded && !info.errors.empty() &&
        info.errors.back().find("shadowed by " + (ws / ".sepp/skills/deploy/SKILL.md").string()) == 0)
      ++shadowed;
    if (info.name == "broken") {
      ++broken;
      EXPECT_FALSE(info.loaded);
      EXPECT_NE(info.errors[0].find("SKILL.md:1: the front matter opened here has no closing"),
                std::string::npos);
    }
  }
  EXPECT_EQ(shadowed, 2u);
  EXPECT_EQ(broken, 1u);
  size_t warned = 0;
  for (const auto& w : set.warnings) warned += w.find("is shadowed by") != std::string::npos;
  EXPECT_EQ(warned, 2u);
  SkillSet claude = LoadSkills({{ws / ".claude/skills", "project", ".claude/skills"}});
  ASSERT_EQ(claude.skills.size(), 1u);
  EXPECT_TRUE(claude.skills[0].claude_rules);
}

TEST_F(Skills, HostileSkillFilesAreSkippedWithAReasonAndNeverBlock) {
  fs::path r = root_ / "skills";
  Write(r / "huge/SKILL.md", "---\nname: huge\ndescription: d\n---\n" +
                                 std::string(kMaxSkillFileBytes + 1, 'x'));
  fs::create_directories(r / "fifo");
  ASSERT_EQ(mkfifo((r / "fifo/SKILL.md").c_str(), 0600), 0);
  fs::create_directories(r / "zero");
  fs::create_symlink("/dev/zero", r / "zero/SKILL.md");
  Write(r / "binary/SKILL.md", std::string("---\nname: binary\n\0\0\0---\n", 22));
  Write(r / "good/SKILL.md", SkillMd("good", "fine"));
  SkillSet set = LoadSkills({{r, "user", "~/skills"}});
  ASSERT_EQ(set.skills.size(), 1u);
  EXPECT_EQ(set.skills[0].name, "good");
  std::map<std::string, std::string> why;
  for (const auto& i : set.infos)
    if (!i.loaded) why[i.name] = i.errors.empty() ? "" : i.errors[0];
  ASSERT_EQ(why.size(), 4u);
  for (const auto& [name, error] : why) {
    EXPECT_NE(error.find((r / name / "SKILL.md").string()), std::string::npos) << name << ": " << error;
  }
  EXPECT_NE(why["binary"].find("not a text file"), std::string::npos) << why["binary"];
}

// User skill folders become readable for commands; inside a denied path
// (sepp's home) only as a hole of their own, and never one that leads out
// of its skills folder, nor when a root shows the denied path.
TEST_F(Skills, UserSkillFoldersBecomeReadableAndHolesOnlyInsideADeniedPath) {
  SkillSet set;
  auto add = [&](const std::string& name, const fs::path& dir, const std::string& scope,
                 const fs::path& root) {
    Skill s;
    s.name = name;
    s.dir = dir;
    s.scope = scope;
    s.root = root;
    s.origin = root.filename().string();
    fs::create_directories(dir / "scripts");
    set.skills.push_back(s);
  };
  add("claude", root_ / "home/.claude/skills/claude", "user", root_ / "home/.claude/skills");
  add("hidden", root_ / "home/.sepp/skills/hidden", "user", root_ / "home/.sepp/skills");
  // A "skill" whose folder is a link to elsewhere in sepp's home.
  add("escape", root_ / "home/.sepp/sessions", "user", root_ / "home/.sepp/skills");
  add("project", root_ / "ws/.agents/skills/project", "project", root_ / "ws/.agents/skills");
  add("inside", root_ / "ws/inside", "user", root_ / "ws");
  sandbox::Policy p = sandbox::DefaultToolPolicy(root_ / "ws");
  p.deny_paths.push_back((root_ / "home/.sepp").string());
  auto before = p.read_roots;
  auto warnings = LetCommandsReadSkillFolders(set, &p);
  ASSERT_EQ(p.read_roots.size(), before.size() + 1);
  EXPECT_EQ(p.read_roots.back(), (root_ / "home/.claude/skills/claude").string());
  EXPECT_EQ(p.read_holes, std::vector<std::string>{(root_ / "home/.sepp/skills/hidden").string()});
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("skill escape: its folder"), std::string::npos) << warnings[0];
  EXPECT_TRUE(p.write_roots == sandbox::DefaultToolPolicy(root_ / "ws").write_roots);

  // A root shows sepp's home: its mask would cover a hole, so none is made.
  sandbox::Policy shown = sandbox::DefaultToolPolicy(root_ / "ws");
  shown.deny_paths.push_back((root_ / "home/.sepp").string());
  shown.read_roots.push_back((root_ / "home").string());
  auto told = LetCommandsReadSkillFolders(set, &shown);
  EXPECT_TRUE(shown.read_holes.empty());
  bool said = false;
  for (const auto& w : told) said |= w.find("skill hidden: its scripts are in") != std::string::npos;
  EXPECT_TRUE(said);
}

TEST_F(Skills, SkillRootsWalkAgentsFoldersUpToTheGitRootOnly) {
  fs::create_directories(root_ / "repo/.git");
  fs::create_directories(root_ / "repo/a/b");
  auto roots = SkillRoots(root_ / "repo/a/b");
  std::vector<std::string> agents;
  for (const auto& r : roots)
    if (r.dir.parent_path().filename() == ".agents" && r.scope == "project")
      agents.push_back(r.dir.parent_path().parent_path().string());
  EXPECT_EQ(agents, (std::vector<std::string>{(root_ / "repo/a/b").string(),
                                              (root_ / "repo/a").string(),
                                              (root_ / "repo").string()}));
  EXPECT_EQ(roots.front().label, ".sepp/skills");
  EXPECT_EQ(roots.back().label, "~/.codex/skills");
}

TEST_F(Skills, CatalogStaysWithinItsBudgetAndSaysWhatIsLeftOut) {
  SkillSet set;
  for (int i = 0; i < 50; ++i) {
    Skill s;
    s.name = "skill-" + std::to_string(100 + i);
    s.description = "Use for task " + std::to_string(i) + " <when> & \"why\"";
    set.skills.push_back(s);
  }
  set.skills[3].model_invocable = false;
  std::string all = SkillCatalogPrompt(set, 1000000);
  EXPECT_NE(all.find("<skill><name>skill-100</name><description>Use for task 0 &lt;when&gt; "
                     "&amp; &quot;why&quot;</description></skill>"),
            std::string::npos);
  EXPECT_EQ(all.find("skill-103"), std::string::npos);  // disable-model-invocation
  EXPECT_EQ(all.find("not listed"), std::string::npos);
  std::string small = SkillCatalogPrompt(set, 1500);
  EXPECT_LE(small.size(), 1500u + 200u);
  EXPECT_NE(small.find("more skills are not listed here"), std::string::npos);
  EXPECT_NE(small.find("call the skill tool without a name"), std::string::npos);
  EXPECT_EQ(SkillCatalogPrompt(SkillSet{}), "");
}

class SkillToolTest : public Skills {
 protected:
  void SetUp() override {
    Skills::SetUp();
    dir_ = root_ / "skills" / "pdf";
    Write(dir_ / "SKILL.md", SkillMd("pdf", "Fill PDF forms", "Read references/FORMS.md first.\n"));
    Write(dir_ / "references/FORMS.md", "forms guide\n");
    Write(dir_ / "scripts/fill.sh", "echo filled\n");
    Write(dir_ / ".env", "SECRET=1\n");
    Write(dir_ / "assets/logo.bin", std::string("\x89PNG\0\0", 6));
    Write(root_ / "outside.txt", "outside secret\n");
    auto set = std::make_shared<SkillSet>(LoadSkills({{root_ / "skills", "user", "~/skills"}}));
    ASSERT_EQ(set->skills.size(), 1u);
    tool_ = MakeSkillTool(set);
    policy_ = sandbox::DefaultToolPolicy(root_);
    ctx_.cwd = root_;
    ctx_.policy = &policy_;
  }
  tools::ToolResult Call(Json args) { return tools::RunTool(*tool_, args, ctx_); }
  fs::path dir_;
  std::unique_ptr<tools::Tool> tool_;
  sandbox::Policy policy_;
  tools::ToolContext ctx_;
};

TEST_F(SkillToolTest, LoadsTheBodyWithItsFilesThenAFileItPointsTo) {
  auto r = Call({{"name", "pdf"}});
  ASSERT_FALSE(r.is_error) << r.text;
  EXPECT_NE(r.text.find("<skill_content name=\"pdf\">\nRead references/FORMS.md first."), std::string::npos);
  EXPECT_NE(r.text.find("Skill directory: " + dir_.string()), std::string::npos);
  EXPECT_NE(r.text.find("<file>references/FORMS.md</file>"), std::string::npos);
  EXPECT_NE(r.text.find("<file>scripts/fill.sh</file>"), std::string::npos);
  EXPECT_EQ(r.text.find(".env"), std::string::npos);  // dot-files are not listed
  auto f = Call({{"name", "pdf"}, {"file", "references/FORMS.md"}});
  ASSERT_FALSE(f.is_error) << f.text;
  EXPECT_NE(f.text.find("forms guide"), std::string::npos);
  auto list = Call(Json::object());
  EXPECT_FALSE(list.is_error);
  EXPECT_NE(list.text.find("- pdf: Fill PDF forms"), std::string::npos);
  auto unknown = Call({{"name", "nope"}});
  EXPECT_TRUE(unknown.is_error);
  EXPECT_NE(unknown.text.find("there is no skill \"nope\""), std::string::npos);
  EXPECT_TRUE(Call({{"name", 5}}).is_error);
  EXPECT_TRUE(Call(Json::array()).is_error);
}

TEST_F(SkillToolTest, AttacksOnWhatItReadsAreRefused) {
  // Escapes by path.
  for (const char* bad : {"../../outside.txt", "/etc/passwd", "references/../../../outside.txt", ""}) {
    auto r = Call({{"name", "pdf"}, {"file", bad}});
    if (std::string(bad).empty()) {
      EXPECT_FALSE(r.is_error);  // "" is the body
      continue;
    }
    EXPECT_TRUE(r.is_error) << bad;
    EXPECT_EQ(r.text.find("outside secret"), std::string::npos);
    EXPECT_EQ(r.text.find("root:"), std::string::npos);
  }
  // A planted symlink inside the skill (what a command in a writable
  // .claude/skills could do), to a file and through a folder.
  fs::create_symlink(root_ / "outside.txt", dir_ / "references/link.md");
  fs::create_symlink(root_, dir_ / "up");
  for (const char* bad : {"references/link.md", "up/outside.txt"}) {
    auto r = Call({{"name", "pdf"}, {"file", bad}});
    EXPECT_TRUE(r.is_error) << bad;
    EXPECT_NE(r.text.find("symbolic link"), std::string::npos) << r.text;
    EXPECT_EQ(r.text.find("outside secret"), std::string::npos);
  }
  // The skill folder itself swapped for a link after start-up.
  fs::rename(dir_, root_ / "skills" / "pdf-real");
  fs::create_symlink(root_, dir_);
  auto swapped = Call({{"name", "pdf"}, {"file", "outside.txt"}});
  EXPECT_TRUE(swapped.is_error);
  EXPECT_NE(swapped.text.find("changed since sepp started"), std::string::npos) << swapped.text;
  fs::remove(dir_);
  fs::rename(root_ / "skills" / "pdf-real", dir_);
  // Secret names, binary files, FIFOs, and the legitimate file next to them.
  auto env = Call({{"name", "pdf"}, {"file", ".env"}});
  EXPECT_TRUE(env.is_error);
  EXPECT_EQ(env.text.find("SECRET"), std::string::npos);
  EXPECT_TRUE(Call({{"name", "pdf"}, {"file", "assets/logo.bin"}}).is_error);
  ASSERT_EQ(mkfifo((dir_ / "references/pipe").c_str(), 0600), 0);
  auto fifo = Call({{"name", "pdf"}, {"file", "references/pipe"}});  // must not block
  EXPECT_TRUE(fifo.is_error);
  Write(dir_ / "references/big.md", std::string(kMaxSkillResourceBytes + 1, 'x'));
  auto big = Call({{"name", "pdf"}, {"file", "references/big.md"}});
  EXPECT_TRUE(big.is_error);
  EXPECT_NE(big.text.find("read parts of it with bash"), std::string::npos);
  EXPECT_FALSE(Call({{"name", "pdf"}, {"file", "scripts/fill.sh"}}).is_error);
}

}  // namespace
}  // namespace sepp::ext
