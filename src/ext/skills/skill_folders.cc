#include "ext/skills/skill_folders.h"

#include <filesystem>

#include "base/strings.h"

namespace sepp::ext {
namespace {

namespace fs = std::filesystem;

bool Below(const std::string& path, const std::string& root) {
  return path == root || StartsWith(path, EndsWith(root, "/") ? root : root + "/");
}

// Paths compare as the sandbox's mount plan sees them: resolved.
std::string Resolved(const std::string& p) {
  std::error_code ec;
  fs::path c = fs::weakly_canonical(p, ec);
  return ec ? p : c.string();
}

// Why commands cannot be shown dir, a folder inside the denied path
// `denied`, or "" when they can. *escape: the folder leads out of its
// skills folder (worth saying even without scripts).
std::string WhyHidden(const Skill& skill, const std::string& dir, const std::string& denied,
                      const std::vector<std::string>& roots, bool* escape) {
  std::string root = skill.root.string();
  // The folder must be a sub-folder of its skills folder, and that skills
  // folder must lie in the denied path (a link out of it is not followed).
  *escape = root.empty() || dir == root || !Below(dir, root) || !Below(root, denied);
  if (*escape)
    return "its folder " + dir + " is not in " + skill.origin + " but in " + denied +
           ", which the sandbox hides from commands; it is not shown to them";
  for (const std::string& r : roots)
    if (Below(denied, r))
      return "its scripts are in " + dir + ", inside " + denied +
             ", which the sandbox hides from commands while showing " + r +
             " (the mask would cover the skill); run sepp in a project folder, or move the "
             "skill to ~/.agents/skills";
  return "";
}

}  // namespace

std::vector<std::string> LetCommandsReadSkillFolders(const SkillSet& skills,
                                                     sandbox::Policy* policy) {
  std::vector<std::string> warnings;
  std::vector<std::string> roots, denied;
  for (const std::string& r : policy->read_roots) roots.push_back(Resolved(r));
  for (const std::string& r : policy->write_roots) roots.push_back(Resolved(r));
  for (const std::string& d : policy->deny_paths)  // paths; "**/NAME" patterns do not nest
    if (!d.empty() && d[0] == '/') denied.push_back(Resolved(d));
  for (const Skill& skill : skills.skills) {
    if (skill.scope != "user") continue;
    std::string dir = skill.dir.string();
    bool covered = false;
    for (const std::string& r : roots) covered |= Below(dir, r);
    std::string why;
    bool in_denied = false, escape = false;
    for (const std::string& d : denied) {
      if (!Below(dir, d)) continue;
      in_denied = true;
      if (why.empty()) why = WhyHidden(skill, dir, d, roots, &escape);
    }
    if (!why.empty()) {
      std::error_code ec;
      // A skill merely out of reach matters only when it has scripts to run.
      if (escape || fs::is_directory(skill.dir / "scripts", ec))
        warnings.push_back("skill " + skill.name + ": " + why);
      continue;
    }
    // Inside a denied folder: a hole in it (policy.h), so that only the
    // skill's folder is shown; elsewhere a read root.
    if (in_denied) policy->read_holes.push_back(dir);
    else if (!covered) policy->read_roots.push_back(dir);
  }
  return warnings;
}

}  // namespace sepp::ext
