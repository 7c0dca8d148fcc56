// End-to-end: Complete() over real HTTP against the scripted fake provider,
// for the three APIs, streaming and not. Retries use a fake sleeper, so no
// test waits for a backoff.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "llm/http_provider.h"
#include "net/http_server.h"
#include "support/fake_provider.h"

namespace sepp::llm {
namespace {

struct Variant {
  ApiKind api;
  const char* name;
  bool stream;
};

std::string VariantName(const ::testing::TestParamInfo<Variant>& info) {
  std::string n = info.param.name;
  for (char& c : n) {
    if (c == '-') c = '_';
  }
  return n + (info.param.stream ? "_stream" : "_whole");
}

class ProviderE2E : public ::testing::TestWithParam<Variant> {
 protected:
  void SetUp() override { ASSERT_TRUE(fake_.Start().ok()); }

  ProviderConfig Config() {
    ProviderConfig c;
    c.api = GetParam().api;
    c.name = GetParam().name;
    c.api_key = "test-key-0123456789";
    c.base_url = c.api == ApiKind::kAnthropic ? fake_.base_url() : fake_.base_url() + "/v1";
    c.max_retries = 3;
    c.read_timeout_s = 10;
    return c;
  }

  std::unique_ptr<Provider> Make() {
    RetryEnv env;
    env.random01 = [] { return 0.0; };
    env.now_s = [] { return int64_t{1700000000}; };
    env.sleep = [this](double s, CancelToken*) -> Status {
      sleeps_.push_back(s);
      return Ok();
    };
    return MakeHttpProvider(Config(), env);
  }

  Request Req() {
    Request r;
    r.model = GetParam().api == ApiKind::kAnthropic ? "claude-sonnet-4-5" : "gpt-4o";
    r.system = "be brief";
    r.messages.push_back(Message::User("hello"));
    r.tools.push_back({"bash", "Run a command", Json{{"type", "object"}}});
    r.stream = GetParam().stream;
    return r;
  }

  Result<Message> Run(Json script, StreamSink sink = {}) {
    fake_.SetScript(Json{{"responses", std::move(script)}});
    return Make()->Complete(Req(), sink, nullptr);
  }

  fake::FakeProvider fake_;
  std::vector<double> sleeps_;
};

TEST_P(ProviderE2E, TextAndToolCalls) {
  std::string text;
  int calls = 0;
  StreamSink sink;
  sink.on_text = [&](std::string_view t) { text += t; };
  sink.on_tool_call = [&](const ContentBlock&) { ++calls; };
  auto m = Run(Json::parse(R"([{"text":"Hello there ✓","tool_calls":[
      {"id":"call_1","name":"bash","arguments":{"cmd":"ls -la","n":[1,2]}},
      {"id":"call_2","name":"read","arguments":{}}],
      "usage":{"input":11,"output":7}}])"),
               sink);
  ASSERT_TRUE(m.ok()) << m.error().kind << ": " << m.error().message;
  EXPECT_EQ(m->Text(), "Hello there ✓");
  auto tc = m->ToolCalls();
  ASSERT_EQ(tc.size(), 2u);
  EXPECT_EQ(tc[0]->id, "call_1");
  EXPECT_EQ(tc[0]->arguments, Json::parse(R"({"cmd":"ls -la","n":[1,2]})"));
  EXPECT_EQ(tc[1]->name, "read");
  EXPECT_EQ(m->stop_reason, StopReason::kToolUse);
  EXPECT_EQ(m->usage.input + m->usage.cache_read, 11);
  EXPECT_EQ(m->usage.output, 7);
  if (GetParam().stream) {
    EXPECT_EQ(text, "Hello there ✓");
    EXPECT_EQ(calls, 2);
  }
  auto reqs = fake_.requests();
  ASSERT_EQ(reqs.size(), 1u);
  EXPECT_EQ(reqs[0].body["model"], Req().model);
  if (GetParam().api == ApiKind::kAnthropic) {
    EXPECT_EQ(reqs[0].path, "/v1/messages");
    EXPECT_EQ(reqs[0].headers["anthropic-version"], "2023-06-01");
    EXPECT_TRUE(reqs[0].headers.contains("x-api-key"));
  } else {
    EXPECT_EQ(reqs[0].path, GetParam().api == ApiKind::kOpenAiChat ? "/v1/chat/completions" : "/v1/responses");
    EXPECT_TRUE(reqs[0].headers.contains("authorization"));
  }
}

