#include "front/tui/session_diff.h"

#include <algorithm>
#include <map>

#include "tools/diff.h"

namespace sepp::front::tui {
namespace {

std::string ArgString(const Json& args, const char* key) {
  if (!args.is_object() || !args.contains(key) || !args[key].is_string()) return "";
  return args[key].get<std::string>();
}

void Note(std::vector<std::string>* files, const std::string& path) {
  if (!path.empty() && std::find(files->begin(), files->end(), path) == files->end()) files->push_back(path);
}

}  // namespace

SessionDiff DiffOfSession(const std::vector<llm::Message>& messages) {
  std::map<std::string, const Json*> args;  // call id -> the call's arguments
  for (const auto& m : messages)
    if (m.role == llm::Role::kAssistant)
      for (const auto* call : m.ToolCalls()) args[call->id] = &call->arguments;
  SessionDiff out;
  std::string body;
  for (const auto& m : messages) {
    if (m.role != llm::Role::kToolResult || m.is_error) continue;
    auto it = args.find(m.tool_call_id);
    const Json empty;
    const Json& call_args = it == args.end() ? empty : *it->second;
    std::string path = ArgString(call_args, "path");
    std::string result = m.Text();
    if (m.tool_name == "edit") {
      // "Edited PATH (...).\n" then the diff from its "--- " line.
      size_t from = result.find("\n--- ");
      if (from == std::string::npos) continue;
      ++out.edits;
      Note(&out.files, path);
      body += result.substr(from + 1);
      if (body.back() != '\n') body += '\n';
    } else if (m.tool_name == "write") {
      ++out.writes;
      Note(&out.files, path);
      if (result.starts_with("Created ") && call_args.is_object() && call_args.contains("content") &&
          call_args["content"].is_string()) {
        std::string created = tools::UnifiedDiff("", call_args["content"].get<std::string>(), "", path);
        // A new file's diff starts from /dev/null, as git writes it.
        if (created.starts_with("--- a/\n")) created.replace(0, 7, "--- /dev/null\n");
        body += created;
      } else {
        body += "=== " + result + " (written whole; the text it replaced is not in the session)\n";
      }
    }
  }
  if (out.edits + out.writes == 0) return out;
  out.text = std::to_string(out.files.size()) + (out.files.size() == 1 ? " file" : " files") + " changed by " +
             std::to_string(out.edits) + (out.edits == 1 ? " edit" : " edits") + " and " +
             std::to_string(out.writes) + (out.writes == 1 ? " write" : " writes") +
             " in this session (changes made through bash are not tracked: git diff shows the workspace)\n\n" + body;
  return out;
}

}  // namespace sepp::front::tui
