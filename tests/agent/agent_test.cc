// The agent loop against a scripted in-process provider and fake tools.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <deque>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <thread>

#include "agent/agent.h"
#include "agent/system_prompt.h"
#include "base/ids.h"
#include "base/secrets.h"
#include "test_doubles.h"

namespace sepp::agent {
namespace {

using llm::ContentBlock;
using llm::Message;
using llm::Role;
using llm::StopReason;
using testing::Assistant;
using testing::Call;
using testing::EchoTool;
using testing::ScriptedProvider;

// "sleep": sleeps args.ms and tracks how many run at once.
class SleepTool : public tools::Tool {
 public:
  std::atomic<int> running{0}, max_running{0};
  std::string name() const override { return "sleep"; }
  std::string description() const override { return "sleeps"; }
  Json parameters() const override { return {{"type", "object"}}; }
  std::string Summary(const Json& a) const override { return "sleep " + a.dump(); }
  tools::ToolResult Run(const Json& args, tools::ToolContext& ctx) override {
    int now = ++running;
    int prev = max_running.load();
    while (now > prev && !max_running.compare_exchange_weak(prev, now)) {
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(args.value("ms", 0)));
    --running;
    if (ctx.on_output) ctx.on_output("slept\n");
    return {"slept " + std::to_string(args.value("ms", 0)), false};
  }
};

class AgentTest : public ::testing::Test {
 protected:
  AgentTest() {
    auto sleep = std::make_unique<SleepTool>();
    sleep_ = sleep.get();
    registry_.Add(std::move(sleep));
    registry_.Add(std::make_unique<EchoTool>(&cancel_));
    config_.model = "test-model";
    config_.cwd = "/tmp";
  }

  Outcome Run(const std::string& prompt) {
    Agent agent(
        config_, provider_, registry_, [&](const Event& e) { events_.push_back(e); },
        [&](const Message& m) { recorded_.push_back(m); });
    return agent.Prompt(prompt, cancel_);
  }

  std::vector<std::string> EventTypes() const {
    std::vector<std::string> out;
    for (const auto& e : events_) out.push_back(ToString(e.type));
    return out;
  }

