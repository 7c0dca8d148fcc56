// `sepp sandbox` and `sepp doctor` end to end, through the built binary
// (SEPP_BINARY_DIR/sepp; CI builds every target before running ctest).
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

namespace {

using ::testing::HasSubstr;
using ::testing::Not;
namespace fs = std::filesystem;

struct Ran {
  int status = -1;
  std::string output;  // stdout and stderr
};

class SandboxCommandTest : public ::testing::Test {
 protected:
  void SetUp() override {
    sepp_ = fs::path(SEPP_BINARY_DIR) / "sepp";
    if (!fs::exists(sepp_)) GTEST_SKIP() << "the sepp binary is not built (" << sepp_ << ")";
    char tmpl[] = "/tmp/sepp-cmd-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    ws_ = tmpl;
  }
  void TearDown() override {
    std::error_code ec;
    if (!ws_.empty()) fs::remove_all(ws_, ec);
  }
  Ran Sepp(const std::string& args) {
    return Shell("cd '" + ws_.string() + "' && '" + sepp_.string() + "' " + args + " 2>&1 </dev/null");
  }
  static Ran Shell(const std::string& cmd) {
    Ran r;
    FILE* p = popen(cmd.c_str(), "r");
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, p)) > 0) r.output.append(buf, n);
    int st = pclose(p);
    r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    return r;
  }
  fs::path sepp_, ws_;
};

// A request that undoes the sandbox is refused; one that lets the command
// change what runs outside it later is said out loud.
TEST_F(SandboxCommandTest, AllowWriteOfRootIsRefusedAndOfHomeWarned) {
  auto root = Sepp("sandbox --allow-write / -- bash -c 'echo ran'");
  EXPECT_EQ(root.status, 125) << root.output;
  EXPECT_THAT(root.output, HasSubstr("undoes the sandbox"));
  EXPECT_THAT(root.output, Not(HasSubstr("ran")));
  fs::create_directories(ws_ / "home");
  auto home = Shell("cd '" + ws_.string() + "' && HOME='" + (ws_ / "home").string() + "' '" + sepp_.string() +
                    "' sandbox --allow-write '~' -- bash -c 'echo ran' 2>&1 </dev/null");
  EXPECT_EQ(home.status, 0) << home.output;
  EXPECT_THAT(home.output, HasSubstr("warning: --allow-write ~ lets the command change your home folder"));
  EXPECT_THAT(home.output, HasSubstr("ran"));
  auto narrow = Sepp("sandbox --allow-write . -- bash -c 'echo ran'");
  EXPECT_THAT(narrow.output, Not(HasSubstr("warning")));
}

TEST_F(SandboxCommandTest, ExitStatusOfTheCommand) {
  auto ok = Sepp("sandbox -- bash -c 'echo hi; exit 42'");
  EXPECT_EQ(ok.status, 42);
  EXPECT_THAT(ok.output, HasSubstr("hi"));
  EXPECT_EQ(Sepp("sandbox -- no-such-command-sepp").status, 127);
  EXPECT_EQ(Sepp("sandbox --init -- bash -c 'kill -TERM $$'").status, 128 + 15);
  EXPECT_EQ(Sepp("sandbox --init -- bash -c 'echo $$; exit 3'").status, 3);
}

TEST_F(SandboxCommandTest, TimeLimitIs124WithAnExplanation) {
  auto r = Sepp("sandbox --timeout 0.5 -- sleep 30");
  EXPECT_EQ(r.status, 124);
  EXPECT_THAT(r.output, HasSubstr("sepp sandbox: the command was stopped"));
}

TEST_F(SandboxCommandTest, RefusalsAre125AndBadPoliciesNameTheLine) {
  std::ofstream(ws_ / "bad.toml") << "[network]\nmode = \"sometimes\"\n";
  auto r = Sepp("sandbox --policy bad.toml -- true");
  EXPECT_EQ(r.status, 125);
  EXPECT_THAT(r.output, HasSubstr("bad.toml:2: network.mode"));
  EXPECT_EQ(Sepp("sandbox --net sometimes -- true").status != 0, true);
}

