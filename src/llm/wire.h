// Shared pieces of the three provider codecs: tolerant JSON access for
// provider input, the protocol-error constructor, and the stream decoder
// interface every API implements.
//
// Provider bytes are outside input: every accessor checks types and returns
// an empty value instead of throwing, so a hostile stream yields an Error of
// kind "protocol", never a crash.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "base/json.h"
#include "base/result.h"
#include "llm/message.h"
#include "llm/provider.h"
#include "net/sse.h"

namespace sepp::llm::wire {

// nullptr if j is not an object or has no such member.
const Json* Get(const Json& j, std::string_view key);
// "" if missing or not a string.
std::string Str(const Json& j, std::string_view key);
// 0 if missing or not a number.
int64_t Int(const Json& j, std::string_view key);
// True if the member exists and is an object / array / string.
bool IsObject(const Json& j, std::string_view key);

Error Protocol(std::string_view api, const std::string& what);

// Parses tool-call arguments. Empty text means "no arguments" ({}). Invalid
// JSON, or JSON that is not an object, leaves arguments null and sets
// arguments_error; the raw text is always kept in raw_arguments when invalid.
void SetArguments(ContentBlock* call, const std::string& raw);

// The text that goes back to a provider for a call's arguments.
std::string ArgumentsText(const ContentBlock& call);

// The conversation as every API accepts it: each tool call is answered by
// a tool result before the next user or assistant message (a missing one,
// e.g. after an abort, gets an error result saying the call did not run),
// and a tool result that answers no pending call (e.g. its call was
// compacted away) is dropped. All three APIs reject either case with a 400.
std::vector<Message> NormalizeConversation(const std::vector<Message>& messages);

// Decodes one streamed response. Fed SSE events in order; on_text,
// on_thinking and on_tool_call of the sink are called as pieces complete.
// After an Error from OnEvent the decoder must not be fed again.
class StreamDecoder {
 public:
  virtual ~StreamDecoder() = default;
  virtual Status OnEvent(const net::SseEvent& event) = 0;
  // True once the API's terminal event arrived.
  virtual bool done() const = 0;
  // At end of stream: the message, or an Error if the stream was incomplete.
  virtual Result<Message> Finish() = 0;
};

}  // namespace sepp::llm::wire
