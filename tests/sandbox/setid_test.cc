// No file a sandboxed command creates carries a setuid or setgid bit or a
// file capability: when sepp runs as root such a file is root's on the host,
// a way out the next time anyone runs it. Every syscall that can set the
// bits is tried from a real confined child, and the files are checked on
// the host afterwards; ordinary modes still work.
#include <sys/stat.h>
#include <sys/xattr.h>

#include "sandbox_fixture.h"

namespace sepp::sandbox {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

class SetIdTest : public SandboxTest {
 protected:
  mode_t ModeOf(const std::string& name) {
    struct stat st {};
    EXPECT_EQ(lstat((ws_ / name).c_str(), &st), 0) << name;
    return st.st_mode;
  }
};

TEST_F(SetIdTest, NoSyscallGivesAFileSetuidOrSetgidBits) {
  Write(ws_ / "tool", "#!/bin/sh\n");
  for (const char* how : {"chmod-setuid", "fchmod-setgid", "fchmodat-setuid", "fchmodat2-setgid"}) {
    auto r = Attack({how, (ws_ / "tool").string()});
    EXPECT_THAT(r.output, StartsWith("BLOCKED")) << how << ": " << r.output;
    EXPECT_EQ(ModeOf("tool") & (S_ISUID | S_ISGID), 0u) << how;
  }
  for (const char* how : {"open-setuid", "openat-setgid", "creat-setuid", "mkdir-setgid", "openat2"}) {
    std::string name = std::string("made-by-") + how;
    auto r = Attack({how, (ws_ / name).string()});
    EXPECT_THAT(r.output, StartsWith("BLOCKED")) << how << ": " << r.output;
    struct stat st {};
    if (lstat((ws_ / name).c_str(), &st) == 0) {
      EXPECT_EQ(st.st_mode & (S_ISUID | S_ISGID), 0u) << how;
    }
  }
  // The shell way, as a command would try it.
  auto sh = Sh("cp /bin/true ./t && chmod u+s ./t; chmod 4755 ./t; install -m 6755 /bin/true ./u; ls -l t u");
  EXPECT_EQ(ModeOf("t") & (S_ISUID | S_ISGID), 0u) << sh.output;
  struct stat st {};
  if (lstat((ws_ / "u").c_str(), &st) == 0) {
    EXPECT_EQ(st.st_mode & (S_ISUID | S_ISGID), 0u) << sh.output;
  }
}

TEST_F(SetIdTest, NoFileCapabilities) {
  Write(ws_ / "tool", "#!/bin/sh\n");
  auto r = Attack({"setcap", (ws_ / "tool").string()});
  EXPECT_THAT(r.output, StartsWith("BLOCKED")) << r.output;
  char buf[64];
  EXPECT_LT(getxattr((ws_ / "tool").c_str(), "security.capability", buf, sizeof buf), 0);
}

TEST_F(SetIdTest, OrdinaryModesStillWork) {
  auto r = Sh("touch f && chmod 755 f && chmod u-x,g+w f && mkdir -m 700 d && mkdir -p a/b/c && "
              "install -m 644 f g && umask 077 && touch h && (umask 022; mktemp ./tmp.XXXX >/dev/null) && "
              "exec 3>new && echo ok");
  EXPECT_THAT(r.output, HasSubstr("ok")) << r.output;
  EXPECT_EQ(ModeOf("f") & 07777, 0675u);
  EXPECT_EQ(ModeOf("d") & 07777, 0700u);
  EXPECT_EQ(ModeOf("g") & 07777, 0644u);
  EXPECT_EQ(ModeOf("h") & 07777, 0600u);
  EXPECT_TRUE(S_ISDIR(ModeOf("a/b/c")));
}

}  // namespace
}  // namespace sepp::sandbox
