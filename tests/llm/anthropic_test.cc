#include <gtest/gtest.h>

#include "llm/anthropic.h"
#include "llm/stream_util.h"

namespace sepp::llm {
namespace {

using testing::Decode;
using testing::RandomCuts;
using testing::Sse;

Endpoint Ep() {
  Endpoint ep;
  ep.api = ApiKind::kAnthropic;
  ep.provider = "anthropic";
  ep.host = "api.anthropic.com";
  ep.model = "claude-sonnet-4-5";
  ep.key_variable = "ANTHROPIC_API_KEY";
  ep.has_key = true;
  return ep;
}

// A conversation with everything: system, tools, thinking, text, two tool
// calls, their results, and a follow-up.
Request Conversation() {
  Request r;
  r.model = "claude-sonnet-4-5";
  r.system = "You are terse.";
  r.max_tokens = 1000;
  r.tools.push_back({"read", "Read a file", Json::parse(R"({"type":"object","properties":{"path":{"type":"string"}}})")});
  r.messages.push_back(Message::User("look at a and b"));
  Message a;
  a.role = Role::kAssistant;
  a.content.push_back(ContentBlock::Thinking("two files", "SIG"));
  a.content.push_back(ContentBlock::RedactedThinking("REDACTED"));
  a.content.push_back(ContentBlock::Thinking("unsigned, from another provider", ""));
  a.content.push_back(ContentBlock::Text("Reading."));
  a.content.push_back(ContentBlock::ToolCall("toolu_1", "read", Json{{"path", "a"}}));
  ContentBlock bad = ContentBlock::ToolCall("toolu_2", "read", nullptr);
  bad.raw_arguments = "{oops";
  bad.arguments_error = "not JSON";
  a.content.push_back(bad);
  a.stop_reason = StopReason::kToolUse;
  r.messages.push_back(a);
  r.messages.push_back(Message::ToolResult("toolu_1", "read", "A", false));
  r.messages.push_back(Message::ToolResult("toolu_2", "read", "bad arguments", true));
  r.messages.push_back(Message::User("thanks"));
  return r;
}

TEST(AnthropicRequest, GoldenJson) {
  Json want = Json::parse(R"({
    "model": "claude-sonnet-4-5",
    "max_tokens": 1000,
    "system": [{"type":"text","text":"You are terse.","cache_control":{"type":"ephemeral"}}],
    "messages": [
      {"role":"user","content":[{"type":"text","text":"look at a and b"}]},
      {"role":"assistant","content":[
        {"type":"thinking","thinking":"two files","signature":"SIG"},
        {"type":"redacted_thinking","data":"REDACTED"},
        {"type":"text","text":"Reading."},
        {"type":"tool_use","id":"toolu_1","name":"read","input":{"path":"a"}},
        {"type":"tool_use","id":"toolu_2","name":"read","input":{}}]},
      {"role":"user","content":[
        {"type":"tool_result","tool_use_id":"toolu_1","content":[{"type":"text","text":"A"}]},
        {"type":"tool_result","tool_use_id":"toolu_2","content":[{"type":"text","text":"bad arguments"}],"is_error":true}]},
      {"role":"user","content":[{"type":"text","text":"thanks","cache_control":{"type":"ephemeral"}}]}
    ],
    "tools": [{"name":"read","description":"Read a file",
               "input_schema":{"type":"object","properties":{"path":{"type":"string"}}}}],
    "stream": true
  })");
  EXPECT_EQ(anthropic::BuildRequest(Conversation()), want)
      << anthropic::BuildRequest(Conversation()).dump(2);
}

TEST(AnthropicRequest, ThinkingBudgetAndDefaults) {
  Request r;
  r.model = "claude-opus-4-1";
  r.messages.push_back(Message::User("x"));
  r.thinking_budget = 8000;
  r.stream = false;
  Json j = anthropic::BuildRequest(r);
  EXPECT_EQ(j["thinking"], (Json{{"type", "enabled"}, {"budget_tokens", 8000}}));
  EXPECT_EQ(j["max_tokens"], 16384);  // non-stream cap, above the budget
  EXPECT_FALSE(j.contains("stream"));
  EXPECT_FALSE(j.contains("system"));
  EXPECT_FALSE(j.contains("tools"));
  r.max_tokens = 4000;  // below the budget: raised
  EXPECT_GT(anthropic::BuildRequest(r)["max_tokens"].get<int>(), 8000);
}

TEST(AnthropicRequest, Headers) {
  auto h = anthropic::RequestHeaders("k-123", true);
  EXPECT_EQ(h[0], (std::pair<std::string, std::string>{"x-api-key", "k-123"}));
  EXPECT_EQ(h[1], (std::pair<std::string, std::string>{"anthropic-version", "2023-06-01"}));
  EXPECT_EQ(h[2], (std::pair<std::string, std::string>{"content-type", "application/json"}));
}

const std::string kStream = Sse({
    {"message_start", R"({"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929","content":[],"stop_reason":null,"usage":{"input_tokens":25,"cache_read_input_tokens":100,"cache_creation_input_tokens":7,"output_tokens":1}}})"},
    {"ping", R"({"type":"ping"})"},
    {"content_block_start", R"({"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}})"},
    {"content_block_delta", R"({"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"Hmm, "}})"},
    {"content_block_delta", R"({"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"files ✓."}})"},
    {"content_block_delta", R"({"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"EqQB"}})"},
    {"content_block_stop", R"({"type":"content_block_stop","index":0})"},
    {"content_block_start", R"({"type":"content_block_start","index":1,"content_block":{"type":"redacted_thinking","data":"XYZ"}})"},
    {"content_block_stop", R"({"type":"content_block_stop","index":1})"},
    {"content_block_start", R"({"type":"content_block_start","index":2,"content_block":{"type":"text","text":""}})"},
    {"content_block_delta", R"({"type":"content_block_delta","index":2,"delta":{"type":"text_delta","text":"Let me "}})"},
    {"content_block_delta", R"({"type":"content_block_delta","index":2,"delta":{"type":"text_delta","text":"read it."}})"},
    {"content_block_stop", R"({"type":"content_block_stop","index":2})"},
    {"content_block_start", R"({"type":"content_block_start","index":3,"content_block":{"type":"tool_use","id":"toolu_01","name":"read","input":{}}})"},
    {"content_block_delta", R"({"type":"content_block_delta","index":3,"delta":{"type":"input_json_delta","partial_json":""}})"},
    {"content_block_delta", R"({"type":"content_block_delta","index":3,"delta":{"type":"input_json_delta","partial_json":"{\"pa"}})"},
    {"content_block_delta", R"({"type":"content_block_delta","index":3,"delta":{"type":"input_json_delta","partial_json":"th\": \"a.t"}})"},
    {"content_block_delta", R"({"type":"content_block_delta","index":3,"delta":{"type":"input_json_delta","partial_json":"xt\"}"}})"},
    {"content_block_stop", R"({"type":"content_block_stop","index":3})"},
    {"content_block_start", R"({"type":"content_block_start","index":4,"content_block":{"type":"tool_use","id":"toolu_02","name":"ls","input":{}}})"},
    {"content_block_stop", R"({"type":"content_block_stop","index":4})"},
    {"message_delta", R"({"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":89}})"},
    {"message_stop", R"({"type":"message_stop"})"},
});

