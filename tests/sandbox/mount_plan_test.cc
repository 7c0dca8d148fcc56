// BuildMountPlan's choice of binds: a root nested in another root with the
// same access needs no bind of its own, unless one of the sandbox's own
// mounts (/tmp, /dev, /proc) would hide it.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <string>

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

}  // namespace
}  // namespace sepp::sandbox
