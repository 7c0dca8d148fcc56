#include <gtest/gtest.h>

#include "llm/openai_chat.h"
#include "llm/stream_util.h"

namespace sepp::llm {
namespace {

using testing::Decode;
using testing::RandomCuts;
using testing::Sse;

Endpoint Ep() {
  Endpoint ep;
  ep.api = ApiKind::kOpenAiChat;
  ep.provider = "openai";
  ep.host = "api.openai.com";
  ep.model = "gpt-4o";
  ep.key_variable = "OPENAI_API_KEY";
  ep.has_key = true;
  return ep;
}

Request Conversation() {
  Request r;
  r.model = "gpt-4o";
  r.system = "You are terse.";
  r.max_tokens = 1000;
  r.tools.push_back({"read", "Read a file", Json::parse(R"({"type":"object","properties":{"path":{"type":"string"}}})")});
  r.messages.push_back(Message::User("look at a and b"));
  Message a;
  a.role = Role::kAssistant;
  a.content.push_back(ContentBlock::Thinking("two files", "SIG"));
  a.content.push_back(ContentBlock::Text("Reading."));
  a.content.push_back(ContentBlock::ToolCall("call_1", "read", Json{{"path", "a"}}));
  ContentBlock bad = ContentBlock::ToolCall("call_2", "read", nullptr);
  bad.raw_arguments = "{oops";
  bad.arguments_error = "not JSON";
  a.content.push_back(bad);
  a.stop_reason = StopReason::kToolUse;
  r.messages.push_back(a);
  r.messages.push_back(Message::ToolResult("call_1", "read", "A", false));
  r.messages.push_back(Message::ToolResult("call_2", "read", "bad arguments", true));
  Message only_thinking;  // nothing the chat API can take: dropped
  only_thinking.role = Role::kAssistant;
  only_thinking.content.push_back(ContentBlock::Thinking("hm", ""));
  r.messages.push_back(only_thinking);
  r.messages.push_back(Message::User("thanks"));
  return r;
}

TEST(OpenAiChatRequest, GoldenJson) {
  Json want = Json::parse(R"({
    "model": "gpt-4o",
    "messages": [
      {"role":"system","content":"You are terse."},
      {"role":"user","content":"look at a and b"},
      {"role":"assistant","content":"Reading.","tool_calls":[
        {"id":"call_1","type":"function","function":{"name":"read","arguments":"{\"path\":\"a\"}"}},
        {"id":"call_2","type":"function","function":{"name":"read","arguments":"{oops"}}]},
      {"role":"tool","tool_call_id":"call_1","content":"A"},
      {"role":"tool","tool_call_id":"call_2","content":"bad arguments"},
      {"role":"user","content":"thanks"}
    ],
    "tools": [{"type":"function","function":{"name":"read","description":"Read a file",
               "parameters":{"type":"object","properties":{"path":{"type":"string"}}}}}],
    "max_completion_tokens": 1000,
    "stream": true,
    "stream_options": {"include_usage": true}
  })");
  EXPECT_EQ(openai_chat::BuildRequest(Conversation()), want)
      << openai_chat::BuildRequest(Conversation()).dump(2);
}

TEST(OpenAiChatRequest, LocalOptionsReasoningAndHeaders) {
  Request r = Conversation();
  r.stream = false;
  Json j = openai_chat::BuildRequest(r, {.legacy_max_tokens = true});
  EXPECT_EQ(j["max_tokens"], 1000);
  EXPECT_FALSE(j.contains("max_completion_tokens"));
  EXPECT_FALSE(j.contains("stream"));
  EXPECT_FALSE(j.contains("stream_options"));
  r.model = "o3";
  r.thinking_budget = 10000;
  EXPECT_EQ(openai_chat::BuildRequest(r)["reasoning_effort"], "medium");
  auto h = openai_chat::RequestHeaders("sk-x", true);
  EXPECT_NE(std::find(h.begin(), h.end(), std::pair<std::string, std::string>{"authorization", "Bearer sk-x"}), h.end());
  for (const auto& [k, v] : openai_chat::RequestHeaders("", false)) EXPECT_NE(k, "authorization");
}

const std::string kStream = Sse({
    {"", R"({"id":"c1","object":"chat.completion.chunk","model":"gpt-4o-2024-08-06","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}],"usage":null})"},
    {"", R"({"id":"c1","model":"gpt-4o-2024-08-06","choices":[{"index":0,"delta":{"content":"Let me "},"finish_reason":null}],"usage":null})"},
    {"", R"({"id":"c1","model":"gpt-4o-2024-08-06","choices":[{"index":0,"delta":{"content":"read ✓."},"finish_reason":null}],"usage":null})"},
    {"", R"({"id":"c1","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_A","type":"function","function":{"name":"read","arguments":""}}]},"finish_reason":null}]})"},
    {"", R"({"id":"c1","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"pa"}}]},"finish_reason":null}]})"},
    {"", R"({"id":"c1","choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"call_B","type":"function","function":{"name":"ls","arguments":""}}]},"finish_reason":null}]})"},
    {"", R"({"id":"c1","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"th\": \"a.txt\"}"}}]},"finish_reason":null}]})"},
    {"", R"({"id":"c1","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]})"},
    {"", R"({"id":"c1","choices":[],"usage":{"prompt_tokens":120,"completion_tokens":30,"total_tokens":150,"prompt_tokens_details":{"cached_tokens":100}}})"},
    {"", "[DONE]"},
});