Message Expected() {
  Message m;
  m.role = Role::kAssistant;
  m.model = "claude-sonnet-4-5-20250929";
  m.content.push_back(ContentBlock::Thinking("Hmm, files ✓.", "EqQB"));
  m.content.push_back(ContentBlock::RedactedThinking("XYZ"));
  m.content.push_back(ContentBlock::Text("Let me read it."));
  m.content.push_back(ContentBlock::ToolCall("toolu_01", "read", Json{{"path", "a.txt"}}));
  m.content.push_back(ContentBlock::ToolCall("toolu_02", "ls", Json::object()));
  m.stop_reason = StopReason::kToolUse;
  m.usage = Usage{25, 89, 100, 7};
  return m;
}

TEST(AnthropicStream, DecodesEverythingAndCallsTheSink) {
  std::string text, thinking;
  std::vector<std::string> calls;
  StreamSink sink;
  sink.on_text = [&](std::string_view t) { text += t; };
  sink.on_thinking = [&](std::string_view t) { thinking += t; };
  sink.on_tool_call = [&](const ContentBlock& b) { calls.push_back(b.id + ":" + b.arguments.dump()); };
  auto d = anthropic::NewStreamDecoder(&sink, Ep());
  auto m = Decode(*d, kStream);
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_EQ(*m, Expected()) << ToJson(*m).dump(2);
  EXPECT_EQ(text, "Let me read it.");
  EXPECT_EQ(thinking, "Hmm, files ✓.");
  EXPECT_EQ(calls, (std::vector<std::string>{R"(toolu_01:{"path":"a.txt"})", "toolu_02:{}"}));
}