TEST_F(SandboxCommandTest, DenialsAreExplainedOnStderr) {
  auto r = Sepp("sandbox -- bash -c 'exec 3<>/dev/tcp/127.0.0.1/80'");
  EXPECT_NE(r.status, 0);
  EXPECT_THAT(r.output, HasSubstr("sepp sandbox: network access is off for this command"));
  auto w = Sepp("sandbox -- bash -c 'echo x > /etc/sepp-cmd-test'");
  EXPECT_THAT(w.output, HasSubstr("sepp sandbox: writing /etc/sepp-cmd-test is not allowed"));
  EXPECT_FALSE(fs::exists("/etc/sepp-cmd-test"));
}

TEST_F(SandboxCommandTest, FlagsWidenThePolicy) {
  fs::path extra = ws_.string() + "-extra";
  fs::create_directories(extra);
  auto denied = Sepp("sandbox -- bash -c 'echo x > " + extra.string() + "/f'");
  EXPECT_FALSE(fs::exists(extra / "f"));
  auto allowed = Sepp("sandbox --allow-write " + extra.string() + " -- bash -c 'echo x > " +
                      extra.string() + "/f'");
  EXPECT_EQ(allowed.status, 0) << allowed.output;
  EXPECT_TRUE(fs::exists(extra / "f"));
  fs::remove_all(extra);
}

TEST_F(SandboxCommandTest, DoctorReportsAWorkingSandbox) {
  auto r = Sepp("doctor --json");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("\"sandbox_works\": true"));
  EXPECT_THAT(r.output, HasSubstr("\"landlock_abi\""));
  auto text = Sepp("doctor");
  EXPECT_THAT(text.output, HasSubstr("Landlock"));
  EXPECT_THAT(text.output, HasSubstr("confined test run   ok"));
}

}  // namespace

// Most users are not root: no pids cgroup, no CAP_DAC_OVERRIDE over the
// host's files (an unreadable /etc/shadow must still be masked). The tests
// run as root in CI, so drop to nobody for this one.
TEST_F(SandboxCommandTest, WorksForANormalUser) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to become another user";
  if (system("command -v setpriv >/dev/null 2>&1") != 0) GTEST_SKIP() << "setpriv is missing";
  if (system("setpriv --reuid=65534 --regid=65534 --clear-groups unshare -U true 2>/dev/null") != 0)
    GTEST_SKIP() << "this kernel gives normal users no user namespaces (the sandbox refuses then)";
  // Our build folder may not be reachable for nobody; the workspace is.
  fs::copy_file(sepp_, ws_ / "sepp");
  ASSERT_EQ(chown(ws_.c_str(), 65534, 65534), 0);
  std::string cmd = "cd '" + ws_.string() + "' && setpriv --reuid=65534 --regid=65534 --clear-groups " +
                    "env HOME=" + ws_.string() + " ./sepp sandbox -- sh -c " +
                    "'id -u; echo made > made.txt; echo 1 > /proc/sys/vm/drop_caches && echo DROPPED;"
                    " cat /etc/shadow' 2>&1 </dev/null";
  Ran r = Shell(cmd);
  EXPECT_THAT(r.output, HasSubstr("65534\n"));
  EXPECT_THAT(r.output, HasSubstr("reading /etc/shadow is not allowed"));
  EXPECT_THAT(r.output, Not(HasSubstr("DROPPED")));
  EXPECT_NE(r.status, 125) << r.output;  // the sandbox itself was set up
  struct stat st_made {};
  ASSERT_EQ(stat((ws_ / "made.txt").c_str(), &st_made), 0) << r.output;
  EXPECT_EQ(st_made.st_uid, 65534u);
}

TEST_F(SandboxCommandTest, BadArgumentsAreUsageErrors) {
  for (const char* args : {"sandbox --bogus -- true", "sandbox --net", "sandbox --net=sometimes true",
                           "sandbox --timeout abc true", "sandbox --timeout=-1 true",
                           "sandbox --timeout nan true", "sandbox --policy= true", "sandbox"}) {
    auto r = Sepp(args);
    EXPECT_EQ(r.status, 2) << args << "\n" << r.output;
    EXPECT_THAT(r.output, HasSubstr("sepp sandbox: ")) << args;
  }
  EXPECT_THAT(Sepp("sandbox --bogus -- true").output, HasSubstr("unknown option --bogus"));
  auto help = Sepp("sandbox --help");
  EXPECT_EQ(help.status, 0);
  EXPECT_THAT(help.output, HasSubstr("--allow-write PATH"));
  // "--opt=value", options before a command given without "--".
  auto r = Sepp("sandbox --net=off --timeout=5 --init bash -c 'echo $$'");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(r.output, "2\n");
}
