// Git's control surface under attack, in every layout (a plain repository, a
// linked worktree, a submodule): a sandboxed command tries every route by
// which git takes configuration or code (config, config.worktree, commondir,
// hooks, info/attributes, core.hooksPath through `git config`) in every git
// directory the checkout uses, and none of it reaches the host; in the next
// command add, commit, branch, checkout -b and stash still work.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include "sandbox/git_control.h"
#include "sandbox_fixture.h"

namespace sepp::sandbox {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
namespace fs = std::filesystem;

constexpr const char* kGit =
    "git -c user.name=t -c user.email=t@t -c protocol.file.allow=always -c init.defaultBranch=main";

// Every route, in the git directory and in the common one (the same folder
// in a plain repository). Each write is allowed to fail; that is the point.
constexpr const char* kAttack =
    "for d in \"$(git rev-parse --git-dir)\" \"$(git rev-parse --git-common-dir)\"; do "
    "  echo '[core] fsmonitor = evil-config' >> \"$d/config\";"
    "  printf '[core]\\n\\tfsmonitor = evil-worktree\\n' > \"$d/config.worktree\";"
    "  mkdir -p /tmp/evil && echo ../evil > \"$d/commondir\";"
    "  printf '#!/bin/sh\\necho evil-hook\\n' > \"$d/hooks/pre-commit\";"
    "  chmod +x \"$d/hooks/pre-commit\";"
    "  mkdir -p \"$d/info\"; echo '* filter=evil' >> \"$d/info/attributes\";"
    "  echo '*.sh' >> \"$d/info/exclude\";"
    "done;"
    "git config core.hooksPath /tmp/evil-hooks;"
    "git config --worktree core.fsmonitor evil-w2;"
    "echo attacked";

constexpr const char* kLegit =
    "set -e; echo hi > a.txt; git add a.txt; git commit -q -m add; git branch b1;"
    "git checkout -q -b b2; echo more >> a.txt; git stash -q; git stash list | grep -q stash;"
    "git fetch -q . b1:refs/remotes/self/b1; git tag -a -m t v1; git gc -q;"
    "git worktree add -q .wt-b3 -b b3; git -C .wt-b3 commit -q --allow-empty -m in-wt;"
    "git worktree remove .wt-b3;"
    "echo LEGIT-OK";

class GitLayoutTest : public SandboxTest {
 protected:
  void SetUp() override {
    SandboxTest::SetUp();
    if (access("/usr/bin/git", X_OK) != 0) GTEST_SKIP() << "git is not installed";
    setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
  }
  void TearDown() override {
    unsetenv("GIT_CONFIG_NOSYSTEM");
    SandboxTest::TearDown();
  }
  static int HostGit(const fs::path& dir, const std::string& args) {
    std::string cmd = "cd '" + dir.string() + "' && " + kGit + " " + args + " >/dev/null 2>&1";
    return system(cmd.c_str());
  }
  static std::string HostOut(const fs::path& dir, const std::string& args) {
    std::string cmd = "cd '" + dir.string() + "' && " + kGit + " " + args + " 2>&1";
    std::string out;
    if (FILE* f = popen(cmd.c_str(), "r")) {
      char buf[512];
      size_t n;
      while ((n = fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, n);
      pclose(f);
    }
    return out;
  }
  static void InitRepo(const fs::path& dir) {
    fs::create_directories(dir);
    ASSERT_EQ(HostGit(dir, "init -q"), 0);
    ASSERT_EQ(HostGit(dir, "commit -q --allow-empty -m init"), 0);
  }
  // The attack, then the legitimate work, both sandboxed, in `checkout`;
  // then the host's git in that checkout finds nothing planted.
  void AttackThenWork(const fs::path& checkout) {
    std::string cd = "cd '" + checkout.string() + "' && ";
    std::string git_dir = HostOut(checkout, "rev-parse --absolute-git-dir");
    std::string common = HostOut(checkout, "rev-parse --path-format=absolute --git-common-dir");
    auto attack = Sh(cd + kAttack);
    ASSERT_EQ(attack.error, "");
    EXPECT_THAT(attack.output, HasSubstr("attacked"));
    // What git on the host reads in that checkout: nothing of the attack.
    std::string config = HostOut(checkout, "config --show-origin --list");
    EXPECT_THAT(config, Not(HasSubstr("evil"))) << config;
    EXPECT_EQ(HostOut(checkout, "rev-parse --absolute-git-dir"), git_dir);
    EXPECT_EQ(HostOut(checkout, "rev-parse --path-format=absolute --git-common-dir"), common);
    for (std::string d : {git_dir, common}) {
      while (!d.empty() && d.back() == '\n') d.pop_back();
      EXPECT_FALSE(fs::exists(d + "/hooks/pre-commit")) << d;
      EXPECT_FALSE(fs::exists(d + "/config.worktree")) << d;
      if (!fs::exists(d + "/gitdir")) {
        EXPECT_FALSE(fs::exists(d + "/commondir")) << d;
      }
      // git reads info/ from the common directory only (a linked
      // worktree's own holds at most its sparse-checkout list).
      if (!fs::exists(d + "/commondir")) {
        EXPECT_THAT(ReadText(d + "/info/attributes"), Not(HasSubstr("evil"))) << d;
        EXPECT_THAT(ReadText(d + "/info/exclude"), Not(HasSubstr("*.sh"))) << d;
      }
    }
    auto work = Sh(cd + kLegit);
    EXPECT_THAT(work.output, HasSubstr("LEGIT-OK")) << work.output;
    EXPECT_THAT(HostOut(checkout, "log --oneline b2"), HasSubstr("add"));
    EXPECT_THAT(HostOut(checkout, "branch --list b1"), HasSubstr("b1"));
    EXPECT_THAT(HostOut(checkout, "stash list"), HasSubstr("stash@{0}"));
    EXPECT_THAT(HostOut(checkout, "log --oneline b3"), HasSubstr("in-wt"));
    EXPECT_THAT(HostOut(checkout, "tag --list v1"), HasSubstr("v1"));
  }
};

// sh's `git` would not see kGit's -c options: the scripts get them through
// an alias-free wrapper on PATH instead.
class GitLayoutWrapped : public GitLayoutTest {
 protected:
  void SetUp() override {
    GitLayoutTest::SetUp();
    if (IsSkipped()) return;
    fs::path bin = root_ / "bin";
    Write(bin / "git", std::string("#!/bin/sh\nexec /usr/bin/git -c user.name=t -c user.email=t@t "
                                   "-c protocol.file.allow=always \"$@\"\n"));
    fs::permissions(bin / "git", fs::perms::owner_all | fs::perms::group_read |
                                     fs::perms::group_exec | fs::perms::others_read |
                                     fs::perms::others_exec);
    policy_.read_roots.push_back(bin.string());
    policy_.env_set["PATH"] = bin.string() + ":/usr/bin:/bin";
    policy_.env_set["GIT_CONFIG_NOSYSTEM"] = "1";
  }
};

TEST_F(GitLayoutWrapped, PlainRepository) {
  InitRepo(ws_);
  AttackThenWork(ws_);
}

// The workspace is a linked worktree: its .git is a file, its git directory
// lies in the main repository's .git/worktrees/, its configuration and hooks
// in the main .git. Commits still work: those git directories are writable
// in the sandbox except their control files.
TEST_F(GitLayoutWrapped, LinkedWorktree) {
  fs::path main = home_ / "main";
  InitRepo(main);
  fs::remove_all(ws_);
  ASSERT_EQ(HostGit(main, "worktree add -q '" + ws_.string() + "' -b wt"), 0);
  ASSERT_TRUE(fs::is_regular_file(ws_ / ".git"));
  AttackThenWork(ws_);
  // Rewriting the pointer file itself is refused too.
  auto r = Sh("echo 'gitdir: /tmp/evil' > .git; cat .git");
  EXPECT_THAT(ReadText(ws_ / ".git"), HasSubstr("worktrees"));
}

// The workspace holds a submodule: its .git is a file pointing into the
// super-project's .git/modules/, which has its own config and hooks.
TEST_F(GitLayoutWrapped, Submodule) {
  fs::path src = home_ / "subsrc";
  InitRepo(src);
  InitRepo(ws_);
  ASSERT_EQ(HostGit(ws_, "submodule add -q '" + src.string() + "' sub"), 0);
  ASSERT_EQ(HostGit(ws_, "commit -q -m sub"), 0);
  ASSERT_TRUE(fs::is_regular_file(ws_ / "sub/.git"));
  AttackThenWork(ws_ / "sub");
  AttackThenWork(ws_);
}

// The workspace is the submodule's checkout itself: its git directory lies
// outside, in the super-project's .git/modules/sub.
TEST_F(GitLayoutWrapped, SubmoduleCheckoutAsWorkspace) {
  fs::path super = home_ / "super", src = home_ / "subsrc";
  InitRepo(src);
  InitRepo(super);
  ASSERT_EQ(HostGit(super, "submodule add -q '" + src.string() + "' sub"), 0);
  ws_ = super / "sub";
  policy_ = DefaultToolPolicy(ws_);
  policy_.read_roots.push_back(home_.string());
  policy_.read_roots.push_back((root_ / "bin").string());
  policy_.env_set["PATH"] = (root_ / "bin").string() + ":/usr/bin:/bin";
  policy_.env_set["GIT_CONFIG_NOSYSTEM"] = "1";
  policy_.limits.timeout_s = 60;
  AttackThenWork(ws_);
}

// A nested repository anywhere in the workspace is found by the scan.
TEST_F(GitLayoutWrapped, NestedRepository) {
  fs::create_directories(ws_ / "vendor/lib");
  InitRepo(ws_ / "vendor/lib");
  AttackThenWork(ws_ / "vendor/lib");
}

// The control files that cannot be made ahead of time are listed and swept.
TEST_F(GitLayoutTest, PlantedCommondirIsRemovedAndReported) {
  InitRepo(ws_);
  auto control = FindGitControl({ws_.string()}, {});
  std::string commondir = (ws_ / ".git/commondir").string();
  EXPECT_THAT(control.absent, ::testing::Contains(commondir));
  auto r = Sh("echo ../evil > .git/commondir; echo done");
  EXPECT_FALSE(fs::exists(commondir));
  // Typed by the launcher that removed it: a protected path, named.
  ASSERT_EQ(r.denials.size(), 1u) << r.output;
  EXPECT_EQ(r.denials[0].kind, DenialKind::kProtected);
  EXPECT_EQ(r.denials[0].target, commondir);
  EXPECT_THAT(r.denials[0].text, HasSubstr("commondir"));
  EXPECT_EQ(HostGit(ws_, "status"), 0);
}

// Pointer files from a hostile workspace (a tarball, an earlier command):
// none of them makes anything outside the workspace writable, a huge one is
// not read whole, a FIFO does not block.
TEST_F(GitLayoutTest, HostilePointersGrantNothingOutside) {
  fs::path victim = home_ / "victim";
  InitRepo(victim);
  std::string vgit = fs::canonical(victim / ".git").string();
  Write(ws_ / ".git", "gitdir: " + vgit + "\n");  // no back pointer
  Write(ws_ / "a/.git", "gitdir: " + vgit + "\n");
  Write(ws_ / "b/.git", "");
  fs::resize_file(ws_ / "b/.git", 1ull << 30);  // sparse: 1 GiB of zeros
  fs::create_directories(ws_ / "c");
  ASSERT_EQ(mkfifo((ws_ / "c/.git").c_str(), 0600), 0);
  // A submodule git directory of another project that does not name this
  // checkout as its worktree.
  fs::path other = home_ / "other", src = home_ / "subsrc";
  InitRepo(src);
  InitRepo(other);
  ASSERT_EQ(HostGit(other, "submodule add -q '" + src.string() + "' lib"), 0);
  std::string lib_git = fs::canonical(other / ".git/modules/lib").string();
  fs::path ws2 = home_ / "ws2";
  Write(ws2 / ".git", "gitdir: " + lib_git + "\n");
  auto foreign = FindGitControl({fs::canonical(ws2).string()}, {});
  EXPECT_TRUE(foreign.write_roots.empty()) << ::testing::PrintToString(foreign.write_roots);
  // A git directory inside whose commondir names the victim.
  InitRepo(ws_ / "d");
  Write(ws_ / "d/.git/commondir", vgit + "\n");
  std::string ws = fs::canonical(ws_).string();
  auto control = FindGitControl({ws}, {ws + "/a/.git", ws + "/b/.git", ws + "/c/.git", ws + "/d/.git"});
  EXPECT_TRUE(control.write_roots.empty()) << ::testing::PrintToString(control.write_roots);
  for (const auto& p : control.read_only) EXPECT_EQ(p.rfind(ws + "/", 0), 0u) << p;
  EXPECT_THAT(::testing::PrintToString(control.notes), HasSubstr("does not name this checkout back"));
  EXPECT_THAT(::testing::PrintToString(control.notes), HasSubstr("does not hold this git directory"));
  // And the sandbox cannot write the victim through the workspace.
  auto r = Sh("echo evil >> '" + vgit + "/HEAD'; git -C a status >/dev/null 2>&1; echo ran");
  EXPECT_THAT(r.output, HasSubstr("ran"));
  EXPECT_THAT(ReadText(vgit + "/HEAD"), Not(HasSubstr("evil")));
}

}  // namespace
}  // namespace sepp::sandbox
