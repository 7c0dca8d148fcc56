// A skill's scripts run with bash in the session sandbox, which sees the
// workspace but not the user's folders: each user-level skill folder is
// added to what commands may read (read only), so "run scripts/x.sh of the
// skill" works wherever the skill lives. Project skills are in the
// workspace already.
//
// A skill folder inside a denied path (sepp's own home, where
// ~/.sepp/skills is) is shown alone, as a read hole (sandbox/policy.h):
// the sandbox mounts just that folder, and the rest of the denied path
// (sessions, grants, settings) stays out of it. Only a folder that really lies in its skills folder is shown so:
// a skill that is a link to elsewhere in a denied path (~/.sepp/sessions,
// ~/.ssh) is not, nor is one whose denied path the sandbox shows through
// another folder (sepp run in $HOME, where the mask would cover it); the
// user is told why.
#pragma once
#include <string>
#include <vector>

#include "ext/skills/skill_catalog.h"
#include "sandbox/policy.h"

namespace sepp::ext {

// Adds the folders to policy->read_roots (read_holes inside a denied
// path); returns one warning per skill that commands cannot be shown.
std::vector<std::string> LetCommandsReadSkillFolders(const SkillSet& skills,
                                                     sandbox::Policy* policy);

}  // namespace sepp::ext
