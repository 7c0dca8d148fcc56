// End-to-end record and replay: the real sepp binary records a run against
// the scripted fake provider (--record), then replays it with the fake
// stopped, no key and no base URL in the environment (--replay), for each of
// the three provider APIs.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "base/file.h"
#include "base/ids.h"
#include "base/json.h"
#include "base/strings.h"
#include "e2e/run_sepp.h"
#include "support/fake_provider.h"

namespace sepp::e2e {
namespace {

namespace fs = std::filesystem;
constexpr char kKey[] = "sk-replay-secret-key-0123456789abcdef";

RunOutput RunIn(std::vector<std::string> args, std::map<std::string, std::string> env, const std::string& cwd = "") {
  RunOptions o;
  o.args = std::move(args);
  o.env = std::move(env);
  o.cwd = cwd;
  return RunSepp(o);
}

// What a replay prints for a recorded output: the key the model said is
// [REDACTED] in the cassette.
std::string Redacted(const std::string& out) { return ReplaceAll(out, kKey, "[REDACTED]"); }

Json Call(const std::string& name, Json args) { return {{"name", name}, {"arguments", std::move(args)}}; }

class Replay : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("sepp-replay-" + ShortId());
    ws_ = root_ / "ws";
    home_ = root_ / "home";
    cassette_ = (root_ / "run.cassette").string();
    fs::create_directories(ws_);
    fs::create_directories(home_);
    ASSERT_TRUE(fp_.Start().ok());
  }
  void TearDown() override {
    fp_.Stop();
    fs::remove_all(root_);
  }

  // No provider variable at all: a replay needs none.
  std::map<std::string, std::string> BareEnv() const {
    return {{"PATH", "/usr/local/bin:/usr/bin:/bin"},
            {"HOME", home_.string()},
            {"SEPP_HOME", (home_ / ".sepp").string()},
            {"LANG", "C.UTF-8"}};
  }
  std::map<std::string, std::string> LiveEnv() const {
    auto env = BareEnv();
    env["SEPP_PROVIDER"] = GetParam();
    if (GetParam() == "anthropic") {
      env["ANTHROPIC_BASE_URL"] = fp_.base_url();
      env["ANTHROPIC_API_KEY"] = kKey;
    } else {
      env["OPENAI_BASE_URL"] = fp_.base_url() + "/v1";
      env["OPENAI_API_KEY"] = kKey;
    }
    return env;
  }

  RunOutput Record(std::vector<std::string> args, const Json& script, const fs::path& cwd) {
    fp_.SetScript({{"responses", script}});
    args.insert(args.end(), {"--record", cassette_});
    return RunIn(args, LiveEnv(), cwd.string());
  }
  RunOutput Play(std::vector<std::string> args, const fs::path& cwd) {
    args.insert(args.end(), {"--replay", cassette_});
    return RunIn(args, BareEnv(), cwd.string());
  }

  // A tool call on an absolute path, a sub-agent, and the key in the
  // model's own words.
  Json Script() const {
    return {{{"text", std::string("Writing it; the key is ") + kKey},
             {"tool_calls", {Call("write", {{"path", (ws_ / "a.txt").string()}, {"content", "alpha\n"}}),
                             Call("agent", {{"task", "count the files"}})}}},
            {{"text", "child: 1 file"}},
            {{"text", "All done."}}};
  }

  fs::path root_, ws_, home_;
  std::string cassette_;
  fake::FakeProvider fp_;
};

TEST_P(Replay, RecordedRunReplaysWithoutNetworkOrKeyInAnotherDirectory) {
  for (bool stream : {true, false}) {
    SCOPED_TRACE(stream ? "stream" : "no-stream");
    fp_.Reset();
    fs::remove(ws_ / "a.txt");  // the replay starts from the same state
    std::vector<std::string> args = {"-p", "make a file"};
    if (!stream) args.push_back("--no-stream");
    auto live = Record(args, Script(), ws_);
    ASSERT_EQ(live.exit_code, 0) << live.err;
    ASSERT_EQ(fp_.requests().size(), 3u) << "parent, child, parent";
    std::string text = ReadFile(cassette_).value();
    EXPECT_EQ(text.find(kKey), std::string::npos) << "the key never reaches the cassette";
    EXPECT_EQ(ToLower(text).find("authorization"), std::string::npos);
    EXPECT_EQ(ToLower(text).find("x-api-key"), std::string::npos);
    EXPECT_EQ(text.find(ws_.string()), std::string::npos) << "the directory is a placeholder";

    fp_.Stop();
    fs::path elsewhere = root_ / (stream ? "ci1" : "ci2");
    fs::create_directories(elsewhere);
    auto again = Play(args, elsewhere);
    EXPECT_EQ(again.exit_code, 0) << again.err;
    EXPECT_EQ(again.out, Redacted(live.out)) << "the recorded answers, key redacted";
    auto written = ReadFile(elsewhere / "a.txt");
    EXPECT_TRUE(written.ok() && *written == "alpha\n")
        << "the recorded tool call ran again, on this run's directory";
    ASSERT_TRUE(fp_.Start().ok());
  }
}

TEST_P(Replay, StrictMismatchPrintsTheDiffAndExitsThree) {
  ASSERT_EQ(Record({"-p", "make a file"}, Script(), ws_).exit_code, 0);
  fs::remove(ws_ / "a.txt");
  auto r = Play({"-p", "make two files"}, ws_);
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("request 1 matches no unused exchange of " + cassette_), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("  messages[0].content[0].text\n    recorded: \"make a file\"\n"
                       "    now:      \"make two files\"\n"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(ws_ / "a.txt")) << "nothing the recording answered ran";
}

