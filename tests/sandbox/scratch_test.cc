// Where a confined command may write besides its workspace: TMPDIR points
// at a folder it can write, the private /tmp and /dev/shm are bounded like
// the command itself, and a request to write "/" is refused.
#include <stdlib.h>

#include "sandbox/mounts.h"
#include "sandbox_fixture.h"

namespace sepp::sandbox {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

class ScratchTest : public SandboxTest {
 protected:
  void SetUp() override {
    SandboxTest::SetUp();
    const char* t = getenv("TMPDIR");
    had_tmpdir_ = t != nullptr;
    if (t) old_tmpdir_ = t;
  }
  void TearDown() override {
    if (had_tmpdir_) setenv("TMPDIR", old_tmpdir_.c_str(), 1);
    else unsetenv("TMPDIR");
    SandboxTest::TearDown();
  }
  bool had_tmpdir_ = false;
  std::string old_tmpdir_;
};

// sepp's TMPDIR is a host folder the sandbox does not show: the command
// gets the private /tmp instead, and mktemp works.
TEST_F(ScratchTest, MktempWorksWhateverSeppsTmpdirIs) {
  std::filesystem::create_directories(root_ / "host-tmp");
  setenv("TMPDIR", (root_ / "host-tmp").c_str(), 1);
  auto r = Sh("f=$(mktemp) && echo made $f && echo TMPDIR=$TMPDIR && d=$(mktemp -d) && echo dir $d");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("made /tmp/tmp.")) << r.output;
  EXPECT_THAT(r.output, HasSubstr("TMPDIR=/tmp\n"));
  EXPECT_THAT(r.output, HasSubstr("dir /tmp/tmp."));
  EXPECT_TRUE(std::filesystem::is_empty(root_ / "host-tmp"));

  // A TMPDIR inside the workspace is writable there, so it is kept.
  std::filesystem::create_directories(ws_ / "tmp");
  setenv("TMPDIR", (ws_ / "tmp").c_str(), 1);
  auto kept = Sh("mktemp");
  EXPECT_EQ(kept.exit_code, 0) << kept.output;
  EXPECT_THAT(kept.output, HasSubstr((ws_ / "tmp/tmp.").string()));
  EXPECT_FALSE(std::filesystem::is_empty(ws_ / "tmp"));
}

// tmpfs pages are host memory that no rlimit counts: /tmp and /dev/shm are
// each bounded by the memory limit, or by 1 GiB without one.
TEST_F(ScratchTest, TmpAndShmAreBoundedByTheMemoryLimit) {
  auto sizes = Sh("df -k --output=size /tmp /dev/shm | tail -n 2 | tr -s ' \\n' ' '");
  std::string gib = std::to_string(kDefaultScratchTmpfsBytes / 1024);
  EXPECT_THAT(sizes.output, HasSubstr(gib + " " + gib)) << sizes.output;

  policy_.limits.max_memory_bytes = 96ull << 20;
  for (const char* dir : {"/tmp", "/dev/shm"}) {
    auto fill = Sh(std::string("head -c 128M /dev/zero > ") + dir + "/big; echo rc=$?; du -k " + dir + "/big");
    EXPECT_THAT(fill.output, HasSubstr("No space left on device")) << dir << ": " << fill.output;
    EXPECT_THAT(fill.output, Not(HasSubstr("rc=0")));
  }
  auto small = Sh("head -c 8M /dev/zero > /tmp/ok && echo written");
  EXPECT_THAT(small.output, HasSubstr("written"));
}

TEST_F(ScratchTest, WritingTheWholeFilesystemIsRefused) {
  policy_.write_roots.push_back("/");
  auto r = Sh("echo ran");
  EXPECT_THAT(r.error, HasSubstr("write \"/\""));
  EXPECT_THAT(r.error, HasSubstr("undoes the sandbox"));
  EXPECT_THAT(r.output, Not(HasSubstr("ran")));
}

}  // namespace
}  // namespace sepp::sandbox