  ScriptedProvider provider_;
  tools::ToolRegistry registry_;
  SleepTool* sleep_;
  AgentConfig config_;
  CancelToken cancel_;
  std::vector<Event> events_;
  std::vector<Message> recorded_;
};

TEST_F(AgentTest, TextAnswerEndsTheRunAfterOneTurn) {
  provider_.queue.push_back(Assistant({ContentBlock::Text("hello")}));
  Outcome o = Run("hi");
  EXPECT_EQ(o.status, Outcome::Status::kDone);
  EXPECT_EQ(o.final_text, "hello");
  EXPECT_EQ(o.turns, 1);
  EXPECT_EQ(o.usage.input, 10);
  EXPECT_EQ(EventTypes(), (std::vector<std::string>{"message.user", "turn.started",
                                                    "message.delta", "message.completed",
                                                    "usage", "turn.finished"}));
  ASSERT_EQ(provider_.requests.size(), 1u);
  EXPECT_EQ(provider_.requests[0].model, "test-model");
  ASSERT_EQ(provider_.requests[0].messages.size(), 1u);
  EXPECT_EQ(provider_.requests[0].messages[0].Text(), "hi");
  EXPECT_EQ(provider_.requests[0].tools.size(), 2u);
  ASSERT_EQ(recorded_.size(), 2u);
  EXPECT_EQ(recorded_[0].role, Role::kUser);
  EXPECT_EQ(recorded_[1].role, Role::kAssistant);
}

TEST_F(AgentTest, ParallelCallsReturnResultsInCallOrder) {
  provider_.queue.push_back(Assistant({Call("c1", "sleep", {{"ms", 300}}),
                                         Call("c2", "sleep", {{"ms", 10}}),
                                         Call("c3", "sleep", {{"ms", 150}})},
                                        StopReason::kToolUse));
  provider_.queue.push_back(Assistant({ContentBlock::Text("done")}));
  Outcome o = Run("go");
  ASSERT_EQ(o.status, Outcome::Status::kDone);
  EXPECT_GE(sleep_->max_running.load(), 2) << "tool calls of one message must run in parallel";
  ASSERT_EQ(provider_.requests.size(), 2u);
  const auto& msgs = provider_.requests[1].messages;
  ASSERT_EQ(msgs.size(), 5u);  // user, assistant, 3 results
  EXPECT_EQ(msgs[2].tool_call_id, "c1");
  EXPECT_EQ(msgs[3].tool_call_id, "c2");
  EXPECT_EQ(msgs[4].tool_call_id, "c3");
  EXPECT_EQ(msgs[2].Text(), "slept 300");
  EXPECT_EQ(msgs[4].tool_name, "sleep");
  int outputs = 0;
  for (const auto& e : events_) outputs += e.type == EventType::kToolOutput;
  EXPECT_EQ(outputs, 3);
}

TEST_F(AgentTest, UnknownToolAndBadArgumentsBecomeErrorsTheModelReads) {
  ContentBlock bad = Call("c2", "echo", nullptr);
  bad.arguments_error = "unexpected end of input";
  bad.raw_arguments = "{\"text\": ";
  provider_.queue.push_back(
      Assistant({Call("c1", "nope", Json::object()), bad, Call("c3", "echo", Json::array())},
                StopReason::kToolUse));
  provider_.queue.push_back(Assistant({ContentBlock::Text("ok")}));
  Outcome o = Run("go");
  ASSERT_EQ(o.status, Outcome::Status::kDone);
  const auto& msgs = provider_.requests[1].messages;
  ASSERT_EQ(msgs.size(), 5u);
  EXPECT_TRUE(msgs[2].is_error);
  EXPECT_NE(msgs[2].Text().find("unknown tool \"nope\""), std::string::npos);
  EXPECT_NE(msgs[2].Text().find("sleep, echo"), std::string::npos);
  EXPECT_TRUE(msgs[3].is_error);
  EXPECT_NE(msgs[3].Text().find("not valid JSON"), std::string::npos);
  EXPECT_TRUE(msgs[4].is_error);
  EXPECT_NE(msgs[4].Text().find("JSON object"), std::string::npos);
}

TEST_F(AgentTest, LengthStopRunsNoCallAndSaysWhy) {
  provider_.queue.push_back(
      Assistant({Call("c1", "echo", {{"text", "x"}})}, StopReason::kLength));
  provider_.queue.push_back(Assistant({ContentBlock::Text("ok")}));
  Run("go");
  const auto& msgs = provider_.requests[1].messages;
  ASSERT_EQ(msgs.size(), 3u);
  EXPECT_TRUE(msgs[2].is_error);
  EXPECT_NE(msgs[2].Text().find("output token limit"), std::string::npos);
}

TEST_F(AgentTest, ToolErrorsAreResultsNotFailures) {
  provider_.queue.push_back(
      Assistant({Call("c1", "echo", {{"text", "boom"}, {"fail", true}})}, StopReason::kToolUse));
  provider_.queue.push_back(Assistant({ContentBlock::Text("recovered")}));
  Outcome o = Run("go");
  EXPECT_EQ(o.status, Outcome::Status::kDone);
  EXPECT_EQ(o.final_text, "recovered");
  EXPECT_TRUE(provider_.requests[1].messages[2].is_error);
}

TEST_F(AgentTest, ProviderErrorEndsTheRunWithItsKind) {
  provider_.queue.push_back(Error::Make("the API key was rejected (401)", "auth"));
  Outcome o = Run("go");
  EXPECT_EQ(o.status, Outcome::Status::kError);
  EXPECT_EQ(o.error.kind, "auth");
  ASSERT_FALSE(events_.empty());
  EXPECT_EQ(events_.back().type, EventType::kError);
  EXPECT_EQ(events_.back().kind, "auth");
}

TEST_F(AgentTest, AbortDuringToolsAnswersEveryCallAndStops) {
  provider_.queue.push_back(Assistant(
      {Call("c1", "echo", {{"text", "cancel"}}), Call("c2", "echo", {{"text", "later"}})},
      StopReason::kToolUse));
  config_.max_parallel_tools = 1;  // c1 cancels before c2 starts
  Outcome o = Run("go");
  EXPECT_EQ(o.status, Outcome::Status::kAborted);
  EXPECT_EQ(provider_.requests.size(), 1u);
  // Every call has a result, so the conversation stays valid for -c.
  ASSERT_EQ(recorded_.size(), 4u);
  EXPECT_EQ(recorded_[2].tool_call_id, "c1");
  EXPECT_EQ(recorded_[3].tool_call_id, "c2");
  EXPECT_TRUE(recorded_[3].is_error);
  EXPECT_NE(recorded_[3].Text().find("aborted"), std::string::npos);
}

// A call whose own token is cancelled (AbortCall) ends alone: the other
// call's result stands and the turn goes on to the next model call.
TEST(AgentAbortCall, CancellingOneCallsTokenLeavesTheTurnRunning) {
  ScriptedProvider provider;
  tools::ToolRegistry registry;
  registry.Add(std::make_unique<EchoTool>());  // "cancel": this call's own token
  provider.queue.push_back(Assistant(
      {Call("c1", "echo", {{"text", "cancel"}}), Call("c2", "echo", {{"text", "later"}})},
      StopReason::kToolUse));
  provider.queue.push_back(Assistant({ContentBlock::Text("went on")}));
  AgentConfig config;
  config.model = "test-model";
  config.cwd = "/tmp";
  config.max_parallel_tools = 1;
  Agent agent(config, provider, registry, nullptr, nullptr);
  CancelToken cancel;
  Outcome o = agent.Prompt("go", cancel);
  EXPECT_EQ(o.status, Outcome::Status::kDone);
  EXPECT_EQ(o.final_text, "went on");
  ASSERT_EQ(provider.requests.size(), 2u);
  const auto& msgs = provider.requests[1].messages;
  ASSERT_EQ(msgs.size(), 4u);
  EXPECT_TRUE(msgs[2].is_error);
  EXPECT_NE(msgs[2].Text().find("the user aborted this call"), std::string::npos) << msgs[2].Text();
  EXPECT_FALSE(msgs[3].is_error);
  EXPECT_EQ(msgs[3].Text(), "later");
  EXPECT_FALSE(agent.AbortCall("c1")) << "a finished call is no longer running";
}

TEST_F(AgentTest, AbortDuringTheStreamIsRecorded) {
  cancel_.Cancel();
  Outcome o = Run("go");
  EXPECT_EQ(o.status, Outcome::Status::kAborted);
}

TEST_F(AgentTest, MaxTurnsStopsTheLoop) {
  config_.max_turns = 2;
  for (int i = 0; i < 5; ++i)
    provider_.queue.push_back(Assistant({Call("c" + std::to_string(i), "echo", {{"text", "x"}})},
                                          StopReason::kToolUse));
  Outcome o = Run("go");
  EXPECT_EQ(o.status, Outcome::Status::kMaxTurns);
  EXPECT_EQ(provider_.requests.size(), 2u);
}

TEST_F(AgentTest, SecretsNeverEnterTheContext) {
  RegisterSecret("sk-agent-test-secret-123456");
  provider_.queue.push_back(Assistant({Call("c1", "echo", {{"text", "key=sk-agent-test-secret-123456"}})},
                                        StopReason::kToolUse));
  provider_.queue.push_back(Assistant({ContentBlock::Text("ok")}));
  Run("go");
  std::string seen = provider_.requests[1].messages[2].Text();
  EXPECT_EQ(seen.find("sk-agent-test-secret-123456"), std::string::npos);
  EXPECT_NE(seen.find("[REDACTED]"), std::string::npos);
}

TEST_F(AgentTest, HistoryIsSentBeforeTheNewPrompt) {
  provider_.queue.push_back(Assistant({ContentBlock::Text("second")}));
  Agent agent(config_, provider_, registry_, nullptr, nullptr);
  agent.SetHistory({Message::User("first"), Assistant({ContentBlock::Text("answer")})});
  agent.Prompt("again", cancel_);
  ASSERT_EQ(provider_.requests[0].messages.size(), 3u);
  EXPECT_EQ(provider_.requests[0].messages[0].Text(), "first");
  EXPECT_EQ(provider_.requests[0].messages[2].Text(), "again");
}

// The tools' specs are read from the registry once and moved into each
// request and back: every call still carries all of them, whole, and a
// tool added to the registry between prompts is in the next request.
TEST_F(AgentTest, EveryModelCallCarriesTheToolsAndANewToolJoinsTheNextCall) {
  provider_.queue.push_back(Assistant({Call("c1", "sleep", {{"ms", 0}})}, StopReason::kToolUse));
  provider_.queue.push_back(Assistant({ContentBlock::Text("one")}));
  provider_.queue.push_back(Assistant({ContentBlock::Text("two")}));
  Agent agent(config_, provider_, registry_, nullptr, nullptr);
  ASSERT_EQ(agent.Prompt("first", cancel_).status, Outcome::Status::kDone);
  auto named = [](const llm::Request& r) {
    std::vector<std::string> names;
    for (const auto& t : r.tools) names.push_back(t.name);
    return names;
  };
  ASSERT_EQ(provider_.requests.size(), 2u);
  EXPECT_EQ(named(provider_.requests[0]), (std::vector<std::string>{"sleep", "echo"}));
  EXPECT_EQ(named(provider_.requests[1]), named(provider_.requests[0]));
  EXPECT_EQ(provider_.requests[1].tools[0].description, "sleeps");
  EXPECT_EQ(provider_.requests[1].tools[0].parameters, Json({{"type", "object"}}));
  // One stamp names the set while it stays (the request writer compares it
  // instead of the schemas) ...
  EXPECT_NE(provider_.requests[0].tools_stamp, 0u);
  EXPECT_EQ(provider_.requests[1].tools_stamp, provider_.requests[0].tools_stamp);

  class LateTool : public SleepTool {
   public:
    std::string name() const override { return "late"; }
  };
  registry_.Add(std::make_unique<LateTool>());
  ASSERT_EQ(agent.Prompt("second", cancel_).status, Outcome::Status::kDone);
  ASSERT_EQ(provider_.requests.size(), 3u);
  EXPECT_EQ(named(provider_.requests[2]), (std::vector<std::string>{"sleep", "echo", "late"}));
  // ... and a changed set has a new one.
  EXPECT_NE(provider_.requests[2].tools_stamp, 0u);
  EXPECT_NE(provider_.requests[2].tools_stamp, provider_.requests[1].tools_stamp);
}

TEST(SystemPrompt, ContextFilesOutermostFirstAndPromptNamesTools) {
  namespace fs = std::filesystem;
  fs::path root = fs::temp_directory_path() / ("sepp-sp-" + ShortId());
  fs::create_directories(root / "a" / "b");
  std::ofstream(root / "AGENTS.md") << "outer rules";
  std::ofstream(root / "a" / "b" / "CLAUDE.md") << "inner rules";
  auto files = FindContextFiles(root / "a" / "b");
  std::vector<std::string> names;
  for (auto& f : files)
    if (f.path.string().rfind(root.string(), 0) == 0) names.push_back(f.content);
  EXPECT_EQ(names, (std::vector<std::string>{"outer rules", "inner rules"}));
  std::string p = BuildSystemPrompt(root, "2026-11-29", {{"read", "Reads a file.\nMore."}}, files);
  EXPECT_NE(p.find("- read: Reads a file.\n"), std::string::npos);
  EXPECT_EQ(p.find("More."), std::string::npos);
  EXPECT_NE(p.find("Working directory: " + root.string()), std::string::npos);
  EXPECT_NE(p.find("2026-11-29"), std::string::npos);
  EXPECT_NE(p.find("inner rules"), std::string::npos);
  fs::remove_all(root);
}

TEST(SystemPrompt, ContextFilesAreCappedEachAndTogetherWithANote) {
  namespace fs = std::filesystem;
  fs::path root = fs::temp_directory_path() / ("sepp-sp-" + ShortId());
  fs::create_directories(root / "a" / "b");
  // One file over 64 KB is cut; three of 60 KB together pass 128 KB, and
  // the farthest goes first.
  std::ofstream(root / "AGENTS.md") << std::string(60 * 1024, 'o');
  std::ofstream(root / "a" / "AGENTS.md") << std::string(60 * 1024, 'm');
  std::ofstream(root / "a" / "b" / "AGENTS.md") << std::string(100 * 1024, 'n');
  auto files = FindContextFiles(root / "a" / "b");
  std::vector<const ContextFile*> ours;
  for (auto& f : files)
    if (f.path.string().rfind(root.string(), 0) == 0) ours.push_back(&f);
  ASSERT_EQ(ours.size(), 3u);
  EXPECT_NE(ours[2]->content.find("[... cut: the file is larger than 64 KB]"), std::string::npos);
  EXPECT_LE(ours[2]->content.size(), 65 * 1024u);
  EXPECT_EQ(ours[1]->content, std::string(60 * 1024, 'm'));
  EXPECT_NE(ours[0]->content.find("left out: the context files together are larger than 128 KB"),
            std::string::npos);
  EXPECT_EQ(ours[0]->content.find("ooo"), std::string::npos);
  fs::remove_all(root);
}

}  // namespace
}  // namespace sepp::agent
