// The file tools keep to the sandbox policy: secrets, outside reads and
// writes, protected paths, symlinks out of the workspace.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "sandbox/defaults.h"
#include "tool_test_util.h"
#include "base/file.h"
#include "base/paths.h"
#include "tools/access.h"
#include "tools/walk.h"

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
    // Typed where the guard refused, not read back from the words.
    ASSERT_EQ(r.denials.size(), 1u) << tool;
    EXPECT_EQ(r.denials[0].kind, sandbox::DenialKind::kSecret) << tool;
    EXPECT_EQ(r.denials[0].text, r.text) << tool;
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

// The guard resolves the policy's paths folder by folder, remembering each
// (access.cc, Resolver): every shape of link must still lead to the target.
TEST_F(AccessTest, DenyPathsSpelledThroughLinksAreDeniedAtTheirTargets) {
  const fs::path out = outside_.path();
  outside_.Write("real/keys/k.txt", "KEY UNDER A LINKED FOLDER");
  outside_.Write("real/chain.txt", "KEY AT THE END OF A CHAIN");
  outside_.Write("real/later.txt", "KEY NAMED BY ITS LINK");
  outside_.Write("real/other.txt", "neighbour text");
  fs::create_symlink(out / "real", out / "linkdir");
  fs::create_symlink(out / "real/chain.txt", out / "l2");
  fs::create_symlink(out / "l2", out / "l1");
  for (const char* d : {"linkdir/keys", "l1", "linkdir/later.txt", "linkdir/./missing/x"})
    policy_.deny_paths.push_back((out / d).string());
  for (const char* target : {"real/keys/k.txt", "real/chain.txt", "real/later.txt",
                             "linkdir/keys/k.txt", "l2", "l1"}) {
    ToolResult r = Run("read", {{"path", (out / target).string()}});
    EXPECT_TRUE(r.is_error) << target;
    EXPECT_NE(r.text.find("secret location"), std::string::npos) << target << ": " << r.text;
    EXPECT_EQ(r.text.find("KEY"), std::string::npos) << target;
  }
  ToolResult ok = Run("read", {{"path", (out / "linkdir/other.txt").string()}});
  EXPECT_NE(ok.text.find("neighbour text"), std::string::npos) << ok.text;
}

// The guard of a session is made once (the worker's), and resolves the
// policy's paths parent before child, taking what lies in an absent folder
// as absent without looking (access.cc, Resolver). Relative link targets,
// targets with "..", loops, and folders that appear after the guard was
// made must all keep their deny paths denied.
TEST_F(AccessTest, AGuardMadeOnceKeepsDenyPathsOfEveryShape) {
  const fs::path out = outside_.path();
  outside_.Write("real/keys/k.txt", "KEY BEHIND A RELATIVE LINK");
  outside_.Write("real/up/u.txt", "KEY BEHIND A LINK WITH DOTS");
  outside_.Write("real/other.txt", "neighbour text");
  fs::create_directories(out / "sub");
  fs::create_symlink("real/keys", out / "rel");         // relative, plain
  fs::create_symlink("../real/up", out / "sub/dots");   // relative, with ".."
  fs::create_symlink(out / "loop2", out / "loop1");     // a loop: unresolvable
  fs::create_symlink(out / "loop1", out / "loop2");
  for (const char* d : {"rel", "sub/dots", "loop1/secret", "later/deeper/secret.txt"})
    policy_.deny_paths.push_back((out / d).string());
  PathGuard guard(ctx_);
  // Made after the guard: its folder was absent when the guard looked.
  outside_.Write("later/deeper/secret.txt", "KEY IN A FOLDER MADE LATER");
  ctx_.guard = &guard;
  for (const char* target : {"real/keys/k.txt", "rel/k.txt", "real/up/u.txt", "sub/dots/u.txt",
                             "later/deeper/secret.txt", "loop1/secret"}) {
    ToolResult r = Run("read", {{"path", (out / target).string()}});
    EXPECT_TRUE(r.is_error) << target;
    EXPECT_EQ(r.text.find("KEY"), std::string::npos) << target << ": " << r.text;
  }
  for (const char* target : {"real/keys/k.txt", "real/up/u.txt", "later/deeper/secret.txt"})
    EXPECT_TRUE(guard.CheckRead(out / target).has_value()) << target;
  ToolResult ok = Run("read", {{"path", (out / "real/other.txt").string()}});
  EXPECT_NE(ok.text.find("neighbour text"), std::string::npos) << ok.text;
  ctx_.guard = nullptr;
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
  // Each refusal is typed by the guard: its kind and the path it refused.
  ASSERT_EQ(out.denials.size(), 1u);
  EXPECT_EQ(out.denials[0].kind, sandbox::DenialKind::kWrite);
  EXPECT_EQ(out.denials[0].target, (outside_.path() / "x.txt").string());
  ASSERT_EQ(hook.denials.size(), 1u);
  EXPECT_EQ(hook.denials[0].kind, sandbox::DenialKind::kProtected);
  EXPECT_EQ(fs::path(hook.denials[0].target).filename(), "pre-commit");
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
  ASSERT_EQ(r.denials.size(), 1u);
  EXPECT_EQ(r.denials[0].kind, sandbox::DenialKind::kRead);
  EXPECT_EQ(r.denials[0].target, (elsewhere.path() / "private.txt").string());
  EXPECT_TRUE(Run("read", {{"path", (outside_.path() / "notes.txt").string()}}).denials.empty());
}

