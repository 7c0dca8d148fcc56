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
#include "llm/errors.h"
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
// The same without the copy when nothing needs fixing (the usual case): the
// conversation itself, or *fixed filled with NormalizeConversation's answer.
// The request builders walk the whole history at every model call.
const std::vector<Message>& Normalized(const std::vector<Message>& messages,
                                       std::vector<Message>* fixed);

// Which members of a request body a builder writes. kVarying leaves out the
// ones that stay the same from call to call in a session (the tool schemas,
// and the system prompt where it is a member of its own), which each API's
// FixedMembers returns; kNoConversation leaves out the conversation too
// ("messages" / "input", which each API's ConversationItems builds in
// parts). RequestBodyWriter serialises the fixed members once and the
// conversation's items once each.
enum class Members { kAll, kVarying, kNoConversation };

// Decodes one streamed response. Fed SSE events in order; on_text,
// on_thinking and on_tool_call of the sink are called as pieces complete.
// After an Error from OnEvent the decoder must not be fed again.
// OpenAI's usage object (chat: prompt_tokens / completion_tokens /
// prompt_tokens_details; Responses: input_tokens / output_tokens /
// input_tokens_details): cached tokens move from input to cache_read, so
// input excludes them as it does for Anthropic. Not an object: no change.
void ReadOpenAiUsage(const Json& u, std::string_view input_key, std::string_view output_key,
                     Usage* usage);

// The shared half of the three APIs' stream decoders: the message being
// built, where its pieces go, and an OnEvent that never throws.
class StreamDecoder {
 public:
  // api names the API in error messages; it must outlive the decoder.
  StreamDecoder(std::string_view api, const StreamSink* sink, Endpoint ep);
  virtual ~StreamDecoder() = default;
  // Feeds one event. An event the decoder cannot read (wrong types, missing
  // fields) is an Error of kind "protocol", never an exception.
  Status OnEvent(const net::SseEvent& event);
  // True once the API's terminal event arrived.
  bool done() const { return done_; }
  // At end of stream: the message, or an Error if the stream was incomplete.
  virtual Result<Message> Finish() = 0;

 protected:
  virtual Status Handle(const net::SseEvent& event) = 0;
  // The error for a stream that ended before it was complete.
  Error Incomplete() const;

  const StreamSink* sink_;
  Endpoint ep_;
  Message message_;
  bool done_ = false;

 private:
  std::string_view api_;
};

}  // namespace sepp::llm::wire
