// Claude Code's names for sepp's tools and their arguments, so that
// hooks.json scripts written for Claude Code (or Codex, which uses the same
// names) see what they expect: bash -> Bash {command}, read -> Read
// {file_path}, write -> Write {file_path, content}, edit -> Edit {file_path,
// old_string, new_string}, ls -> LS, find -> Glob, grep -> Grep, agent -> Task.
// Other tools (an MCP server's, a Lua hook's) keep their own names.
#pragma once
#include <string>

#include "base/json.h"

namespace sepp::ext {

std::string ClaudeToolName(const std::string& sepp_name);
// sepp's arguments as Claude's tool_input, and back (for updatedInput).
Json ClaudeToolInput(const std::string& sepp_name, const Json& input);
Json SeppToolInput(const std::string& sepp_name, const Json& claude_input);

}  // namespace sepp::ext
