// The file tools honour Policy::read_holes (a skill's folder shown read only
// inside sepp's hidden home) exactly as the session sandbox's mounts do, and
// nothing more: run through the real tool worker, so the kernel and the
// guard both decide, and every attack is refused by the guard in words.
#include <gtest/gtest.h>

#include <filesystem>

#include "tools/access.h"
#include "worker_fixture.h"

namespace sepp::tools {
namespace {

namespace fs = std::filesystem;

class ReadHoleTest : public testing::WorkerTest {
 protected:
  void SetUp() override {
    WorkerTest::SetUp();
    if (IsSkipped()) return;
    sh_ = home_ / ".sepp";
    Put(sh_ / "skills/tool/SKILL.md", "HOLE-SKILL-BODY\n");
    Put(sh_ / "skills/tool/scripts/run.sh", "echo run\n");
    Put(sh_ / "skills/other/notes.txt", "OTHER-SKILL-SECRET\n");
    Put(sh_ / "auth.json", "SEPP-AUTH-SECRET\n");
    fs::create_symlink("../../auth.json", sh_ / "skills/tool/back");
    fs::create_symlink(sh_ / "skills/other", sh_ / "skills/tool/sideways");
    hole_ = fs::canonical(sh_ / "skills/tool");
  }
  // The policy of a session whose home is not a root: sepp's home denied,
  // the skill's folder a hole in it (as ext/skills/skill_folders.cc makes it).
  void UseHolePolicy(bool home_is_a_root) {
    policy_ = sandbox::DefaultToolPolicy(ws_);
    policy_.limits.timeout_s = 60;
    policy_.deny_paths.push_back(sh_.string());
    if (home_is_a_root) policy_.read_roots.push_back(home_.string());
    policy_.read_holes.push_back((sh_ / "skills/tool").string());
    worker_ = std::make_unique<ToolWorker>(policy_, ws_, SEPP_BINARY_DIR "/sepp", false);
  }
  // by_guard: refused by the guard in words; false: inside the sandbox the
  // link's target is not there at all, so the guard resolves the dangling
  // link as its own path and the kernel's mount is what refuses.
  void ExpectRefused(const std::string& tool, const Json& args, const std::string& secret,
                     bool by_guard = true) {
    ToolResult r = Use(tool, args);
    EXPECT_TRUE(r.is_error) << tool << " " << args.dump() << ": " << r.text;
    if (by_guard)
      EXPECT_TRUE(r.details.is_object() && r.details.value("denied", false))
          << tool << " " << args.dump() << ": " << r.text;
    EXPECT_EQ(r.text.find(secret), std::string::npos) << r.text;
  }
  fs::path sh_, hole_;
};

TEST_F(ReadHoleTest, TheHoleIsReadAndListedWhileItsSiblingsAndWaysOutAreRefused) {
  UseHolePolicy(false);
  {  // the guard alone, in this process
    ToolContext ctx;
    ctx.cwd = ws_;
    ctx.policy = &policy_;
    PathGuard guard(ctx);
    auto d = guard.CheckRead(hole_ / "SKILL.md");
    EXPECT_FALSE(d.has_value()) << d->text;
    EXPECT_FALSE(guard.Hidden(hole_ / "SKILL.md"));
    EXPECT_TRUE(guard.CheckRead(sh_ / "auth.json").has_value());
    // On the host the links resolve: the guard itself refuses them.
    EXPECT_TRUE(guard.CheckRead(hole_ / "back").has_value());
    EXPECT_TRUE(guard.CheckRead(hole_ / "sideways/notes.txt").has_value());
    EXPECT_TRUE(guard.CheckRead(hole_.string() + "/../other/notes.txt").has_value());
  }
  // Legitimate work: the skill's own files, read and listed.
  ToolResult body = Use("read", {{"path", (hole_ / "SKILL.md").string()}});
  EXPECT_FALSE(body.is_error) << body.text;
  EXPECT_NE(body.text.find("HOLE-SKILL-BODY"), std::string::npos) << body.text;
  ToolResult list = Use("ls", {{"path", hole_.string()}});
  EXPECT_FALSE(list.is_error) << list.text;
  EXPECT_NE(list.text.find("SKILL.md"), std::string::npos) << list.text;
  EXPECT_NE(list.text.find("scripts"), std::string::npos) << list.text;
  // The sibling of the hole, the denied folder's own files.
  ExpectRefused("read", {{"path", (sh_ / "skills/other/notes.txt").string()}}, "OTHER-SKILL-SECRET");
  ExpectRefused("read", {{"path", (sh_ / "auth.json").string()}}, "SEPP-AUTH-SECRET");
  ExpectRefused("ls", {{"path", sh_.string()}}, "auth.json");
  ExpectRefused("ls", {{"path", (sh_ / "skills").string()}}, "other");
  // ".." out of the hole.
  ExpectRefused("read", {{"path", hole_.string() + "/../../auth.json"}}, "SEPP-AUTH-SECRET");
  ExpectRefused("read", {{"path", hole_.string() + "/../other/notes.txt"}}, "OTHER-SKILL-SECRET");
  // Symlinks inside the hole that point out of it.
  ExpectRefused("read", {{"path", (hole_ / "back").string()}}, "SEPP-AUTH-SECRET", false);
  ExpectRefused("read", {{"path", (hole_ / "sideways/notes.txt").string()}}, "OTHER-SKILL-SECRET", false);
  ExpectRefused("grep", {{"pattern", "SECRET"}, {"path", (hole_ / "sideways").string()}},
                "OTHER-SKILL-SECRET", false);
  // Read only: nothing is written into the hole.
  ToolResult w = Use("write", {{"path", (hole_ / "planted.txt").string()}, {"content", "x"}});
  EXPECT_TRUE(w.is_error) << w.text;
  EXPECT_FALSE(fs::exists(hole_ / "planted.txt"));
}

// Where a root shows the denied folder, the kernel keeps its mask over the
// hole (mounts.cc leaves the hole out): so does the guard.
TEST_F(ReadHoleTest, WhereARootShowsTheDeniedFolderTheMaskWins) {
  UseHolePolicy(true);
  ExpectRefused("read", {{"path", (hole_ / "SKILL.md").string()}}, "HOLE-SKILL-BODY");
  // The rest of the home is still read.
  ToolResult rc = Use("read", {{"path", (home_ / ".bashrc").string()}});
  EXPECT_FALSE(rc.is_error) << rc.text;
}

// A hole that is a deny path itself, or a file, opens nothing.
TEST_F(ReadHoleTest, AHoleThatIsADenyPathOrAFileOpensNothing) {
  policy_ = sandbox::DefaultToolPolicy(ws_);
  policy_.deny_paths.push_back(sh_.string());
  policy_.read_holes.push_back(sh_.string());
  policy_.read_holes.push_back((sh_ / "auth.json").string());
  ToolContext ctx;
  ctx.cwd = ws_;
  ctx.policy = &policy_;
  PathGuard guard(ctx);
  EXPECT_TRUE(guard.CheckRead(sh_ / "auth.json").has_value());
  EXPECT_TRUE(guard.CheckRead(sh_ / "skills/tool/SKILL.md").has_value());
  EXPECT_TRUE(guard.Hidden(sh_ / "auth.json"));
}

}  // namespace
}  // namespace sepp::tools
