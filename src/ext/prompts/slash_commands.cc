#include "ext/prompts/slash_commands.h"

#include <algorithm>

#include "base/file.h"
#include "base/paths.h"
#include "base/strings.h"
#include "ext/skills/skill_tool.h"

namespace sepp::ext {
namespace fs = std::filesystem;

std::vector<PromptRoot> PromptRoots(const fs::path& cwd) {
  fs::path c = cwd.lexically_normal();
  fs::path home = HomeDir();
  return {{c / ".sepp" / "prompts", "project", ".sepp/prompts", ArgumentRules::kPi},
          {c / ".pi" / "prompts", "project", ".pi/prompts", ArgumentRules::kPi},
          {c / ".claude" / "commands", "project", ".claude/commands", ArgumentRules::kClaude},
          {SeppHome() / "prompts", "user", "~/.sepp/prompts", ArgumentRules::kPi},
          {home / ".pi" / "agent" / "prompts", "user", "~/.pi/agent/prompts", ArgumentRules::kPi},
          {home / ".claude" / "commands", "user", "~/.claude/commands", ArgumentRules::kClaude}};
}

PromptSet LoadPrompts(const std::vector<PromptRoot>& roots) {
  PromptSet set;
  std::vector<fs::path> seen_roots;
  for (const PromptRoot& root : roots) {
    std::error_code ec;
    fs::path canon = fs::weakly_canonical(root.dir, ec);
    if (ec || !fs::is_directory(canon, ec)) continue;
    if (std::find(seen_roots.begin(), seen_roots.end(), canon) != seen_roots.end()) continue;
    seen_roots.push_back(canon);
    std::vector<fs::path> files;
    size_t looked = 0;
    for (fs::directory_iterator it(canon, ec), end; !ec && it != end; it.increment(ec)) {
      if (it->path().extension() != ".md") continue;
      if (++looked > kMaxPromptsPerRoot) {
        set.warnings.push_back(root.label + ": more than " + std::to_string(kMaxPromptsPerRoot) +
                               " templates; the rest were not loaded");
        break;
      }
      std::error_code e2;
      if (it->is_regular_file(e2)) files.push_back(it->path());
    }
    std::sort(files.begin(), files.end());
    for (const fs::path& file : files) {
      ExtensionInfo info;
      info.name = file.stem().string();
      info.tier = Tier::kResource;
      info.kind = "prompt";
      info.source = file;
      info.scope = root.scope;
      info.may = {std::string("expand /") + info.name + " into a prompt (" + ToString(root.rules) +
                  " argument rules)"};
      info.trust = "not needed (data)";
      auto text = ReadBoundedFile(file, kMaxPromptFileBytes, "a prompt template");
      Result<PromptTemplate> t = text.ok() ? ParsePromptTemplate(*text, file, root.rules)
                                           : Result<PromptTemplate>(text.error());
      if (!t.ok()) {
        info.errors.push_back(t.error().message);
        set.warnings.push_back("skipped a prompt template: " + t.error().message);
        set.infos.push_back(std::move(info));
        continue;
      }
      t->scope = root.scope;
      t->origin = root.label;
      auto winner = std::find_if(set.prompts.begin(), set.prompts.end(),
                                 [&](const PromptTemplate& o) { return o.name == t->name; });
      if (winner != set.prompts.end()) {
        std::string why =
            "shadowed by " + winner->file.string() + " (" + winner->origin + " comes first)";
        info.errors.push_back(why);
        set.warnings.push_back("prompt template /" + t->name + " in " + file.string() + " is " + why);
        set.infos.push_back(std::move(info));
        continue;
      }
      info.loaded = true;
      set.infos.push_back(std::move(info));
      set.prompts.push_back(std::move(*t));
    }
  }
  std::sort(set.prompts.begin(), set.prompts.end(),
            [](const PromptTemplate& a, const PromptTemplate& b) { return a.name < b.name; });
  return set;
}

SlashCommands::SlashCommands(PromptSet prompts, std::shared_ptr<const SkillSet> skills)
    : prompts_(std::move(prompts)), skills_(std::move(skills)) {
  for (const PromptTemplate& t : prompts_.prompts)
    list_.push_back({t.name, t.description, t.argument_hint, "prompt", t.scope, t.file});
  if (!skills_) return;
  for (const Skill& s : skills_->skills) {
    if (!s.user_invocable) continue;
    bool taken = std::any_of(prompts_.prompts.begin(), prompts_.prompts.end(),
                             [&](const PromptTemplate& t) { return t.name == s.name; });
    list_.push_back({taken ? "skill:" + s.name : s.name, s.description, s.argument_hint, "skill",
                     s.scope, s.file});
  }
}

std::optional<std::string> SlashCommands::Expand(std::string_view text) const {
  if (text.empty() || text[0] != '/') return std::nullopt;
  size_t end = 1;
  while (end < text.size() && text[end] != ' ' && text[end] != '\t' && text[end] != '\n') ++end;
  std::string name(text.substr(1, end - 1));
  std::string_view args = end < text.size() ? text.substr(end + 1) : std::string_view();
  for (const PromptTemplate& t : prompts_.prompts)
    if (t.name == name) return ExpandTemplate(t, args);
  if (!skills_) return std::nullopt;
  bool pi_form = StartsWith(name, "skill:");
  std::string skill_name = pi_form ? name.substr(6) : name;
  const Skill* s = skills_->Find(skill_name);
  if (!s || !s->user_invocable) return std::nullopt;
  return SkillContent(*s, std::string(Trim(args)));
}

}  // namespace sepp::ext