TEST(AnthropicStream, SplitAtEveryByteBoundaryGivesTheSameMessage) {
  const Message want = Expected();
  for (size_t cut = 1; cut < kStream.size(); ++cut) {
    auto d = anthropic::NewStreamDecoder(nullptr, Ep());
    auto m = Decode(*d, kStream, {cut});
    ASSERT_TRUE(m.ok()) << cut;
    ASSERT_EQ(*m, want) << "cut at " << cut;
  }
  for (unsigned seed = 0; seed < 200; ++seed) {
    auto d = anthropic::NewStreamDecoder(nullptr, Ep());
    auto m = Decode(*d, kStream, RandomCuts(kStream.size(), 40, seed));
    ASSERT_TRUE(m.ok());
    ASSERT_EQ(*m, want) << "seed " << seed;
  }
}

std::string Minimal(const std::string& stop_reason, const std::string& extra_events = "") {
  return Sse({{"message_start", R"({"type":"message_start","message":{"model":"m","usage":{"input_tokens":3,"output_tokens":0}}})"},
              {"content_block_start", R"({"type":"content_block_start","index":0,"content_block":{"type":"text","text":"hi"}})"},
              {"content_block_stop", R"({"type":"content_block_stop","index":0})"}}) +
         extra_events +
         Sse({{"message_delta", R"({"type":"message_delta","delta":{"stop_reason":")" + stop_reason + R"("},"usage":{"output_tokens":5}})"},
              {"message_stop", R"({"type":"message_stop"})"}});
}

TEST(AnthropicStream, AllStopReasons) {
  struct Case {
    const char* wire;
    StopReason want;
  } cases[] = {{"end_turn", StopReason::kStop},     {"stop_sequence", StopReason::kStop},
               {"max_tokens", StopReason::kLength}, {"tool_use", StopReason::kToolUse},
               {"pause_turn", StopReason::kStop},   {"refusal", StopReason::kError},
               {"model_context_window_exceeded", StopReason::kLength}};
  for (const auto& c : cases) {
    auto d = anthropic::NewStreamDecoder(nullptr, Ep());
    auto m = Decode(*d, Minimal(c.wire));
    ASSERT_TRUE(m.ok()) << c.wire;
    EXPECT_EQ(m->stop_reason, c.want) << c.wire;
    EXPECT_EQ(m->usage.input, 3);
    EXPECT_EQ(m->usage.output, 5);
    EXPECT_EQ(m->Text(), "hi");
  }
}

TEST(AnthropicStream, MidStreamErrors) {
  auto overloaded = Sse({{"message_start", R"({"type":"message_start","message":{"usage":{}}})"},
                         {"error", R"({"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}})"}});
  auto d = anthropic::NewStreamDecoder(nullptr, Ep());
  auto m = Decode(*d, overloaded);
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error().kind, "overloaded");
  EXPECT_TRUE(IsRetryableKind(m.error().kind));

  auto too_long = Sse({{"error", R"({"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 210000 tokens > 200000 maximum"}})"}});
  d = anthropic::NewStreamDecoder(nullptr, Ep());
  m = Decode(*d, too_long);
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error().kind, "context_overflow");

  // Cut before the end: a retryable error, not a half message.
  d = anthropic::NewStreamDecoder(nullptr, Ep());
  m = Decode(*d, kStream.substr(0, kStream.size() / 2));
  ASSERT_FALSE(m.ok());
  EXPECT_TRUE(IsRetryableKind(m.error().kind)) << m.error().kind;
}

TEST(AnthropicStream, InvalidToolArgumentsAreKeptNotFatal) {
  auto s = Sse({{"message_start", R"({"type":"message_start","message":{"usage":{}}})"},
                {"content_block_start", R"({"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"t","name":"bash","input":{}}})"},
                {"content_block_delta", R"({"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"cmd\": \"ls"}})"},
                {"content_block_stop", R"({"type":"content_block_stop","index":0})"},
                {"message_delta", R"({"type":"message_delta","delta":{"stop_reason":"tool_use"}})"},
                {"message_stop", R"({"type":"message_stop"})"}});
  auto d = anthropic::NewStreamDecoder(nullptr, Ep());
  auto m = Decode(*d, s);
  ASSERT_TRUE(m.ok()) << m.error().message;
  auto calls = m->ToolCalls();
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_FALSE(calls[0]->arguments_error.empty());
  EXPECT_EQ(calls[0]->raw_arguments, "{\"cmd\": \"ls");
  EXPECT_TRUE(calls[0]->arguments.is_null());
}

