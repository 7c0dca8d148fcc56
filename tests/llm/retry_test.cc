#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "llm/http_provider.h"
#include "llm/retry.h"

namespace sepp::llm {
namespace {

// A fake clock: sleeps are recorded, never real.
struct FakeEnv {
  std::vector<double> sleeps;
  double random = 1.0;
  RetryEnv env() {
    RetryEnv e;
    e.random01 = [this] { return random; };
    e.now_s = [] { return int64_t{784111777}; };  // Sun, 06 Nov 1994 08:49:37 GMT
    e.sleep = [this](double s, CancelToken* c) -> Status {
      if (c && c->cancelled()) return Error::Make("aborted", "aborted");
      sleeps.push_back(s);
      return Ok();
    };
    return e;
  }
};

Failure Retryable(const std::string& kind, double retry_after = -1) {
  return Failure{Error::Make("failed: " + kind, kind), true, retry_after};
}

TEST(Backoff, ExponentialCappedWithJitter) {
  RetryPolicy p;
  EXPECT_DOUBLE_EQ(BackoffDelay(p, 1, 1.0), 1.0);
  EXPECT_DOUBLE_EQ(BackoffDelay(p, 2, 1.0), 2.0);
  EXPECT_DOUBLE_EQ(BackoffDelay(p, 3, 1.0), 4.0);
  EXPECT_DOUBLE_EQ(BackoffDelay(p, 4, 0.0), 4.0);  // half of 8 at the lowest draw
  EXPECT_DOUBLE_EQ(BackoffDelay(p, 20, 1.0), 30.0);
  for (int i = 0; i < 100; ++i) {
    double d = BackoffDelay(p, 3, i / 100.0);
    EXPECT_GE(d, 2.0);
    EXPECT_LE(d, 4.0);
  }
}

TEST(RetryAfter, SecondsMillisecondsAndDates) {
  const int64_t now = 784111777;
  EXPECT_DOUBLE_EQ(ParseRetryAfter("5", now), 5);
  EXPECT_DOUBLE_EQ(ParseRetryAfter(" 1.5 ", now), 1.5);
  EXPECT_DOUBLE_EQ(ParseRetryAfter("Sun, 06 Nov 1994 08:49:47 GMT", now), 10);
  EXPECT_DOUBLE_EQ(ParseRetryAfter("Sunday, 06-Nov-94 08:49:57 GMT", now), 20);
  EXPECT_DOUBLE_EQ(ParseRetryAfter("Sun Nov  6 08:50:37 1994", now), 60);
  EXPECT_DOUBLE_EQ(ParseRetryAfter("Sun, 06 Nov 1994 08:00:00 GMT", now), 0);  // in the past
  for (const char* bad : {"", "soon", "-3", "1e9", "Sun, 32 Nov 1994 08:49:37 GMT",
                          "Sun, 06 Foo 1994 08:49:37 GMT", "1.2.3", "99999999999999999999999"}) {
    EXPECT_LT(ParseRetryAfter(bad, now), 0) << bad;
  }
  EXPECT_EQ(ParseHttpDate("Thu, 01 Jan 1970 00:00:00 GMT"), 0);
  EXPECT_EQ(ParseHttpDate("Sat, 29 Feb 2020 12:00:00 GMT"), 1582977600);

  net::HttpResponseHead head;
  head.headers = {{"Retry-After", "7"}};
  EXPECT_DOUBLE_EQ(RetryAfterSeconds(head, now), 7);
  head.headers.push_back({"retry-after-ms", "250"});
  EXPECT_DOUBLE_EQ(RetryAfterSeconds(head, now), 0.25);
  EXPECT_LT(RetryAfterSeconds(net::HttpResponseHead{}, now), 0);
}

TEST(RunWithRetries, RetriesRetryableFailuresThenSucceeds) {
  FakeEnv fake;
  std::vector<std::pair<int, double>> notices;
  StreamSink sink;
  sink.on_retry = [&](const std::string& why, int attempt, double delay) {
    notices.push_back({attempt, delay});
    EXPECT_FALSE(why.empty());
  };
  int calls = 0;
  auto r = RunWithRetries(RetryPolicy{}, fake.env(), sink, nullptr, [&](int attempt) -> AttemptResult {
    EXPECT_EQ(attempt, ++calls);
    if (attempt == 1) return Retryable("rate_limit", 3);  // server says 3 s
    if (attempt == 2) return Retryable("overloaded");
    if (attempt == 3) return Retryable("unreachable");
    Message m;
    m.role = Role::kAssistant;
    return m;
  });
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(calls, 4);
  EXPECT_EQ(fake.sleeps, (std::vector<double>{3.0, 2.0, 4.0}));
  ASSERT_EQ(notices.size(), 3u);
  EXPECT_EQ(notices[0], (std::pair<int, double>{1, 3.0}));
}

TEST(RunWithRetries, GivesUpAfterMaxRetriesAndNeverRetriesFatalErrors) {
  FakeEnv fake;
  int calls = 0;
  RetryPolicy p;
  p.max_retries = 2;
  auto r = RunWithRetries(p, fake.env(), {}, nullptr, [&](int) -> AttemptResult {
    ++calls;
    return Retryable("server");
  });
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(calls, 3);
  EXPECT_EQ(r.error().kind, "server");
  EXPECT_NE(r.error().message.find("gave up after 2 retries"), std::string::npos);

  calls = 0;
  r = RunWithRetries(p, fake.env(), {}, nullptr, [&](int) -> AttemptResult {
    ++calls;
    return Failure{Error::Make("bad", "bad_request"), false};
  });
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(r.error().kind, "bad_request");

  // A server asking for a very long wait is not waited for.
  calls = 0;
  fake.sleeps.clear();
  r = RunWithRetries(p, fake.env(), {}, nullptr, [&](int) -> AttemptResult {
    ++calls;
    return Retryable("rate_limit", 3600);
  });
  EXPECT_EQ(calls, 1);
  EXPECT_TRUE(fake.sleeps.empty());
  EXPECT_NE(r.error().message.find("3600 s"), std::string::npos);

  p.max_retries = 0;
  calls = 0;
  r = RunWithRetries(p, fake.env(), {}, nullptr, [&](int) -> AttemptResult {
    ++calls;
    return Retryable("server");
  });
  EXPECT_EQ(calls, 1);
}

TEST(RunWithRetries, CancelStopsWaiting) {
  FakeEnv fake;
  CancelToken cancel;
  int calls = 0;
  auto r = RunWithRetries(RetryPolicy{}, fake.env(), {}, &cancel, [&](int) -> AttemptResult {
    ++calls;
    cancel.Cancel();
    return Retryable("server");
  });
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, "aborted");
  EXPECT_EQ(calls, 1);
}

// abort_retry: the stopper ends the wait in progress (from another thread,
// as the RPC reader would) and the call fails with the error it would have
// retried, not as aborted; a stop with no wait in progress changes nothing,
// so the next retry still happens.
TEST(RunWithRetries, AStopperEndsTheWaitWithTheLastError) {
  RetryStopper stopper;
  EXPECT_FALSE(stopper.Stop());  // nothing waits: no effect
  RetryEnv env = RetryEnv::Real();
  env.random01 = [] { return 1.0; };
  StreamSink sink;
  sink.retry_stopper = &stopper;
  std::atomic<bool> stopped{false};
  std::thread stop([&] {
    while (!stopper.Stop()) std::this_thread::yield();  // until the wait has begun
    stopped = true;
  });
  int calls = 0;
  // The server asks for a minute: only the stopper ends the wait early.
  auto r = RunWithRetries(RetryPolicy{}, env, sink, nullptr, [&](int) -> AttemptResult {
    ++calls;
    return Retryable("overloaded", 60);
  });
  stop.join();
  EXPECT_TRUE(stopped);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, "overloaded");
  EXPECT_NE(r.error().message.find("the retry was cancelled"), std::string::npos) << r.error().message;
  EXPECT_EQ(calls, 1);
  // Legitimate retries after it still run (the stop was for that wait).
  FakeEnv fake;
  calls = 0;
  auto ok = RunWithRetries(RetryPolicy{}, fake.env(), sink, nullptr, [&](int) -> AttemptResult {
    if (++calls < 2) return Retryable("server");
    return Message{};
  });
  EXPECT_TRUE(ok.ok());
  EXPECT_EQ(calls, 2);
  EXPECT_FALSE(stopper.Stop());
}

