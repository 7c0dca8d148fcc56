// End-to-end: the real sepp binary, one-shot mode, against the scripted fake
// provider, for each of the three provider APIs.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
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
constexpr char kKey[] = "sk-e2e-secret-key-0123456789abcdef";

struct SeenResult {
  std::string id;
  std::string text;
  bool is_error = false;
};

std::string TextOf(const Json& content) {
  if (content.is_string()) return content.get<std::string>();
  std::string out;
  if (content.is_array())
    for (const auto& b : content)
      if (b.is_object() && b.contains("text") && b["text"].is_string()) out += b["text"].get<std::string>();
  return out;
}

// The tool results a request carries back to the model, in order.
std::vector<SeenResult> ToolResults(const fake::RecordedRequest& r) {
  std::vector<SeenResult> out;
  const Json& b = r.body;
  if (r.api == "anthropic") {
    for (const auto& m : b.value("messages", Json::array()))
      if (m.value("role", "") == "user" && m["content"].is_array())
        for (const auto& c : m["content"])
          if (c.value("type", "") == "tool_result")
            out.push_back({c.value("tool_use_id", ""), TextOf(c.value("content", Json())),
                           c.value("is_error", false)});
  } else if (r.api == "openai_chat") {
    for (const auto& m : b.value("messages", Json::array()))
      if (m.value("role", "") == "tool")
        out.push_back({m.value("tool_call_id", ""), TextOf(m.value("content", Json())), false});
  } else {
    for (const auto& it : b.value("input", Json::array()))
      if (it.value("type", "") == "function_call_output")
        out.push_back({it.value("call_id", ""), TextOf(it.value("output", Json())), false});
  }
  return out;
}

class E2E : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("sepp-e2e-" + ShortId());
    ws_ = root_ / "ws";
    home_ = root_ / "home";
    fs::create_directories(ws_);
    fs::create_directories(home_);
    ASSERT_TRUE(fp_.Start().ok());
  }
  void TearDown() override {
    fp_.Stop();
    fs::remove_all(root_);
  }

  std::map<std::string, std::string> Env() const {
    std::map<std::string, std::string> env = {
        {"PATH", "/usr/local/bin:/usr/bin:/bin"},
        {"HOME", home_.string()},
        {"SEPP_HOME", (home_ / ".sepp").string()},
        {"SEPP_PROVIDER", GetParam()},
        {"LANG", "C.UTF-8"},
    };
    if (GetParam() == "anthropic") {
      env["ANTHROPIC_BASE_URL"] = fp_.base_url();
      env["ANTHROPIC_API_KEY"] = kKey;
    } else {
      env["OPENAI_BASE_URL"] = fp_.base_url() + "/v1";
      env["OPENAI_API_KEY"] = kKey;
    }
    return env;
  }

  RunOutput Sepp(std::vector<std::string> args, const Json& script, RunOptions o = {}) {
    fp_.SetScript({{"responses", script}});
    o.args = std::move(args);
    if (o.env.empty()) o.env = Env();
    o.cwd = ws_.string();
    return RunSepp(o);
  }

  std::vector<fake::RecordedRequest> Requests() const { return fp_.requests(); }

  std::string AllSessionText() const {
    std::string all;
    for (const auto& e : fs::recursive_directory_iterator(home_))
      if (e.is_regular_file()) all += ReadFile(e.path()).value();
    return all;
  }

  fs::path root_, ws_, home_;
  fake::FakeProvider fp_;
};

Json ToolCall(const std::string& name, Json args) { return {{"name", name}, {"arguments", args}}; }
Json Bash(const std::string& cmd) { return ToolCall("bash", {{"command", cmd}}); }

TEST_P(E2E, TextAnswerStreamsToStdout) {
  auto r = Sepp({"-p", "say hello"}, {{{"text", "Hello from the fake provider."}}});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "Hello from the fake provider.\n");
  auto reqs = Requests();
  ASSERT_EQ(reqs.size(), 1u);
  std::string body = reqs[0].body.dump();
  EXPECT_NE(body.find("say hello"), std::string::npos);
  EXPECT_NE(body.find(ws_.string()), std::string::npos) << "the system prompt names the cwd";
  EXPECT_EQ(body.find(kKey), std::string::npos);
}

