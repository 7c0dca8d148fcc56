#include <gtest/gtest.h>

#include "llm/anthropic.h"
#include "llm/openai_responses.h"
#include "llm/stream_util.h"

namespace sepp::llm {
namespace {

using testing::Decode;
using testing::RandomCuts;
using testing::Sse;

Endpoint Ep() {
  Endpoint ep;
  ep.api = ApiKind::kOpenAiResponses;
  ep.provider = "openai-responses";
  ep.host = "api.openai.com";
  ep.model = "gpt-5.1";
  ep.key_variable = "OPENAI_API_KEY";
  ep.has_key = true;
  return ep;
}

Request Conversation() {
  Request r;
  r.model = "gpt-5.1";
  r.system = "You are terse.";
  r.max_tokens = 1000;
  r.tools.push_back({"read", "Read a file", Json::parse(R"({"type":"object","properties":{"path":{"type":"string"}}})")});
  r.messages.push_back(Message::User("look at a and b"));
  Message a;
  a.role = Role::kAssistant;
  a.content.push_back(ContentBlock::Thinking("two files", std::string(openai_responses::kReasoningTag) + "ENC"));
  a.content.push_back(ContentBlock::Thinking("anthropic's", "SIG"));
  a.content.push_back(ContentBlock::Text("Reading."));
  a.content.push_back(ContentBlock::ToolCall("call_1", "read", Json{{"path", "a"}}));
  a.content.push_back(ContentBlock::ToolCall("call_2", "read", Json{{"path", "b"}}));
  a.stop_reason = StopReason::kToolUse;
  r.messages.push_back(a);
  r.messages.push_back(Message::ToolResult("call_1", "read", "A", false));
  r.messages.push_back(Message::ToolResult("call_2", "read", "B", false));
  Message b;
  b.role = Role::kAssistant;
  b.content.push_back(ContentBlock::Text("Done."));
  r.messages.push_back(b);
  r.messages.push_back(Message::User("thanks"));
  return r;
}

TEST(OpenAiResponsesRequest, GoldenJson) {
  Json want = Json::parse(R"({
    "model": "gpt-5.1",
    "instructions": "You are terse.",
    "input": [
      {"type":"message","role":"user","content":[{"type":"input_text","text":"look at a and b"}]},
      {"type":"reasoning","summary":[{"type":"summary_text","text":"two files"}],"encrypted_content":"ENC"},
      {"type":"message","role":"assistant","content":[{"type":"output_text","text":"Reading."}]},
      {"type":"function_call","call_id":"call_1","name":"read","arguments":"{\"path\":\"a\"}"},
      {"type":"function_call","call_id":"call_2","name":"read","arguments":"{\"path\":\"b\"}"},
      {"type":"function_call_output","call_id":"call_1","output":"A"},
      {"type":"function_call_output","call_id":"call_2","output":"B"},
      {"type":"message","role":"assistant","content":[{"type":"output_text","text":"Done."}]},
      {"type":"message","role":"user","content":[{"type":"input_text","text":"thanks"}]}
    ],
    "tools": [{"type":"function","name":"read","description":"Read a file",
               "parameters":{"type":"object","properties":{"path":{"type":"string"}}},"strict":false}],
    "max_output_tokens": 1000,
    "store": false,
    "stream": true
  })");
  EXPECT_EQ(openai_responses::BuildRequest(Conversation()), want)
      << openai_responses::BuildRequest(Conversation()).dump(2);
}

TEST(OpenAiResponsesRequest, ReasoningOptionsAndCrossProviderSignatures) {
  Request r = Conversation();
  r.thinking_budget = 2000;
  Json j = openai_responses::BuildRequest(r);
  EXPECT_EQ(j["reasoning"]["effort"], "low");
  EXPECT_EQ(j["include"], Json::array({"reasoning.encrypted_content"}));
  // Anthropic never receives this API's encrypted reasoning.
  Json a = anthropic::BuildRequest(r);
  for (const auto& block : a["messages"][1]["content"]) {
    if (block["type"] == "thinking") {
      EXPECT_EQ(block["signature"], "SIG");
    }
  }
}

const std::string kStream = Sse({
    {"response.created", R"({"type":"response.created","sequence_number":0,"response":{"id":"resp_1","status":"in_progress","model":"gpt-5.1-2025-11-13","output":[]}})"},
    {"response.in_progress", R"({"type":"response.in_progress","sequence_number":1,"response":{"id":"resp_1"}})"},
    {"response.output_item.added", R"({"type":"response.output_item.added","output_index":0,"item":{"id":"rs_1","type":"reasoning","summary":[]}})"},
    {"response.reasoning_summary_text.delta", R"({"type":"response.reasoning_summary_text.delta","item_id":"rs_1","output_index":0,"summary_index":0,"delta":"Thinking ✓"})"},
    {"response.output_item.done", R"({"type":"response.output_item.done","output_index":0,"item":{"id":"rs_1","type":"reasoning","summary":[{"type":"summary_text","text":"Thinking ✓"}],"encrypted_content":"gAAA"}})"},
    {"response.output_item.added", R"({"type":"response.output_item.added","output_index":1,"item":{"id":"msg_1","type":"message","status":"in_progress","role":"assistant","content":[]}})"},
    {"response.content_part.added", R"({"type":"response.content_part.added","item_id":"msg_1","output_index":1,"content_index":0,"part":{"type":"output_text","text":""}})"},
    {"response.output_text.delta", R"({"type":"response.output_text.delta","item_id":"msg_1","output_index":1,"content_index":0,"delta":"Let me "})"},
    {"response.output_text.delta", R"({"type":"response.output_text.delta","item_id":"msg_1","output_index":1,"content_index":0,"delta":"read."})"},
    {"response.output_text.done", R"({"type":"response.output_text.done","item_id":"msg_1","output_index":1,"content_index":0,"text":"Let me read."})"},
    {"response.output_item.done", R"({"type":"response.output_item.done","output_index":1,"item":{"id":"msg_1","type":"message","role":"assistant","content":[{"type":"output_text","text":"Let me read."}]}})"},
    {"response.output_item.added", R"({"type":"response.output_item.added","output_index":2,"item":{"id":"fc_1","type":"function_call","call_id":"call_A","name":"read","arguments":""}})"},
    {"response.function_call_arguments.delta", R"({"type":"response.function_call_arguments.delta","item_id":"fc_1","output_index":2,"delta":"{\"pa"})"},
    {"response.function_call_arguments.delta", R"({"type":"response.function_call_arguments.delta","item_id":"fc_1","output_index":2,"delta":"th\":\"a.txt\"}"})"},
    {"response.function_call_arguments.done", R"({"type":"response.function_call_arguments.done","item_id":"fc_1","output_index":2,"arguments":"{\"path\":\"a.txt\"}"})"},
    {"response.output_item.done", R"({"type":"response.output_item.done","output_index":2,"item":{"id":"fc_1","type":"function_call","call_id":"call_A","name":"read","arguments":"{\"path\":\"a.txt\"}","status":"completed"}})"},
    {"response.completed", R"({"type":"response.completed","response":{"id":"resp_1","status":"completed","model":"gpt-5.1-2025-11-13","usage":{"input_tokens":300,"input_tokens_details":{"cached_tokens":200},"output_tokens":40,"output_tokens_details":{"reasoning_tokens":10},"total_tokens":340}}})"},
});

