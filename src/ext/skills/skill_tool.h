// The `skill` tool: how the model loads a skill (progressive disclosure).
//
// The catalog in the system prompt names the skills; this tool returns a
// skill's instructions (the SKILL.md body sepp validated at start-up) with
// the list of its files, and one of those files when asked. It runs in
// sepp's process, not in the session sandbox, because the sandbox cannot
// see the user's skill folders (sepp's home is masked from commands, and
// ~/.claude, ~/.codex are not the workspace) — and so it guards what it
// reads itself (docs/extensions.md, "How the model loads a skill"):
//   - only files inside a loaded skill's folder: a relative path without
//     "..", each component opened with O_NOFOLLOW from the filesystem root
//     along the folder's canonical path, so no symlink (planted, say, by a
//     command in a writable .claude/skills) leads out of it;
//   - regular files only, at most kMaxSkillResourceBytes, UTF-8 text;
//   - names the sandbox policy treats as secrets (**/.env, ...) refused.
// A skill's scripts are not run here: the model runs them with bash, in
// the sandbox, through the permission gate, like any command.
#pragma once
#include <memory>

#include "ext/skills/skill_catalog.h"
#include "tools/tool.h"

namespace sepp::ext {

constexpr size_t kMaxSkillResourceBytes = 256 * 1024;
constexpr size_t kMaxListedSkillFiles = 200;

std::unique_ptr<tools::Tool> MakeSkillTool(std::shared_ptr<const SkillSet> skills);

// What the tool returns for a skill with no file: the body wrapped as the
// integration guide suggests, with the folder and its files (for the
// user's own /name args too). A Claude skill (skill.claude_rules) gets
// Claude's treatment: ${CLAUDE_SKILL_DIR} is its folder and the arguments
// go in by Claude's rules (prompt_template.h), with its "ARGUMENTS:"
// fallback; any other skill gets "ARGUMENTS: ..." after the body.
std::string SkillContent(const Skill& skill, const std::string& arguments = {});

}  // namespace sepp::ext
