// The MCP servers' prompts as slash commands (docs/mcp.md, Prompts):
// prompt P of server S is /mcp__S__P (characters outside [A-Za-z0-9_-]
// become '_'), in the session's one command list for every front end. The
// prefix mcp__ is MCP's alone — the session offers no prompt template,
// skill or hook command under it — and server names are unique, so the
// names cannot collide (within one server, a second prompt that comes out
// under the same name is left out).
//
// "/mcp__S__P args": the words after the name become the prompt's
// arguments — `name=value` for a declared argument by name, other words
// fill the declared arguments in their order, the last one taking the rest
// of the line; "double" or 'single' quotes keep spaces in one word — then
// prompts/get, and its messages, as text, are the prompt the model gets.
#pragma once
#include <memory>
#include <string>
#include <string_view>

#include "base/json.h"
#include "base/result.h"
#include "ext/mcp/servers.h"
#include "ext/prompts/command_source.h"

namespace sepp::ext::mcp {

std::string PromptCommandName(const std::string& server, const std::string& prompt);
// "<city> [state]": required arguments in <>, optional ones in [].
std::string PromptArgumentHint(const PromptInfo& prompt);
// The arguments object for prompts/get from the text after the command's
// name; an Error (kind "usage") saying what is missing or malformed, with
// the command's usage. command: "/mcp__S__P", for the messages.
Result<Json> PromptArguments(const PromptInfo& prompt, std::string_view text, const std::string& command);
// prompts/get's result as one prompt's text: the messages' content in
// order, separated by blank lines; when any message is not the user's,
// each starts with a line naming its role ("[assistant]", "[user]").
// No messages: an Error.
Result<std::string> PromptMessagesText(const Json& result);

std::shared_ptr<CommandSource> MakePromptCommands(std::shared_ptr<const McpServers> servers);

}  // namespace sepp::ext::mcp