Message Expected() {
  Message m;
  m.role = Role::kAssistant;
  m.model = "gpt-5.1-2025-11-13";
  m.content.push_back(ContentBlock::Thinking("Thinking ✓", std::string(openai_responses::kReasoningTag) + "gAAA"));
  m.content.push_back(ContentBlock::Text("Let me read."));
  m.content.push_back(ContentBlock::ToolCall("call_A", "read", Json{{"path", "a.txt"}}));
  m.stop_reason = StopReason::kToolUse;
  m.usage = Usage{100, 40, 200, 0};
  return m;
}

TEST(OpenAiResponsesStream, DecodesReasoningTextAndCalls) {
  std::string text, thinking;
  std::vector<std::string> calls;
  StreamSink sink;
  sink.on_text = [&](std::string_view t) { text += t; };
  sink.on_thinking = [&](std::string_view t) { thinking += t; };
  sink.on_tool_call = [&](const ContentBlock& b) { calls.push_back(b.id + b.arguments.dump()); };
  auto d = openai_responses::NewStreamDecoder(&sink, Ep());
  auto m = Decode(*d, kStream);
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_EQ(*m, Expected()) << ToJson(*m).dump(2);
  EXPECT_EQ(text, "Let me read.");
  EXPECT_EQ(thinking, "Thinking ✓");
  EXPECT_EQ(calls, (std::vector<std::string>{R"(call_A{"path":"a.txt"})"}));
}