TEST(CancellableSleep, ReturnsEarlyOnCancel) {
  CancelToken cancel;
  std::thread t([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    cancel.Cancel();
  });
  Status s = CancellableSleep(60, &cancel);  // would be a minute
  t.join();
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().kind, "aborted");
  EXPECT_TRUE(CancellableSleep(0.001, nullptr).ok());
}

TEST(Config, SelectionAndErrors) {
  std::map<std::string, std::string> env;
  auto lookup = [&](const char* name) {
    auto it = env.find(name);
    return it == env.end() ? std::string() : it->second;
  };
  auto c = ConfigFromLookup("", lookup);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().kind, "auth");
  EXPECT_NE(c.error().message.find("ANTHROPIC_API_KEY"), std::string::npos);
  EXPECT_NE(c.error().message.find("OPENAI_API_KEY"), std::string::npos);

  env["OPENAI_API_KEY"] = "sk-openai-secret";
  c = ConfigFromLookup("", lookup);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->name, "openai");
  EXPECT_EQ(c->api, ApiKind::kOpenAiChat);
  EXPECT_EQ(c->base_url, "https://api.openai.com/v1");
  EXPECT_EQ(EndpointUrl(*c), "https://api.openai.com/v1/chat/completions");

  env["ANTHROPIC_API_KEY"] = "sk-ant-secret";
  c = ConfigFromLookup("", lookup);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->name, "anthropic");
  EXPECT_EQ(c->api_key, "sk-ant-secret");
  EXPECT_EQ(EndpointUrl(*c), "https://api.anthropic.com/v1/messages");

  env["ANTHROPIC_BASE_URL"] = "http://proxy.local:8080/v1/";
  EXPECT_EQ(EndpointUrl(*ConfigFromLookup("", lookup)), "http://proxy.local:8080/v1/messages");

  env["SEPP_PROVIDER"] = "openai-responses";
  env["OPENAI_BASE_URL"] = "http://gw:1/v1/";
  c = ConfigFromLookup("", lookup);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->api, ApiKind::kOpenAiResponses);
  EXPECT_EQ(EndpointUrl(*c), "http://gw:1/v1/responses");

  // The flag wins over SEPP_PROVIDER.
  env.erase("OPENAI_BASE_URL");
  env.erase("OPENAI_API_KEY");
  c = ConfigFromLookup("local", lookup);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->api, ApiKind::kOpenAiChat);
  EXPECT_EQ(c->base_url, "http://127.0.0.1:11434/v1");
  EXPECT_TRUE(c->api_key.empty());

  c = ConfigFromLookup("openai", lookup);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().message,
            "OPENAI_API_KEY is not set: export it, or choose another provider with --provider");

  env.erase("ANTHROPIC_API_KEY");
  c = ConfigFromLookup("anthropic", lookup);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().message,
            "ANTHROPIC_API_KEY is not set: export it, or choose another provider with --provider");

  c = ConfigFromLookup("gemini", lookup);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().kind, "usage");
  EXPECT_NE(c.error().message.find("openai-responses"), std::string::npos);
}

}  // namespace
}  // namespace sepp::llm
