#include "support/tool_results.h"

namespace sepp::fake {

std::string LastToolResult(const FakeProvider& fp, const std::string& call_id) {
  std::string last;
  for (const auto& r : fp.requests())
    for (const auto& m : r.body.value("messages", Json::array()))
      if (m.value("role", "") == "user" && m["content"].is_array())
        for (const auto& b : m["content"])
          if (b.value("type", "") == "tool_result" && b.value("tool_use_id", "") == call_id) {
            if (b["content"].is_string()) {
              last = b["content"];
            } else {
              last.clear();
              for (const auto& c : b["content"]) last += c.value("text", "");
            }
          }
  return last;
}

}  // namespace sepp::fake
