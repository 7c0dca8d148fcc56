#include <gtest/gtest.h>

#include "llm/message.h"
#include "llm/models.h"
#include "llm/wire.h"

namespace sepp::llm {
namespace {

Message RichAssistant() {
  Message m;
  m.role = Role::kAssistant;
  m.content.push_back(ContentBlock::Thinking("let me think", "sig=="));
  m.content.push_back(ContentBlock::RedactedThinking("opaque"));
  m.content.push_back(ContentBlock::Text("Hello ✓"));
  m.content.push_back(ContentBlock::ToolCall("call_1", "read", Json{{"path", "a.txt"}}));
  ContentBlock bad = ContentBlock::ToolCall("call_2", "bash", nullptr);
  bad.raw_arguments = "{\"cmd\": ";
  bad.arguments_error = "the arguments are not valid JSON";
  m.content.push_back(bad);
  m.stop_reason = StopReason::kToolUse;
  m.usage = Usage{10, 20, 30, 40};
  m.model = "claude-sonnet-4-5";
  return m;
}

TEST(Message, RoundTripsExactly) {
  std::vector<Message> all = {Message::User("hi"), RichAssistant(),
                              Message::ToolResult("call_1", "read", "contents", true)};
  Message err;
  err.role = Role::kAssistant;
  err.stop_reason = StopReason::kError;
  err.error = "overloaded";
  all.push_back(err);
  Message empty;  // no content at all
  all.push_back(empty);
  for (const auto& m : all) {
    Json j = ToJson(m);
    auto back = MessageFromJson(j);
    ASSERT_TRUE(back.ok()) << back.error().message;
    EXPECT_EQ(*back, m) << j.dump();
    EXPECT_EQ(ToJson(*back), j);
    // And through text, as the session file stores it.
    auto reparsed = MessageFromJson(Json::parse(DumpJson(j)));
    ASSERT_TRUE(reparsed.ok());
    EXPECT_EQ(*reparsed, m);
  }
}

TEST(Message, JsonShapeMatchesTheDocumentedFormat) {
  Json j = ToJson(RichAssistant());
  EXPECT_EQ(j["role"], "assistant");
  EXPECT_EQ(j["stop_reason"], "tool_use");
  EXPECT_EQ(j["content"][0], (Json{{"type", "thinking"}, {"thinking", "let me think"},
                                   {"signature", "sig=="}}));
  EXPECT_EQ(j["content"][1]["redacted"], true);
  EXPECT_EQ(j["content"][3], (Json{{"type", "tool_call"}, {"id", "call_1"}, {"name", "read"},
                                   {"arguments", {{"path", "a.txt"}}}}));
  EXPECT_EQ(j["usage"], (Json{{"input", 10}, {"output", 20}, {"cache_read", 30},
                              {"cache_write", 40}}));
  Json user = ToJson(Message::User("hi"));
  EXPECT_EQ(user, (Json{{"role", "user"}, {"content", {{{"type", "text"}, {"text", "hi"}}}}}));
  Json tr = ToJson(Message::ToolResult("c", "read", "x", false));
  EXPECT_EQ(tr["tool_call_id"], "c");
  EXPECT_EQ(tr["tool_name"], "read");
  EXPECT_FALSE(tr.contains("is_error"));
}

TEST(Message, HostileJsonGivesErrorsNotExceptions) {
  const char* bad[] = {
      "null", "[]", "1", R"({"role":5})", R"({"role":"king"})", R"({"role":"user","content":{}})",
      R"({"role":"user","content":[1]})", R"({"role":"user","content":[{"type":"video"}]})",
      R"({"role":"user","content":[{"type":"text","text":7}]})",
      R"({"role":"assistant","usage":{"input":"many"}})", R"({"role":"assistant","usage":[]})",
      R"({"role":"assistant","stop_reason":"tired"})", R"({"role":"assistant","stop_reason":1})",
      R"({"role":"tool_result","is_error":"yes"})",
      R"({"role":"assistant","content":[{"type":"tool_call","id":[]}]})",
      R"({"role":"assistant","content":[{"type":"thinking","redacted":1}]})",
  };
  for (const char* text : bad) {
    auto r = MessageFromJson(Json::parse(text));
    EXPECT_FALSE(r.ok()) << text;
    if (!r.ok()) {
      EXPECT_EQ(r.error().kind, "invalid_message");
    }
  }
}

TEST(Message, TextAndToolCallsHelpers) {
  Message m = RichAssistant();
  EXPECT_EQ(m.Text(), "Hello ✓");
  ASSERT_EQ(m.ToolCalls().size(), 2u);
  EXPECT_EQ(m.ToolCalls()[0]->id, "call_1");
  EXPECT_EQ(ApproxTokens(Message::User(std::string(4000, 'x'))), 1004);
  EXPECT_GT(ApproxTokens(m), 10);
  Usage u{1, 2, 3, 4};
  u += Usage{1, 1, 1, 1};
  EXPECT_EQ(u.total(), 14);
}

TEST(Models, ExactPrefixAndDefaults) {
  EXPECT_EQ(LookupModel("anthropic", "claude-sonnet-4-5").max_output, 64000);
  EXPECT_EQ(LookupModel("anthropic", "claude-sonnet-4-5-20250929").context_window, 200000);
  EXPECT_TRUE(LookupModel("anthropic", "claude-opus-4-1-20250805").supports_thinking);
  EXPECT_EQ(LookupModel("anthropic", "claude-opus-4-1-20250805").max_output, 32000);
  EXPECT_EQ(LookupModel("openai", "gpt-4o-mini").context_window, 128000);
  EXPECT_EQ(LookupModel("openai", "gpt-4.1-2025-04-14").context_window, 1047576);
  EXPECT_EQ(LookupModel("openai", "gpt-5-mini").context_window, 400000);
  EXPECT_EQ(LookupModel("openai", "o3").max_output, 100000);
  // "o1" must not claim "o10x".
  EXPECT_EQ(LookupModel("openai", "o10x").context_window, 128000);
  EXPECT_EQ(LookupModel("local", "llama3.1:8b").context_window, 32768);
  EXPECT_EQ(LookupModel("anthropic", "claude-future-9").context_window, 200000);
  EXPECT_FALSE(DefaultModel("anthropic").empty());
  EXPECT_FALSE(DefaultModel("openai").empty());
  EXPECT_FALSE(DefaultModel("local").empty());
}

}  // namespace
}  // namespace sepp::llm

