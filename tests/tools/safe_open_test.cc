// Bounded, non-blocking file access (tools/safe_open.h) and the saved-output
// file, in this process.
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <thread>

#include "base/secrets.h"
#include "base/strings.h"
#include "sandbox/defaults.h"
#include "tool_test_util.h"
#include "tools/safe_open.h"
#include "tools/truncate.h"

namespace sepp::tools {
namespace {

namespace fs = std::filesystem;

bool Contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

class SafeOpenTest : public testing::ToolTest {
 protected:
  std::unique_ptr<ToolRegistry> tools_ = MakeBuiltinTools();
  ToolResult Run(const std::string& tool, const Json& args) { return Call(*tools_->Find(tool), args); }
};

long MaxRssKiB() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss;
}

TEST_F(SafeOpenTest, AHugeOneLineFileCostsOnlyWhatIsShown) {
  // 256 MiB on one line (sparse after a text start, so it is quick to make
  // and is not taken for a binary file).
  fs::path big = dir_.path() / "big.txt";
  {
    std::string start(16384, 'a');
    int fd = open(big.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(write(fd, start.data(), start.size()), static_cast<ssize_t>(start.size()));
    ASSERT_EQ(ftruncate(fd, 256ll << 20), 0);
    close(fd);
  }
  long before = MaxRssKiB();
  ToolResult r = Run("read", {{"path", "big.txt"}});
  long grown_mib = (MaxRssKiB() - before) / 1024;
  ASSERT_FALSE(r.is_error) << r.text.substr(0, 300);
  EXPECT_TRUE(Contains(r.text, "more bytes]")) << r.text.substr(0, 300);
  EXPECT_TRUE(Contains(r.text, std::to_string((256ll << 20) - 2000) + " more bytes")) << r.text.substr(0, 2200);
  EXPECT_LT(grown_mib, 64) << "reading one long line grew the process by " << grown_mib << " MiB";
}

TEST_F(SafeOpenTest, FifosAndDevicesAreRefusedWithoutOpeningThem) {
  ASSERT_EQ(mkfifo((dir_.path() / "pipe").c_str(), 0600), 0);
  auto fd = OpenRegularFile(dir_.path() / "pipe");
  ASSERT_FALSE(fd.ok());
  EXPECT_EQ(fd.error().kind, "not_regular");
  EXPECT_EQ(ReadRegularFile("/dev/zero", 100).error().kind, "not_regular");
  EXPECT_EQ(OpenRegularFile(dir_.path() / "missing").error().kind, "not_found");
  dir_.Write("ok.txt", "fine\n");
  auto ok = ReadRegularFile(dir_.path() / "ok.txt", 100);
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(*ok, "fine\n");
  EXPECT_EQ(ReadRegularFile(dir_.path() / "ok.txt", 3).error().kind, "too_large");
}

// A file swapped for a FIFO between the check and the open must not hang
// the tool: the race is run many times, and every call must return.
TEST_F(SafeOpenTest, AFileSwappedForAFifoNeverBlocksATool) {
  dir_.Write("real.txt", "text\n");
  ASSERT_EQ(mkfifo((dir_.path() / "fifo").c_str(), 0600), 0);
  std::atomic<bool> stop{false};
  std::thread swapper([&] {
    std::string a = (dir_.path() / "real.txt").string(), b = (dir_.path() / "fifo").string();
    while (!stop) renameat2(AT_FDCWD, a.c_str(), AT_FDCWD, b.c_str(), RENAME_EXCHANGE);
  });
  int ok = 0;
  for (int i = 0; i < 300; ++i) {
    ok += !Run("read", {{"path", "real.txt"}}).is_error;
    Run("edit", {{"path", "real.txt"}, {"old_string", "zzz"}, {"new_string", "y"}});
    Run("grep", {{"pattern", "text"}});
  }
  stop = true;
  swapper.join();
  EXPECT_GT(ok, 0);  // every call returned, and some found the real file
}

TEST_F(SafeOpenTest, UnresolvablePathsAreRefusedNotTakenLiterally) {
  testing::TempDir secrets;
  secrets.Write("id_rsa", "PRIVATE KEY");
  sandbox::Policy policy = sandbox::DefaultToolPolicy(dir_.path());
  policy.deny_paths.push_back(secrets.path().string());
  ctx_.policy = &policy;
  std::string chain = testing::MakeOverLongChain(dir_.path(), secrets.path() / "id_rsa");
  fs::create_symlink("l2", dir_.path() / "l1");
  fs::create_symlink("l1", dir_.path() / "l2");
  dir_.Write("plain.txt", "plain\n");
  for (const std::string& p : {chain + "/end", chain + "/plain.txt", std::string("l1"),
                               std::string("l1/below")}) {
    ToolResult r = Run("read", {{"path", p}});
    EXPECT_TRUE(r.is_error) << p;
    EXPECT_TRUE(Contains(r.text, "cannot be resolved")) << p << ": " << r.text;
    EXPECT_FALSE(Contains(r.text, "PRIVATE KEY")) << p;
    EXPECT_TRUE(r.details.value("denied", false)) << p;
    EXPECT_TRUE(Run("write", {{"path", p}, {"content", "x"}}).is_error) << p;
    EXPECT_TRUE(Run("edit", {{"path", p}, {"old_string", "P"}, {"new_string", "x"}}).is_error) << p;
  }
  EXPECT_EQ(secrets.Read("id_rsa"), "PRIVATE KEY");
  // The kernel itself follows the chain (what the guard used to let through).
  std::ifstream direct(dir_.path() / (chain + "/end"));
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(direct), {}), "PRIVATE KEY");
  EXPECT_FALSE(Run("read", {{"path", "plain.txt"}}).is_error);
}

TEST_F(SafeOpenTest, WriteAndEditOfOneFileInParallelBothLand) {
  for (int round = 0; round < 20; ++round) {
    dir_.Write("f.txt", "one\ntwo\n");
    ToolResult a, b;
    std::thread t1([&] { a = Run("edit", {{"path", "f.txt"}, {"old_string", "one"}, {"new_string", "ONE"}}); });
    std::thread t2([&] { b = Run("edit", {{"path", "f.txt"}, {"old_string", "two"}, {"new_string", "TWO"}}); });
    t1.join();
    t2.join();
    ASSERT_FALSE(a.is_error) << a.text;
    ASSERT_FALSE(b.is_error) << b.text;
    ASSERT_EQ(dir_.Read("f.txt"), "ONE\nTWO\n") << "round " << round;
  }
}

TEST(SavedOutput, IsPrivateRedactedAndCapped) {
  RegisterSecret("sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789");
  testing::TempDir dir;
  fs::path log = dir.path() / "out" / "x.log";
  {
    OutputCollector c({.max_lines = 5, .max_bytes = 200}, log);
    // The key straddles two chunks.
    c.Append("start sk-ant-api03-abcdefghijkl");
    c.Append("mnopqrstuvwxyz0123456789 end\n");
    for (int i = 0; i < 50; ++i) c.Append("row\n");
    c.Finish();
    ASSERT_TRUE(c.spilled()) << c.spill_error();
  }
  struct stat st;
  ASSERT_EQ(stat(log.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  std::string saved = dir.Read("out/x.log");
  EXPECT_TRUE(Contains(saved, "start ")) << saved;
  EXPECT_FALSE(Contains(saved, "abcdefghijkl")) << saved;
  EXPECT_FALSE(Contains(saved, "mnopqrstuvwxyz")) << saved;
  EXPECT_TRUE(Contains(saved, "row\n"));
}

}  // namespace
}  // namespace sepp::tools
