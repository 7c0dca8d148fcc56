// The OpenAI chat completions API (POST {base}/chat/completions), as pure
// functions. Also what `local` servers speak (Ollama, llama.cpp, vLLM), so
// the decoder accepts their variations: reasoning in delta.reasoning_content
// or delta.reasoning, tool calls without index, finish_reason "stop" with
// tool calls, no [DONE].
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

namespace sepp::llm::openai_chat {

struct Options {
  // Local servers know "max_tokens"; api.openai.com wants
  // "max_completion_tokens" (required by reasoning models).
  bool legacy_max_tokens = false;
};

// kVarying: without FixedMembers.
Json BuildRequest(const Request& request, const Options& options = {},
                  wire::Members members = wire::Members::kAll);
// The members that depend only on the tools: "tools" (the system prompt is
// the first of the messages in this API).
Json FixedMembers(const Request& request);
// The "messages" items of the normalised conversation's [begin, end); the
// parts' items are the whole's. LeadItems: the ones before them (the
// system prompt).
Json ConversationItems(const std::vector<Message>& conversation, size_t begin, size_t end);
Json LeadItems(const Request& request);

// Authorization: Bearer only when api_key is non-empty.
net::Headers RequestHeaders(const std::string& api_key, bool stream);

std::unique_ptr<wire::StreamDecoder> NewStreamDecoder(const StreamSink* sink, const Endpoint& ep);

Result<Message> ParseResponse(std::string_view body, const Endpoint& ep);

}  // namespace sepp::llm::openai_chat
