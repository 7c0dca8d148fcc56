// What an ACP client can set on a sepp session: the mode (how sandbox
// widening requests are answered) and the config options (model, thought
// level), plus the slash commands a prompt may start with. Pure builders and
// parsers of their ACP JSON.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "base/json.h"
#include "ext/prompts/slash_commands.h"

namespace sepp::front::acp {

// Modes decide who answers a permission request (a sandbox widening the
// model asks for): "ask" the client (session/request_permission), "allow"
// every request once without asking, "deny" every request without asking.
enum class Mode { kAsk, kAllow, kDeny };
const char* ModeId(Mode m);
bool ParseMode(std::string_view id, Mode* out);
// {currentModeId, availableModes}
Json ModesJson(Mode current);

// configOptions: "model" (category model) and "thought_level".
// models: the choices offered (the current one among them).
Json ConfigOptionsJson(const std::string& model, const std::vector<std::string>& models,
                       const std::string& thought_level,
                       const std::vector<std::string>& thought_levels);

// The commands a prompt may start with ("/compact focus", and the prompt
// templates and skills the runtime expands), as available_commands_update's
// availableCommands.
Json AvailableCommandsJson(const std::vector<ext::CommandInfo>& commands);

}  // namespace sepp::front::acp