TEST(OpenAiResponsesStream, SplitAtEveryByteBoundaryGivesTheSameMessage) {
  const Message want = Expected();
  for (size_t cut = 1; cut < kStream.size(); ++cut) {
    auto d = openai_responses::NewStreamDecoder(nullptr, Ep());
    auto m = Decode(*d, kStream, {cut});
    ASSERT_TRUE(m.ok()) << cut;
    ASSERT_EQ(*m, want) << "cut at " << cut;
  }
  for (unsigned seed = 0; seed < 200; ++seed) {
    auto d = openai_responses::NewStreamDecoder(nullptr, Ep());
    auto m = Decode(*d, kStream, RandomCuts(kStream.size(), 40, seed));
    ASSERT_TRUE(m.ok());
    ASSERT_EQ(*m, want) << "seed " << seed;
  }
}

std::string TextThen(const std::string& terminal) {
  return Sse({{"", R"({"type":"response.output_item.added","output_index":0,"item":{"type":"message","role":"assistant","content":[]}})"},
              {"", R"({"type":"response.output_text.delta","output_index":0,"delta":"hi"})"},
              {"", terminal}});
}

TEST(OpenAiResponsesStream, StopReasonsAndFailures) {
  auto d = openai_responses::NewStreamDecoder(nullptr, Ep());
  auto m = Decode(*d, TextThen(R"({"type":"response.completed","response":{"status":"completed","usage":{"input_tokens":5,"output_tokens":2}}})"));
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_EQ(m->stop_reason, StopReason::kStop);
  EXPECT_EQ(m->Text(), "hi");
  EXPECT_EQ(m->usage, (Usage{5, 2, 0, 0}));

  d = openai_responses::NewStreamDecoder(nullptr, Ep());
  m = Decode(*d, TextThen(R"({"type":"response.incomplete","response":{"status":"incomplete","incomplete_details":{"reason":"max_output_tokens"}}})"));
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->stop_reason, StopReason::kLength);

  d = openai_responses::NewStreamDecoder(nullptr, Ep());
  m = Decode(*d, TextThen(R"({"type":"response.incomplete","response":{"incomplete_details":{"reason":"content_filter"}}})"));
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->stop_reason, StopReason::kError);

  d = openai_responses::NewStreamDecoder(nullptr, Ep());
  m = Decode(*d, TextThen(R"({"type":"response.failed","response":{"status":"failed","error":{"code":"server_error","message":"boom"}}})"));
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error().kind, "server");

  d = openai_responses::NewStreamDecoder(nullptr, Ep());
  m = Decode(*d, TextThen(R"({"type":"error","code":"context_length_exceeded","message":"Your input exceeds the context window of this model.","param":"input"})"));
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error().kind, "context_overflow");

  d = openai_responses::NewStreamDecoder(nullptr, Ep());
  m = Decode(*d, TextThen(R"({"type":"response.output_text.delta","output_index":0,"delta":"more"})"));
  ASSERT_FALSE(m.ok());  // never completed: cut stream
  EXPECT_TRUE(IsRetryableKind(m.error().kind));
}

TEST(OpenAiResponsesStream, InvalidArgumentsKeptAndNoDoneItemStillCloses) {
  auto s = Sse({{"", R"({"type":"response.output_item.added","output_index":0,"item":{"type":"function_call","call_id":"c1","name":"bash","arguments":""}})"},
                {"", R"({"type":"response.function_call_arguments.delta","output_index":0,"delta":"{\"cmd\":"})"},
                {"", R"({"type":"response.completed","response":{}})"}});
  auto d = openai_responses::NewStreamDecoder(nullptr, Ep());
  auto m = Decode(*d, s);
  ASSERT_TRUE(m.ok()) << m.error().message;
  ASSERT_EQ(m->ToolCalls().size(), 1u);
  EXPECT_EQ(m->ToolCalls()[0]->raw_arguments, "{\"cmd\":");
  EXPECT_FALSE(m->ToolCalls()[0]->arguments_error.empty());
  EXPECT_EQ(m->stop_reason, StopReason::kToolUse);
}

