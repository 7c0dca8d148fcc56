// The LLM vocabulary: messages, content blocks, usage, stop reasons.
//
// One provider-neutral model; each provider maps it to and from its wire
// format. The JSON form (ToJson/MessageFromJson) is what session files store:
//   {"role":"user"|"assistant"|"tool_result",
//    "content":[{"type":"text","text":..},
//               {"type":"thinking","thinking":..,"signature":..,"redacted":true?},
//               {"type":"tool_call","id":..,"name":..,"arguments":{..},
//                "arguments_error":..?, "raw_arguments":..?}],
//    "tool_call_id":.., "tool_name":.., "is_error":bool,           (tool_result)
//    "usage":{"input":n,"output":n,"cache_read":n,"cache_write":n},
//    "stop_reason":"stop"|"length"|"tool_use"|"error"|"aborted",   (assistant)
//    "model":.., "error":..}
// Fields holding their default value (empty, 0, false, "stop") are omitted,
// so ToJson(MessageFromJson(j)) == j for every j that ToJson produced.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/json.h"
#include "base/result.h"

namespace sepp::llm {

enum class Role { kUser, kAssistant, kToolResult };

enum class StopReason { kStop, kLength, kToolUse, kError, kAborted };

struct ContentBlock {
  enum class Kind { kText, kThinking, kToolCall };
  Kind kind = Kind::kText;
  std::string text;       // kText: the text; kThinking: the thinking text
  std::string signature;  // kThinking: provider signature (must be sent back)
  bool redacted = false;  // kThinking: redacted thinking (data in signature)
  std::string id;         // kToolCall
  std::string name;       // kToolCall
  Json arguments;         // kToolCall: parsed object
  // kToolCall: set when the model's arguments were not valid JSON; the raw
  // text is kept so the loop can answer with an error the model can read.
  std::string arguments_error;
  std::string raw_arguments;

  static ContentBlock Text(std::string t);
  static ContentBlock Thinking(std::string t, std::string signature);
  static ContentBlock ToolCall(std::string id, std::string name, Json args);
  // Redacted thinking: the provider's opaque data travels in signature.
  static ContentBlock RedactedThinking(std::string data);

  bool operator==(const ContentBlock&) const = default;
};

struct Usage {
  int64_t input = 0;
  int64_t output = 0;
  int64_t cache_read = 0;
  int64_t cache_write = 0;
  int64_t total() const { return input + output + cache_read + cache_write; }
  Usage& operator+=(const Usage& o);
  bool operator==(const Usage&) const = default;
};

struct Message {
  Role role = Role::kUser;
  std::vector<ContentBlock> content;
  // kToolResult
  std::string tool_call_id;
  std::string tool_name;
  bool is_error = false;
  // kAssistant
  StopReason stop_reason = StopReason::kStop;
  Usage usage;
  std::string model;
  std::string error;  // set with kError: what the provider said

  static Message User(std::string text);
  static Message ToolResult(std::string call_id, std::string tool_name, std::string text,
                            bool is_error);
  // All text blocks joined.
  std::string Text() const;
  std::vector<const ContentBlock*> ToolCalls() const;

  bool operator==(const Message&) const = default;
};

const char* ToString(StopReason r);
const char* ToString(Role r);
Json ToJson(const Message& m);
// A rough token count (about 4 bytes a token) for deciding when to compact
// before the provider has reported real usage. Use the last assistant
// message's usage.total() when there is one: it is exact.
int64_t ApproxTokens(const Message& m);

// Never throws; a malformed document gives an Error of kind "invalid_message".
Result<Message> MessageFromJson(const Json& j);
// The inverse of ToString; false if the name is unknown.
bool StopReasonFromString(std::string_view name, StopReason* out);

}  // namespace sepp::llm
