// RequestBodyWriter must produce exactly the bytes DumpJson(BuildRequest)
// would, for every API, also when the tools or the system prompt change
// between calls (the cached members are rebuilt) and for a conversation that
// needs normalising.
#include <gtest/gtest.h>

#include "llm/anthropic.h"
#include "llm/openai_chat.h"
#include "llm/openai_responses.h"
#include "llm/request_body.h"
#include "llm/wire.h"

namespace sepp::llm {
namespace {

Request Conversation() {
  Request r;
  r.model = "claude-sonnet-4-5";
  r.system = "You are terse. \"Quotes\", \\ backslashes, \n newlines and ünïcödé.";
  r.max_tokens = 1000;
  r.thinking_budget = 2048;
  r.stream = true;
  r.tools.push_back({"read", "Read a file",
                     Json::parse(R"({"type":"object","properties":{"path":{"type":"string"}}})")});
  r.tools.push_back({"bash", "Run \"a\" command", Json(nullptr)});  // not an object: defaulted
  r.messages.push_back(Message::User("look at a"));
  Message a;
  a.role = Role::kAssistant;
  a.content.push_back(ContentBlock::Thinking("thinking", "SIG"));
  a.content.push_back(ContentBlock::Text("Reading."));
  a.content.push_back(ContentBlock::ToolCall("toolu_1", "read", Json{{"path", "a"}}));
  a.stop_reason = StopReason::kToolUse;
  r.messages.push_back(a);
  r.messages.push_back(Message::ToolResult("toolu_1", "read", "A", false));
  r.messages.push_back(Message::User("thanks"));
  return r;
}

std::string Expected(ApiKind api, const Request& r, bool legacy = false) {
  switch (api) {
    case ApiKind::kAnthropic: return DumpJson(anthropic::BuildRequest(r));
    case ApiKind::kOpenAiChat:
      return DumpJson(openai_chat::BuildRequest(r, {.legacy_max_tokens = legacy}));
    case ApiKind::kOpenAiResponses: return DumpJson(openai_responses::BuildRequest(r));
  }
  return "";
}

class RequestBodyTest : public ::testing::TestWithParam<ApiKind> {};

TEST_P(RequestBodyTest, SameBytesAsTheWholeTreeAcrossCalls) {
  RequestBodyWriter writer(GetParam(), {.legacy_max_tokens = true});
  Request r = Conversation();
  EXPECT_EQ(writer.Write(r), Expected(GetParam(), r, true));
  // The next call of the session: one more message, the cached members.
  Message ok;
  ok.role = Role::kAssistant;
  ok.content.push_back(ContentBlock::Text("ok"));
  r.messages.push_back(ok);
  r.messages.push_back(Message::User("again"));
  EXPECT_EQ(writer.Write(r), Expected(GetParam(), r, true));
  // A changed schema, a changed description, a removed tool, a new system
  // prompt, no system prompt, no tools: each is seen and rebuilt.
  r.tools[0].parameters["properties"]["limit"] = {{"type", "integer"}};
  EXPECT_EQ(writer.Write(r), Expected(GetParam(), r, true));
  r.tools[1].description = "Run a command";
  EXPECT_EQ(writer.Write(r), Expected(GetParam(), r, true));
  r.tools.pop_back();
  EXPECT_EQ(writer.Write(r), Expected(GetParam(), r, true));
  r.system = "Another prompt.";
  EXPECT_EQ(writer.Write(r), Expected(GetParam(), r, true));
  r.system.clear();
  EXPECT_EQ(writer.Write(r), Expected(GetParam(), r, true));
  r.tools.clear();
  EXPECT_EQ(writer.Write(r), Expected(GetParam(), r, true));
  // An interrupted call and an orphan result: normalised the same way.
  Request broken = Conversation();
  broken.messages.erase(broken.messages.begin() + 2);  // toolu_1's result
  broken.messages.push_back(Message::ToolResult("nobody", "read", "orphan", false));
  EXPECT_EQ(writer.Write(broken), Expected(GetParam(), broken, true));
}

// A session turn by turn, the way the agent grows it: text turns, a turn
// with two tool calls and their results, then the edits that must not be
// spliced from the kept prefix: an earlier message changed in place, a
// compaction that replaces the history, an aborted answer left empty.
TEST_P(RequestBodyTest, KeptConversationFollowsEveryChange) {
  RequestBodyWriter writer(GetParam());
  Request r = Conversation();
  r.messages.clear();
  auto check = [&](const char* what) {
    EXPECT_EQ(writer.Write(r), Expected(GetParam(), r)) << what << " (" << r.messages.size() << " messages)";
  };
  check("empty");
  for (int i = 0; i < 4; ++i) {
    r.messages.push_back(Message::User("question " + std::to_string(i)));
    check("a user message");
    Message calls;
    calls.role = Role::kAssistant;
    calls.content.push_back(ContentBlock::Text("let me look"));
    calls.content.push_back(ContentBlock::ToolCall("c" + std::to_string(i) + "a", "read", Json{{"path", "a"}}));
    calls.content.push_back(ContentBlock::ToolCall("c" + std::to_string(i) + "b", "read", Json{{"path", "b"}}));
    r.messages.push_back(calls);
    check("an assistant message with calls, no results yet");
    r.messages.push_back(Message::ToolResult("c" + std::to_string(i) + "a", "read", "A", false));
    check("one result");
    r.messages.push_back(Message::ToolResult("c" + std::to_string(i) + "b", "read", "B", true));
    check("both results");
    Message answer;
    answer.role = Role::kAssistant;
    answer.content.push_back(ContentBlock::Text("answer " + std::to_string(i)));
    r.messages.push_back(answer);
    check("the answer");
  }
  r.messages[2].content[0].text = "changed in place";
  check("an earlier tool result edited");
  r.messages[0].content[0].text = "first question, edited";
  check("the first message edited");
  r.messages.erase(r.messages.begin(), r.messages.begin() + 10);
  r.messages.insert(r.messages.begin(), Message::User("summary of what came before"));
  check("compacted");
  Message aborted;
  aborted.role = Role::kAssistant;
  r.messages.push_back(Message::User("one more"));
  r.messages.push_back(aborted);
  check("an aborted, empty answer last");
  r.messages.push_back(Message::User("after the abort"));
  check("after the abort");
}

// With a stamp the tools are recognised by it: the same stamp keeps the
// schemas written before (the caller's promise that they are the same, which
// is what makes the ~25 KB comparison go), a new stamp or none rebuilds them.
TEST_P(RequestBodyTest, ToolsStampNamesTheToolSet) {
  RequestBodyWriter writer(GetParam());
  Request r = Conversation();
  r.tools_stamp = NewToolsStamp();
  EXPECT_EQ(writer.Write(r), Expected(GetParam(), r));
  Request same_stamp = r;
  same_stamp.tools[0].description = "not compared: the stamp says these are the same tools";
  EXPECT_EQ(writer.Write(same_stamp), Expected(GetParam(), r));
  Request next = same_stamp;
  next.tools_stamp = NewToolsStamp();
  EXPECT_NE(next.tools_stamp, r.tools_stamp);
  EXPECT_EQ(writer.Write(next), Expected(GetParam(), next));
  // No stamp: compared in full, also right after stamped requests.
  Request unstamped = next;
  unstamped.tools_stamp = 0;
  unstamped.tools.pop_back();
  EXPECT_EQ(writer.Write(unstamped), Expected(GetParam(), unstamped));
  unstamped.tools[0].description = "changed";
  EXPECT_EQ(writer.Write(unstamped), Expected(GetParam(), unstamped));
  // The system prompt is still compared under a stamp.
  Request system = next;
  system.system = "Another prompt.";
  EXPECT_EQ(writer.Write(system), Expected(GetParam(), system));
}

INSTANTIATE_TEST_SUITE_P(AllApis, RequestBodyTest,
                         ::testing::Values(ApiKind::kAnthropic, ApiKind::kOpenAiChat,
                                           ApiKind::kOpenAiResponses));

TEST(DumpObjectWith, MergesRawMembersInKeyOrder) {
  Json object = {{"b", 1}, {"d", "x\"y"}, {"f", Json::array({1, 2})}};
  Json whole = object;
  whole["a"] = Json::parse(R"({"z":1})");
  whole["c"] = "c";
  whole["e"] = nullptr;
  whole["g"] = true;
  std::vector<std::pair<std::string_view, std::string_view>> raw = {
      {"g", "true"}, {"a", R"({"z":1})"}, {"e", "null"}, {"c", R"("c")"}};
  EXPECT_EQ(DumpObjectWith(object, raw), DumpJson(whole));
  EXPECT_EQ(DumpObjectWith(Json::object(), {{"a", "1"}}), R"({"a":1})");
  EXPECT_EQ(DumpObjectWith(object, {}), DumpJson(object));
}

TEST(Normalized, NoCopyWhenNothingNeedsFixing) {
  Message a;
  a.role = Role::kAssistant;
  a.content.push_back(ContentBlock::ToolCall("c1", "read", Json::object()));
  std::vector<Message> good = {Message::User("go"), a, Message::ToolResult("c1", "read", "x", false),
                               Message::User("next")};
  std::vector<Message> fixed;
  EXPECT_EQ(&wire::Normalized(good, &fixed), &good);
  EXPECT_TRUE(fixed.empty());
  // The call answered by nothing, then an orphan: both fixed as before.
  std::vector<Message> bad = {Message::User("go"), a, Message::User("stop"),
                              Message::ToolResult("c9", "read", "orphan", false)};
  const auto& out = wire::Normalized(bad, &fixed);
  EXPECT_EQ(&out, &fixed);
  EXPECT_EQ(out, wire::NormalizeConversation(bad));
  // A call still pending at the end is answered too.
  std::vector<Message> open = {Message::User("go"), a};
  EXPECT_EQ(wire::Normalized(open, &fixed), wire::NormalizeConversation(open));
  EXPECT_EQ(fixed.size(), 3u);
}

}  // namespace
}  // namespace sepp::llm