Message Expected() {
  Message m;
  m.role = Role::kAssistant;
  m.model = "gpt-4o-2024-08-06";
  m.content.push_back(ContentBlock::Text("Let me read ✓."));
  m.content.push_back(ContentBlock::ToolCall("call_A", "read", Json{{"path", "a.txt"}}));
  m.content.push_back(ContentBlock::ToolCall("call_B", "ls", Json::object()));
  m.stop_reason = StopReason::kToolUse;
  m.usage = Usage{20, 30, 100, 0};
  return m;
}

TEST(OpenAiChatStream, DecodesTextToolCallsAndUsage) {
  std::string text;
  std::vector<std::string> calls;
  StreamSink sink;
  sink.on_text = [&](std::string_view t) { text += t; };
  sink.on_tool_call = [&](const ContentBlock& b) { calls.push_back(b.id); };
  auto d = openai_chat::NewStreamDecoder(&sink, Ep());
  auto m = Decode(*d, kStream);
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_EQ(*m, Expected()) << ToJson(*m).dump(2);
  EXPECT_EQ(text, "Let me read ✓.");
  EXPECT_EQ(calls, (std::vector<std::string>{"call_A", "call_B"}));
}

TEST(OpenAiChatStream, SplitAtEveryByteBoundaryGivesTheSameMessage) {
  const Message want = Expected();
  for (size_t cut = 1; cut < kStream.size(); ++cut) {
    auto d = openai_chat::NewStreamDecoder(nullptr, Ep());
    auto m = Decode(*d, kStream, {cut});
    ASSERT_TRUE(m.ok()) << cut;
    ASSERT_EQ(*m, want) << "cut at " << cut;
  }
  for (unsigned seed = 0; seed < 200; ++seed) {
    auto d = openai_chat::NewStreamDecoder(nullptr, Ep());
    auto m = Decode(*d, kStream, RandomCuts(kStream.size(), 40, seed));
    ASSERT_TRUE(m.ok());
    ASSERT_EQ(*m, want) << "seed " << seed;
  }
}

std::string WithFinish(const std::string& reason, bool done = true) {
  std::string s = Sse({{"", R"({"choices":[{"index":0,"delta":{"content":"hi"}}]})"},
                       {"", R"({"choices":[{"index":0,"delta":{},"finish_reason":")" + reason + R"("}]})"}});
  if (done) s += Sse({{"", "[DONE]"}});
  return s;
}

TEST(OpenAiChatStream, AllFinishReasons) {
  struct Case {
    const char* wire;
    StopReason want;
  } cases[] = {{"stop", StopReason::kStop},
               {"length", StopReason::kLength},
               {"tool_calls", StopReason::kToolUse},
               {"function_call", StopReason::kToolUse},
               {"content_filter", StopReason::kError}};
  for (const auto& c : cases) {
    auto d = openai_chat::NewStreamDecoder(nullptr, Ep());
    auto m = Decode(*d, WithFinish(c.wire));
    ASSERT_TRUE(m.ok()) << c.wire;
    EXPECT_EQ(m->stop_reason, c.want) << c.wire;
    EXPECT_EQ(m->Text(), "hi");
    if (c.want == StopReason::kError) {
      EXPECT_FALSE(m->error.empty());
    }
  }
  // Local servers may omit [DONE] after a finish_reason.
  auto d = openai_chat::NewStreamDecoder(nullptr, Ep());
  EXPECT_TRUE(Decode(*d, WithFinish("stop", false)).ok());
}

