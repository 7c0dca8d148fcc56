// BuildMountPlan's choice of binds: a root nested in another root with the
// same access needs no bind of its own, unless one of the sandbox's own
// mounts (/tmp, /dev, /proc) would hide it.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "base/paths.h"
#include "sandbox/mounts.h"

namespace sepp::sandbox {
namespace {

namespace fs = std::filesystem;

bool HasBindOf(const MountPlan& plan, const std::string& dst_suffix) {
  return std::any_of(plan.ops.begin(), plan.ops.end(), [&](const MountOp& op) {
    return op.kind == MountOp::Kind::kBind && op.dst == plan.new_root + dst_suffix;
  });
}

fs::path MakeWorkspace(const char* name) {
  fs::path ws = fs::path("/tmp") / (std::string(name) + std::to_string(getpid()));
  fs::create_directories(ws / "sub" / "inner");
  return fs::canonical(ws);
}

TEST(MountPlan, NestedRootWithSameAccessIsNotBoundAgain) {
  fs::path ws = MakeWorkspace("sepp-plan-a");
  Policy p;
  p.read_roots = {"/usr", "/usr/bin", ws.string()};
  p.write_roots = {ws.string(), (ws / "sub").string()};
  auto plan = BuildMountPlan(p, ws);
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  EXPECT_TRUE(HasBindOf(*plan, "/usr"));
  EXPECT_FALSE(HasBindOf(*plan, "/usr/bin"));
  EXPECT_TRUE(HasBindOf(*plan, ws.string()));
  EXPECT_FALSE(HasBindOf(*plan, (ws / "sub").string()));
  fs::remove_all(ws);
}

TEST(MountPlan, NestedRootWithDifferentAccessIsBound) {
  fs::path ws = MakeWorkspace("sepp-plan-b");
  Policy p;
  p.read_roots = {"/usr", ws.string(), (ws / "sub").string()};
  p.write_roots = {ws.string(), (ws / "sub" / "inner").string()};
  auto plan = BuildMountPlan(p, ws);
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  EXPECT_TRUE(HasBindOf(*plan, ws.string()));
  // read-only inside writable, then writable inside that: all three bound
  auto it = std::find_if(plan->ops.begin(), plan->ops.end(), [&](const MountOp& op) {
    return op.dst == plan->new_root + (ws / "sub").string();
  });
  ASSERT_NE(it, plan->ops.end());
  EXPECT_TRUE(it->read_only);
  EXPECT_TRUE(HasBindOf(*plan, (ws / "sub" / "inner").string()));
  fs::remove_all(ws);
}

TEST(MountPlan, RootUnderThePrivateTmpIsStillBound) {
  // "/" covers the workspace, but the sandbox's private /tmp is mounted over
  // it, so a workspace under /tmp needs its own bind on top.
  fs::path ws = MakeWorkspace("sepp-plan-c");
  ASSERT_EQ(ws.string().rfind("/tmp/", 0), 0u) << "test expects /tmp to be no symlink";
  Policy p;
  p.read_roots = {"/", ws.string()};
  auto plan = BuildMountPlan(p, ws);
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  EXPECT_TRUE(HasBindOf(*plan, ws.string()));
  fs::remove_all(ws);
}

// A workspace that is /tmp itself (sepp doctor's test run) is bound over the
// private /tmp, not hidden by it: a protected path in it (/tmp/.sepp) then
// has a place to be bound to.
TEST(MountPlan, ARootThatIsTmpItselfIsBoundOverThePrivateTmp) {
  ASSERT_EQ(fs::canonical("/tmp"), fs::path("/tmp")) << "test expects /tmp to be no symlink";
  Policy p;
  p.read_roots = {"/usr", "/tmp"};
  p.write_roots = {"/tmp"};
  auto plan = BuildMountPlan(p, "/tmp");
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  auto at = [&](MountOp::Kind kind) {
    return std::find_if(plan->ops.begin(), plan->ops.end(), [&](const MountOp& op) {
      return op.kind == kind && op.dst == plan->new_root + "/tmp";
    });
  };
  auto tmpfs = at(MountOp::Kind::kTmpfs), bind = at(MountOp::Kind::kBind);
  ASSERT_NE(tmpfs, plan->ops.end());
  ASSERT_NE(bind, plan->ops.end());
  EXPECT_LT(tmpfs - plan->ops.begin(), bind - plan->ops.begin());
}

// The plan lists the home folder once instead of looking up each of the ~40
// secrets there (mounts.cc, FolderNames): what exists is masked, by every
// shape (a folder, a file, a symlink's target, an entry below a folder that
// exists), and nothing that is absent is; the same when the home folder
// holds too many entries to be listed and every path is looked up.
std::vector<std::string> MaskedIn(const fs::path& home, const fs::path& ws) {
  std::string old_home = getenv("HOME") ? getenv("HOME") : "";
  setenv("HOME", home.c_str(), 1);
  Policy p;
  p.read_roots = {"/usr", home.string(), ws.string()};
  for (const char* d : {"~/.ssh", "~/.aws", "~/.netrc", "~/.npmrc", "~/.config/gh", "~/.config/op",
                        "~/.cargo/credentials", "~/.pgpass", "~/.bash_history", "~/.kube"})
    p.deny_paths.push_back(ExpandUser(d).string());
  auto plan = BuildMountPlan(p, ws);
  setenv("HOME", old_home.c_str(), 1);
  EXPECT_TRUE(plan.ok()) << plan.error().message;
  std::vector<std::string> masked;
  if (!plan.ok()) return masked;
  for (const auto& op : plan->ops)
    if ((op.kind == MountOp::Kind::kMaskFile || (op.kind == MountOp::Kind::kTmpfs && op.optional)) &&
        op.dst.rfind(plan->new_root + home.string() + "/", 0) == 0)
      masked.push_back(op.dst.substr(plan->new_root.size() + home.string().size()));
  std::sort(masked.begin(), masked.end());
  return masked;
}

TEST(MountPlan, SecretsInTheHomeFolderAreMaskedExactlyWhenTheyExist) {
  fs::path ws = MakeWorkspace("sepp-plan-home-ws");
  fs::path home = MakeWorkspace("sepp-plan-home");
  fs::create_directories(home / ".ssh");
  fs::create_directories(home / ".config" / "gh");
  fs::create_directories(home / ".cargo");  // but no credentials in it
  std::ofstream(home / ".netrc") << "machine x password y\n";
  std::ofstream(home / "npmrc.real") << "//registry:_authToken=z\n";
  fs::create_symlink(home / "npmrc.real", home / ".npmrc");
  const std::vector<std::string> want = {"/.config/gh", "/.netrc", "/.ssh", "/npmrc.real"};
  EXPECT_EQ(MaskedIn(home, ws), want);
  // Too many entries to list: each path is looked up, with the same answer.
  for (int i = 0; i < 2100; ++i) std::ofstream(home / ("f" + std::to_string(i)));
  EXPECT_EQ(MaskedIn(home, ws), want);
  fs::remove_all(home);
  fs::remove_all(ws);
}

}  // namespace
}  // namespace sepp::sandbox