TEST_P(E2E, MultiTurnToolUseStreamingAndNot) {
  for (bool stream : {true, false}) {
    SCOPED_TRACE(stream ? "stream" : "no-stream");
    fs::remove(ws_ / "a.txt");
    std::vector<std::string> args = {"-p", "make a file"};
    if (!stream) args.push_back("--no-stream");
    auto r = Sepp(args, {{{"tool_calls", {ToolCall("write", {{"path", "a.txt"}, {"content", "alpha\nbeta\n"}})}}},
                         {{"tool_calls", {ToolCall("read", {{"path", "a.txt"}})}}},
                         {{"text", "All done."}}});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, "All done.\n");
    EXPECT_NE(r.err.find("\xE2\x8E\xBF write a.txt"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("\xE2\x8E\xBF read a.txt"), std::string::npos) << r.err;
    EXPECT_EQ(ReadFile(ws_ / "a.txt").value(), "alpha\nbeta\n");
    auto reqs = Requests();
    ASSERT_GE(reqs.size(), 3u);
    auto results = ToolResults(reqs.back());
    ASSERT_EQ(results.size(), 2u);
    EXPECT_NE(results[1].text.find("beta"), std::string::npos);
    EXPECT_EQ(reqs.back().body.value("stream", false), stream);
    fp_.Reset();
  }
}

TEST_P(E2E, ParallelCallsComeBackInCallOrder) {
  auto r = Sepp({"-p", "go"}, {{{"tool_calls", {Bash("sleep 0.4; echo one"), Bash("echo two"),
                                                 Bash("sleep 0.2; echo three")}}},
                               {{"text", "ok"}}});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto results = ToolResults(Requests().back());
  ASSERT_EQ(results.size(), 3u);
  EXPECT_NE(results[0].text.find("one"), std::string::npos);
  EXPECT_NE(results[1].text.find("two"), std::string::npos);
  EXPECT_NE(results[2].text.find("three"), std::string::npos);
}

TEST_P(E2E, RetriesA429HonouringRetryAfter) {
  auto r = Sepp({"-p", "go"}, {{{"error", {{"status", 429}, {"retry_after", 1}, {"message", "slow down"}}}},
                               {{"text", "after the retry"}}});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "after the retry\n");
  EXPECT_EQ(Requests().size(), 2u);
}

TEST_P(E2E, CutStreamIsRetriedAndNeverRerunsATool) {
  Json call = {{"tool_calls", {Bash("echo ran >> runs.txt")}}};
  Json cut = call;
  cut["cut_after_bytes"] = 120;
  auto r = Sepp({"-p", "go"}, {cut, call, {{"text", "done"}}});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(ReadFile(ws_ / "runs.txt").value(), "ran\n");
  EXPECT_EQ(Requests().size(), 3u);
}

TEST_P(E2E, SigintAbortsARunningToolAndTheSessionContinues) {
  RunOptions o;
  o.sigint_after_s = 1.5;
  o.timeout_s = 30;
  auto start = std::chrono::steady_clock::now();
  auto r = Sepp({"-p", "wait"}, {{{"tool_calls", {Bash("sleep 60")}}}}, o);
  double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(r.exit_code, 130) << r.err;
  EXPECT_FALSE(r.killed);
  EXPECT_LT(took, 20);
  // The record is a valid conversation: -c sends the aborted call's result.
  fp_.Reset();
  auto r2 = Sepp({"-c", "-p", "again"}, {{{"text", "resumed"}}});
  EXPECT_EQ(r2.exit_code, 0) << r2.err;
  auto reqs = Requests();
  ASSERT_EQ(reqs.size(), 1u);
  EXPECT_NE(reqs[0].body.dump().find("wait"), std::string::npos);
  EXPECT_EQ(ToolResults(reqs[0]).size(), 1u);
}