TEST(OpenAiChatStream, LocalServerVariations) {
  // Reasoning in delta.reasoning_content, tool calls without index and with
  // a reused index, legacy function_call, finish "stop" after tool calls.
  auto s = Sse({
      {"", R"({"choices":[{"index":0,"delta":{"reasoning_content":"think "}}]})"},
      {"", R"({"choices":[{"index":0,"delta":{"reasoning":"more"}}]})"},
      {"", R"({"choices":[{"index":0,"delta":{"content":"ok"}}]})"},
      {"", R"({"choices":[{"index":0,"delta":{"tool_calls":[{"id":"a","function":{"name":"x","arguments":"{}"}}]}}]})"},
      {"", R"({"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"b","function":{"name":"y","arguments":{"bad":1}}}]}}]})"},
  });
  auto d = openai_chat::NewStreamDecoder(nullptr, Ep());
  auto m = Decode(*d, s);
  ASSERT_FALSE(m.ok());  // arguments as an object is not the chat API
  EXPECT_EQ(m.error().kind, "protocol");

  s = Sse({
      {"", R"({"choices":[{"index":0,"delta":{"reasoning_content":"think "}}]})"},
      {"", R"({"choices":[{"index":0,"delta":{"reasoning":"more"}}]})"},
      {"", R"({"choices":[{"index":0,"delta":{"content":"ok"}}]})"},
      {"", R"({"choices":[{"index":0,"delta":{"tool_calls":[{"id":"a","function":{"name":"x","arguments":"{}"}}]}}]})"},
      {"", R"({"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"b","function":{"name":"y","arguments":"{\"n\":1}"}}]}}]})"},
      {"", R"({"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]})"},
  });
  d = openai_chat::NewStreamDecoder(nullptr, Ep());
  m = Decode(*d, s);
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_EQ(m->content[0], ContentBlock::Thinking("think more", ""));
  EXPECT_EQ(m->Text(), "ok");
  auto calls = m->ToolCalls();
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[0]->id, "a");
  EXPECT_EQ(calls[1]->id, "b");
  EXPECT_EQ(calls[1]->arguments, (Json{{"n", 1}}));
  EXPECT_EQ(m->stop_reason, StopReason::kToolUse);

  s = Sse({{"", R"({"choices":[{"index":0,"delta":{"function_call":{"name":"f","arguments":"{\"a\":"}}}]})"},
           {"", R"({"choices":[{"index":0,"delta":{"function_call":{"arguments":"2}"}}}]})"},
           {"", R"({"choices":[{"index":0,"delta":{},"finish_reason":"function_call"}]})"},
           {"", "[DONE]"}});
  d = openai_chat::NewStreamDecoder(nullptr, Ep());
  m = Decode(*d, s);
  ASSERT_TRUE(m.ok()) << m.error().message;
  ASSERT_EQ(m->ToolCalls().size(), 1u);
  EXPECT_EQ(m->ToolCalls()[0]->name, "f");
  EXPECT_FALSE(m->ToolCalls()[0]->id.empty());
  EXPECT_EQ(m->ToolCalls()[0]->arguments, (Json{{"a", 2}}));
}

TEST(OpenAiChatStream, InvalidToolArgumentsAreKept) {
  auto s = Sse({{"", R"({"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c","function":{"name":"bash","arguments":"{\"cmd\": tru"}}]}}]})"},
                {"", R"({"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]})"},
                {"", "[DONE]"}});
  auto d = openai_chat::NewStreamDecoder(nullptr, Ep());
  auto m = Decode(*d, s);
  ASSERT_TRUE(m.ok()) << m.error().message;
  ASSERT_EQ(m->ToolCalls().size(), 1u);
  EXPECT_FALSE(m->ToolCalls()[0]->arguments_error.empty());
  EXPECT_EQ(m->ToolCalls()[0]->raw_arguments, "{\"cmd\": tru");
}

