// A skill's scripts run with bash in the session sandbox, which sees the
// workspace but not the user's folders: each user-level skill folder is
// added to what commands may read (read only), so "run scripts/x.sh of the
// skill" works wherever the skill lives. Project skills are in the
// workspace already. A folder inside a denied path (sepp's own home, where
// ~/.sepp/skills is) cannot be: the sandbox refuses a policy that both
// denies and allows a path (every command would fail), so such a skill's
// scripts stay out of reach and the user is told where to move it.
#pragma once
#include <string>
#include <vector>

#include "ext/skills/skill_catalog.h"
#include "sandbox/policy.h"

namespace sepp::ext {

// Adds the folders to policy->read_roots; returns one warning per skill
// with a scripts/ folder that commands cannot see.
std::vector<std::string> LetCommandsReadSkillFolders(const SkillSet& skills,
                                                     sandbox::Policy* policy);

}  // namespace sepp::ext