TEST_P(ProviderE2E, ThinkingComesBackWithItsSignature) {
  if (GetParam().api != ApiKind::kAnthropic) GTEST_SKIP() << "thinking signatures are Anthropic's";
  auto m = Run(Json::parse(R"([{"thinking":"hmm","signature":"sig-1","text":"ok"}])"));
  ASSERT_TRUE(m.ok()) << m.error().message;
  ASSERT_FALSE(m->content.empty());
  EXPECT_EQ(m->content[0], ContentBlock::Thinking("hmm", "sig-1"));
}

TEST_P(ProviderE2E, RateLimitWithRetryAfterThenSuccess) {
  std::vector<double> notices;
  StreamSink sink;
  sink.on_retry = [&](const std::string&, int, double d) { notices.push_back(d); };
  auto m = Run(Json::parse(R"([{"error":{"status":429,"retry_after":2,"message":"slow down"}},
                               {"error":{"status":529,"message":"Overloaded"}},
                               {"text":"finally"}])"),
               sink);
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_EQ(m->Text(), "finally");
  EXPECT_EQ(fake_.requests().size(), 3u);
  ASSERT_EQ(sleeps_.size(), 2u);
  EXPECT_DOUBLE_EQ(sleeps_[0], 2.0);  // as the server asked
  EXPECT_DOUBLE_EQ(sleeps_[1], 1.0);  // backoff: 2 s nominal, lowest jitter
  EXPECT_EQ(notices, sleeps_);
}

TEST_P(ProviderE2E, CutStreamIsRetried) {
  auto m = Run(Json::parse(R"([{"text":"a long answer that will be cut","cut_after_bytes":60},
                               {"text":"whole answer"}])"));
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_EQ(m->Text(), "whole answer");
  EXPECT_EQ(fake_.requests().size(), 2u);
}

TEST_P(ProviderE2E, MidStreamOverloadIsRetried) {
  if (!GetParam().stream) GTEST_SKIP() << "stream errors need a stream";
  auto m = Run(Json::parse(R"([{"text":"partial","stream_error":{"type":"overloaded_error","message":"Overloaded"}},
                               {"text":"second try"}])"));
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_EQ(m->Text(), "second try");
  EXPECT_EQ(fake_.requests().size(), 2u);
}

TEST_P(ProviderE2E, ClearErrors) {
  auto m = Run(Json::parse(R"([{"error":{"status":401,"message":"invalid key test-key-0123456789"}}])"));
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error().kind, "auth");
  EXPECT_EQ(m.error().message.find("test-key-0123456789"), std::string::npos);
  EXPECT_NE(m.error().message.find(GetParam().api == ApiKind::kAnthropic ? "ANTHROPIC_API_KEY" : "OPENAI_API_KEY"),
            std::string::npos);
  EXPECT_EQ(fake_.requests().size(), 1u);  // never retried

  fake_.Reset();
  m = Run(Json::parse(R"([{"error":{"status":400,"message":"temperature: out of range"}}])"));
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error().kind, "bad_request");
  EXPECT_NE(m.error().message.find("temperature: out of range"), std::string::npos);

  m = Run(Json::parse(R"([{"error":{"status":400,"message":"prompt is too long: 300000 tokens > 200000 maximum"}}])"));
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error().kind, "context_overflow");

  m = Run(Json::parse(R"([{"error":{"status":404,"message":"model: nope"}}])"));
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error().kind, "not_found");
  EXPECT_NE(m.error().message.find(Req().model), std::string::npos);

  m = Run(Json::parse(R"([{"error":{"status":500}},{"error":{"status":502}},{"error":{"status":503}},{"error":{"status":504}}])"));
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error().kind, "server");
  EXPECT_NE(m.error().message.find("gave up after 3 retries"), std::string::npos);
}

TEST_P(ProviderE2E, InvalidToolArgumentsAreKept) {
  auto m = Run(Json::parse(R"([{"tool_calls":[{"id":"c1","name":"bash","raw_arguments":"{\"cmd\": \"ls"}]}])"));
  ASSERT_TRUE(m.ok()) << m.error().message;
  ASSERT_EQ(m->ToolCalls().size(), 1u);
  EXPECT_FALSE(m->ToolCalls()[0]->arguments_error.empty());
}

