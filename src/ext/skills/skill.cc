#include "ext/skills/skill.h"

#include "base/strings.h"
#include "ext/front_matter.h"

namespace sepp::ext {
namespace {

bool Truthy(const std::string& v) {
  std::string l = ToLower(v);
  return l == "true" || l == "yes" || l == "on";
}

}  // namespace

bool IsUsableSkillName(std::string_view name) {
  if (name.empty() || name.size() > 64 || name[0] == '-' || name[0] == '.') return false;
  for (char c : name)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
          c == '-' || c == '_' || c == '.' || c == ':'))
      return false;
  return true;
}

bool IsSpecSkillName(std::string_view name) {
  if (name.empty() || name.size() > 64 || name.front() == '-' || name.back() == '-') return false;
  if (name.find("--") != std::string_view::npos) return false;
  for (char c : name)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-')) return false;
  return true;
}

Result<Skill> ParseSkill(std::string_view text, const std::filesystem::path& file,
                         const std::filesystem::path& dir) {
  auto fm = ParseFrontMatter(text, file.string());
  if (!fm.ok()) return fm.error();
  if (!fm->present)
    return Error::Make(file.string() +
                           ":1: a SKILL.md starts with front matter: a '---' line, "
                           "\"name: ...\", \"description: ...\", and a closing '---'",
                       "parse");
  Skill s;
  s.file = file;
  s.dir = dir;
  s.body = std::move(fm->body);
  std::string folder = dir.filename().string();
  auto line_of = [&](std::string_view key) {
    const FrontMatterValue* v = fm->Find(key);
    return file.string() + ":" + std::to_string(v ? v->line : 1);
  };
  for (const char* key : {"name", "description", "argument-hint"}) {
    const FrontMatterValue* v = fm->Find(key);
    if (v && v->kind != FrontMatterValue::Kind::kScalar)
      return Error::Make(line_of(key) + ": \"" + key + "\" must be a single text value", "parse");
  }
  s.name = fm->Get("name");
  if (s.name.empty()) {
    s.name = folder;
    s.warnings.push_back(file.string() + ":1: no \"name\": using the folder's name \"" + folder +
                         "\"");
  }
  if (!IsUsableSkillName(s.name))
    return Error::Make(line_of("name") + ": the name \"" + s.name +
                           "\" cannot be used: 1-64 letters, digits, '-', '_', '.' or ':' "
                           "(the spec asks for lowercase letters, digits and '-')",
                       "parse");
  if (!IsSpecSkillName(s.name))
    s.warnings.push_back(line_of("name") + ": the name \"" + s.name +
                         "\" is not in the spec's form (lowercase a-z, 0-9, single '-')");
  if (s.name != folder && !folder.empty())
    s.warnings.push_back(line_of("name") + ": the name \"" + s.name +
                         "\" differs from its folder \"" + folder + "\"");
  s.description = std::string(Trim(fm->Get("description")));
  if (s.description.empty())
    return Error::Make(line_of("description") +
                           ": a skill needs a \"description\" saying what it does and when to "
                           "use it (the model decides from it)",
                       "parse");
  if (s.description.size() > kMaxSkillDescriptionChars) {
    s.warnings.push_back(line_of("description") + ": the description is longer than " +
                         std::to_string(kMaxSkillDescriptionChars) + " characters; cut there");
    s.description = s.description.substr(0, Utf8SafePrefix(s.description, kMaxSkillDescriptionChars));
  }
  s.argument_hint = fm->Get("argument-hint");
  s.model_invocable = !Truthy(fm->Get("disable-model-invocation"));
  if (fm->Find("user-invocable")) s.user_invocable = Truthy(fm->Get("user-invocable"));
  return s;
}

}  // namespace sepp::ext
