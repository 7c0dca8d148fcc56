#include "ext/resources.h"

namespace sepp::ext {

Resources LoadResources(const std::filesystem::path& cwd) {
  Resources r;
  auto skills = std::make_shared<SkillSet>(LoadSkills(cwd));
  PromptSet prompts = LoadPrompts(cwd);
  r.infos = skills->infos;
  r.infos.insert(r.infos.end(), prompts.infos.begin(), prompts.infos.end());
  r.warnings = skills->warnings;
  r.warnings.insert(r.warnings.end(), prompts.warnings.begin(), prompts.warnings.end());
  for (const Skill& s : skills->skills)
    for (const PromptTemplate& t : prompts.prompts)
      if (s.user_invocable && t.name == s.name)
        r.warnings.push_back("/" + s.name + " is the prompt template " + t.file.string() +
                             "; the skill of that name is /skill:" + s.name);
  r.skills = skills;
  r.commands = SlashCommands(std::move(prompts), std::move(skills));
  return r;
}

}  // namespace sepp::ext
