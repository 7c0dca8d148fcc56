// The universal event translator, event by event: every runtime event type
// gives the universal events docs/serve.md lists, items open and close under
// one id, sequences run from 1 without gaps, and hostile or missing data
// (null, wrong types) gives empty fields instead of an exception.
#include "front/serve/universal_events.h"

#include <gtest/gtest.h>

#include <set>

namespace sepp::front::serve {
namespace {

using agent::Event;
using agent::EventType;

Event Ev(EventType t, int turn = 1) {
  Event e(t);
  e.turn = turn;
  e.time_ms = 1764600000123;  // 2025-12-01T14:40:00.123Z
  return e;
}

std::vector<std::string> Types(const std::vector<Json>& v) {
  std::vector<std::string> t;
  for (const auto& j : v) t.push_back(j["type"]);
  return t;
}

using Strings = std::vector<std::string>;

TEST(UniversalEvents, EnvelopeNumbersFromOneWithoutGaps) {
  UniversalTranslator t("s1");
  Event started = Ev(EventType::kSessionStarted);
  started.data = {{"session_id", "s1"}, {"model", "fake"}};
  auto a = t.Translate(started);
  ASSERT_EQ(a.size(), 1u);
  EXPECT_EQ(a[0]["sequence"], 1);
  EXPECT_EQ(a[0]["event_id"], "s1:1");
  EXPECT_EQ(a[0]["session_id"], "s1");
  EXPECT_EQ(a[0]["time"], "2025-12-01T14:40:00.123Z");
  EXPECT_EQ(a[0]["source"], "agent");
  EXPECT_EQ(a[0]["synthetic"], false);
  EXPECT_EQ(a[0]["type"], "session.started");
  EXPECT_EQ(a[0]["data"]["metadata"]["model"], "fake");

  uint64_t expected = 2;
  Event delta = Ev(EventType::kMessageDelta);
  delta.text = "hi";
  for (int i = 0; i < 3; ++i)
    for (const auto& j : t.Translate(delta)) EXPECT_EQ(j["sequence"], expected++);
  EXPECT_EQ(t.last_sequence(), expected - 1);
}

TEST(UniversalEvents, TurnStartedAndEnded) {
  UniversalTranslator t("s");
  auto a = t.Translate(Ev(EventType::kTurnStarted, 3));
  ASSERT_EQ(Types(a), Strings{"turn.started"});
  EXPECT_EQ(a[0]["data"]["phase"], "started");
  EXPECT_EQ(a[0]["data"]["turn_id"], "turn-3");
  auto b = t.Translate(Ev(EventType::kTurnFinished, 3));
  ASSERT_EQ(Types(b), Strings{"turn.ended"});
  EXPECT_EQ(b[0]["data"]["phase"], "ended");
  EXPECT_EQ(b[0]["data"]["turn_id"], "turn-3");
}

TEST(UniversalEvents, UserMessageIsOneItemStartedAndCompleted) {
  UniversalTranslator t("s");
  Event u = Ev(EventType::kUserMessage);
  u.text = "fix the bug";
  auto a = t.Translate(u);
  ASSERT_EQ(Types(a), (Strings{"item.started", "item.completed"}));
  EXPECT_EQ(a[0]["data"]["item"]["item_id"], a[1]["data"]["item"]["item_id"]);
  const Json& item = a[1]["data"]["item"];
  EXPECT_EQ(item["kind"], "message");
  EXPECT_EQ(item["role"], "user");
  EXPECT_EQ(item["status"], "completed");
  EXPECT_EQ(item["content"][0], (Json{{"type", "text"}, {"text", "fix the bug"}}));
}

TEST(UniversalEvents, StreamedAssistantMessageKeepsOneItemId) {
  UniversalTranslator t("s");
  Event d = Ev(EventType::kMessageDelta);
  d.text = "Hel";
  auto a = t.Translate(d);
  ASSERT_EQ(Types(a), (Strings{"item.started", "item.delta"}));
  EXPECT_EQ(a[0]["synthetic"], true);  // the runtime has no message.started
  EXPECT_EQ(a[0]["source"], "daemon");
  const std::string id = a[0]["data"]["item"]["item_id"];
  EXPECT_EQ(a[0]["data"]["item"]["status"], "in_progress");
  EXPECT_EQ(a[1]["data"], (Json{{"item_id", id}, {"delta", "Hel"}}));
  d.text = "lo";
  auto b = t.Translate(d);
  ASSERT_EQ(Types(b), Strings{"item.delta"});
  EXPECT_EQ(b[0]["data"]["item_id"], id);

  Event done = Ev(EventType::kMessageCompleted);
  done.message = {{"role", "assistant"},
                  {"content",
                   {{{"type", "text"}, {"text", "Hello"}},
                    {{"type", "tool_call"}, {"id", "c1"}, {"name", "bash"}, {"arguments", {{"command", "ls"}}}}}},
                  {"stop_reason", "tool_use"}};
  auto c = t.Translate(done);
  ASSERT_EQ(Types(c), Strings{"item.completed"});
  const Json& item = c[0]["data"]["item"];
  EXPECT_EQ(item["item_id"], id);
  EXPECT_EQ(item["status"], "completed");
  EXPECT_EQ(item["stop_reason"], "tool_use");
  ASSERT_EQ(item["content"].size(), 2u);
  EXPECT_EQ(item["content"][0], (Json{{"type", "text"}, {"text", "Hello"}}));
  EXPECT_EQ(item["content"][1]["type"], "tool_call");
  EXPECT_EQ(item["content"][1]["call_id"], "c1");
  EXPECT_EQ(item["content"][1]["name"], "bash");
  EXPECT_EQ(*ParseJson(item["content"][1]["arguments"].get<std::string>()),
            (Json{{"command", "ls"}}));

  // The next message is a new item.
  d.text = "again";
  auto n = t.Translate(d);
  ASSERT_EQ(Types(n), (Strings{"item.started", "item.delta"}));
  EXPECT_NE(n[0]["data"]["item"]["item_id"], id);
}

TEST(UniversalEvents, ThinkingIsItsOwnItemCompletedWithTheMessage) {
  UniversalTranslator t("s");
  Event th = Ev(EventType::kThinkingDelta);
  th.text = "hmm";
  auto a = t.Translate(th);
  ASSERT_EQ(Types(a), (Strings{"item.started", "item.delta"}));
  const std::string rid = a[0]["data"]["item"]["item_id"];
  Event d = Ev(EventType::kMessageDelta);
  d.text = "ok";
  auto b = t.Translate(d);
  const std::string mid = b[0]["data"]["item"]["item_id"];
  EXPECT_NE(rid, mid);
  Event done = Ev(EventType::kMessageCompleted);
  done.message = {{"role", "assistant"},
                  {"content", {{{"type", "thinking"}, {"thinking", "hmm"}}, {{"type", "text"}, {"text", "ok"}}}}};
  auto c = t.Translate(done);
  ASSERT_EQ(Types(c), (Strings{"item.completed", "item.completed"}));
  EXPECT_EQ(c[0]["data"]["item"]["item_id"], rid);
  EXPECT_EQ(c[0]["data"]["item"]["content"][0],
            (Json{{"type", "reasoning"}, {"text", "hmm"}, {"visibility", "public"}}));
  EXPECT_EQ(c[1]["data"]["item"]["item_id"], mid);
  EXPECT_EQ(c[1]["data"]["item"]["content"], Json::array({{{"type", "text"}, {"text", "ok"}}}));
}

TEST(UniversalEvents, UnstreamedMessageStillStartsBeforeItCompletes) {
  UniversalTranslator t("s");
  Event done = Ev(EventType::kMessageCompleted);
  done.message = {{"role", "assistant"}, {"content", {{{"type", "text"}, {"text", "x"}}}}, {"error", "overloaded"}};
  auto c = t.Translate(done);
  ASSERT_EQ(Types(c), (Strings{"item.started", "item.completed"}));
  EXPECT_EQ(c[1]["data"]["item"]["status"], "failed");
  EXPECT_EQ(c[1]["data"]["item"]["error"], "overloaded");
}

TEST(UniversalEvents, ToolCallThenResultWithOutputDeltas) {
  UniversalTranslator t("s");
  Event st = Ev(EventType::kToolStarted);
  st.call_id = "c1";
  st.tool = "bash";
  st.args = {{"command", "echo hi"}};
  st.summary = "echo hi";
  auto a = t.Translate(st);
  ASSERT_EQ(Types(a), (Strings{"item.started", "item.completed", "item.started"}));
  EXPECT_EQ(a[0]["data"]["item"]["item_id"], "c1");
  EXPECT_EQ(a[0]["data"]["item"]["kind"], "tool_call");
  EXPECT_EQ(a[0]["data"]["item"]["summary"], "echo hi");
  EXPECT_EQ(a[1]["data"]["item"]["status"], "completed");
  EXPECT_EQ(a[2]["data"]["item"]["kind"], "tool_result");
  EXPECT_EQ(a[2]["data"]["item"]["parent_id"], "c1");
  const std::string rid = a[2]["data"]["item"]["item_id"];

  Event out = Ev(EventType::kToolOutput);
  out.call_id = "c1";
  out.text = "hi\n";
  auto b = t.Translate(out);
  ASSERT_EQ(Types(b), Strings{"item.delta"});
  EXPECT_EQ(b[0]["data"], (Json{{"item_id", rid}, {"delta", "hi\n"}}));

  Event fin = Ev(EventType::kToolFinished);
  fin.call_id = "c1";
  fin.tool = "bash";
  fin.result = "hi\n";
  fin.is_error = true;
  fin.denied = true;
  auto c = t.Translate(fin);
  ASSERT_EQ(Types(c), Strings{"item.completed"});
  const Json& item = c[0]["data"]["item"];
  EXPECT_EQ(item["item_id"], rid);
  EXPECT_EQ(item["status"], "failed");
  EXPECT_EQ(item["content"][0], (Json{{"type", "tool_result"}, {"call_id", "c1"}, {"output", "hi\n"}}));
  EXPECT_EQ(item["metadata"]["denied"], true);
  // Finished: the turn's end has nothing left to close.
  EXPECT_EQ(Types(t.Translate(Ev(EventType::kTurnFinished))), Strings{"turn.ended"});
}

TEST(UniversalEvents, TurnEndClosesWhatWasLeftOpenAsFailed) {
  UniversalTranslator t("s");
  Event d = Ev(EventType::kMessageDelta);
  d.text = "partial";
  t.Translate(d);
  Event st = Ev(EventType::kToolStarted);
  st.call_id = "c9";
  st.tool = "bash";
  t.Translate(st);
  auto a = t.Translate(Ev(EventType::kTurnFinished));  // aborted mid-stream
  ASSERT_EQ(Types(a), (Strings{"item.completed", "item.completed", "turn.ended"}));
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(a[i]["data"]["item"]["status"], "failed");
    EXPECT_EQ(a[i]["synthetic"], true);
  }
  EXPECT_EQ(a[1]["data"]["item"]["item_id"], "result-c9");
  EXPECT_EQ(Types(t.Translate(Ev(EventType::kTurnFinished))), Strings{"turn.ended"});
}

TEST(UniversalEvents, PermissionRequestedAndResolved) {
  UniversalTranslator t("s");
  Event r = Ev(EventType::kPermissionRequested);
  r.call_id = "c1";
  r.tool = "bash";
  r.data = {{"request_id", "perm-1"}, {"justification", "needs the network"}};
  auto a = t.Translate(r);
  ASSERT_EQ(Types(a), Strings{"permission.requested"});
  EXPECT_EQ(a[0]["data"]["permission_id"], "perm-1");
  EXPECT_EQ(a[0]["data"]["action"], "bash");
  EXPECT_EQ(a[0]["data"]["status"], "requested");
  EXPECT_EQ(a[0]["data"]["metadata"]["justification"], "needs the network");
  for (auto [choice, status] : std::vector<std::pair<std::string, std::string>>{
           {"allow_once", "accept"}, {"allow_session", "accept_for_session"},
           {"allow_project", "accept_for_session"}, {"deny", "reject"}, {"", "reject"}}) {
    Event s = Ev(EventType::kPermissionResolved);
    s.tool = "bash";
    s.data = {{"request_id", "perm-1"}, {"answer", {{"choice", choice}, {"source", "user"}}}};
    auto b = t.Translate(s);
    ASSERT_EQ(Types(b), Strings{"permission.resolved"});
    EXPECT_EQ(b[0]["data"]["status"], status) << choice;
    EXPECT_EQ(b[0]["data"]["permission_id"], "perm-1");
    EXPECT_EQ(b[0]["data"]["metadata"]["source"], "user");
  }
}

TEST(UniversalEvents, ErrorsAndLag) {
  UniversalTranslator t("s");
  Event e = Ev(EventType::kError);
  e.text = "provider said 500";
  e.kind = "provider";
  auto a = t.Translate(e);
  ASSERT_EQ(Types(a), Strings{"error"});
  EXPECT_EQ(a[0]["data"], (Json{{"message", "provider said 500"}, {"code", "provider"}}));
  Event l = Ev(EventType::kSubscriberLagged);
  l.data = {{"dropped", 7}};
  auto b = t.Translate(l);
  ASSERT_EQ(Types(b), Strings{"error"});
  EXPECT_EQ(b[0]["data"]["code"], "subscriber_lagged");
  EXPECT_EQ(b[0]["data"]["details"]["dropped"], 7);
}

TEST(UniversalEvents, SessionEndedReasons) {
  for (auto [sepp, universal] : std::vector<std::pair<std::string, std::string>>{
           {"done", "completed"}, {"max_turns", "completed"}, {"error", "error"},
           {"aborted", "terminated"}}) {
    UniversalTranslator t("s");
    Event e = Ev(EventType::kSessionEnded);
    e.data = {{"reason", sepp}, {"outcome", {{"status", sepp}, {"error", "boom"}}}};
    auto a = t.Translate(e);
    ASSERT_EQ(Types(a), Strings{"session.ended"});
    EXPECT_EQ(a[0]["data"]["reason"], universal) << sepp;
    EXPECT_EQ(a[0]["data"]["metadata"]["reason"], sepp);
    EXPECT_EQ(a[0]["data"].contains("message"), sepp == "error");
    EXPECT_EQ(a[0]["data"]["terminated_by"], sepp == "aborted" ? "daemon" : "agent");
  }
}

TEST(UniversalEvents, RuntimeOnlyEventsKeepTheirDataUnderASeppType) {
  UniversalTranslator t("s");
  Event u = Ev(EventType::kUsage);
  u.usage.input = 10;
  u.usage.output = 3;
  auto a = t.Translate(u);
  ASSERT_EQ(Types(a), Strings{"sepp.usage"});
  EXPECT_EQ(a[0]["data"]["usage"]["input"], 10);
  EXPECT_FALSE(a[0]["data"].contains("type"));
  Event r = Ev(EventType::kRetry);
  r.text = "rate limited";
  EXPECT_EQ(Types(t.Translate(r)), Strings{"sepp.retry"});
  EXPECT_EQ(Types(t.Translate(Ev(EventType::kCompaction))), Strings{"sepp.compaction"});
  EXPECT_EQ(Types(t.Translate(Ev(EventType::kAgentStarted))), Strings{"sepp.agent.started"});
  EXPECT_EQ(Types(t.Translate(Ev(EventType::kAgentSettled))), Strings{"sepp.agent.settled"});
  EXPECT_EQ(Types(t.Translate(Ev(EventType::kQueueUpdated))), Strings{"sepp.queue.updated"});
}

TEST(UniversalEvents, SubAgentItemsCannotCollideWithTheParents) {
  UniversalTranslator t("s");
  Event parent = Ev(EventType::kToolStarted);
  parent.call_id = "c1";
  parent.tool = "agent";
  auto a = t.Translate(parent);
  Event child = parent;
  child.tool = "bash";
  child.parent_call_id = "c1";
  child.child_session_id = "child-1";
  auto b = t.Translate(child);
  ASSERT_EQ(b.size(), 3u);
  EXPECT_EQ(b[0]["data"]["item"]["item_id"], "child-1/c1");
  EXPECT_EQ(b[0]["parent_call_id"], "c1");
  EXPECT_EQ(b[0]["child_session_id"], "child-1");
  std::set<std::string> ids;
  for (const auto& j : a) ids.insert(j["data"]["item"]["item_id"]);
  for (const auto& j : b) EXPECT_EQ(ids.count(j["data"]["item"]["item_id"]), 0u);
  // The child's open result is closed by the child's turn end, not the parent's.
  Event child_end = Ev(EventType::kTurnFinished);
  child_end.child_session_id = "child-1";
  auto c = t.Translate(child_end);
  ASSERT_EQ(Types(c), (Strings{"item.completed", "turn.ended"}));
  EXPECT_EQ(c[0]["data"]["item"]["item_id"], "result-child-1/c1");
}

TEST(UniversalEvents, HostileDataGivesEmptyFieldsNotExceptions) {
  UniversalTranslator t("s");
  for (Json bad : {Json(), Json(42), Json("x"), Json::array({1, 2}),
                   Json{{"reason", 5}, {"request_id", Json::array()}, {"answer", "yes"},
                        {"outcome", 3}}}) {
    for (EventType type : {EventType::kSessionStarted, EventType::kSessionEnded,
                           EventType::kPermissionRequested, EventType::kPermissionResolved,
                           EventType::kMessageCompleted, EventType::kTurnFinished}) {
      Event e = Ev(type);
      e.data = bad;
      e.message = bad;
      std::vector<Json> out;
      EXPECT_NO_THROW(out = t.Translate(e)) << agent::ToString(type) << " " << DumpJson(bad);
      for (const auto& j : out) EXPECT_TRUE(j["data"].is_object());
    }
  }
}

}  // namespace
}  // namespace sepp::front::serve
