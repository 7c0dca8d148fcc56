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
  std::vector<std::pair<std::string, std::string>> raw = {
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
