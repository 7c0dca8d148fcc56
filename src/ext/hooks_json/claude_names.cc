#include "ext/hooks_json/claude_names.h"

namespace sepp::ext {

namespace {

struct Name {
  const char* sepp;
  const char* claude;
};
constexpr Name kNames[] = {{"bash", "Bash"}, {"read", "Read"}, {"write", "Write"},
                           {"edit", "Edit"}, {"ls", "LS"},     {"find", "Glob"},
                           {"grep", "Grep"}, {"agent", "Task"}};

// Claude calls the file argument file_path where sepp says path.
bool RenamesPath(const std::string& sepp_name) {
  return sepp_name == "read" || sepp_name == "write" || sepp_name == "edit";
}

Json Rename(const Json& in, const char* from, const char* to) {
  if (!in.is_object() || !in.contains(from)) return in;
  Json out = in;
  out[to] = out[from];
  out.erase(from);
  return out;
}

}  // namespace

std::string ClaudeToolName(const std::string& sepp_name) {
  for (const auto& n : kNames)
    if (sepp_name == n.sepp) return n.claude;
  return sepp_name;
}

Json ClaudeToolInput(const std::string& sepp_name, const Json& input) {
  return RenamesPath(sepp_name) ? Rename(input, "path", "file_path") : input;
}

Json SeppToolInput(const std::string& sepp_name, const Json& claude_input) {
  return RenamesPath(sepp_name) ? Rename(claude_input, "file_path", "path") : claude_input;
}

}  // namespace sepp::ext
