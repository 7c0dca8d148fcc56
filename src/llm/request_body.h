// A request's body as the text that is POSTed, with the members that stay
// the same from call to call in a session (the tool schemas, and the system
// prompt where it is a member of its own: wire::Members) serialised once
// and spliced in. The text is byte for byte DumpJson of the API's
// BuildRequest, so recordings, replays and the tests that compare bodies
// see no difference; what goes is rebuilding ~10 KB of schemas and system
// prompt as a JSON tree and escaping it again at every model call.
//
// Thread-safe: sub-agents may share a provider.
#pragma once
#include <memory>
#include <mutex>
#include <string>
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
  // The fixed members' text, for one system prompt and one set of tools.
  struct Fixed {
    std::string system;
    std::vector<ToolSpec> tools;
    std::vector<std::pair<std::string, std::string>> members;  // key -> value's text
  };
  std::shared_ptr<const Fixed> FixedFor(const Request& request);

  const ApiKind api_;
  const openai_chat::Options chat_;
  std::mutex mu_;
  std::shared_ptr<const Fixed> fixed_;  // the last one made
};

// DumpJson(object merged with raw), where raw maps keys that object lacks to
// the serialised text of their values: nlohmann writes an object's members
// in key order, and so does this.
std::string DumpObjectWith(const Json& object,
                           const std::vector<std::pair<std::string, std::string>>& raw);

}  // namespace sepp::llm
