// Skills in the Agent Skills format (agentskills.io): a folder with a
// SKILL.md (front matter `name`, `description`, ...; a Markdown body of
// instructions) and optional scripts/, references/, assets/.
//
// Parsing is lenient where the peers are (docs/extensions.md, "Skills"): a
// name that differs from its folder, or is longer than the spec allows, is
// loaded with a warning; a missing description, a name that cannot be a
// slash command, or front matter that does not parse is an error naming
// the file and line, and the skill is skipped.
#pragma once
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace sepp::ext {

struct Skill {
  std::string name;
  std::string description;
  std::string argument_hint;       // Claude's `argument-hint`
  bool model_invocable = true;     // false: `disable-model-invocation: true` (not in the catalog)
  bool user_invocable = true;      // false: `user-invocable: false` (no /name)
  std::filesystem::path dir;       // the skill's folder, canonical
  std::filesystem::path file;      // its SKILL.md
  std::string body;                // the instructions, front matter removed
  std::string scope;               // "project" or "user"
  std::string origin;              // the folder it was found in ("~/.claude/skills", ...)
  std::filesystem::path root;      // that folder, canonical
  // Found in a .claude/skills folder: written for Claude Code, whose skill
  // bodies take its argument rules ($ARGUMENTS, $0, ...) and
  // ${CLAUDE_SKILL_DIR}.
  bool claude_rules = false;
  std::vector<std::string> warnings;
};

// The spec's largest SKILL.md we read whole (the spec asks for < 5000
// tokens; this is ten times that).
constexpr uint64_t kMaxSkillFileBytes = 256 * 1024;
constexpr size_t kMaxSkillDescriptionChars = 1024;

// text is the SKILL.md at `file`, in the folder `dir` (its name is the
// default name). Warnings (loaded anyway) go to skill.warnings.
Result<Skill> ParseSkill(std::string_view text, const std::filesystem::path& file,
                         const std::filesystem::path& dir);

// A name the loaders accept: 1-64 of [A-Za-z0-9._:-], not starting with
// '-' or '.': safe as a slash command, in XML and in a path.
bool IsUsableSkillName(std::string_view name);
// The spec's stricter form: lowercase a-z, 0-9 and single inner '-'.
bool IsSpecSkillName(std::string_view name);

}  // namespace sepp::ext