TEST_P(Replay, LenientReplaysByPositionAfterThePromptChanged) {
  auto live = Record({"-p", "make a file"}, Script(), ws_);
  ASSERT_EQ(live.exit_code, 0) << live.err;
  auto r = Play({"-p", "please make a file", "--replay-mode", "lenient"}, ws_);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, Redacted(live.out));
}

INSTANTIATE_TEST_SUITE_P(Apis, Replay, ::testing::Values("anthropic", "openai", "openai-responses"),
                         [](const auto& info) {
                           std::string n = info.param;
                           std::replace(n.begin(), n.end(), '-', '_');
                           return n;
                         });

class ReplayAnthropic : public Replay {};

// Two sub-agents run in parallel: which gets which scripted answer depends
// on timing when recording, yet every replay asks exactly what was
// recorded (strict mode would exit 3 otherwise: the parent's last request
// carries both children's answers).
TEST_P(ReplayAnthropic, ParallelSubagentsReplayTheSameEveryTime) {
  Json script = {{{"tool_calls", {Call("agent", {{"task", "task A"}}), Call("agent", {{"task", "task B"}})}}},
                 {{"text", "first child answer"}},
                 {{"text", "second child answer"}},
                 {{"text", "parent done"}}};
  auto live = Record({"-p", "two helpers"}, script, ws_);
  ASSERT_EQ(live.exit_code, 0) << live.err;
  fp_.Stop();
  for (int i = 0; i < 3; ++i) {
    auto r = Play({"-p", "two helpers"}, ws_);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, live.out);
  }
}

TEST_P(ReplayAnthropic, DamagedOrShortCassettesAreClearErrors) {
  ASSERT_EQ(Record({"-p", "make a file"}, Script(), ws_).exit_code, 0);
  auto lines = SplitLines(ReadFile(cassette_).value());
  ASSERT_EQ(lines.size(), 4u);
  // Damaged: exit 1 before any tool runs, naming the file and line.
  ASSERT_TRUE(WriteFileAtomic(cassette_, lines[0] + "\n" + lines[1].substr(0, 50) + "\n").ok());
  fs::remove(ws_ / "a.txt");
  auto r = Play({"-p", "make a file"}, ws_);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find(cassette_ + " line 2: invalid JSON"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(ws_ / "a.txt"));
  // Short (the recording stopped early): the request beyond it is new.
  ASSERT_TRUE(WriteFileAtomic(cassette_, lines[0] + "\n" + lines[1] + "\n").ok());
  r = Play({"-p", "make a file"}, ws_);
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("this request is new"), std::string::npos) << r.err;
  // No such file.
  r = RunIn({"-p", "x", "--replay", (root_ / "missing").string()}, BareEnv(), ws_.string());
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("cannot read the cassette"), std::string::npos) << r.err;
}

TEST_P(ReplayAnthropic, ShowPrintsACassetteReadably) {
  ASSERT_EQ(Record({"-p", "make a file"}, Script(), ws_).exit_code, 0);
  auto r = RunIn({"replay", "show", cassette_}, BareEnv(), ws_.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("provider anthropic (API anthropic), 3 exchanges, 2 agents"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  > user: make a file\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  > user: count the files\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  < tool_call write {\"content\":\"alpha\\n\",\"path\":\"${SEPP_CWD}/a.txt\"}"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("  < text: All done.\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("agent 1 call 0"), std::string::npos) << r.out;
  EXPECT_EQ(RunIn({"replay"}, BareEnv()).exit_code, 2);
  auto bad = RunIn({"replay", "show", (root_ / "missing").string()}, BareEnv());
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.err.find("cannot read the cassette"), std::string::npos);
}

// Ctrl-C during a replay is an abort (130), not a mismatch: the exchanges
// the run never reached are expected.
TEST_P(ReplayAnthropic, AbortedReplayExitsWith130) {
  Json script = {{{"tool_calls", {Call("bash", {{"command", "if [ -f slow ]; then sleep 60; fi; echo ok"}})}}},
                 {{"text", "finished"}}};
  ASSERT_EQ(Record({"-p", "go"}, script, ws_).exit_code, 0);
  std::ofstream(ws_ / "slow") << "";
  RunOptions o;
  o.args = {"-p", "go", "--replay", cassette_};
  o.env = BareEnv();
  o.cwd = ws_.string();
  o.sigint_after_s = 1.5;
  o.timeout_s = 30;
  auto r = RunSepp(o);
  EXPECT_EQ(r.exit_code, 130) << r.err;
  EXPECT_EQ(r.err.find("never asked for"), std::string::npos) << r.err;
}

TEST_P(ReplayAnthropic, ConflictingFlagsAreUsageErrors) {
  auto env = BareEnv();
  EXPECT_EQ(RunIn({"-p", "x", "--replay-mode", "lenient"}, env).exit_code, 2);
  auto both = RunIn({"-p", "x", "--record", cassette_ + "2", "--replay", cassette_}, LiveEnv());
  EXPECT_EQ(both.exit_code, 2);
  EXPECT_NE(both.err.find("--record and --replay cannot be combined"), std::string::npos) << both.err;
}

INSTANTIATE_TEST_SUITE_P(Anthropic, ReplayAnthropic, ::testing::Values("anthropic"));

}  // namespace
}  // namespace sepp::e2e