TEST(AnthropicStream, HostileInputGivesProtocolErrors) {
  const std::string start = Sse({{"message_start", R"({"type":"message_start","message":{"usage":{}}})"}});
  const std::string block = Sse({{"content_block_start", R"({"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}})"}});
  std::vector<std::string> bad = {
      Sse({{"message_start", "not json"}}),
      Sse({{"message_start", "[1,2]"}}),
      Sse({{"message_start", R"({"type":"message_start","message":7})"}}),
      Sse({{"content_block_start", R"({"type":"content_block_start","index":0,"content_block":{"type":"text"}})"}}),
      start + Sse({{"content_block_start", R"({"type":"content_block_start","index":"0","content_block":{"type":"text"}})"}}),
      start + Sse({{"content_block_start", R"({"type":"content_block_start","index":0,"content_block":{"type":"text","text":5}})"}}),
      start + Sse({{"content_block_start", R"({"type":"content_block_start","index":0,"content_block":{"type":"tool_use"}})"}}),
      start + Sse({{"content_block_start", R"({"type":"content_block_start","index":0,"content_block":{}})"}}),
      start + Sse({{"content_block_delta", R"({"type":"content_block_delta","delta":{"type":"text_delta","text":"x"}})"}}),
      start + block + Sse({{"content_block_delta", R"({"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":5}})"}}),
      start + block + Sse({{"content_block_delta", R"({"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{"}})"}}),
      start + block + block,
      start + Sse({{"error", R"({"type":"error","error":"boom"})"}}),
      start + Sse({{"content_block_stop", R"({"type":"content_block_stop"})"}}),
  };
  for (const auto& s : bad) {
    auto d = anthropic::NewStreamDecoder(nullptr, Ep());
    auto m = Decode(*d, s);
    ASSERT_FALSE(m.ok()) << s;
    EXPECT_EQ(m.error().kind, "protocol") << s << " -> " << m.error().message;
  }
  // Unknown events and delta types are ignored, wrong-typed usage is zero.
  auto ok = Minimal("end_turn", Sse({{"future_event", R"({"type":"future_event","x":1})"},
                                     {"content_block_delta", R"({"type":"content_block_delta","index":9,"delta":{"type":"text_delta","text":"x"}})"}}));
  auto d = anthropic::NewStreamDecoder(nullptr, Ep());
  auto m = Decode(*d, ok);
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_EQ(m->Text(), "hi");
}

TEST(AnthropicResponse, ParsesAWholeMessage) {
  auto m = anthropic::ParseResponse(R"({
    "id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5",
    "content":[{"type":"thinking","thinking":"t","signature":"s"},
               {"type":"text","text":"Hi"},
               {"type":"tool_use","id":"toolu_1","name":"read","input":{"path":"x"}},
               {"type":"tool_use","id":"toolu_2","name":"read","input":"nope"}],
    "stop_reason":"tool_use",
    "usage":{"input_tokens":10,"output_tokens":20,"cache_read_input_tokens":3,"cache_creation_input_tokens":4}})",
                                      Ep());
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_EQ(m->content.size(), 4u);
  EXPECT_EQ(m->content[0], ContentBlock::Thinking("t", "s"));
  EXPECT_EQ(m->Text(), "Hi");
  EXPECT_EQ(m->content[2].arguments, (Json{{"path", "x"}}));
  EXPECT_FALSE(m->content[3].arguments_error.empty());
  EXPECT_EQ(m->stop_reason, StopReason::kToolUse);
  EXPECT_EQ(m->usage, (Usage{10, 20, 3, 4}));
}

TEST(AnthropicResponse, HostileBodies) {
  for (const char* body : {"", "nope", "[]", R"({"content":5})", R"({"content":[1]})",
                           R"({"content":[{"type":"tool_use","name":"x"}]})"}) {
    auto m = anthropic::ParseResponse(body, Ep());
    ASSERT_FALSE(m.ok()) << body;
    EXPECT_EQ(m.error().kind, "protocol") << body;
  }
  auto m = anthropic::ParseResponse(
      R"({"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}})", Ep());
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error().kind, "overloaded");
}

}  // namespace
}  // namespace sepp::llm

namespace sepp::llm {
namespace {

TEST(AnthropicRequest, ThinkingOnlyForModelsThatThink) {
  Request r;
  r.messages.push_back(Message::User("x"));
  r.thinking_budget = 2000;
  r.model = "claude-3-5-haiku-20241022";
  EXPECT_FALSE(anthropic::BuildRequest(r).contains("thinking"));
  r.model = "claude-opus-9";  // unknown, newer: assume it thinks
  EXPECT_TRUE(anthropic::BuildRequest(r).contains("thinking"));
  r.model = "my-proxy-alias";
  EXPECT_TRUE(anthropic::BuildRequest(r).contains("thinking"));
}

}  // namespace
}  // namespace sepp::llm
