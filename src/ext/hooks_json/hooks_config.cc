#include "ext/hooks_json/hooks_config.h"

#include <algorithm>
#include <regex>

#include "base/strings.h"

namespace sepp::ext {

const std::vector<std::string>& CommandHookEvents() {
  static const std::vector<std::string> kEvents = {
      "PreToolUse", "PostToolUse",   "PostToolBatch", "UserPromptSubmit", "Stop",
      "SubagentStart", "SubagentStop", "PreCompact", "SessionStart", "SessionEnd",
      "PermissionRequest", "Notification"};
  return kEvents;
}

bool MatcherMatches(const std::string& matcher, const std::string& value) {
  if (matcher.empty() || matcher == "*") return true;
  bool simple = std::all_of(matcher.begin(), matcher.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '|';
  });
  if (simple) {
    for (const auto& alt : Split(matcher, '|'))
      if (alt == value) return true;
    return false;
  }
  try {
    return std::regex_search(value, std::regex(matcher, std::regex::ECMAScript));
  } catch (const std::regex_error&) {
    return false;
  }
}

Result<std::vector<CommandHook>> ParseHooksJson(const std::string& text,
                                                const std::filesystem::path& source,
                                                std::vector<std::string>* skipped) {
  std::string where = source.string();
  auto parsed = ParseJson(text);
  if (!parsed.ok()) return Error::Make(where + ": not JSON: " + parsed.error().message, "usage");
  const Json& root = *parsed;
  std::vector<CommandHook> out;
  if (!root.is_object()) return Error::Make(where + ": must be a JSON object", "usage");
  if (!root.contains("hooks")) return out;
  const Json& hooks = root["hooks"];
  if (!hooks.is_object())
    return Error::Make(where + ": \"hooks\" must be an object of event names", "usage");
  const auto& events = CommandHookEvents();
  for (const auto& [event, groups] : hooks.items()) {
    std::string at = where + ": hooks." + event;
    if (!groups.is_array()) return Error::Make(at + " must be an array of matcher groups", "usage");
    bool known = std::find(events.begin(), events.end(), event) != events.end();
    for (size_t g = 0; g < groups.size(); ++g) {
      const Json& group = groups[g];
      std::string gat = at + "[" + std::to_string(g) + "]";
      if (!group.is_object()) return Error::Make(gat + " must be an object", "usage");
      std::string matcher;
      if (group.contains("matcher")) {
        if (!group["matcher"].is_string()) return Error::Make(gat + ".matcher must be a string", "usage");
        matcher = group["matcher"].get<std::string>();
      }
      if (!group.contains("hooks") || !group["hooks"].is_array())
        return Error::Make(gat + ".hooks must be an array of handlers", "usage");
      for (size_t h = 0; h < group["hooks"].size(); ++h) {
        const Json& handler = group["hooks"][h];
        std::string hat = gat + ".hooks[" + std::to_string(h) + "]";
        if (!handler.is_object()) return Error::Make(hat + " must be an object", "usage");
        std::string type = handler.value("type", "");
        if (type != "command") {
          if (skipped) skipped->push_back(hat + ": type \"" + type + "\" is not run by sepp (only \"command\")");
          continue;
        }
        if (!handler.contains("command") || !handler["command"].is_string() ||
            handler["command"].get<std::string>().empty())
          return Error::Make(hat + ".command must be a non-empty string", "usage");
        if (!known) {
          if (skipped) skipped->push_back(hat + ": sepp does not raise " + event + " yet");
          continue;
        }
        CommandHook c;
        c.event = event;
        c.matcher = matcher;
        c.command = handler["command"].get<std::string>();
        c.source = source;
        if (handler.contains("timeout")) {
          if (!handler["timeout"].is_number() || handler["timeout"].get<double>() <= 0)
            return Error::Make(hat + ".timeout must be a positive number of seconds", "usage");
          c.timeout_s = handler["timeout"].get<double>();
        }
        out.push_back(std::move(c));
      }
    }
  }
  return out;
}

}  // namespace sepp::ext
