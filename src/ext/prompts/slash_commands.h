// Slash commands from prompt templates and skills, for every front end:
// the runtime expands "/name args" when a prompt is submitted (so -p, RPC,
// ACP, the TUI and the server all get it) and lists the commands for the
// front ends' menus (pi's get_commands, ACP's available_commands_update,
// the TUI's autocomplete).
//
// Template folders, in precedence order (the first of a name wins; later
// ones are reported as shadowed):
//   project: .sepp/prompts (pi rules), .pi/prompts (pi), .claude/commands (Claude)
//   user:    ~/.sepp/prompts (pi), ~/.pi/agent/prompts (pi), ~/.claude/commands (Claude)
// *.md files directly in each folder (not below). A skill the user may
// invoke is the command /NAME too (Claude's form, unless a template has
// that name) and always /skill:NAME (pi's form); its instructions are sent
// with the arguments appended.
#pragma once
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ext/extension_info.h"
#include "ext/prompts/prompt_template.h"
#include "ext/skills/skill_catalog.h"

namespace sepp::ext {

struct PromptRoot {
  std::filesystem::path dir;
  std::string scope;
  std::string label;
  ArgumentRules rules;
};
std::vector<PromptRoot> PromptRoots(const std::filesystem::path& cwd);

constexpr size_t kMaxPromptsPerRoot = 2000;

struct PromptSet {
  std::vector<PromptTemplate> prompts;  // in effect, sorted by name
  std::vector<ExtensionInfo> infos;     // every file seen
  std::vector<std::string> warnings;
};
PromptSet LoadPrompts(const std::vector<PromptRoot>& roots);
inline PromptSet LoadPrompts(const std::filesystem::path& cwd) { return LoadPrompts(PromptRoots(cwd)); }

struct CommandInfo {
  std::string name;           // without the '/'
  std::string description;
  std::string argument_hint;
  std::string source;         // "prompt" or "skill" (pi's get_commands)
  std::string scope;          // "project" or "user"
  std::filesystem::path path; // the file
};

class SlashCommands {
 public:
  SlashCommands() = default;
  SlashCommands(PromptSet prompts, std::shared_ptr<const SkillSet> skills);

  // Templates first, then skills (user-invocable ones), by name.
  const std::vector<CommandInfo>& List() const { return list_; }
  // text = "/name" or "/name args" naming a command: the text to send
  // instead. Anything else (not a '/', an unknown name, a path such as
  // "/etc/hosts is odd"): nullopt, and the text goes as written.
  std::optional<std::string> Expand(std::string_view text) const;

 private:
  PromptSet prompts_;
  std::shared_ptr<const SkillSet> skills_;
  std::vector<CommandInfo> list_;
};

}  // namespace sepp::ext