TEST_P(E2E, HugeOutputIsTruncatedHeadAndTail) {
  auto r = Sepp({"-p", "go"}, {{{"tool_calls", {Bash("seq 1 300000")}}}, {{"text", "ok"}}});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto results = ToolResults(Requests().back());
  ASSERT_EQ(results.size(), 1u);
  // The output sidecar keeps it (docs/sidecar.md): the model gets a
  // receipt whose preview has the head and the tail.
  EXPECT_LT(results[0].text.size(), 16u * 1024);
  EXPECT_EQ(results[0].text.rfind("[context-sidecar]", 0), 0u) << results[0].text.substr(0, 100);
  EXPECT_NE(results[0].text.find("\n1\n2\n"), std::string::npos) << results[0].text.substr(0, 600);
  EXPECT_NE(results[0].text.find("300000"), std::string::npos);
}

TEST_P(E2E, NonUtf8FileIsReadSafely) {
  std::ofstream(ws_ / "bin.txt", std::ios::binary) << "ok \xff\xfe end\n";
  auto r = Sepp({"-p", "go"}, {{{"tool_calls", {ToolCall("read", {{"path", "bin.txt"}})}}}, {{"text", "ok"}}});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto results = ToolResults(Requests().back());
  ASSERT_EQ(results.size(), 1u);
  EXPECT_TRUE(IsValidUtf8(results[0].text));
  EXPECT_NE(results[0].text.find("ok "), std::string::npos);
  EXPECT_NE(results[0].text.find("end"), std::string::npos);
}

TEST_P(E2E, BadArgumentsAndUnknownToolsAreErrorsTheModelReads) {
  Json bad = {{"name", "read"}, {"raw_arguments", "{\"path\": "}};
  auto r = Sepp({"-p", "go"}, {{{"tool_calls", {bad, ToolCall("nope", Json::object()),
                                                 ToolCall("read", {{"path", 42}})}}},
                               {{"text", "ok"}}});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto results = ToolResults(Requests().back());
  ASSERT_EQ(results.size(), 3u);
  EXPECT_NE(results[0].text.find("not valid JSON"), std::string::npos) << results[0].text;
  EXPECT_NE(results[1].text.find("unknown tool"), std::string::npos);
  EXPECT_NE(results[2].text.find("path"), std::string::npos);
}

TEST_P(E2E, ContinueAndResumeCarryTheConversation) {
  auto r1 = Sepp({"-p", "first prompt", "--output", "json"}, {{{"text", "first answer"}}});
  ASSERT_EQ(r1.exit_code, 0) << r1.err;
  auto j = ParseJson(r1.out);
  ASSERT_TRUE(j.ok()) << r1.out;
  std::string id = (*j)["session_id"];
  ASSERT_EQ(id.size(), 32u);
  EXPECT_EQ((*j)["text"], "first answer");
  EXPECT_EQ((*j)["status"], "done");
  EXPECT_EQ((*j)["turns"], 1);
  EXPECT_GT((*j)["usage"]["input"].get<int>(), 0);

  fp_.Reset();
  auto r2 = Sepp({"-c", "-p", "second prompt"}, {{{"text", "second answer"}}});
  ASSERT_EQ(r2.exit_code, 0) << r2.err;
  std::string body = Requests()[0].body.dump();
  EXPECT_NE(body.find("first prompt"), std::string::npos);
  EXPECT_NE(body.find("first answer"), std::string::npos);

  fp_.Reset();
  auto r3 = Sepp({"-r", id.substr(0, 8), "-p", "third prompt"}, {{{"text", "third answer"}}});
  ASSERT_EQ(r3.exit_code, 0) << r3.err;
  body = Requests()[0].body.dump();
  EXPECT_NE(body.find("second answer"), std::string::npos);

  auto r4 = Sepp({"-r", "ffffffff", "-p", "x"}, {{{"text", "never"}}});
  EXPECT_EQ(r4.exit_code, 1);
  EXPECT_NE(r4.err.find("ffffffff"), std::string::npos) << r4.err;
}

