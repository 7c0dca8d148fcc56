// Tier 1 in one load: the skills and prompt templates of a working
// directory, as the session runtime uses them (the skill tool, the catalog
// in the system prompt, slash commands) and as `sepp ext list` shows them.
#pragma once
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "ext/extension_info.h"
#include "ext/prompts/slash_commands.h"
#include "ext/skills/skill_catalog.h"

namespace sepp::ext {

struct Resources {
  std::shared_ptr<const SkillSet> skills;
  SlashCommands commands;
  std::vector<ExtensionInfo> infos;   // skills, then templates
  std::vector<std::string> warnings;  // for stderr, one line each
};

Resources LoadResources(const std::filesystem::path& cwd);

}  // namespace sepp::ext
