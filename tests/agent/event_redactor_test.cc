// EventRedactor: no front end sees a secret, whether the model wrote it in
// pieces across deltas, a tool printed it across two reads, or it sits in a
// summary, an argument, a result or an error. Streams come out complete and
// in order: flushed before the next event that is not part of them.
#include <gtest/gtest.h>

#include <functional>

#include "agent/agent.h"
#include "agent/event_redactor.h"
#include "base/secrets.h"
#include "test_doubles.h"

namespace sepp::agent {
namespace {

using llm::ContentBlock;
using testing::Assistant;
using testing::Call;
using testing::ScriptedProvider;

constexpr char kKey[] = "sk-events-0123456789abcdefghij";

std::string AllJson(const std::vector<Event>& events) {
  std::string all;
  for (const auto& e : events) all += DumpJson(ToJson(e)) + "\n";
  return all;
}

std::string Concat(const std::vector<Event>& events, EventType type) {
  std::string s;
  for (const auto& e : events)
    if (e.type == type) s += e.text;
  return s;
}

class EventRedactorTest : public ::testing::Test {
 protected:
  void SetUp() override { RegisterSecret(kKey); }
  std::vector<Event> seen_;
  EventRedactor redactor_{[this](const Event& e) { seen_.push_back(e); }};
};

TEST_F(EventRedactorTest, AKeySplitAcrossDeltasAtEveryOffsetNeverComesOut) {
  const std::string text = std::string("the key is ") + kKey + ", done";
  for (size_t cut = 0; cut <= text.size(); ++cut) {
    SCOPED_TRACE(cut);
    seen_.clear();
    for (auto type : {EventType::kMessageDelta, EventType::kThinkingDelta}) {
      Event a(type), b(type);
      a.text = text.substr(0, cut);
      b.text = text.substr(cut);
      redactor_(a);
      redactor_(b);
      redactor_(Event(EventType::kMessageCompleted));
    }
    EXPECT_EQ(AllJson(seen_).find(kKey), std::string::npos);
    EXPECT_EQ(Concat(seen_, EventType::kMessageDelta), "the key is [REDACTED], done");
    EXPECT_EQ(Concat(seen_, EventType::kThinkingDelta), "the key is [REDACTED], done");
    // All of a stream comes before the event that ends it.
    ASSERT_EQ(seen_.back().type, EventType::kMessageCompleted);
  }
}

TEST_F(EventRedactorTest, ToolOutputIsOneStreamPerCallFlushedBeforeItsFinish) {
  const std::string key = kKey;
  Event a1(EventType::kToolOutput), b1(EventType::kToolOutput), a2(EventType::kToolOutput),
      b2(EventType::kToolOutput);
  a1.call_id = a2.call_id = "a";
  b1.call_id = b2.call_id = "b";
  a1.text = "A:" + key.substr(0, 7);
  b1.text = "B:" + key.substr(0, 20);
  a2.text = key.substr(7) + ".";
  b2.text = key.substr(20) + ".";
  // Interleaved, as parallel tools emit them.
  for (const Event* e : {&a1, &b1, &a2, &b2}) redactor_(*e);
  Event fa(EventType::kToolFinished), fb(EventType::kToolFinished);
  fa.call_id = "a";
  fb.call_id = "b";
  fa.result = "result with " + key;
  redactor_(fa);
  redactor_(fb);
  EXPECT_EQ(AllJson(seen_).find(kKey), std::string::npos) << AllJson(seen_);
  std::string out_a, out_b;
  bool a_finished = false;
  for (const auto& e : seen_) {
    if (e.type == EventType::kToolFinished && e.call_id == "a") a_finished = true;
    if (e.type != EventType::kToolOutput) continue;
    (e.call_id == "a" ? out_a : out_b) += e.text;
    if (e.call_id == "a") {
      EXPECT_FALSE(a_finished) << "output of a after its tool.finished";
    }
  }
  EXPECT_EQ(out_a, "A:[REDACTED].");
  EXPECT_EQ(out_b, "B:[REDACTED].");
  for (const auto& e : seen_) {
    if (e.type == EventType::kToolFinished && e.call_id == "a") {
      EXPECT_EQ(e.result, "result with [REDACTED]");
    }
  }
}

TEST_F(EventRedactorTest, EveryOtherFieldIsRedacted) {
  Event e(EventType::kToolStarted);
  e.summary = std::string("bash echo ") + kKey;
  e.args = {{"command", std::string("echo ") + kKey}, {"nested", {std::string(kKey)}}};
  e.data = {{std::string(kKey), 1}};
  redactor_(e);
  Event err(EventType::kError);
  err.text = std::string("bad key ") + kKey;
  redactor_(err);
  Event done(EventType::kMessageCompleted);
  done.message = {{"content", {{{"type", "text"}, {"text", kKey}}}}};
  redactor_(done);
  ASSERT_EQ(seen_.size(), 3u);
  EXPECT_EQ(AllJson(seen_).find(kKey), std::string::npos) << AllJson(seen_);
  EXPECT_EQ(seen_[0].summary, "bash echo [REDACTED]");
  EXPECT_EQ(seen_[1].text, "bad key [REDACTED]");
}

// Each field alone is enough to be redacted (the redactor passes an event
// without a secret through uncopied, so it must look at every field).
TEST_F(EventRedactorTest, ASecretInAnyOneFieldIsFound) {
  std::string dirty = std::string("x ") + kKey;
  std::vector<std::function<void(Event&)>> plant = {
      [&](Event& e) { e.text = dirty; },    [&](Event& e) { e.kind = dirty; },
      [&](Event& e) { e.summary = dirty; }, [&](Event& e) { e.result = dirty; },
      [&](Event& e) { e.args = {{"a", dirty}}; },
      [&](Event& e) { e.message = {{"content", {{{"text", dirty}}}}}; },
      [&](Event& e) { e.data = {{dirty, 1}}; }};
  for (size_t i = 0; i < plant.size(); ++i) {
    seen_.clear();
    Event e(EventType::kToolFinished);
    e.call_id = "c";
    e.args = {{"path", "a.txt"}};
    plant[i](e);
    redactor_(e);
    ASSERT_EQ(seen_.size(), 1u);
    EXPECT_EQ(AllJson(seen_).find(kKey), std::string::npos) << "field " << i;
  }
  seen_.clear();
  Event clean(EventType::kToolFinished);
  clean.args = {{"path", "a.txt"}};
  clean.result = "ok";
  redactor_(clean);
  ASSERT_EQ(seen_.size(), 1u);
  EXPECT_EQ(seen_[0].args, clean.args);
  EXPECT_EQ(seen_[0].result, "ok");
}

// "chunky": prints its text argument through on_output in pieces of 5 bytes.
class ChunkyTool : public tools::Tool {
 public:
  std::string name() const override { return "chunky"; }
  std::string description() const override { return "prints in pieces"; }
  Json parameters() const override { return {{"type", "object"}}; }
  std::string Summary(const Json&) const override { return "chunky"; }
  tools::ToolResult Run(const Json& args, tools::ToolContext& ctx) override {
    std::string t = args.value("text", "");
    for (size_t i = 0; i < t.size(); i += 5) ctx.on_output(std::string_view(t).substr(i, 5));
    return {t, false};
  }
};

// Through a real Agent: what every front end receives.
TEST_F(EventRedactorTest, TheAgentEmitsOnlyRedactedEvents) {
  const std::string key = kKey;
  ScriptedProvider provider;
  provider.queue.push_back(Assistant({ContentBlock::Text("look: " + key.substr(0, 9)),
                                      ContentBlock::Text(key.substr(9) + " ok"),
                                      Call("c1", "chunky", {{"text", "out " + key + " end"}})},
                                     llm::StopReason::kToolUse));
  provider.queue.push_back(Assistant({ContentBlock::Text("fin " + key)}));
  tools::ToolRegistry registry;
  registry.Add(std::make_unique<ChunkyTool>());
  AgentConfig config;
  config.model = "m";
  std::vector<Event> events;
  Agent agent(config, provider, registry, [&](const Event& e) { events.push_back(e); }, nullptr);
  CancelToken cancel;
  Outcome o = agent.Prompt("go", cancel);
  ASSERT_EQ(o.status, Outcome::Status::kDone);
  EXPECT_EQ(AllJson(events).find(kKey), std::string::npos) << AllJson(events);
  EXPECT_EQ(Concat(events, EventType::kToolOutput), "out [REDACTED] end");
  EXPECT_EQ(Concat(events, EventType::kMessageDelta), "look: [REDACTED] okfin [REDACTED]");
}

}  // namespace
}  // namespace sepp::agent