TEST_P(E2E, StreamJsonIsTheEventStream) {
  auto r = Sepp({"-p", "go", "--output", "stream-json"},
                {{{"tool_calls", {Bash("echo hi")}}}, {{"text", "bye"}}});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::string> types;
  for (const auto& line : SplitLines(r.out)) {
    auto j = ParseJson(line);
    ASSERT_TRUE(j.ok()) << line;
    types.push_back((*j)["type"]);
  }
  ASSERT_GE(types.size(), 6u);
  EXPECT_EQ(types.front(), "session.started");
  EXPECT_EQ(types.back(), "session.ended");
  for (const char* t : {"turn.started", "tool.started", "tool.finished", "message.delta",
                        "message.completed", "usage", "turn.finished"})
    EXPECT_NE(std::find(types.begin(), types.end(), t), types.end()) << t;
}

TEST_P(E2E, PromptFromStdin) {
  RunOptions o;
  o.stdin_data = "diff --git a/x b/x\n+added line\n";
  auto r = Sepp({"-p", "review this"}, {{{"text", "looks fine"}}}, o);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string body = Requests()[0].body.dump();
  EXPECT_NE(body.find("review this"), std::string::npos);
  EXPECT_NE(body.find("+added line"), std::string::npos);
}

TEST_P(E2E, SecretsReachNeitherToolsNorFiles) {
  auto r = Sepp({"-p", "go"}, {{{"tool_calls", {Bash("env; echo KEY=$ANTHROPIC_API_KEY$OPENAI_API_KEY")}}},
                               {{"text", "ok"}}});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto results = ToolResults(Requests().back());
  ASSERT_EQ(results.size(), 1u);
  EXPECT_NE(results[0].text.find("KEY="), std::string::npos);
  EXPECT_EQ(results[0].text.find(kKey), std::string::npos);
  EXPECT_EQ(r.err.find(kKey), std::string::npos);
  EXPECT_EQ(r.out.find(kKey), std::string::npos);
  EXPECT_EQ(AllSessionText().find(kKey), std::string::npos);
}

// The ids of a session's entries, in file order, with the text of each.
std::vector<std::pair<std::string, std::string>> SessionEntries(const fs::path& home,
                                                                const std::string& id) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& e : fs::recursive_directory_iterator(home))
    if (e.is_regular_file() && e.path().filename().string().find(id) != std::string::npos &&
        e.path().extension() == ".jsonl")
      for (const auto& line : SplitLines(ReadFile(e.path()).value())) {
        auto j = ParseJson(line);
        if (j.ok() && j->value("type", "") == "message")
          out.push_back({(*j)["id"], (*j)["message"].dump()});
      }
  return out;
}

TEST_P(E2E, BranchAndForkGoOnFromAnEarlierEntry) {
  auto r1 = Sepp({"-p", "first prompt", "--output", "json"}, {{{"text", "first answer"}}});
  ASSERT_EQ(r1.exit_code, 0) << r1.err;
  std::string id = ParseJson(r1.out).value()["session_id"];
  fp_.Reset();
  ASSERT_EQ(Sepp({"-c", "-p", "second prompt"}, {{{"text", "second answer"}}}).exit_code, 0);
  auto entries = SessionEntries(home_, id);
  ASSERT_EQ(entries.size(), 4u);
  std::string after_first = entries[1].first;  // the first answer

  fp_.Reset();
  auto r3 = Sepp({"-r", id, "--branch", after_first, "-p", "other way"}, {{{"text", "branched"}}});
  ASSERT_EQ(r3.exit_code, 0) << r3.err;
  std::string body = Requests()[0].body.dump();
  EXPECT_NE(body.find("first answer"), std::string::npos);
  EXPECT_EQ(body.find("second prompt"), std::string::npos) << "the other branch is not in the context";
  EXPECT_EQ(SessionEntries(home_, id).size(), 6u) << "the old branch stays in the file";

  fp_.Reset();
  auto r4 = Sepp({"-r", id, "--fork", after_first, "-p", "in a copy", "--output", "json"},
                 {{{"text", "forked"}}});
  ASSERT_EQ(r4.exit_code, 0) << r4.err;
  std::string fork_id = ParseJson(r4.out).value()["session_id"];
  EXPECT_NE(fork_id, id);
  body = Requests()[0].body.dump();
  EXPECT_NE(body.find("first answer"), std::string::npos);
  EXPECT_EQ(body.find("second prompt"), std::string::npos);
  EXPECT_EQ(SessionEntries(home_, id).size(), 6u) << "forking leaves the original alone";

  auto bad = Sepp({"-r", id, "--branch", "nonexistent", "-p", "x"}, Json::array());
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.err.find("no entry nonexistent"), std::string::npos) << bad.err;
  auto usage = Sepp({"--branch", after_first, "-p", "x"}, Json::array());
  EXPECT_EQ(usage.exit_code, 2);
}