namespace sepp::llm {
namespace {

TEST(NormalizeConversation, AnswersInterruptedCallsAndDropsOrphanResults) {
  Message a;
  a.role = Role::kAssistant;
  a.content.push_back(ContentBlock::ToolCall("c1", "read", Json::object()));
  a.content.push_back(ContentBlock::ToolCall("c2", "bash", Json::object()));
  std::vector<Message> in = {Message::User("go"),
                             Message::ToolResult("old", "read", "orphan", false),
                             a,
                             Message::ToolResult("c2", "bash", "ran", false),
                             Message::User("stop that")};
  auto out = wire::NormalizeConversation(in);
  ASSERT_EQ(out.size(), 5u);
  EXPECT_EQ(out[0], in[0]);
  EXPECT_EQ(out[1], a);
  EXPECT_EQ(out[2], in[3]);
  EXPECT_EQ(out[3].role, Role::kToolResult);
  EXPECT_EQ(out[3].tool_call_id, "c1");
  EXPECT_TRUE(out[3].is_error);
  EXPECT_EQ(out[4], in[4]);
  // A well-formed conversation is untouched.
  std::vector<Message> good = {Message::User("go"), a, Message::ToolResult("c1", "read", "x", false),
                               Message::ToolResult("c2", "bash", "y", false)};
  EXPECT_EQ(wire::NormalizeConversation(good), good);
}

}  // namespace
}  // namespace sepp::llm
