// Where skills are found, in precedence order, and the loaded set.
//
// Precedence (the first folder that has a skill of a name wins; each later
// one of the same name is reported as shadowed, in `sepp ext list` and as a
// warning, never dropped silently):
//   project: .sepp/skills, .agents/skills in cwd and every parent up to the
//            git root (nearest first), .claude/skills
//   user:    ~/.sepp/skills (SeppHome()/skills), ~/.agents/skills,
//            ~/.claude/skills, ~/.codex/skills
// Project skills are data (instructions), so they load without trust, as
// the integration guide allows; their scripts run only as commands the
// model asks for, through the sandbox and the permission gate.
// Each folder holds one skill per sub-folder (<root>/<name>/SKILL.md);
// dot-folders and node_modules are skipped; at most kMaxSkillsPerRoot
// sub-folders are looked at in one root.
#pragma once
#include <filesystem>
#include <string>
#include <vector>

#include "ext/extension_info.h"
#include "ext/skills/skill.h"

namespace sepp::ext {

struct SkillRoot {
  std::filesystem::path dir;
  std::string scope;  // "project" or "user"
  std::string label;  // for people: ".agents/skills", "~/.claude/skills"
};

constexpr size_t kMaxSkillsPerRoot = 2000;

// The folders above for cwd, in precedence order (existing or not).
std::vector<SkillRoot> SkillRoots(const std::filesystem::path& cwd);

struct SkillSet {
  std::vector<Skill> skills;          // the ones in effect, sorted by name
  std::vector<ExtensionInfo> infos;   // every skill seen: loaded, shadowed or broken
  std::vector<std::string> warnings;  // one line each, for stderr
  const Skill* Find(std::string_view name) const;
};

SkillSet LoadSkills(const std::vector<SkillRoot>& roots);
inline SkillSet LoadSkills(const std::filesystem::path& cwd) { return LoadSkills(SkillRoots(cwd)); }

// The catalog for the system prompt: the skills the model may use, as the
// spec's <available_skills> XML, within budget_chars; what does not fit is
// left out with a line saying how many and how to see them (the skill
// tool without a name). "" when there is no such skill.
constexpr size_t kDefaultSkillCatalogBudget = 8000;
std::string SkillCatalogPrompt(const SkillSet& set, size_t budget_chars = kDefaultSkillCatalogBudget);

}  // namespace sepp::ext