TEST_P(E2E, KillDuringAStreamedTurnThenContinue) {
  RunOptions o;
  o.sigkill_after_s = 1.0;
  Json slow = {{"text", std::string(4000, 'z')}, {"chunk_delay_ms", 100}};
  auto r = Sepp({"-p", "remember the word zebra"}, Json::array({slow}), o);
  EXPECT_NE(r.exit_code, 0);
  fp_.Reset();
  auto r2 = Sepp({"-c", "-p", "what was the word?"}, {{{"text", "zebra"}}});
  ASSERT_EQ(r2.exit_code, 0) << r2.err;
  std::string body = Requests()[0].body.dump();
  EXPECT_NE(body.find("remember the word zebra"), std::string::npos);
  EXPECT_NE(body.find("what was the word?"), std::string::npos);
}

// Project configuration that adds code or power (here an agent definition)
// takes effect only after the user trusts the project as it is; a change
// withdraws the trust. A command the model runs cannot create .sepp/ either.
TEST_P(E2E, ProjectAgentDefinitionsNeedTheUsersTrust) {
  fs::create_directories(ws_ / ".sepp/agents");
  std::ofstream(ws_ / ".sepp/agents/reviewer.md") << "---\ndescription: reviews code strictly\n---\nbe strict\n";
  auto r = Sepp({"-p", "hi"}, {{{"text", "one"}}});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("ignored " + (fs::canonical(ws_) / ".sepp/agents").string()), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("sepp trust"), std::string::npos) << r.err;
  EXPECT_EQ(Requests()[0].body.dump().find("reviews code strictly"), std::string::npos);

  auto t = Sepp({"trust"}, Json::array());
  ASSERT_EQ(t.exit_code, 0) << t.err;
  EXPECT_NE(t.err.find(".sepp/agents/reviewer.md"), std::string::npos) << t.err;
  fp_.Reset();
  r = Sepp({"-p", "hi"}, {{{"text", "two"}}});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err.find("ignored"), std::string::npos) << r.err;
  EXPECT_NE(Requests()[0].body.dump().find("reviews code strictly"), std::string::npos);

  // Changed behind the user's back: ignored again, until --trust.
  std::ofstream(ws_ / ".sepp/agents/reviewer.md") << "---\ndescription: reviews code loosely\n---\n";
  fp_.Reset();
  r = Sepp({"-p", "hi"}, {{{"text", "three"}}});
  EXPECT_NE(r.err.find("changed since you trusted it"), std::string::npos) << r.err;
  EXPECT_EQ(Requests()[0].body.dump().find("reviews code loosely"), std::string::npos);
  fp_.Reset();
  r = Sepp({"--trust", "-p", "hi"}, {{{"text", "four"}}});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(Requests()[0].body.dump().find("reviews code loosely"), std::string::npos);
}

TEST_P(E2E, SubagentWorksInItsOwnContextAndSession) {
  auto r = Sepp({"-p", "parent secret plan", "--output", "json"},
                {{{"tool_calls", {ToolCall("agent", {{"task", "count the files"}})}}},
                 {{"text", "child says: 3 files"}},
                 {{"text", "parent done"}}});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string parent_id = ParseJson(r.out).value()["session_id"];
  auto reqs = Requests();
  ASSERT_EQ(reqs.size(), 3u);
  std::string child_body = reqs[1].body.dump();
  EXPECT_NE(child_body.find("count the files"), std::string::npos);
  EXPECT_EQ(child_body.find("parent secret plan"), std::string::npos) << "a fresh context";
  auto results = ToolResults(reqs[2]);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].text, "child says: 3 files");
  // The child's session is stored and names its parent.
  int sessions = 0, children = 0;
  for (const auto& e : fs::recursive_directory_iterator(home_))
    if (e.path().extension() == ".jsonl") {
      ++sessions;
      auto header = ParseJson(SplitLines(ReadFile(e.path()).value())[0]);
      if (header.ok() && header->value("parent_session", "") == parent_id) ++children;
    }
  EXPECT_EQ(sessions, 2);
  EXPECT_EQ(children, 1);
}