TEST_P(ProviderE2E, CancelAbortsAStream) {
  if (!GetParam().stream) GTEST_SKIP();
  fake_.SetScript(Json::parse(R"({"responses":[{"text":"slow slow slow slow slow slow slow slow","chunk_delay_ms":300}]})"));
  CancelToken cancel;
  StreamSink sink;
  sink.on_text = [&](std::string_view) { cancel.Cancel(); };
  std::thread canceller([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    cancel.Cancel();  // from another thread, as Ctrl-C does
  });
  auto m = Make()->Complete(Req(), sink, &cancel);
  canceller.join();
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error().kind, "aborted");
}

INSTANTIATE_TEST_SUITE_P(AllApis, ProviderE2E,
                         ::testing::Values(Variant{ApiKind::kAnthropic, "anthropic", true},
                                           Variant{ApiKind::kAnthropic, "anthropic", false},
                                           Variant{ApiKind::kOpenAiChat, "openai", true},
                                           Variant{ApiKind::kOpenAiChat, "openai", false},
                                           Variant{ApiKind::kOpenAiResponses, "openai-responses", true},
                                           Variant{ApiKind::kOpenAiResponses, "openai-responses", false}),
                         VariantName);

TEST(ProviderUnreachable, RefusedConnectionIsRetriedThenReported) {
  ProviderConfig c;
  c.api = ApiKind::kOpenAiChat;
  c.name = "local";
  c.base_url = "http://127.0.0.1:1/v1";
  c.max_retries = 2;
  c.connect_timeout_s = 5;
  int sleeps = 0;
  RetryEnv env;
  env.random01 = [] { return 0.5; };
  env.now_s = [] { return int64_t{0}; };
  env.sleep = [&](double, CancelToken*) -> Status {
    ++sleeps;
    return Ok();
  };
  Request r;
  r.messages.push_back(Message::User("hi"));
  auto m = MakeHttpProvider(c, env)->Complete(r, {}, nullptr);
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error().kind, "unreachable");
  EXPECT_NE(m.error().message.find("127.0.0.1"), std::string::npos) << m.error().message;
  EXPECT_EQ(sleeps, 2);
}

// A server that streams one endless event (here 17 MiB, past the 16 MiB
// cap) ends the call with a clear, unretried error instead of filling
// memory; the server sees the client stop reading.
TEST(ProviderBounds, AnOversizedStreamEventEndsTheCallWithAClearError) {
  std::atomic<int> requests{0};
  net::HttpServer server([&](const net::HttpServerRequest&, net::ResponseWriter& w) {
    ++requests;
    w.Begin(200, {{"Content-Type", "text/event-stream"}});
    w.Write("data: {\"id\":\"x\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"");
    std::string piece(1 << 20, 'a');
    for (int i = 0; i < 17; ++i)
      if (!w.Write(piece)) return;
    w.Write("\"}}]}\n\n");
    w.End();
  });
  ASSERT_TRUE(server.Start().ok());
  ProviderConfig c;
  c.api = ApiKind::kOpenAiChat;
  c.name = "local";
  c.base_url = "http://127.0.0.1:" + std::to_string(server.port()) + "/v1";
  c.max_retries = 2;
  RetryEnv env;
  env.random01 = [] { return 0.0; };
  env.now_s = [] { return int64_t{0}; };
  env.sleep = [](double, CancelToken*) -> Status { return Ok(); };
  Request r;
  r.model = "gpt-4o";
  r.stream = true;
  r.messages.push_back(Message::User("hi"));
  auto m = MakeHttpProvider(c, env)->Complete(r, {}, nullptr);
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error().kind, "protocol");
  EXPECT_NE(m.error().message.find("stream event larger than 16 MiB"), std::string::npos) << m.error().message;
  EXPECT_EQ(requests.load(), 1);  // not retried
}

TEST(ProviderUnreachable, MissingAnthropicKeyFailsBeforeAnyRequest) {
  ProviderConfig c;
  c.api = ApiKind::kAnthropic;
  c.name = "anthropic";
  c.base_url = "http://127.0.0.1:1";
  Request r;
  r.messages.push_back(Message::User("hi"));
  auto m = MakeProvider(c)->Complete(r, {}, nullptr);
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error().kind, "auth");
  EXPECT_EQ(m.error().message,
            "ANTHROPIC_API_KEY is not set: export it, or choose another provider with --provider");
}

}  // namespace
}  // namespace sepp::llm
