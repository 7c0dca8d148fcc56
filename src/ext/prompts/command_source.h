// CommandSource: slash commands that come from outside the session's own
// files and may change while it runs (an MCP server's prompts,
// ext/mcp/prompt_commands.h). The session lists them beside the prompt
// templates, skills and hooks' commands, and expands "/name args" through
// Expand before a prompt goes to the model.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "ext/prompts/slash_commands.h"

namespace sepp::ext {

// The names of an MCP server's prompts start with it; the session offers
// no other command under it (a prompt template, skill or hook command named
// so is left out, with a warning), so the names cannot collide.
inline constexpr const char* kMcpCommandPrefix = "mcp__";

class CommandSource {
 public:
  virtual ~CommandSource() = default;
  // Every name starts with kMcpCommandPrefix. Thread-safe.
  virtual std::vector<CommandInfo> List() const = 0;
  // Counts changes of List() (and of the tools behind it): the session
  // compares it to what it saw. Thread-safe.
  virtual uint64_t Version() const = 0;
  // text = "/name args": nullopt when it names none of these commands; the
  // text to send to the model; or an Error (kind "usage" for a missing
  // argument) that the caller reports instead of sending anything. May
  // wait on the source (an MCP prompts/get).
  virtual std::optional<Result<std::string>> Expand(std::string_view text) = 0;
};

}  // namespace sepp::ext