TEST_P(E2E, CommandsStartWithDefaultSignalsEvenThoughSeppBlocksThem) {
  // sepp blocks SIGINT/SIGTERM in its own threads and ignores SIGPIPE; a
  // command must not inherit that (`timeout`, `yes | head` would break).
  auto r = Sepp({"-p", "go"}, {{{"tool_calls", {Bash("grep -E 'SigBlk|SigIgn' /proc/self/status; yes | head -2")}}},
                               {{"text", "ok"}}});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto results = ToolResults(Requests().back());
  ASSERT_EQ(results.size(), 1u);
  EXPECT_NE(results[0].text.find("SigBlk:\t0000000000000000"), std::string::npos) << results[0].text;
  EXPECT_NE(results[0].text.find("SigIgn:\t0000000000000000"), std::string::npos) << results[0].text;
  EXPECT_EQ(results[0].text.find("Broken pipe"), std::string::npos) << results[0].text;
}

TEST_P(E2E, SecretsAreDeniedToEveryToolAndEachDenialIsRecorded) {
  fs::create_directories(home_ / ".ssh");
  std::ofstream(home_ / ".ssh" / "id_rsa") << "BEGIN PRIVATE KEY sekrit";
  auto r = Sepp({"-p", "go", "--output", "json"},
                {{{"tool_calls", {ToolCall("read", {{"path", (home_ / ".ssh/id_rsa").string()}}),
                                  Bash("cat ~/.ssh/id_rsa")}}},
                 {{"text", "ok"}}});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto results = ToolResults(Requests().back());
  ASSERT_EQ(results.size(), 2u);
  for (const auto& res : results) EXPECT_EQ(res.text.find("sekrit"), std::string::npos) << res.text;
  EXPECT_NE(results[0].text.find("denied"), std::string::npos) << results[0].text;
  std::string id = ParseJson(r.out).value()["session_id"];
  int denials = 0;
  for (const auto& e : fs::recursive_directory_iterator(home_ / ".sepp"))
    if (e.path().filename().string().find(id) != std::string::npos)
      for (const auto& line : SplitLines(ReadFile(e.path()).value()))
        denials += line.find("\"type\":\"denial\"") != std::string::npos;
  EXPECT_GE(denials, 1);
}

// The session files of this run's home, as parsed JSONL entries.
std::vector<Json> SessionEntries(const fs::path& home) {
  std::vector<Json> out;
  for (const auto& e : fs::recursive_directory_iterator(home / ".sepp"))
    if (e.is_regular_file() && e.path().extension() == ".jsonl")
      for (const auto& line : SplitLines(ReadFile(e.path()).value()))
        if (auto j = ParseJson(line); j.ok()) out.push_back(*j);
  return out;
}

