// Retries: when to try a provider call again, and how long to wait.
//
// Exponential backoff with jitter (1s, 2s, 4s, ... capped, each scaled by a
// random factor in [0.5, 1]) unless the server said how long to wait
// (retry-after-ms, or retry-after in seconds or as an HTTP date). Waits are
// cancellable. The clock, the random source and the sleep are injected so
// tests never sleep.
#pragma once
#include <cstdint>
#include <functional>
#include <string_view>
#include <variant>

#include "base/cancel.h"
#include "base/result.h"
#include "llm/errors.h"
#include "llm/message.h"
#include "llm/provider.h"
#include "net/http_client.h"

namespace sepp::llm {

struct RetryPolicy {
  int max_retries = 4;
  double base_delay_s = 1.0;
  double max_delay_s = 30.0;
  // A server asking for a longer wait than this is not retried: the error
  // is returned at once, saying how long it asked for.
  double max_retry_after_s = 120.0;
};

struct RetryEnv {
  std::function<double()> random01;                    // uniform in [0, 1)
  std::function<int64_t()> now_s;                      // Unix seconds, for HTTP dates
  std::function<Status(double, CancelToken*)> sleep;   // Error "aborted" if cancelled
  static RetryEnv Real();
};

// Delay before retry number `retry` (1-based) with the given random draw.
double BackoffDelay(const RetryPolicy& policy, int retry, double random01);

// Seconds the server asked us to wait, or -1 if it did not say (or said
// something unreadable). retry-after-ms wins over retry-after.
double RetryAfterSeconds(const net::HttpResponseHead& head, int64_t now_s);
double ParseRetryAfter(std::string_view value, int64_t now_s);

// An HTTP date (IMF-fixdate, RFC 850 or asctime form) as Unix seconds; -1
// if it is not one.
int64_t ParseHttpDate(std::string_view text);

// Sleeps up to seconds; returns early with Error kind "aborted" on cancel.
Status CancellableSleep(double seconds, CancelToken* cancel);

// One try: the message, or why it failed (and whether to try again).
using AttemptResult = std::variant<Message, Failure>;

// Runs attempt until it succeeds, fails for good, or retries run out;
// calls sink.on_retry before each retry. Never throws.
Result<Message> RunWithRetries(const RetryPolicy& policy, const RetryEnv& env,
                               const StreamSink& sink, CancelToken* cancel,
                               const std::function<AttemptResult(int attempt)>& attempt);

}  // namespace sepp::llm
