// Turning provider failures into one-line errors people can act on.
//
// Every failure of an attempt becomes a Failure: the Error that Complete
// would return (kind as listed in provider.h) plus whether the retry loop
// may try again and how long the server asked us to wait.
#pragma once
#include <string>
#include <string_view>

#include "base/result.h"
#include "llm/provider.h"

namespace sepp::llm {

struct Failure {
  Error error;
  bool retryable = false;
  double retry_after_s = -1;  // < 0: the server did not say
};

// Who we were talking to, for messages.
struct Endpoint {
  ApiKind api = ApiKind::kAnthropic;
  std::string provider;  // "anthropic", "openai", "openai-responses", "local"
  std::string host;      // "api.anthropic.com"
  std::string model;
  std::string key_variable;  // "ANTHROPIC_API_KEY" / "OPENAI_API_KEY"
  bool has_key = false;
};

// The provider's own message from an error body ({"error":{"message":..}},
// {"error":".."}, {"message":..}), else the body itself, cut to one line.
std::string ProviderMessage(std::string_view body);

// A non-2xx HTTP answer.
Failure ClassifyHttpError(const Endpoint& ep, int status, std::string_view body);

// An error object that arrived inside a stream or a 200 body:
// Anthropic {"type":"overloaded_error","message":..}, OpenAI
// {"code":"context_length_exceeded","message":..,"type":..}.
Failure ClassifyErrorObject(const Endpoint& ep, const std::string& type, const std::string& code,
                            const std::string& message);

// A transport failure from net (kinds connect/tls/timeout/aborted/io/...).
Failure ClassifyNetError(const Endpoint& ep, const Error& net_error);

// True if kind is one the retry loop may retry when nothing else is known.
bool IsRetryableKind(std::string_view kind);

// Host part of a URL ("https://api.x.com:443/v1" -> "api.x.com:443").
std::string HostOf(std::string_view url);

}  // namespace sepp::llm
