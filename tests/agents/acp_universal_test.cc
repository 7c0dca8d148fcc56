// The ACP -> universal translator (front/serve/acp_universal.h) on update
// sequences as claude-agent-acp 0.23.1 and codex-acp 0.16.0 send them
// (recorded from tests/agents' runs, trimmed), and on hostile ones: a
// malformed or foreign update never throws, never breaks the numbering,
// and is reported as one agent_protocol error (a bounded number of them).
#include "front/serve/acp_universal.h"

#include <gtest/gtest.h>

#include <random>

#include "base/secrets.h"

namespace sepp::front::serve {
namespace {

constexpr const char* kNative = "0199aa51-native";

Json Upd(Json update) { return {{"sessionId", kNative}, {"update", std::move(update)}}; }
Json Text(const std::string& t) { return {{"type", "text"}, {"text", t}}; }
Json MessageChunk(const std::string& t) { return Upd({{"sessionUpdate", "agent_message_chunk"}, {"content", Text(t)}}); }

// Every event of a session: sequence from 1 without gaps, the envelope
// complete.
class Recorder {
 public:
  AcpUniversalTranslator t{"s1", "claude"};
  std::vector<Json> all;
  void Add(std::vector<Json> events) {
    for (auto& e : events) {
      EXPECT_EQ(e["sequence"], static_cast<uint64_t>(all.size() + 1)) << e.dump();
      EXPECT_EQ(e["session_id"], "s1");
      EXPECT_EQ(e["event_id"], "s1:" + std::to_string(all.size() + 1));
      EXPECT_TRUE(e["time"].is_string());
      all.push_back(std::move(e));
    }
  }
  std::vector<std::string> Types(size_t from = 0) const {
    std::vector<std::string> out;
    for (size_t i = from; i < all.size(); ++i) out.push_back(all[i]["type"]);
    return out;
  }
  void Start() { Add(t.Started(kNative, "/w", {{"sessionId", kNative}, {"models", {{"currentModelId", "sonnet"}}}})); }
};

TEST(AcpUniversal, MessageChunksAreOneItemCompletedWhenTheTurnEnds) {
  Recorder r;
  r.Start();
  EXPECT_EQ(r.all[0]["type"], "session.started");
  EXPECT_EQ(r.all[0]["data"]["metadata"]["model"], "sonnet");
  EXPECT_EQ(r.all[0]["data"]["metadata"]["native_session_id"], kNative);
  r.Add(r.t.PromptSent("say hello"));
  r.Add(r.t.Update(Upd({{"sessionUpdate", "agent_thought_chunk"}, {"content", Text("thinking…")}})));
  r.Add(r.t.Update(MessageChunk("Hel")));
  r.Add(r.t.Update(MessageChunk("lo")));
  r.Add(r.t.PromptEnded({{"stopReason", "end_turn"},
                         {"usage", {{"inputTokens", 12}, {"outputTokens", 3}, {"cachedReadTokens", 1}, {"totalTokens", 16}}}},
                        Json()));
  std::vector<std::string> want = {"session.started", "turn.started",   "item.started", "item.completed",
                                   "item.started",    "item.delta",     "item.started", "item.delta",
                                   "item.delta",      "item.completed", "item.completed", "turn.ended",
                                   "sepp.usage",      "sepp.agent.settled"};
  EXPECT_EQ(r.Types(), want);
  EXPECT_EQ(r.all[3]["data"]["item"]["role"], "user");
  EXPECT_EQ(r.all[3]["data"]["item"]["content"][0]["text"], "say hello");
  const std::string msg = r.all[6]["data"]["item"]["item_id"];
  EXPECT_EQ(r.all[7]["data"]["item_id"], msg);
  EXPECT_EQ(r.all[8]["data"]["delta"], "lo");
  // The thinking completes first, then the message with its whole text.
  EXPECT_EQ(r.all[9]["data"]["item"]["content"][0]["type"], "reasoning");
  EXPECT_EQ(r.all[10]["data"]["item"]["item_id"], msg);
  EXPECT_EQ(r.all[10]["data"]["item"]["content"][0]["text"], "Hello");
  EXPECT_EQ(r.all[10]["synthetic"], true) << "ACP never says a message is complete";
  EXPECT_EQ(r.all[11]["data"]["metadata"]["stop_reason"], "end_turn");
  EXPECT_EQ(r.all[12]["data"]["usage"]["input"], 12);
  EXPECT_EQ(r.all[12]["data"]["usage"]["cache_read"], 1);
  EXPECT_EQ(r.all[13]["data"]["outcome"]["status"], "done");
  EXPECT_FALSE(r.t.in_turn());
}

// claude-agent-acp: the call is announced with its input; its result comes
// as a console block; codex-acp streams a command's output by replacing the
// content with what it has so far.
TEST(AcpUniversal, ToolCallsReplaceTheirContentAndCompleteWithTheirStatus) {
  Recorder r;
  r.Start();
  r.Add(r.t.PromptSent("make the file"));
  r.Add(r.t.Update(MessageChunk("I'll run it.")));
  size_t before = r.all.size();
  r.Add(r.t.Update(Upd({{"sessionUpdate", "tool_call"},
                        {"toolCallId", "toolu_01"},
                        {"title", "`echo made > made.txt`"},
                        {"kind", "execute"},
                        {"status", "pending"},
                        {"rawInput", {{"command", "echo made > made.txt"}}},
                        {"content", Json::array()}})));
  // The message before the call is complete; the call and its result
  // open, and the call, whose input is known, completes.
  EXPECT_EQ(r.Types(before),
            (std::vector<std::string>{"item.completed", "item.started", "item.started", "item.completed"}));
  EXPECT_EQ(r.all[before + 1]["data"]["item"]["kind"], "tool_call");
  EXPECT_EQ(r.all[before + 2]["data"]["item"]["item_id"], "result-toolu_01");
  EXPECT_EQ(r.all[before + 2]["data"]["item"]["parent_id"], "toolu_01");
  const Json call = r.all[before + 3]["data"]["item"];
  auto content = [](const std::string& t) {
    return Json::array({{{"type", "content"}, {"content", Text(t)}}});
  };
  before = r.all.size();
  r.Add(r.t.Update(Upd({{"sessionUpdate", "tool_call_update"}, {"toolCallId", "toolu_01"},
                        {"status", "in_progress"}, {"content", content("line 1\n")}})));
  r.Add(r.t.Update(Upd({{"sessionUpdate", "tool_call_update"}, {"toolCallId", "toolu_01"},
                        {"content", content("line 1\nline 2\n")}})));
  // Replaced by something that does not extend it: the new text whole.
  r.Add(r.t.Update(Upd({{"sessionUpdate", "tool_call_update"}, {"toolCallId", "toolu_01"},
                        {"content", content("rewritten")}})));
  r.Add(r.t.Update(Upd({{"sessionUpdate", "tool_call_update"}, {"toolCallId", "toolu_01"},
                        {"status", "completed"}, {"rawOutput", {{"exit_code", 0}}}})));
  EXPECT_EQ(r.Types(before), (std::vector<std::string>{"item.delta", "item.delta", "item.delta", "item.completed"}));
  EXPECT_EQ(r.all[before]["data"]["delta"], "line 1\n");
  EXPECT_EQ(r.all[before + 1]["data"]["delta"], "line 2\n");
  EXPECT_EQ(r.all[before + 2]["data"]["delta"], "rewritten");
  EXPECT_EQ(call["item_id"], "toolu_01");
  EXPECT_EQ(call["content"][0]["name"], "execute");
  EXPECT_EQ(*ParseJson(call["content"][0]["arguments"].get<std::string>()), (Json{{"command", "echo made > made.txt"}}));
  EXPECT_EQ(call["summary"], "`echo made > made.txt`");
  const Json& result = r.all[before + 3]["data"]["item"];
  EXPECT_EQ(result["status"], "completed");
  EXPECT_EQ(result["content"][0]["output"], "rewritten");
  EXPECT_EQ(result["metadata"]["raw_output"]["exit_code"], 0);
  // A call that failed is a failed result; one the turn leaves open fails.
  r.Add(r.t.Update(Upd({{"sessionUpdate", "tool_call"}, {"toolCallId", "c2"}, {"status", "failed"},
                        {"content", content("permission denied")}})));
  EXPECT_EQ(r.all.back()["data"]["item"]["status"], "failed");
  r.Add(r.t.Update(Upd({{"sessionUpdate", "tool_call"}, {"toolCallId", "c3"}, {"title", "sleep"}})));
  before = r.all.size();
  r.Add(r.t.PromptEnded({{"stopReason", "cancelled"}}, Json()));
  EXPECT_EQ(r.Types(before), (std::vector<std::string>{"item.completed", "item.completed", "turn.ended",
                                                       "sepp.agent.settled"}));
  EXPECT_EQ(r.all[before + 1]["data"]["item"]["status"], "failed");
  EXPECT_EQ(r.all[before + 1]["synthetic"], true);
  EXPECT_EQ(r.all.back()["data"]["outcome"]["status"], "aborted");
}

TEST(AcpUniversal, AnEditsDiffIsAFileRefWithAUnifiedDiff) {
  Recorder r;
  r.Start();
  r.Add(r.t.PromptSent("edit"));
  r.Add(r.t.Update(Upd({{"sessionUpdate", "tool_call"}, {"toolCallId", "e1"}, {"kind", "edit"},
                        {"title", "Edit /w/a.txt"}, {"locations", {{{"path", "/w/a.txt"}}}}})));
  r.Add(r.t.Update(Upd({{"sessionUpdate", "tool_call_update"}, {"toolCallId", "e1"}, {"status", "completed"},
                        {"content", {{{"type", "diff"}, {"path", "/w/a.txt"}, {"oldText", "one\ntwo\n"},
                                      {"newText", "one\nTWO\n"}},
                                     {{"type", "diff"}, {"path", "/w/new.txt"}, {"newText", "fresh\n"}}}}})));
  const Json& result = r.all.back()["data"]["item"];
  ASSERT_EQ(result["content"].size(), 3u) << result.dump();
  EXPECT_EQ(result["content"][1]["type"], "file_ref");
  EXPECT_EQ(result["content"][1]["action"], "patch");
  std::string diff = result["content"][1]["diff"];
  EXPECT_NE(diff.find("-two\n+TWO\n"), std::string::npos) << diff;
  EXPECT_EQ(result["content"][2]["action"], "write") << "no oldText: a new file";
  const Json& call = r.all[r.all.size() - 2]["data"]["item"];
  EXPECT_EQ(call["metadata"]["locations"][0]["path"], "/w/a.txt");
}

TEST(AcpUniversal, PermissionsOpenTheCallTheyAskAboutAndResolve) {
  Recorder r;
  r.Start();
  r.Add(r.t.PromptSent("go"));
  // codex-acp asks about a call it never announced.
  Json ask = {{"sessionId", kNative},
              {"toolCall", {{"toolCallId", "call_9"}, {"title", "cat notes"}, {"kind", "execute"},
                            {"status", "pending"}, {"rawInput", {{"cmd", "cat notes"}}}}},
              {"options", {{{"optionId", "approved"}, {"name", "Yes"}, {"kind", "allow_once"}},
                           {{"optionId", "abort"}, {"name", "No"}, {"kind", "reject_once"}}}}};
  size_t before = r.all.size();
  r.Add(r.t.PermissionRequested("perm-1", ask));
  EXPECT_EQ(r.Types(before), (std::vector<std::string>{"item.started", "item.started", "item.completed",
                                                       "permission.requested"}));
  EXPECT_EQ(r.all[before + 2]["data"]["item"]["content"][0]["arguments"], R"({"cmd":"cat notes"})");
  const Json& p = r.all.back()["data"];
  EXPECT_EQ(p["permission_id"], "perm-1");
  EXPECT_EQ(p["call_id"], "call_9");
  EXPECT_EQ(p["action"], "cat notes");
  EXPECT_EQ(p["status"], "requested");
  EXPECT_EQ(p["metadata"]["options"].size(), 2u);
  r.Add(r.t.PermissionResolved("perm-1", "accept", {{"optionId", "approved"}, {"source", "user"}}));
  EXPECT_EQ(r.all.back()["type"], "permission.resolved");
  EXPECT_EQ(r.all.back()["data"]["status"], "accept");
  // The call is the one that was asked about: its update completes it.
  r.Add(r.t.Update(Upd({{"sessionUpdate", "tool_call_update"}, {"toolCallId", "call_9"}, {"status", "completed"}})));
  EXPECT_EQ(r.all.back()["data"]["item"]["item_id"], "result-call_9");
  // A request without a toolCall still asks.
  r.Add(r.t.PermissionRequested("perm-2", {{"sessionId", kNative}, {"options", Json::array()}}));
  EXPECT_EQ(r.all.back()["data"]["action"], "tool call");
}

TEST(AcpUniversal, OtherUpdatesKeepTheirDataUnderAcpTypes) {
  Recorder r;
  r.Start();
  r.Add(r.t.Update(Upd({{"sessionUpdate", "plan"}, {"entries", {{{"content", "step"}, {"status", "pending"}}}}})));
  EXPECT_EQ(r.all.back()["type"], "acp.plan");
  EXPECT_EQ(r.all.back()["data"]["entries"][0]["content"], "step");
  r.Add(r.t.Update(Upd({{"sessionUpdate", "available_commands_update"}, {"availableCommands", Json::array()}})));
  EXPECT_EQ(r.all.back()["type"], "acp.available_commands_update");
  r.Add(r.t.Update(Upd({{"sessionUpdate", "usage_update"}, {"used", 1200}, {"size", 200000}})));
  EXPECT_EQ(r.all.back()["type"], "sepp.usage");
  EXPECT_EQ(r.all.back()["data"]["context"]["used"], 1200);
  // The user's words the agent repeats (session/load) are not doubled.
  size_t before = r.all.size();
  r.Add(r.t.Update(Upd({{"sessionUpdate", "user_message_chunk"}, {"content", Text("hi")}})));
  EXPECT_EQ(r.all.size(), before);
}

TEST(AcpUniversal, HostileUpdatesAreReportedAndNeverTranslated) {
  const std::vector<Json> hostile = {
      Json(),
      Json::array({1, 2}),
      "a string",
      {{"sessionId", kNative}},
      {{"sessionId", kNative}, {"update", "x"}},
      {{"sessionId", "someone-else"}, {"update", {{"sessionUpdate", "agent_message_chunk"}, {"content", Text("hi")}}}},
      {{"sessionId", 7}, {"update", {{"sessionUpdate", "plan"}}}},
      Upd({{"sessionUpdate", 3}}),
      Upd({{"sessionUpdate", "../../etc"}}),
      Upd({{"sessionUpdate", std::string(100, 'a')}}),
      Upd({{"sessionUpdate", "agent_message_chunk"}}),
      Upd({{"sessionUpdate", "agent_message_chunk"}, {"content", "raw text"}}),
      Upd({{"sessionUpdate", "agent_message_chunk"}, {"content", {{"type", "text"}, {"text", 42}}}}),
      Upd({{"sessionUpdate", "agent_thought_chunk"}, {"content", {{"text", "no type"}}}}),
      Upd({{"sessionUpdate", "tool_call"}}),
      Upd({{"sessionUpdate", "tool_call"}, {"toolCallId", 12}}),
      Upd({{"sessionUpdate", "tool_call"}, {"toolCallId", ""}}),
      Upd({{"sessionUpdate", "tool_call_update"}, {"toolCallId", std::string(300, 'x')}}),
  };
  for (const Json& h : hostile) {
    Recorder r;
    r.Start();
    r.Add(r.t.PromptSent("p"));
    size_t before = r.all.size();
    r.Add(r.t.Update(h));
    ASSERT_EQ(r.all.size(), before + 1) << h.dump();
    EXPECT_EQ(r.all.back()["type"], "error") << h.dump();
    EXPECT_EQ(r.all.back()["data"]["code"], "agent_protocol");
    EXPECT_NE(r.all.back()["data"]["message"].get<std::string>().find("agent claude sent"), std::string::npos);
  }
  // Wrong field types in a known call: reported; the call stays usable.
  Recorder r;
  r.Start();
  r.Add(r.t.PromptSent("p"));
  r.Add(r.t.Update(Upd({{"sessionUpdate", "tool_call"}, {"toolCallId", "c"}})));
  for (const Json& bad : {Json{{"status", "exploded"}}, Json{{"title", 5}}, Json{{"content", "text"}},
                          Json{{"locations", "here"}}}) {
    Json u = {{"sessionUpdate", "tool_call_update"}, {"toolCallId", "c"}};
    u.update(bad);
    r.Add(r.t.Update(Upd(u)));
    EXPECT_EQ(r.all.back()["data"]["code"], "agent_protocol") << bad.dump();
  }
  r.Add(r.t.Update(Upd({{"sessionUpdate", "tool_call_update"}, {"toolCallId", "c"}, {"status", "completed"}})));
  EXPECT_EQ(r.all.back()["data"]["item"]["status"], "completed");
  // An answer without a stopReason is reported, and the turn still ends.
  r.Add(r.t.PromptSent("again"));
  r.Add(r.t.PromptEnded("not an object", Json()));
  EXPECT_EQ(r.all.back()["type"], "sepp.agent.settled");
  // A prompt answered with an error: an error event, settled with status error.
  r.Add(r.t.PromptSent("third"));
  r.Add(r.t.PromptEnded(Json(), {{"code", -32603}, {"message", "Internal error: quota"}}));
  EXPECT_EQ(r.all[r.all.size() - 3]["type"], "error");
  EXPECT_EQ(r.all[r.all.size() - 3]["data"]["message"], "Internal error: quota");
  EXPECT_EQ(r.all.back()["data"]["outcome"]["status"], "error");
}

TEST(AcpUniversal, AFloodOfProtocolErrorsAndOpenCallsIsBounded) {
  Recorder r;
  r.Start();
  for (int i = 0; i < 500; ++i) r.Add(r.t.Update(Json(i)));
  EXPECT_EQ(r.all.size(), 1u + AcpUniversalTranslator::kMaxProtocolErrors);
  EXPECT_NE(r.all.back()["data"]["message"].get<std::string>().find("not reported"), std::string::npos);
  Recorder c;
  c.Start();
  c.Add(c.t.PromptSent("p"));
  for (size_t i = 0; i < AcpUniversalTranslator::kMaxOpenToolCalls + 10; ++i)
    c.Add(c.t.Update(Upd({{"sessionUpdate", "tool_call"}, {"toolCallId", "t" + std::to_string(i)}})));
  EXPECT_EQ(c.t.protocol_errors(), 10);
  size_t before = c.all.size();
  c.Add(c.t.PromptEnded({{"stopReason", "end_turn"}}, Json()));
  // Each open call fails at the turn's end: its call and its result.
  EXPECT_EQ(c.all.size() - before, 2 * AcpUniversalTranslator::kMaxOpenToolCalls + 2);
}

TEST(AcpUniversal, ASecretSplitAcrossChunksIsMasked) {
  const std::string key = "sk-acp-universal-secret-9f8e7d6c5b";
  RegisterSecret(key);
  Recorder r;
  r.Start();
  r.Add(r.t.PromptSent("p"));
  r.Add(r.t.Update(MessageChunk("the key is " + key.substr(0, 10))));
  r.Add(r.t.Update(MessageChunk(key.substr(10) + ", done")));
  r.Add(r.t.Update(Upd({{"sessionUpdate", "tool_call"}, {"toolCallId", "k"},
                        {"content", {{{"type", "content"}, {"content", Text("env: " + key.substr(0, 5))}}}}})));
  r.Add(r.t.Update(Upd({{"sessionUpdate", "tool_call_update"}, {"toolCallId", "k"}, {"status", "completed"},
                        {"content", {{{"type", "content"}, {"content", Text("env: " + key)}}}}})));
  r.Add(r.t.PromptEnded({{"stopReason", "end_turn"}}, Json()));
  std::string deltas;
  for (const Json& e : r.all) {
    EXPECT_EQ(e.dump().find(key.substr(3)), std::string::npos) << e.dump();
    if (e["type"] == "item.delta") deltas += e["data"]["delta"].get<std::string>();
  }
  EXPECT_NE(deltas.find("the key is [REDACTED], done"), std::string::npos) << deltas;
}

// Random JSON thrown at every entry point: nothing throws, the numbering
// stays whole, every event has the envelope.
TEST(AcpUniversal, RandomInputNeverThrowsOrBreaksTheNumbering) {
  std::mt19937 rng(14);
  std::function<Json(int)> random = [&](int depth) -> Json {
    switch (rng() % (depth > 3 ? 5 : 8)) {
      case 0: return Json();
      case 1: return static_cast<int>(rng() % 100);
      case 2: return std::vector<std::string>{"tool_call", "tool_call_update", "agent_message_chunk", "text",
                                              "completed", "failed", "diff", "content", kNative}[rng() % 9];
      case 3: return rng() % 2 == 0;
      case 4: return std::string(rng() % 5, 'x');
      case 5: {
        Json a = Json::array();
        for (int i = rng() % 4; i > 0; --i) a.push_back(random(depth + 1));
        return a;
      }
      default: {
        static const char* keys[] = {"sessionId", "update", "sessionUpdate", "toolCallId", "content", "status",
                                     "type", "text", "title", "kind", "rawInput", "path", "newText", "oldText",
                                     "options", "toolCall", "stopReason", "usage"};
        Json o = Json::object();
        for (int i = rng() % 6; i > 0; --i) o[keys[rng() % 18]] = random(depth + 1);
        return o;
      }
    }
  };
  Recorder r;
  r.Start();
  for (int i = 0; i < 3000; ++i) {
    Json j = random(0);
    if (i % 3 == 0) j = {{"sessionId", kNative}, {"update", random(1)}};
    switch (rng() % 6) {
      case 0: r.Add(r.t.PromptSent("p")); break;
      case 1: r.Add(r.t.PromptEnded(j, rng() % 4 == 0 ? random(1) : Json())); break;
      case 2: r.Add(r.t.PermissionRequested("perm-" + std::to_string(i), j)); break;
      default: r.Add(r.t.Update(j)); break;
    }
  }
  r.Add(r.t.Ended("terminated", "daemon", ""));
  EXPECT_EQ(r.all.back()["type"], "session.ended");
  EXPECT_EQ(r.t.last_sequence(), r.all.size());
}

}  // namespace
}  // namespace sepp::front::serve
