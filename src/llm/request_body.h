// A request's body as the text that is POSTed, serialised in parts that are
// kept from call to call in a session: the members that stay the same (the
// tool schemas, and the system prompt where it is a member of its own:
// wire::Members) once, and the conversation's items once each, so a call
// serialises only the messages added since the last one. The text is byte
// for byte DumpJson of the API's BuildRequest, so recordings, replays and
// the tests that compare bodies see no difference; what goes is rebuilding
// the whole history, the ~10 KB of schemas and the system prompt as a JSON
// tree and escaping them again at every model call.
//
// The kept conversation is recognised by a 64-bit hash of every field of
// each message the builders read, so a compaction, a branch or an edited
// message is rebuilt, not spliced. Thread-safe (sub-agents may share a
// provider; their conversations then replace each other's cache).
#pragma once
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/json.h"
#include "llm/openai_chat.h"
#include "llm/provider.h"

namespace sepp::llm {

class RequestBodyWriter {
 public:
  explicit RequestBodyWriter(ApiKind api, openai_chat::Options chat = {}) : api_(api), chat_(chat) {}

  std::string Write(const Request& request);

 private:
  void UpdateFixed(const Request& request);
  // The items' text (joined by commas) of conversation[0, end).
  const std::string& PrefixText(const std::vector<Message>& conversation, size_t end);
  Json Items(const std::vector<Message>& conversation, size_t begin, size_t end) const;

  const ApiKind api_;
  const openai_chat::Options chat_;
  std::mutex mu_;  // guards what follows; held through Write
  // The fixed members' text, for one system prompt and one set of tools.
  bool have_fixed_ = false;
  std::string system_;
  std::vector<ToolSpec> tools_;
  uint64_t tools_stamp_ = 0;  // of tools_ (Request::tools_stamp; 0: none)
  std::vector<std::pair<std::string, std::string>> fixed_;  // key -> value's text
  std::string lead_;  // the items before the conversation's (chat: the system prompt)
  // The conversation's first prefix_hashes_.size() messages, as items' text.
  std::vector<uint64_t> prefix_hashes_;
  std::string prefix_text_;
};

// DumpJson(object merged with raw), where raw maps keys that object lacks to
// the serialised text of their values: nlohmann writes an object's members
// in key order, and so does this.
std::string DumpObjectWith(const Json& object,
                           const std::vector<std::pair<std::string_view, std::string_view>>& raw);

// A hash of every field of m that a request builder reads.
uint64_t MessageHash(const Message& m);

}  // namespace sepp::llm
