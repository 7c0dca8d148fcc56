#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <thread>

#include "base/strings.h"
#include "sandbox/policy.h"
#include "tool_test_util.h"
#include "support/host_processes.h"

namespace sepp::tools {
namespace {

using Clock = std::chrono::steady_clock;

// A sleep argument unique to this test process ("2.PID"), and whether a
// `sleep` with it still runs anywhere: how a test sees at once that a
// background job did not outlive its call, instead of waiting to see
// whether it leaves a mark.
std::string UniqueSleep() { return "2." + std::to_string(getpid()); }
bool SleepRuns(const std::string& arg) {
  for (const auto& [pid, cmd] : sepp::testing_support::HostCommandLines())
    if (cmd == std::string("sleep\0", 6) + arg + '\0') return true;
  return false;
}

class BashTest : public testing::ToolTest {
 protected:
  std::unique_ptr<Tool> bash_ = MakeBashTool();
};

TEST_F(BashTest, OutputAndExitCode) {
  ToolResult r = Call(*bash_, {{"command", "echo hello; pwd"}});
  EXPECT_FALSE(r.is_error) << r.text;
  EXPECT_EQ(r.text, "hello\n" + dir_.path().string() + "\nexit code 0");
  EXPECT_EQ(r.details["exit_code"], 0);
}

TEST_F(BashTest, NonZeroExitIsError) {
  ToolResult r = Call(*bash_, {{"command", "echo oops >&2; exit 3"}});
  EXPECT_TRUE(r.is_error);
  EXPECT_EQ(r.text, "oops\nexit code 3");
  EXPECT_EQ(Call(*bash_, {{"command", "true"}}).text, "(no output)\nexit code 0");
  EXPECT_TRUE(EndsWith(Call(*bash_, {{"command", "no-such-command-xyz"}}).text, "exit code 127"));
}

TEST_F(BashTest, StdoutAndStderrInterleaved) {
  ToolResult r = Call(*bash_, {{"command", "echo one; echo two >&2; echo three; echo four >&2"}});
  EXPECT_EQ(r.text, "one\ntwo\nthree\nfour\nexit code 0");
}

TEST_F(BashTest, StreamsPartialOutput) {
  std::mutex mu;
  std::string streamed;
  int calls = 0;
  ctx_.on_output = [&](std::string_view chunk) {
    std::lock_guard<std::mutex> lock(mu);
    streamed.append(chunk);
    ++calls;
  };
  ToolResult r = Call(*bash_, {{"command", "echo first; sleep 0.3; echo second"}});
  EXPECT_EQ(streamed, "first\nsecond\n");
  EXPECT_GE(calls, 2);
}

TEST_F(BashTest, SignalDeathIsReported) {
  // Unconfined: inside the sandbox's pid namespace the shell is pid 1, which
  // ignores signals from its own namespace.
  sandbox::Policy off;
  off.enabled = false;
  ctx_.policy = &off;
  ToolResult r = Call(*bash_, {{"command", "kill -TERM $$"}});
  EXPECT_TRUE(r.is_error);
  EXPECT_NE(r.text.find("killed by signal 15 (SIGTERM)"), std::string::npos) << r.text;
}

TEST_F(BashTest, TimeoutKillsTheWholeGroup) {
  auto start = Clock::now();
  // A background job that would leave a mark if it outlived the call.
  const std::string mark = UniqueSleep();
  ToolResult r = Call(*bash_, {{"command", "(sleep " + mark + "; touch survived) & sleep 100 & wait"}, {"timeout", 1}});
  double took = std::chrono::duration<double>(Clock::now() - start).count();
  EXPECT_LT(took, 30.0);
  EXPECT_TRUE(r.is_error);
  EXPECT_TRUE(EndsWith(r.text, "killed after timeout of 1 s")) << r.text;
  EXPECT_EQ(r.details["timed_out"], true);
  EXPECT_FALSE(SleepRuns(mark)) << "the background job outlived the call";
}

TEST_F(BashTest, CancellationAbortsAndKillsGroup) {
  const std::string mark = UniqueSleep();
  CancelToken token;
  ctx_.cancel = &token;
  std::thread canceller([&] {
    // Cancel once the command and its background job are running.
    for (int i = 0; i < 3000 && !(std::filesystem::exists(dir_.path() / "started") && SleepRuns(mark)); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    token.Cancel();
  });
  auto start = Clock::now();
  ToolResult r = Call(*bash_, {{"command", "(sleep " + mark + "; touch survived) & touch started; sleep 100"}});
  canceller.join();
  EXPECT_LT(std::chrono::duration<double>(Clock::now() - start).count(), 30.0);
  EXPECT_TRUE(r.is_error);
  EXPECT_TRUE(EndsWith(r.text, "aborted")) << r.text;
  EXPECT_FALSE(SleepRuns(mark)) << "the background job outlived the cancel";
  // Already cancelled: nothing runs.
  ToolResult again = Call(*bash_, {{"command", "touch ran"}});
  EXPECT_TRUE(again.is_error);
  EXPECT_NE(again.text.find("aborted"), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(dir_.path() / "ran"));
}

TEST_F(BashTest, HugeOutputKeepsHeadAndTailAndSavesAll) {
  // 11 MB in numbered lines. (`; true` keeps bash as the last writer: the
  // launcher must not mistake seq's early close of stdout for its exit.)
  ToolResult r = Call(*bash_, {{"command", "seq -f 'line %09g of the output' 1 400000; true"}});
  ASSERT_FALSE(r.is_error) << r.text.substr(r.text.size() - std::min<size_t>(r.text.size(), 800));
  EXPECT_TRUE(r.truncated);
  EXPECT_TRUE(StartsWith(r.text, "line 000000001 of the output\n"));
  EXPECT_NE(r.text.find("line 000400000 of the output\n"), std::string::npos);
  EXPECT_EQ(r.text.find("line 000200000 of the output\n"), std::string::npos);
  EXPECT_LE(r.text.size(), 52u * 1024);
  EXPECT_NE(r.text.find("[Output truncated: 400000 lines"), std::string::npos) << r.text.size();
  ASSERT_TRUE(r.details.contains("full_output_path"));
  std::string log = r.details["full_output_path"];
  EXPECT_NE(r.text.find("Full output: " + log), std::string::npos);
  EXPECT_TRUE(StartsWith(log, ctx_.output_dir.string()));
  EXPECT_EQ(std::filesystem::file_size(log), 400000u * 29);
  EXPECT_TRUE(EndsWith(r.text, "exit code 0"));
}

TEST_F(BashTest, HugeSingleLineOutput) {
  ToolResult r = Call(*bash_, {{"command", "head -c 3000000 /dev/zero | tr '\\0' x; echo; echo done"}});
  EXPECT_TRUE(r.truncated);
  EXPECT_LE(r.text.size(), 52u * 1024);
  EXPECT_NE(r.text.find("done\n"), std::string::npos);
}

TEST_F(BashTest, NoSecretsInChildEnvironment) {
  ::setenv("ANTHROPIC_API_KEY", "sk-ant-fake-test-key-0123456789", 1);
  ::setenv("MY_SERVICE_TOKEN", "tok-fake-0123456789", 1);
  ToolResult r = Call(*bash_, {{"command", "env; true"}});
  ::unsetenv("ANTHROPIC_API_KEY");
  ::unsetenv("MY_SERVICE_TOKEN");
  EXPECT_FALSE(r.is_error) << r.text;
  EXPECT_EQ(r.text.find("ANTHROPIC_API_KEY"), std::string::npos);
  EXPECT_EQ(r.text.find("sk-ant-fake"), std::string::npos);
  EXPECT_EQ(r.text.find("tok-fake"), std::string::npos);
}

TEST_F(BashTest, SandboxDenialsAreReported) {
  ToolResult r = Call(*bash_, {{"command", "touch /usr/sepp-tools-denied-test"}});
  EXPECT_TRUE(r.is_error) << r.text;
  EXPECT_FALSE(std::filesystem::exists("/usr/sepp-tools-denied-test"));
  // Typed by the launcher that saw the refusal: a write, naming the path.
  ASSERT_EQ(r.denials.size(), 1u) << r.text;
  EXPECT_EQ(r.denials[0].kind, sandbox::DenialKind::kWrite);
  EXPECT_EQ(r.denials[0].target, "/usr/sepp-tools-denied-test");
  EXPECT_EQ(r.details["denied"], true);
  for (const auto& d : r.denials) EXPECT_NE(r.text.find("[sandbox] " + d.text), std::string::npos);
  // The workspace stays writable.
  EXPECT_EQ(Call(*bash_, {{"command", "echo ok > in.txt && cat in.txt"}}).text, "ok\nexit code 0");
}

TEST_F(BashTest, NonUtf8OutputIsSanitized) {
  ToolResult r = Call(*bash_, {{"command", "printf 'caf\\351\\n'"}});
  EXPECT_TRUE(IsValidUtf8(r.text));
  EXPECT_TRUE(StartsWith(r.text, "caf\xEF\xBF\xBD\n"));
}

TEST_F(BashTest, ArgumentErrors) {
  EXPECT_NE(Call(*bash_, Json::object()).text.find("\"command\" (string)"), std::string::npos);
  EXPECT_TRUE(Call(*bash_, {{"command", Json::array({"ls"})}}).is_error);
  EXPECT_TRUE(Call(*bash_, {{"command", "   "}}).is_error);
  EXPECT_EQ(Call(*bash_, {{"command", "ls"}, {"timeout", 601}}).text,
            "Invalid argument \"timeout\": 601 is out of range; it must be between 1 and 600.");
  EXPECT_TRUE(Call(*bash_, {{"command", "ls"}, {"timeout", 0}}).is_error);
  EXPECT_TRUE(Call(*bash_, {{"command", "ls"}, {"timeout", "10"}}).is_error);
  EXPECT_TRUE(Call(*bash_, {{"command", std::string("a\0b", 3)}}).is_error);
  // A huge command line still runs (or fails cleanly).
  ToolResult big = Call(*bash_, {{"command", "echo " + std::string(100000, 'a') + " | wc -c"}});
  EXPECT_EQ(big.text, "100001\nexit code 0");
}

TEST_F(BashTest, Summary) {
  EXPECT_EQ(bash_->Summary({{"command", "make test"}}), "bash make test");
  EXPECT_EQ(bash_->Summary({{"command", "  cd x\nmake"}}), "bash cd x…");
  std::string s = bash_->Summary({{"command", std::string(100, 'y')}});
  EXPECT_EQ(s, "bash " + std::string(60, 'y') + "…");
}

// The default folder for saved output lies in the shared /tmp: it is the
// user's own (0700), a planted link or foreign folder is refused, and old
// outputs are swept.
TEST(BashOutputFolder, PrivateRefusesPlantedLinksAndSweepsOldOutputs) {
  testing::TempDir tmp;
  const char* old_tmpdir = getenv("TMPDIR");
  std::string saved = old_tmpdir ? old_tmpdir : "";
  setenv("TMPDIR", tmp.path().c_str(), 1);
  auto bash = MakeBashTool();
  ToolContext ctx;
  ctx.cwd = tmp.path();
  Json big = {{"command", "seq 1 100000"}};
  std::filesystem::path dir = tmp.path() / ("sepp-" + std::to_string(geteuid()) + "-output");

  // Planted first as a link to a folder of someone else's choosing.
  std::filesystem::create_directories(tmp.path() / "elsewhere");
  std::filesystem::create_directory_symlink(tmp.path() / "elsewhere", dir);
  ToolResult refused = bash->Run(big, ctx);
  EXPECT_TRUE(refused.truncated);
  EXPECT_NE(refused.text.find("not a private folder"), std::string::npos) << refused.text.substr(0, 200);
  EXPECT_TRUE(std::filesystem::is_empty(tmp.path() / "elsewhere"));
  std::filesystem::remove(dir);

  // An old saved output, and a fresh one of the user's, before the next save.
  ASSERT_EQ(::mkdir(dir.c_str(), 0700), 0);
  std::ofstream(dir / "old.log") << "old";
  std::ofstream(dir / "fresh.log") << "fresh";
  std::ofstream(dir / "notes.txt") << "not ours";
  std::filesystem::last_write_time(dir / "old.log", std::filesystem::file_time_type::clock::now() -
                                                        std::chrono::hours(24 * 8));
  std::filesystem::last_write_time(dir / "notes.txt", std::filesystem::file_time_type::clock::now() -
                                                          std::chrono::hours(24 * 8));
  ToolResult saved_run = bash->Run(big, ctx);
  ASSERT_TRUE(saved_run.details.contains("full_output_path")) << saved_run.text.substr(0, 200);
  std::string log = saved_run.details["full_output_path"];
  EXPECT_EQ(std::filesystem::path(log).parent_path(), dir);
  EXPECT_EQ(std::filesystem::status(dir).permissions() & std::filesystem::perms::all,
            std::filesystem::perms::owner_all);
  EXPECT_FALSE(std::filesystem::exists(dir / "old.log"));
  EXPECT_TRUE(std::filesystem::exists(dir / "fresh.log"));
  EXPECT_TRUE(std::filesystem::exists(dir / "notes.txt"));
  if (old_tmpdir) setenv("TMPDIR", saved.c_str(), 1); else unsetenv("TMPDIR");
}

}  // namespace
}  // namespace sepp::tools