// Every route into git's control surface, in every layout, is closed to the
// file tools: they write nothing inside any git directory (the workspace's,
// a nested repository's, a submodule's under .git/modules) nor a .git
// pointer file; reading git's files and writing the work tree go on.
TEST_F(AccessTest, NothingInAnyGitDirectoryIsWritten) {
  fs::create_directories(ctx_.cwd / "vendor/lib/.git");
  fs::create_directories(ctx_.cwd / ".git/modules/sub");
  fs::create_directories(ctx_.cwd / "sub");
  std::ofstream(ctx_.cwd / "sub/.git") << "gitdir: ../.git/modules/sub\n";
  std::ofstream(ctx_.cwd / ".git/HEAD") << "ref: refs/heads/main\n";
  for (const char* p : {".git/config", ".git/commondir", ".git/config.worktree",
                        ".git/info/attributes", ".git/info/exclude", ".git/hooks/post-checkout",
                        ".git/modules/sub/config", ".git/modules/sub/hooks/pre-commit",
                        ".git/worktrees/wt/commondir", "vendor/lib/.git/config", "sub/.git",
                        "./src/../.git/config"}) {
    for (const char* tool : {"write", "edit"}) {
      Json args = {{"path", p}, {"content", "[core]\n\tfsmonitor = evil\n"}};
      if (std::string(tool) == "edit")
        args = {{"path", p}, {"old_string", "gitdir"}, {"new_string", "evil"}};
      ToolResult r = Run(tool, args);
      EXPECT_TRUE(r.is_error) << tool << " " << p;
      EXPECT_NE(r.text.find("git directory"), std::string::npos) << tool << " " << p << ": " << r.text;
    }
  }
  EXPECT_FALSE(fs::exists(ctx_.cwd / ".git/commondir"));
  EXPECT_EQ(ReadFile(ctx_.cwd / "sub/.git").value(), "gitdir: ../.git/modules/sub\n");
  EXPECT_FALSE(Run("read", {{"path", ".git/HEAD"}}).is_error);
  EXPECT_FALSE(Run("write", {{"path", "sub/file.txt"}, {"content", "fine"}}).is_error);
  EXPECT_FALSE(Run("write", {{"path", ".gitignore"}, {"content", "build/\n"}}).is_error);
}

// A missing .sepp/ is protected like an existing one: no project
// configuration can be created by the file tools.
TEST_F(AccessTest, MissingSeppFolderIsProtected) {
  ASSERT_FALSE(fs::exists(ctx_.cwd / ".sepp"));
  for (const char* p : {".sepp/settings.toml", ".sepp/agents/evil.md", ".sepp"}) {
    ToolResult r = Run("write", {{"path", p}, {"content", "x"}});
    EXPECT_TRUE(r.is_error) << p;
  }
  EXPECT_FALSE(fs::exists(ctx_.cwd / ".sepp"));
}