TEST(OpenAiResponsesStream, HostileInputGivesProtocolErrors) {
  const std::string added = Sse({{"", R"({"type":"response.output_item.added","output_index":0,"item":{"type":"message","content":[]}})"}});
  std::vector<std::string> bad = {
      Sse({{"", "{{{"}}),
      Sse({{"", "\"str\""}}),
      Sse({{"", R"({"type":"response.output_item.added","output_index":0})"}}),
      Sse({{"", R"({"type":"response.output_item.added","output_index":"0","item":{"type":"message"}})"}}),
      Sse({{"", R"({"type":"response.output_item.added","output_index":0,"item":{"type":"function_call"}})"}}),
      Sse({{"", R"({"type":"response.output_item.added","output_index":0,"item":{}})"}}),
      Sse({{"", R"({"type":"response.output_text.delta","output_index":3,"delta":"x"})"}}),
      added + Sse({{"", R"({"type":"response.output_text.delta","output_index":0,"delta":7})"}}),
      added + Sse({{"", R"({"type":"response.function_call_arguments.delta","output_index":0,"delta":"x"})"}}),
      added + added,
      Sse({{"", R"({"type":"response.failed","response":{}})"}}),
      Sse({{"", R"({"type":"response.completed","response":[]})"}}),
      Sse({{"", R"({"type":"response.output_item.done","item":{}})"}}),
  };
  for (const auto& s : bad) {
    auto d = openai_responses::NewStreamDecoder(nullptr, Ep());
    auto m = Decode(*d, s + Sse({{"", R"({"type":"response.completed","response":{}})"}}));
    ASSERT_FALSE(m.ok()) << s;
    EXPECT_EQ(m.error().kind, "protocol") << s << " -> " << m.error().message;
  }
}

TEST(OpenAiResponsesResponse, ParsesAndRejects) {
  auto m = openai_responses::ParseResponse(R"({
    "id":"resp_1","object":"response","status":"completed","model":"gpt-5.1",
    "output":[{"type":"reasoning","summary":[]},
              {"type":"message","role":"assistant","content":[{"type":"output_text","text":"Hi"}]},
              {"type":"function_call","call_id":"call_1","name":"read","arguments":"{\"path\":\"x\"}"},
              {"type":"web_search_call","id":"ws"}],
    "usage":{"input_tokens":10,"output_tokens":20}})",
                                           Ep());
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_EQ(m->Text(), "Hi");
  ASSERT_EQ(m->ToolCalls().size(), 1u);
  EXPECT_EQ(m->ToolCalls()[0]->arguments, (Json{{"path", "x"}}));
  EXPECT_EQ(m->stop_reason, StopReason::kToolUse);
  EXPECT_EQ(m->usage, (Usage{10, 20, 0, 0}));
  auto inc = openai_responses::ParseResponse(
      R"({"status":"incomplete","incomplete_details":{"reason":"max_output_tokens"},"output":[]})", Ep());
  ASSERT_TRUE(inc.ok());
  EXPECT_EQ(inc->stop_reason, StopReason::kLength);
  for (const char* body : {"", "x", "[]", R"({"output":{}})", R"({"output":[5]})",
                           R"({"output":[{"type":"function_call","name":"x"}]})",
                           R"({"output":[{"type":"function_call","call_id":"c","name":"x","arguments":{}}]})"}) {
    auto r = openai_responses::ParseResponse(body, Ep());
    ASSERT_FALSE(r.ok()) << body;
    EXPECT_EQ(r.error().kind, "protocol") << body;
  }
  auto err = openai_responses::ParseResponse(R"({"error":{"code":"rate_limit_exceeded","message":"slow down"}})", Ep());
  ASSERT_FALSE(err.ok());
  EXPECT_EQ(err.error().kind, "rate_limit");
}

}  // namespace
}  // namespace sepp::llm
