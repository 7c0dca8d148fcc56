// The Anthropic Messages API (POST {base}/v1/messages), as pure functions:
// request building, stream decoding and response parsing. No I/O here; the
// HTTP provider (http_provider.cc) wires these to the network.
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

namespace sepp::llm::anthropic {

// The request body. max_tokens 0 takes the model table's limit (capped).
// kVarying: without FixedMembers.
Json BuildRequest(const Request& request, wire::Members members = wire::Members::kAll);
// The members that depend only on the system prompt and the tools:
// "system" and "tools".
Json FixedMembers(const Request& request);
// The "messages" items of the normalised conversation's [begin, end), less
// the cache breakpoint. Split at a message that is not a tool result, the
// parts' items are the whole's (consecutive results share one item).
Json ConversationItems(const std::vector<Message>& conversation, size_t begin, size_t end);
// Puts the cache breakpoint on the last item's last block.
void MarkCacheBreakpoint(Json* items);

// x-api-key, anthropic-version, content-type (and accept for streams).
net::Headers RequestHeaders(const std::string& api_key, bool stream);

// A decoder for one streamed response. sink may be null.
std::unique_ptr<wire::StreamDecoder> NewStreamDecoder(const StreamSink* sink, const Endpoint& ep);

// A whole (non-streamed) 200 response body.
Result<Message> ParseResponse(std::string_view body, const Endpoint& ep);

}  // namespace sepp::llm::anthropic
