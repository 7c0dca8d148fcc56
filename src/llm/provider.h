// Provider: one LLM API behind one interface.
//
// Complete() sends a request and returns the assistant message. With
// request.stream it calls the sink as text, thinking and tool calls arrive.
// Retries (429, 529/overloaded, 500-504, dropped connections) happen inside
// Complete, with backoff and jitter, honouring retry-after; since tools run
// only after Complete returns, a retried stream can never re-run a tool.
// Contract: Complete never throws. Failures return an Error whose kind is one
// of: "auth" (missing key, 401/403), "bad_request" (400, with the provider's
// message), "not_found" (unknown model), "context_overflow" (prompt too long;
// the agent compacts and retries), "rate_limit", "overloaded", "server",
// "unreachable", "timeout", "aborted", "protocol" (malformed response).
//
// Details callers rely on (implementation: http_provider.cc, one codec per
// API in anthropic.cc, openai_chat.cc, openai_responses.cc):
// - Cancel gives Error kind "aborted", not a partial message; a message with
//   StopReason::kAborted is for the agent to record.
// - A returned message may have stop_reason kError with message.error set
//   (refusal, content filter): the call itself succeeded.
// - Tool calls whose arguments were not valid JSON come back with
//   arguments null, raw_arguments and arguments_error set; answer them with
//   an error tool result instead of running them.
// - request.messages may be any history: before sending, tool calls left
//   without a result get an error result ("not run: interrupted") and
//   results without a call are dropped, so an aborted turn never breaks the
//   next request. Empty assistant messages are skipped.
// - An empty request.model means DefaultModel(config.name).
// - Message.usage.input excludes cached input (cache_read/cache_write hold
//   those) for every API.
// - Complete may be called from several threads at once (no shared state).
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "base/cancel.h"
#include "base/json.h"
#include "base/result.h"
#include "llm/message.h"

namespace sepp::llm {

struct ToolSpec {
  std::string name;
  std::string description;
  Json parameters;  // JSON Schema of the arguments object
};

struct Request {
  std::string model;
  std::string system;
  std::vector<Message> messages;
  std::vector<ToolSpec> tools;
  // Names this exact set of tools (NewToolsStamp()): two requests with the
  // same non-zero stamp carry the same tools, so a request writer that kept
  // their serialised schemas compares one number, not ~25 KB of them.
  // 0: unknown (compared in full).
  uint64_t tools_stamp = 0;
  int max_tokens = 0;           // 0: the model table's default
  int thinking_budget = 0;      // 0: no extended thinking
  bool stream = true;
  // false: one attempt; a retryable error is returned at once (pi's
  // set_auto_retry false).
  bool retry = true;
};

// A stamp no other set of tools in this process has (never 0). Whoever
// builds Request::tools takes a new one whenever the set changes.
uint64_t NewToolsStamp();

// Lets another thread end the wait before a retry (pi's abort_retry): the
// call then fails at once with the error it would have retried. Only a wait
// in progress is ended; with none, Stop() does nothing (a later wait is not
// affected). Thread-safe; the retry loop (retry.h) registers its waits.
class RetryStopper {
 public:
  // True when a wait was in progress and is now ended.
  bool Stop();
  // The retry loop's side: the token of the wait it starts (null when it
  // ends). A stop cancels that token.
  void SetWait(CancelToken* wait);

 private:
  std::mutex mu_;
  CancelToken* wait_ = nullptr;
};

// Called on the thread running Complete(). Any member may be empty.
struct StreamSink {
  std::function<void(std::string_view)> on_text;
  std::function<void(std::string_view)> on_thinking;
  // A tool call whose arguments are complete.
  std::function<void(const ContentBlock&)> on_tool_call;
  // Before a retry: what failed, attempt number (1-based), delay in seconds.
  // Text already streamed in the failed attempt will be streamed again.
  std::function<void(const std::string& why, int attempt, double delay_s)> on_retry;
  // When set, Stop() ends the wait before a retry (see RetryStopper).
  RetryStopper* retry_stopper = nullptr;
};

class Provider {
 public:
  virtual ~Provider() = default;
  virtual std::string name() const = 0;  // "anthropic", "openai", ...
  virtual Result<Message> Complete(const Request& request, const StreamSink& sink,
                                   CancelToken* cancel) = 0;
};

enum class ApiKind { kAnthropic, kOpenAiChat, kOpenAiResponses };

struct ProviderConfig {
  ApiKind api = ApiKind::kAnthropic;
  std::string name;      // "anthropic" | "openai" | "openai-responses" | "local"
  std::string api_key;   // may be empty for local servers
  std::string base_url;  // e.g. https://api.anthropic.com
  int max_retries = 4;
  double connect_timeout_s = 30;
  double read_timeout_s = 300;
};

// Reads --provider / SEPP_PROVIDER choice plus ANTHROPIC_API_KEY,
// OPENAI_API_KEY, OPENAI_BASE_URL, ANTHROPIC_BASE_URL from the environment.
// provider_flag may be empty. Error (kind "auth"/"usage") says exactly which
// variable to set.
Result<ProviderConfig> ConfigFromEnvironment(const std::string& provider_flag);
// The same, reading variables through getenv (for tests): returns "" for
// unset variables.
Result<ProviderConfig> ConfigFromLookup(const std::string& provider_flag,
                                        const std::function<std::string(const char*)>& getenv);

std::unique_ptr<Provider> MakeProvider(const ProviderConfig& config);

}  // namespace sepp::llm
