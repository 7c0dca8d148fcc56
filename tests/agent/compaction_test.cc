#include <gtest/gtest.h>

#include "agent/agent.h"
#include "agent/compaction.h"
#include "test_doubles.h"

namespace sepp::agent {
namespace {

using llm::ContentBlock;
using llm::Message;
using llm::Role;
using testing::Assistant;
using testing::Call;
using testing::EchoTool;
using testing::ScriptedProvider;

std::string Big(char c, size_t n) { return std::string(n, c); }

// user, then n rounds of (assistant call, tool result), then a text answer.
std::vector<Message> Conversation(int rounds, size_t bytes_each) {
  std::vector<Message> ms{Message::User("start " + Big('u', bytes_each))};
  for (int i = 0; i < rounds; ++i) {
    std::string id = "c" + std::to_string(i);
    ms.push_back(Assistant({Call(id, "echo", {{"text", Big('a', bytes_each)}})},
                           llm::StopReason::kToolUse));
    ms.push_back(Message::ToolResult(id, "echo", Big('r', bytes_each), false));
  }
  ms.push_back(Assistant({ContentBlock::Text("answer")}));
  // As a provider would report it: the whole context was the input.
  ms.back().usage.input = EstimateTokens(ms);
  return ms;
}

TEST(Compaction, CutNeverSeparatesACallFromItsResult) {
  auto ms = Conversation(6, 400);
  for (int64_t keep = 1; keep < 1200; keep += 37) {
    size_t cut = FindCutPoint(ms, keep);
    if (cut == 0) continue;
    EXPECT_NE(ms[cut].role, Role::kToolResult) << "keep=" << keep;
    EXPECT_GE(EstimateTokens(std::vector<Message>(ms.begin() + cut, ms.end())), keep);
  }
}

TEST(Compaction, TooShortToCut) {
  std::vector<Message> ms{Message::User("hi")};
  EXPECT_EQ(FindCutPoint(ms, 1000), 0u);
}

TEST(Compaction, ContextTokensUsesReportedUsagePlusEstimate) {
  std::vector<Message> ms{Message::User("hi"), Assistant({ContentBlock::Text("x")})};
  ms[1].usage.input = 1000;
  ms[1].usage.output = 50;
  EXPECT_EQ(ContextTokens(ms), 1050);
  ms.push_back(Message::User(Big('x', 400)));
  EXPECT_EQ(ContextTokens(ms), 1050 + EstimateTokens(ms[2]));
}

class CompactingAgent : public ::testing::Test {
 protected:
  CompactingAgent() {
    registry_.Add(std::make_unique<EchoTool>());
    config_.model = "m";
    config_.context_window = 3000;
    config_.compaction.reserve_tokens = 500;
    config_.compaction.keep_recent_tokens = 600;
  }
  ScriptedProvider provider_;
  tools::ToolRegistry registry_;
  AgentConfig config_;
  CancelToken cancel_;
};

TEST_F(CompactingAgent, CompactsAutomaticallyBeforeTheWindowFills) {
  provider_.queue.push_back(Assistant({ContentBlock::Text("## Goal\nsummary text")}));
  provider_.queue.push_back(Assistant({ContentBlock::Text("final")}));
  std::vector<CompactionResult> recorded;
  Agent agent(config_, provider_, registry_, nullptr, nullptr);
  agent.set_compaction_recorder([&](const CompactionResult& r) { recorded.push_back(r); });
  agent.SetHistory(Conversation(8, 1200));  // ~ 4,000 estimated tokens
  Outcome o = agent.Prompt("go on", cancel_);
  ASSERT_EQ(o.status, Outcome::Status::kDone);
  ASSERT_EQ(provider_.requests.size(), 2u);
  // The first call is the summary request, with the old part as a transcript.
  EXPECT_NE(provider_.requests[0].system.find("summarising"), std::string::npos);
  EXPECT_TRUE(provider_.requests[0].tools.empty());
  // The real call starts with the summary and never with an orphan result.
  const auto& sent = provider_.requests[1].messages;
  ASSERT_GE(sent.size(), 2u);
  EXPECT_NE(sent[0].Text().find("summary text"), std::string::npos);
  EXPECT_NE(sent[1].role, Role::kToolResult);
  EXPECT_EQ(sent.back().Text(), "go on");
  ASSERT_EQ(recorded.size(), 1u);
  EXPECT_GT(recorded[0].tokens_before, recorded[0].tokens_after);
  EXPECT_GT(recorded[0].first_kept, 0u);
}

TEST_F(CompactingAgent, ContextOverflowCompactsAndRetriesOnce) {
  config_.context_window = 1000000;  // our estimate says it fits; the provider disagrees
  provider_.queue.push_back(Error::Make("prompt is too long: 250000 tokens", "context_overflow"));
  provider_.queue.push_back(Assistant({ContentBlock::Text("the summary")}));
  provider_.queue.push_back(Assistant({ContentBlock::Text("answered")}));
  Agent agent(config_, provider_, registry_, nullptr, nullptr);
  agent.SetHistory(Conversation(8, 1200));
  Outcome o = agent.Prompt("go on", cancel_);
  EXPECT_EQ(o.status, Outcome::Status::kDone);
  EXPECT_EQ(o.final_text, "answered");
  ASSERT_EQ(provider_.requests.size(), 3u);
  EXPECT_NE(provider_.requests[2].messages[0].Text().find("the summary"), std::string::npos);
}

TEST_F(CompactingAgent, OverflowTwiceIsAnError) {
  config_.context_window = 1000000;
  provider_.queue.push_back(Error::Make("too long", "context_overflow"));
  provider_.queue.push_back(Assistant({ContentBlock::Text("the summary")}));
  provider_.queue.push_back(Error::Make("still too long", "context_overflow"));
  Agent agent(config_, provider_, registry_, nullptr, nullptr);
  agent.SetHistory(Conversation(8, 1200));
  Outcome o = agent.Prompt("go on", cancel_);
  EXPECT_EQ(o.status, Outcome::Status::kError);
  EXPECT_EQ(o.error.kind, "context_overflow");
}

TEST_F(CompactingAgent, ManualCompactWithFocus) {
  provider_.queue.push_back(Assistant({ContentBlock::Text("focused summary")}));
  Agent agent(config_, provider_, registry_, nullptr, nullptr);
  agent.SetHistory(Conversation(8, 1200));
  auto r = agent.Compact("the parser bug", cancel_);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_NE(provider_.requests[0].messages[0].Text().find("the parser bug"), std::string::npos);
  EXPECT_NE(agent.messages()[0].Text().find("focused summary"), std::string::npos);
}

}  // namespace
}  // namespace sepp::agent
