// The OpenAI Responses API (POST {base}/responses), as pure functions.
// Stateless use: store=false, the whole conversation is sent as input items
// each turn. Reasoning (when a thinking budget is set) comes back as
// encrypted content that we keep in the thinking block's signature, tagged
// with kReasoningTag so that no other API is ever sent it (and this one is
// never sent another provider's signature).
#pragma once
#include <memory>
#include <string>
#include <string_view>

#include "base/json.h"
#include "base/result.h"
#include "llm/errors.h"
#include "llm/provider.h"
#include "llm/wire.h"
#include "net/http_client.h"

namespace sepp::llm::openai_responses {

inline constexpr std::string_view kReasoningTag = "openai-responses:";

// kVarying: without FixedMembers.
Json BuildRequest(const Request& request, wire::Members members = wire::Members::kAll);
// The members that depend only on the system prompt and the tools:
// "instructions" and "tools".
Json FixedMembers(const Request& request);
// The "input" items of the normalised conversation's [begin, end); the
// parts' items are the whole's.
Json ConversationItems(const std::vector<Message>& conversation, size_t begin, size_t end);

// Same headers as chat completions.
net::Headers RequestHeaders(const std::string& api_key, bool stream);

std::unique_ptr<wire::StreamDecoder> NewStreamDecoder(const StreamSink* sink, const Endpoint& ep);

Result<Message> ParseResponse(std::string_view body, const Endpoint& ep);

}  // namespace sepp::llm::openai_responses