// A write outside the workspace (the file tools' guard) and a connection to
// a live loopback server (the kernel sandbox, net off) are refused, and each
// refusal arrives typed: in tool.finished's denials and in the session's
// denial entries. The legitimate write next to them goes through.
TEST_P(E2E, RefusalsAreTypedInTheEventStreamAndTheSessionFile) {
  // Not under /tmp: the tools see a private /tmp of their own.
  fs::path outside = "/etc/sepp-e2e-" + ShortId();
  std::string connect = "exec 3<>/dev/tcp/127.0.0.1/" + std::to_string(fp_.port()) + " && echo connected";
  auto r = Sepp({"-p", "go", "--output", "stream-json"},
                {{{"tool_calls", {ToolCall("write", {{"path", outside.string()}, {"content", "x"}}),
                                  Bash(connect),
                                  ToolCall("write", {{"path", "ok.txt"}, {"content", "fine"}})}}},
                 {{"text", "ok"}}});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(fs::exists(outside));
  auto written = ReadFile(ws_ / "ok.txt");
  ASSERT_TRUE(written.ok());
  EXPECT_EQ(*written, "fine");
  std::vector<Json> finished;
  for (const auto& line : SplitLines(r.out))
    if (auto j = ParseJson(line); j.ok() && (*j)["type"] == "tool.finished") finished.push_back(*j);
  ASSERT_EQ(finished.size(), 3u) << r.out;
  auto with_kind = [](const std::vector<Json>& all, const std::string& kind) {
    std::vector<Json> out;
    for (const auto& f : all)
      for (const auto& d : f.value("denials", Json::array()))
        if (d.value("kind", "") == kind) out.push_back(d);
    return out;
  };
  auto writes = with_kind(finished, "write");
  ASSERT_EQ(writes.size(), 1u) << r.out;
  EXPECT_EQ(writes[0].value("target", ""), outside.string());
  EXPECT_NE(writes[0].value("text", "").find("outside the workspace"), std::string::npos);
  auto nets = with_kind(finished, "network");
  ASSERT_EQ(nets.size(), 1u) << r.out;
  EXPECT_NE(nets[0].value("text", "").find("network access is off"), std::string::npos);
  int clean = 0;
  for (const auto& f : finished) {
    ASSERT_TRUE(f.contains("denials") && f["denials"].is_array()) << f.dump();
    if (f["denials"].empty()) {
      ++clean;
      EXPECT_FALSE(f.value("denied", true));
      EXPECT_NE(f.value("result", "").find("ok.txt"), std::string::npos) << f.dump();
    }
  }
  EXPECT_EQ(clean, 1);
  // The details keep the plain strings for older readers.
  for (const auto& f : finished)
    if (f.value("denied", false))
      for (const auto& d : f["details"]["denials"]) EXPECT_TRUE(d.is_string()) << f.dump();

  std::vector<Json> recorded;
  for (const auto& e : SessionEntries(home_))
    if (e.value("type", "") == "denial") recorded.push_back(e);
  ASSERT_EQ(recorded.size(), 2u);
  auto saved_writes = with_kind(recorded, "write");
  ASSERT_EQ(saved_writes.size(), 1u);
  EXPECT_EQ(saved_writes[0].value("target", ""), outside.string());
  EXPECT_EQ(with_kind(recorded, "network").size(), 1u);
}

// A session written before denials were typed holds them as strings: it
// still resumes and renders.
TEST_P(E2E, AnOldSessionWithStringDenialsStillLoads) {
  auto first = Sepp({"-p", "go", "--output", "json"},
                    {{{"tool_calls", {ToolCall("write", {{"path", "/etc/sepp-e2e-old"},
                                                         {"content", "x"}})}}},
                     {{"text", "ok"}}});
  ASSERT_EQ(first.exit_code, 0) << first.err;
  std::string id = ParseJson(first.out).value()["session_id"];
  int rewritten = 0;
  for (const auto& e : fs::recursive_directory_iterator(home_ / ".sepp")) {
    if (!e.is_regular_file() || e.path().extension() != ".jsonl") continue;
    std::string out;
    for (const auto& line : SplitLines(ReadFile(e.path()).value())) {
      Json j = ParseJson(line).value();
      if (j.value("type", "") == "denial") {
        Json strings = Json::array();
        for (const auto& d : j["denials"]) strings.push_back(d["text"]);
        j["denials"] = strings;
        ++rewritten;
      }
      out += j.dump() + "\n";
    }
    std::ofstream(e.path(), std::ios::trunc) << out;
  }
  ASSERT_EQ(rewritten, 1);
  auto tree = Sepp({"sessions", "tree", id}, Json::array());
  ASSERT_EQ(tree.exit_code, 0) << tree.err;
  EXPECT_NE(tree.out.find("denied: /etc/sepp-e2e-old"), std::string::npos) << tree.out;
  auto again = Sepp({"-r", id, "-p", "again"}, {{{"text", "resumed"}}});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(again.out.find("resumed"), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(Apis, E2E, ::testing::Values("anthropic", "openai", "openai-responses"),
                         [](const auto& info) {
                           std::string n = info.param;
                           std::replace(n.begin(), n.end(), '-', '_');
                           return n;
                         });

// Errors people will meet, with the Anthropic API.
class E2EErrors : public E2E {};

TEST_P(E2EErrors, MissingKeyNamesTheVariable) {
  auto env = Env();
  env.erase("ANTHROPIC_API_KEY");
  RunOptions o;
  o.env = env;
  auto r = Sepp({"-p", "hi"}, {{{"text", "never"}}}, o);
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("ANTHROPIC_API_KEY"), std::string::npos) << r.err;
  EXPECT_TRUE(Requests().empty());
}

TEST_P(E2EErrors, RejectedKeyIsOneClearLine) {
  auto r = Sepp({"-p", "hi"}, {{{"error", {{"status", 401}, {"message", "invalid x-api-key"}}}}});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("401"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find(kKey), std::string::npos);
  EXPECT_EQ(Requests().size(), 1u) << "401 is not retried";
}

TEST_P(E2EErrors, BadRequestShowsTheProvidersMessage) {
  auto r = Sepp({"-p", "hi"}, {{{"error", {{"status", 400}, {"message", "max_tokens: too large"}}}}});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("max_tokens: too large"), std::string::npos) << r.err;
}