TEST(OpenAiChatStream, ErrorsAndCuts) {
  auto d = openai_chat::NewStreamDecoder(nullptr, Ep());
  auto m = Decode(*d, Sse({{"", R"({"error":{"message":"This model's maximum context length is 128000 tokens","type":"invalid_request_error","code":"context_length_exceeded"}})"}}));
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error().kind, "context_overflow");
  d = openai_chat::NewStreamDecoder(nullptr, Ep());
  m = Decode(*d, Sse({{"", R"({"error":{"message":"server busy","type":"server_error","code":null}})"}}));
  ASSERT_FALSE(m.ok());
  EXPECT_TRUE(IsRetryableKind(m.error().kind));
  d = openai_chat::NewStreamDecoder(nullptr, Ep());
  m = Decode(*d, kStream.substr(0, kStream.find("tool_calls\"}")));
  ASSERT_FALSE(m.ok());
  EXPECT_TRUE(IsRetryableKind(m.error().kind));
}

TEST(OpenAiChatStream, HostileInputGivesProtocolErrors) {
  std::vector<std::string> bad = {
      Sse({{"", "garbage"}}),
      Sse({{"", "42"}}),
      Sse({{"", R"({"choices":{}})"}}),
      Sse({{"", R"({"choices":[7]})"}}),
      Sse({{"", R"({"choices":[{"index":0,"delta":"x"}]})"}}),
      Sse({{"", R"({"choices":[{"index":0,"delta":{"content":5}}]})"}}),
      Sse({{"", R"({"choices":[{"index":0,"delta":{"tool_calls":{}}}]})"}}),
      Sse({{"", R"({"choices":[{"index":0,"delta":{"tool_calls":[5]}}]})"}}),
      Sse({{"", R"({"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":"f"}]}}]})"}}),
      Sse({{"", R"({"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"x","function":{"arguments":"{}"}}]}}]})"},
           {"", R"({"choices":[{"index":0,"finish_reason":"tool_calls"}]})"}}),
      Sse({{"", R"({"error":5})"}}),
  };
  for (const auto& s : bad) {
    auto d = openai_chat::NewStreamDecoder(nullptr, Ep());
    auto m = Decode(*d, s + Sse({{"", "[DONE]"}}));
    ASSERT_FALSE(m.ok()) << s;
    EXPECT_EQ(m.error().kind, "protocol") << s << " -> " << m.error().message;
  }
  // Wrong-typed usage and unknown fields are tolerated.
  auto d = openai_chat::NewStreamDecoder(nullptr, Ep());
  auto m = Decode(*d, Sse({{"", R"({"usage":"lots","x":[1],"choices":[{"index":0,"delta":{"content":"a"},"finish_reason":"stop"}]})"},
                           {"", R"({"choices":[{"index":1,"delta":{"content":"other choice"}}]})"},
                           {"", "[DONE]"}}));
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_EQ(m->Text(), "a");
}

TEST(OpenAiChatResponse, ParsesAWholeResponse) {
  auto m = openai_chat::ParseResponse(R"({
    "id":"c","object":"chat.completion","model":"gpt-4o",
    "choices":[{"index":0,"message":{"role":"assistant","content":"Hi",
      "tool_calls":[{"id":"call_1","type":"function","function":{"name":"read","arguments":"{\"path\":\"x\"}"}},
                    {"id":"call_2","type":"function","function":{"name":"read","arguments":"{bad"}}]},
      "finish_reason":"tool_calls"}],
    "usage":{"prompt_tokens":10,"completion_tokens":20}})",
                                        Ep());
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_EQ(m->Text(), "Hi");
  ASSERT_EQ(m->ToolCalls().size(), 2u);
  EXPECT_EQ(m->ToolCalls()[0]->arguments, (Json{{"path", "x"}}));
  EXPECT_EQ(m->ToolCalls()[1]->raw_arguments, "{bad");
  EXPECT_EQ(m->stop_reason, StopReason::kToolUse);
  EXPECT_EQ(m->usage, (Usage{10, 20, 0, 0}));
  for (const char* reason : {"stop", "length", "content_filter", "function_call"}) {
    auto r = openai_chat::ParseResponse(
        std::string(R"({"choices":[{"message":{"content":null},"finish_reason":")") + reason + "\"}]}", Ep());
    ASSERT_TRUE(r.ok()) << reason;
  }
}

TEST(OpenAiChatResponse, HostileBodies) {
  for (const char* body : {"", "{", "[]", R"({"choices":[]})", R"({"choices":[1]})",
                           R"({"choices":[{"message":5}]})", R"({"choices":[{"message":{"content":7}}]})",
                           R"({"choices":[{"message":{"tool_calls":[{"function":{}}]}}]})",
                           R"({"choices":[{"message":{"tool_calls":3}}]})"}) {
    auto m = openai_chat::ParseResponse(body, Ep());
    ASSERT_FALSE(m.ok()) << body;
    EXPECT_EQ(m.error().kind, "protocol") << body;
  }
  auto m = openai_chat::ParseResponse(R"({"error":{"message":"The model `gpt-9` does not exist","type":"invalid_request_error","code":"model_not_found"}})", Ep());
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error().kind, "not_found");
}

}  // namespace
}  // namespace sepp::llm
