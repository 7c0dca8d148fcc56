#include "ext/skills/skill_folders.h"

#include <filesystem>

#include "base/strings.h"

namespace sepp::ext {
namespace {

bool Below(const std::string& path, const std::string& root) {
  return path == root || StartsWith(path, EndsWith(root, "/") ? root : root + "/");
}

}  // namespace

std::vector<std::string> LetCommandsReadSkillFolders(const SkillSet& skills,
                                                     sandbox::Policy* policy) {
  std::vector<std::string> warnings;
  for (const Skill& skill : skills.skills) {
    if (skill.scope != "user") continue;
    std::string dir = skill.dir.string();
    bool covered = false, denied = false;
    for (const std::string& r : policy->read_roots) covered |= Below(dir, r);
    for (const std::string& d : policy->deny_paths)  // paths; "**/NAME" patterns do not nest
      if (!d.empty() && d[0] == '/') denied |= Below(dir, d) || Below(d, dir);
    if (denied) {
      std::error_code ec;
      if (std::filesystem::is_directory(skill.dir / "scripts", ec))
        warnings.push_back("skill " + skill.name + ": its scripts are in " + dir +
                           ", which commands cannot see (the sandbox hides that folder); move "
                           "the skill to ~/.agents/skills or a project's .sepp/skills to run them");
      continue;
    }
    if (!covered) policy->read_roots.push_back(dir);
  }
  return warnings;
}

}  // namespace sepp::ext
