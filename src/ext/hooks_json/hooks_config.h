// hooks.json: Claude Code's hook configuration (Codex reads the same), as
// found under "hooks" in .claude/settings.json, ~/.claude/settings.json,
// .sepp/hooks.json and ~/.sepp/hooks.json:
//   {"hooks": {"PreToolUse": [{"matcher": "Bash|Edit",
//                              "hooks": [{"type": "command", "command": "...", "timeout": 30}]}]}}
// Only "command" handlers run in sepp; other types (prompt, http, mcp_tool,
// agent) and events sepp does not raise are reported, not silently dropped.
#pragma once
#include <filesystem>
#include <string>
#include <vector>

#include "base/json.h"
#include "base/result.h"

namespace sepp::ext {

struct CommandHook {
  std::string event;    // "PreToolUse", ...
  std::string matcher;  // "" matches everything
  std::string command;  // run with bash -c
  double timeout_s = 600;  // Claude Code's default for command hooks
  std::filesystem::path source;  // the file it came from
};

// The events sepp raises for hooks.json commands.
const std::vector<std::string>& CommandHookEvents();

// Claude's matcher rules: "", "*" = all; only letters, digits, _ and | = an
// exact name or a |-list; anything else a regular expression (ECMAScript,
// searched, as JavaScript's test()). An invalid expression matches nothing.
bool MatcherMatches(const std::string& matcher, const std::string& value);

// Parses one settings / hooks.json file's text. Hooks of types or events
// sepp does not run go to *skipped with a reason; shape errors are errors
// naming the file and the JSON path.
Result<std::vector<CommandHook>> ParseHooksJson(const std::string& text,
                                                const std::filesystem::path& source,
                                                std::vector<std::string>* skipped);

}  // namespace sepp::ext