TEST_P(E2EErrors, UsageErrorsExitWithTwo) {
  auto r = Sepp({"--no-such-flag"}, Json::array());
  EXPECT_EQ(r.exit_code, 2);
  auto r2 = Sepp({}, Json::array());  // no prompt, stdin not a terminal and empty
  EXPECT_EQ(r2.exit_code, 2);
  EXPECT_NE(r2.err.find("-p"), std::string::npos);
}

// The project's settings may come from anyone (a clone, a command): a broken
// file is reported with its line and skipped, and sepp runs. The user's own
// settings file stays an error.
TEST_P(E2EErrors, BadProjectSettingsAreReportedAndSkipped) {
  fs::create_directories(ws_ / ".sepp");
  std::ofstream(ws_ / ".sepp" / "settings.toml") << "[session]\nstore = \"postgres\"\n";
  auto r = Sepp({"-p", "hi"}, {{{"text", "answer one"}}});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("settings.toml:2: session.store"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("skipped"), std::string::npos) << r.err;
  std::ofstream(ws_ / ".sepp" / "settings.toml") << "[[[\n";
  fp_.Reset();
  r = Sepp({"-p", "hi"}, {{{"text", "answer two"}}});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("settings.toml:1:"), std::string::npos) << r.err;
}

TEST_P(E2EErrors, BadUserSettingsNameTheFileAndLine) {
  fs::create_directories(home_ / ".sepp");
  std::ofstream(home_ / ".sepp" / "settings.toml") << "[session]\nstore = \"postgres\"\n";
  auto r = Sepp({"-p", "hi"}, {{{"text", "never"}}});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("settings.toml:2: session.store"), std::string::npos) << r.err;
  EXPECT_TRUE(Requests().empty());
}

TEST_P(E2EErrors, SqliteStoreFromSettingsKeepsSessions) {
  fs::create_directories(home_ / ".sepp");
  std::ofstream(home_ / ".sepp" / "settings.toml") << "[session]\nstore = \"sqlite\"\n";
  ASSERT_EQ(Sepp({"-p", "first prompt"}, {{{"text", "first answer"}}}).exit_code, 0);
  fp_.Reset();
  auto r = Sepp({"-c", "-p", "second"}, {{{"text", "ok"}}});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(Requests()[0].body.dump().find("first answer"), std::string::npos);
  EXPECT_TRUE(fs::exists(home_ / ".sepp" / "sessions" / "sessions.db"));
}

INSTANTIATE_TEST_SUITE_P(Anthropic, E2EErrors, ::testing::Values("anthropic"));

}  // namespace
}  // namespace sepp::e2e
