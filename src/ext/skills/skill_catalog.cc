#include "ext/skills/skill_catalog.h"

#include <algorithm>

#include "base/file.h"
#include "base/paths.h"
#include "base/strings.h"

namespace sepp::ext {
namespace fs = std::filesystem;
namespace {

std::string XmlEscape(std::string_view s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '&': out += "&amp;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

// cwd and its parents up to (and with) the git root; only cwd when cwd is
// not in a git repository.
std::vector<fs::path> UpToGitRoot(const fs::path& cwd) {
  std::vector<fs::path> chain;
  for (fs::path p = cwd.lexically_normal();; p = p.parent_path()) {
    chain.push_back(p);
    std::error_code ec;
    if (fs::exists(p / ".git", ec)) return chain;
    if (p == p.parent_path()) break;
  }
  return {cwd.lexically_normal()};
}

ExtensionInfo InfoFor(const fs::path& source, const std::string& scope) {
  ExtensionInfo info;
  info.tier = Tier::kResource;
  info.kind = "skill";
  info.source = source;
  info.scope = scope;
  info.may = {"add instructions to the model's context when used"};
  info.trust = "not needed (data)";
  return info;
}

}  // namespace

const Skill* SkillSet::Find(std::string_view name) const {
  for (const Skill& s : skills)
    if (s.name == name) return &s;
  return nullptr;
}

std::vector<SkillRoot> SkillRoots(const fs::path& cwd) {
  std::vector<SkillRoot> roots;
  fs::path c = cwd.lexically_normal();
  roots.push_back({c / ".sepp" / "skills", "project", ".sepp/skills"});
  for (const fs::path& dir : UpToGitRoot(c))
    roots.push_back({dir / ".agents" / "skills", "project",
                     dir == c ? std::string(".agents/skills")
                              : DisplayPath(dir / ".agents" / "skills", c)});
  roots.push_back({c / ".claude" / "skills", "project", ".claude/skills"});
  roots.push_back({SeppHome() / "skills", "user", "~/.sepp/skills"});
  fs::path home = HomeDir();
  roots.push_back({home / ".agents" / "skills", "user", "~/.agents/skills"});
  roots.push_back({home / ".claude" / "skills", "user", "~/.claude/skills"});
  roots.push_back({home / ".codex" / "skills", "user", "~/.codex/skills"});
  return roots;
}

SkillSet LoadSkills(const std::vector<SkillRoot>& roots) {
  SkillSet set;
  std::vector<Skill> found;
  found.reserve(64);
  std::vector<fs::path> seen_roots;
  for (const SkillRoot& root : roots) {
    std::error_code ec;
    fs::path canon = fs::weakly_canonical(root.dir, ec);
    if (ec || !fs::is_directory(canon, ec)) continue;
    // The same folder reached twice (a symlink, or cwd = home) is one root.
    if (std::find(seen_roots.begin(), seen_roots.end(), canon) != seen_roots.end()) continue;
    seen_roots.push_back(canon);
    std::vector<fs::path> dirs;
    size_t looked = 0;
    for (fs::directory_iterator it(canon, ec), end; !ec && it != end; it.increment(ec)) {
      std::string n = it->path().filename().string();
      if (n.empty() || n[0] == '.' || n == "node_modules") continue;
      if (++looked > kMaxSkillsPerRoot) {
        set.warnings.push_back(root.label + ": more than " + std::to_string(kMaxSkillsPerRoot) +
                               " folders; the rest were not looked at");
        break;
      }
      std::error_code e2;  // the entry's type from the listing: no stat unless a link
      if (it->is_directory(e2)) dirs.push_back(it->path());
    }
    std::sort(dirs.begin(), dirs.end());
    for (const fs::path& dir : dirs) {
      fs::path file = dir / "SKILL.md";
      auto text = ReadBoundedFile(file, kMaxSkillFileBytes, "a skill");
      if (!text.ok() && !fs::exists(file)) continue;  // a folder that is not a skill
      // The root is canonical already; only a linked skill folder needs it.
      std::error_code e2;
      fs::path real = fs::is_symlink(dir, e2) ? fs::weakly_canonical(dir, e2) : dir;
      Result<Skill> parsed = text.ok() ? ParseSkill(*text, file, real) : Result<Skill>(text.error());
      ExtensionInfo info = InfoFor(file, root.scope);
      info.name = dir.filename().string();
      if (!parsed.ok()) {
        info.errors.push_back(parsed.error().message);
        set.warnings.push_back("skipped a skill: " + parsed.error().message);
        set.infos.push_back(std::move(info));
        continue;
      }
      Skill& s = *parsed;
      s.scope = root.scope;
      s.origin = root.label;
      s.root = canon;
      s.claude_rules = root.dir.parent_path().filename() == ".claude";
      info.name = s.name;
      info.errors = s.warnings;
      for (const auto& w : s.warnings) set.warnings.push_back("skill " + s.name + ": " + w);
      auto winner = std::find_if(found.begin(), found.end(),
                                 [&](const Skill& o) { return o.name == s.name; });
      if (winner != found.end()) {
        std::string why = "shadowed by " + winner->file.string() + " (" + winner->origin +
                          " comes first)";
        info.errors.push_back(why);
        set.warnings.push_back("skill " + s.name + " in " + file.string() + " is " + why);
        set.infos.push_back(std::move(info));
        continue;
      }
      info.loaded = true;
      set.infos.push_back(std::move(info));
      found.push_back(std::move(s));
    }
  }
  std::sort(found.begin(), found.end(),
            [](const Skill& a, const Skill& b) { return a.name < b.name; });
  set.skills = std::move(found);
  return set;
}

std::string SkillCatalogPrompt(const SkillSet& set, size_t budget_chars) {
  std::vector<const Skill*> usable;
  for (const Skill& s : set.skills)
    if (s.model_invocable) usable.push_back(&s);
  if (usable.empty()) return {};
  std::string head =
      "\nSkills: folders of instructions (and scripts) for particular tasks. When a task "
      "matches a skill's description, call the skill tool with its name first and follow what "
      "it returns; read the files it lists with the skill tool's \"file\" argument only when "
      "the instructions point to them, and run its scripts with bash.\n<available_skills>\n";
  std::string entries;
  size_t listed = 0;
  for (const Skill* s : usable) {
    std::string e = "<skill><name>" + XmlEscape(s->name) + "</name><description>" +
                    XmlEscape(s->description) + "</description></skill>\n";
    if (head.size() + entries.size() + e.size() > budget_chars) break;
    entries += e;
    ++listed;
  }
  std::string out = head + entries + "</available_skills>\n";
  if (listed < usable.size())
    out += std::to_string(usable.size() - listed) + " more skill" +
           (usable.size() - listed == 1 ? " is" : "s are") + " not listed here (the list is kept under " +
           std::to_string(budget_chars) +
           " characters): call the skill tool without a name to see them all.\n";
  return out;
}

}  // namespace sepp::ext