// The default secret list, every entry (as docs/policy.md lists it; the
// sandbox tests hold the two together), with sepp started in the home
// folder: the file tools read none of them, and the file next to each.
TEST_F(AccessTest, EveryDefaultSecretIsRefusedAndItsNeighbourRead) {
  fs::path home = HomeDir();
  sandbox::Policy p = sandbox::DefaultToolPolicy(home);
  ToolContext ctx;
  ctx.cwd = home;
  ctx.policy = &p;
  PathGuard guard(ctx);
  for (const auto& e : sandbox::DefaultSecretEntries()) {
    if (e.rfind("~/", 0) == 0) {
      fs::path f = home / e.substr(2);
      EXPECT_TRUE(guard.CheckRead(f).has_value()) << e;
      EXPECT_TRUE(guard.CheckRead(f / "inside").has_value()) << e;
      EXPECT_FALSE(guard.CheckRead(f.parent_path() / "neighbour.txt").has_value()) << e;
    } else if (e.rfind("**/", 0) == 0) {
      std::string name = e.substr(3);
      for (size_t i; (i = name.find('*')) != std::string::npos;) name.replace(i, 1, "production");
      EXPECT_TRUE(guard.CheckRead(home / "project/backend" / name).has_value()) << e;
      EXPECT_TRUE(guard.CheckRead(home / name).has_value()) << e;
      EXPECT_FALSE(guard.CheckRead(home / "project/backend/neighbour.txt").has_value()) << e;
    } else if (e.rfind("!**/", 0) == 0) {
      EXPECT_FALSE(guard.CheckRead(home / "project" / e.substr(4)).has_value()) << e;
    } else {
      EXPECT_TRUE(guard.CheckRead(e).has_value()) << e;
    }
  }
}

// Name patterns look below the workspace: a workspace that itself lies in
// a folder named like a secret (.env.d) or like a git directory is usable.
TEST_F(AccessTest, NameChecksStartBelowTheWorkspace) {
  testing::TempDir outer;
  fs::path ws = outer.path() / ".env.d" / ".git" / "project";
  fs::create_directories(ws);
  sandbox::Policy p = sandbox::DefaultToolPolicy(ws);
  ToolContext ctx;
  ctx.cwd = ws;
  ctx.policy = &p;
  PathGuard guard(ctx);
  EXPECT_FALSE(guard.CheckRead(ws / "main.c").has_value());
  EXPECT_FALSE(guard.CheckWrite(ws / "main.c").has_value());
  EXPECT_TRUE(guard.CheckRead(ws / "sub/.env.d/x").has_value());
  EXPECT_TRUE(guard.CheckWrite(ws / "sub/.git/config").has_value());
}

// A walk's hider decides each entry from its own name; over a tree full of
// secret names, deny paths below the walk, a secret-named folder above the
// workspace and a second root inside the walk, it must hide exactly what
// Hidden() on the whole path hides, for walks from every folder.
TEST_F(AccessTest, AWalksHiderHidesExactlyWhatTheWholePathCheckHides) {
  testing::TempDir outer;
  fs::path ws = outer.path() / ".env.d" / "project";  // the workspace lies in a secret-named folder
  const char* files[] = {"src/main.c", "src/.env", "src/.env.d/key", "src/deep/.ssh/id_rsa",
                         "src/deep/ok.txt", "vault/inner/x", "vault.txt", "docs/id_rsa.pub",
                         "scratch/.env", "scratch/out.log", "a/b/c/d/.npmrc", "a/b/c/d/e.txt"};
  for (const char* f : files) {
    fs::create_directories((ws / f).parent_path());
    std::ofstream(ws / f) << "x";
  }
  sandbox::Policy p = sandbox::DefaultToolPolicy(ws);
  p.deny_paths.push_back((ws / "vault").string());
  p.write_roots.push_back((ws / "scratch").string());  // a second root below the workspace
  ToolContext ctx;
  ctx.cwd = ws;
  ctx.policy = &p;
  PathGuard guard(ctx);
  size_t hidden = 0, shown = 0;
  for (fs::path base : {ws, ws / "src", ws / "src/deep", ws / "a", ws / "vault"}) {
    WalkHider hider(guard, base);
    WalkOptions opts;
    opts.respect_gitignore = false;
    Walk(base, opts, [&](const WalkEntry& e) {
      bool want = guard.Hidden(e.path);
      EXPECT_EQ(hider.Hidden(e.rel, e.is_dir), want) << base << " " << e.rel;
      (want ? hidden : shown)++;
      return true;
    });
  }
  EXPECT_GT(hidden, 8u);  // secrets were met and hidden ...
  EXPECT_GT(shown, 15u);  // ... next to the ordinary entries that stay
}

TEST_F(AccessTest, SandboxOffAllowsEverything) {
  policy_.enabled = false;
  EXPECT_FALSE(Run("read", {{"path", (secrets_.path() / "id_rsa").string()}}).is_error);
}

}  // namespace
}  // namespace sepp::tools
