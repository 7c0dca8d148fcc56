#include "front/acp/tool_calls.h"

#include "base/strings.h"

namespace sepp::front::acp {
namespace {

std::string Absolute(const std::string& path, const std::filesystem::path& cwd) {
  std::filesystem::path p(path);
  if (p.is_relative()) p = cwd / p;
  return p.lexically_normal().string();
}

std::string StringArg(const Json& args, const char* key) {
  if (!args.is_object()) return {};
  auto it = args.find(key);
  return it != args.end() && it->is_string() ? it->get<std::string>() : std::string();
}

Json TextContent(std::string text) {
  if (text.size() > kMaxShownOutput) {
    text = text.substr(0, Utf8SafePrefix(text, kMaxShownOutput)) +
           "\n[... output shortened for display]";
  }
  return {{"type", "content"}, {"content", {{"type", "text"}, {"text", std::move(text)}}}};
}

Json Diff(const std::string& path, const Json& old_text, const std::string& new_text) {
  Json d = {{"type", "diff"}, {"path", path}, {"newText", new_text}};
  d["oldText"] = old_text;  // null: a new file
  return d;
}

// The edits of an edit call as ACP diffs: old and new text of each change.
Json EditDiffs(const Json& args, const std::string& path) {
  Json out = Json::array();
  if (!args.is_object()) return out;
  if (args.contains("edits") && args["edits"].is_array()) {
    for (const Json& e : args["edits"])
      if (e.is_object() && e.value("old_string", Json()).is_string() &&
          e.value("new_string", Json()).is_string())
        out.push_back(Diff(path, e["old_string"], e["new_string"].get<std::string>()));
  } else if (args.value("old_string", Json()).is_string() &&
             args.value("new_string", Json()).is_string()) {
    out.push_back(Diff(path, args["old_string"], args["new_string"].get<std::string>()));
  }
  return out;
}

}  // namespace

const char* ToolKind(std::string_view tool) {
  if (tool == "read") return "read";
  if (tool == "write" || tool == "edit") return "edit";
  if (tool == "ls" || tool == "find" || tool == "grep") return "search";
  if (tool == "bash") return "execute";
  if (tool == "agent") return "think";
  return "other";
}

Json ToolLocations(std::string_view tool, const Json& args, const std::filesystem::path& cwd) {
  Json out = Json::array();
  std::string path = StringArg(args, "path");
  if (path.empty()) return out;
  Json loc = {{"path", Absolute(path, cwd)}};
  if (tool == "read" && args.contains("offset") && args["offset"].is_number_integer() &&
      args["offset"].get<int64_t>() > 0)
    loc["line"] = args["offset"].get<int64_t>();
  out.push_back(std::move(loc));
  return out;
}

Json ToolCallStarted(const std::string& call_id, std::string_view tool, const std::string& title,
                     const Json& args, const std::filesystem::path& cwd) {
  Json u = {{"sessionUpdate", "tool_call"},
            {"toolCallId", call_id},
            {"title", title.empty() ? std::string(tool) : title},
            {"kind", ToolKind(tool)},
            {"status", "in_progress"},
            {"locations", ToolLocations(tool, args, cwd)}};
  if (!args.is_null()) u["rawInput"] = args;
  return u;
}

Json ToolCallProgress(const std::string& call_id, const std::string& output_so_far) {
  return {{"sessionUpdate", "tool_call_update"},
          {"toolCallId", call_id},
          {"status", "in_progress"},
          {"content", Json::array({TextContent(SanitizeUtf8(output_so_far))})}};
}

Json ToolCallFinished(const std::string& call_id, std::string_view tool, const Json& args,
                      const std::string& result, bool is_error, const Json& details,
                      const std::filesystem::path& cwd) {
  Json content = Json::array();
  std::string path = StringArg(args, "path");
  if (!is_error && tool == "edit" && !path.empty()) {
    content = EditDiffs(args, Absolute(path, cwd));
  } else if (!is_error && tool == "write" && !path.empty() &&
             args.value("content", Json()).is_string()) {
    // The old text is not kept; a file that existed shows as rewritten whole.
    content.push_back(Diff(Absolute(path, cwd), Json(), args["content"].get<std::string>()));
  }
  if (content.empty()) content.push_back(TextContent(SanitizeUtf8(result)));
  Json u = {{"sessionUpdate", "tool_call_update"},
            {"toolCallId", call_id},
            {"status", is_error ? "failed" : "completed"},
            {"content", std::move(content)}};
  Json raw = {{"output", SanitizeUtf8(result.size() > kMaxShownOutput
                                          ? result.substr(0, kMaxShownOutput) : result)}};
  if (!details.is_null()) raw["details"] = details;
  u["rawOutput"] = std::move(raw);
  return u;
}

}  // namespace sepp::front::acp
