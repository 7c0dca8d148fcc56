// front/rpc/pi_events: the runtime's events as pi's RPC records. The
// records are written as text (no JSON tree per event); what is written
// must stay byte for byte what the tree-built mapper wrote (the golden lines
// below were recorded from it), and every line must be canonical JSON, as
// DumpJson writes it (keys in order).
#include "front/rpc/pi_events.h"

#include <gtest/gtest.h>

#include <sstream>

#include "llm/message.h"

namespace sepp::front::rpc {
namespace {

using agent::Event;
using agent::EventType;

Event Ev(EventType type, int64_t time_ms) {
  Event e(type);
  e.time_ms = time_ms;
  return e;
}

// A run with every kind of record: thinking and text streamed, a tool call
// with output and details, a retried call, an error, a queue update, a
// compaction, a sub-agent's event (left out), text that needs escaping and
// bytes that are not UTF-8, then a run that is aborted mid-answer.
std::vector<Event> Script() {
  std::vector<Event> s;
  Event started = Ev(EventType::kSessionStarted, 1000);
  started.data = {{"model", "fake-model"}, {"provider", "openai"}, {"session_id", "s1"}};
  s.push_back(started);
  s.push_back(Ev(EventType::kAgentStarted, 1001));
  Event user = Ev(EventType::kUserMessage, 1002);
  user.text = "read \"a.txt\"\n\tplease";
  s.push_back(user);
  s.push_back(Ev(EventType::kTurnStarted, 1003));
  Event think = Ev(EventType::kThinkingDelta, 1004);
  think.text = "let me see";
  s.push_back(think);
  Event d1 = Ev(EventType::kMessageDelta, 1005);
  d1.text = "caf\xC3\xA9 ";
  s.push_back(d1);
  Event d2 = Ev(EventType::kMessageDelta, 1006);
  d2.text = "bad \xFF byte\x01";
  s.push_back(d2);
  llm::Message a;
  a.role = llm::Role::kAssistant;
  a.content.push_back(llm::ContentBlock::Thinking("let me see", "sig-1"));
  a.content.push_back(llm::ContentBlock::Text("caf\xC3\xA9 bad \xFF byte\x01"));
  a.content.push_back(llm::ContentBlock::ToolCall("call_1", "read", {{"path", "a.txt"}, {"limit", 5}}));
  a.content.push_back(llm::ContentBlock::ToolCall("call_2", "bash", nullptr));
  a.stop_reason = llm::StopReason::kToolUse;
  a.usage = {10, 5, 2, 1};
  a.model = "fake-model-2";
  Event done = Ev(EventType::kMessageCompleted, 1007);
  done.message = llm::ToJson(a);
  s.push_back(done);
  Event t1 = Ev(EventType::kToolStarted, 1008);
  t1.call_id = "call_1";
  t1.tool = "read";
  t1.args = {{"path", "a.txt"}, {"limit", 5}};
  s.push_back(t1);
  Event out1 = Ev(EventType::kToolOutput, 1009);
  out1.call_id = "call_1";
  out1.tool = "read";
  out1.text = "line one\n";
  s.push_back(out1);
  Event out2 = out1;
  out2.time_ms = 1010;
  out2.text = "line two\n";
  s.push_back(out2);
  Event sub = Ev(EventType::kMessageDelta, 1011);
  sub.parent_call_id = "call_9";
  sub.text = "a sub-agent's text";
  s.push_back(sub);
  Event f1 = Ev(EventType::kToolFinished, 1012);
  f1.call_id = "call_1";
  f1.tool = "read";
  f1.result = "     1\tline one\n";
  f1.data = {{"details", {{"path", "a.txt"}, {"total_lines", 2}}}};
  s.push_back(f1);
  Event t2 = Ev(EventType::kToolStarted, 1013);
  t2.call_id = "call_2";
  t2.tool = "bash";
  t2.args = Json::object();
  s.push_back(t2);
  Event f2 = Ev(EventType::kToolFinished, 1014);
  f2.call_id = "call_2";
  f2.tool = "bash";
  f2.result = "not run: bad arguments";
  f2.is_error = true;
  s.push_back(f2);
  s.push_back(Ev(EventType::kTurnFinished, 1015));
  Event q = Ev(EventType::kQueueUpdated, 1016);
  q.data = {{"steering", {"go on"}}, {"follow_up", Json::array()}};
  s.push_back(q);
  s.push_back(Ev(EventType::kTurnStarted, 1017));
  Event retry = Ev(EventType::kRetry, 1018);
  retry.text = "overloaded";
  retry.data = {{"attempt", 1}, {"delay_s", 0.5}};
  s.push_back(retry);
  Event d3 = Ev(EventType::kMessageDelta, 1019);
  d3.text = "done";
  s.push_back(d3);
  llm::Message b;
  b.role = llm::Role::kAssistant;
  b.content.push_back(llm::ContentBlock::Text("done"));
  b.model = "fake-model-2";
  Event done2 = Ev(EventType::kMessageCompleted, 1020);
  done2.message = llm::ToJson(b);
  s.push_back(done2);
  s.push_back(Ev(EventType::kTurnFinished, 1021));
  Event compact = Ev(EventType::kCompaction, 1022);
  compact.data = {{"tokens_before", 900}, {"tokens_after", 100}};
  s.push_back(compact);
  Event settled = Ev(EventType::kAgentSettled, 1023);
  settled.data = {{"outcome", {{"status", "done"}}}};
  s.push_back(settled);
  // A second run: an error ends the turn, then one is aborted mid-answer.
  s.push_back(Ev(EventType::kAgentStarted, 2000));
  Event user2 = Ev(EventType::kUserMessage, 2001);
  user2.text = "again";
  s.push_back(user2);
  s.push_back(Ev(EventType::kTurnStarted, 2002));
  Event err = Ev(EventType::kError, 2003);
  err.text = "the provider said no";
  err.kind = "server";
  s.push_back(err);
  s.push_back(Ev(EventType::kTurnStarted, 2004));
  Event d4 = Ev(EventType::kMessageDelta, 2005);
  d4.text = "half";
  s.push_back(d4);
  Event retry2 = Ev(EventType::kRetry, 2006);
  retry2.text = "rate limited";
  retry2.data = {{"attempt", 2}, {"delay_s", 1.25}};
  s.push_back(retry2);
  Event aborted = Ev(EventType::kAgentSettled, 2007);
  aborted.data = {{"outcome", {{"status", "aborted"}, {"error", "aborted by the user"}}}};
  s.push_back(aborted);
  return s;
}

std::vector<std::string> Lines(PiEventMapper& mapper, const std::vector<Event>& events) {
  std::string text;
  for (const Event& e : events) mapper.Map(e, &text);
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// Recorded from the mapper that built a JSON tree for every record and
// dumped it (main at 48fabc4).
const char* const kGolden[] = {
#include "pi_events_golden.inc"
};

TEST(PiEvents, RecordsAreTheTreeBuiltMappersByteForByte) {
  PiEventMapper mapper("openai");
  std::vector<std::string> lines = Lines(mapper, Script());
  std::vector<std::string> golden(std::begin(kGolden), std::end(kGolden));
  ASSERT_EQ(lines.size(), golden.size());
  for (size_t i = 0; i < lines.size(); ++i) EXPECT_EQ(lines[i], golden[i]) << "record " << i;
}

TEST(PiEvents, EveryRecordIsCanonicalJson) {
  PiEventMapper mapper("anthropic");
  for (const std::string& line : Lines(mapper, Script())) {
    auto j = ParseJson(line);
    ASSERT_TRUE(j.ok()) << line;
    EXPECT_EQ(DumpJson(*j), line);
  }
}

// A long-running command's partial output is its tail, bounded.
TEST(PiEvents, PartialOutputIsABoundedTail) {
  PiEventMapper mapper("openai");
  std::vector<Event> s;
  s.push_back(Ev(EventType::kAgentStarted, 1));
  s.push_back(Ev(EventType::kTurnStarted, 2));
  Event t = Ev(EventType::kToolStarted, 3);
  t.call_id = "c";
  t.tool = "bash";
  t.args = {{"command", "yes"}};
  s.push_back(t);
  Event out = Ev(EventType::kToolOutput, 4);
  out.call_id = "c";
  out.tool = "bash";
  out.text = std::string(10000, 'y') + "\n";
  for (int i = 0; i < 10; ++i) s.push_back(out);
  std::vector<std::string> lines = Lines(mapper, s);
  ASSERT_EQ(lines.size(), 13u);
  auto last = ParseJson(lines.back());
  ASSERT_TRUE(last.ok());
  std::string partial = (*last)["partialResult"]["content"][0]["text"];
  EXPECT_LE(partial.size(), 2u * 16 * 1024);
  EXPECT_GE(partial.size(), 16u * 1024);
  EXPECT_EQ(partial.back(), '\n');
}

}  // namespace
}  // namespace sepp::front::rpc
