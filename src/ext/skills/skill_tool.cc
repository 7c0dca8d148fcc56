#include "ext/skills/skill_tool.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "base/fd.h"
#include "base/strings.h"
#include "ext/prompts/prompt_template.h"
#include "sandbox/name_patterns.h"

namespace sepp::ext {
namespace fs = std::filesystem;
namespace {

// The files of a skill folder (relative, sorted), without following
// symlinks, skipping dot-files, at most kMaxListedSkillFiles, depth 4.
std::vector<std::string> ListFiles(const fs::path& dir, bool* more) {
  std::vector<std::string> out;
  std::error_code ec;
  fs::recursive_directory_iterator it(dir, fs::directory_options::none, ec), end;
  for (; !ec && it != end; it.increment(ec)) {
    std::string name = it->path().filename().string();
    std::error_code e2;
    if (!name.empty() && name[0] == '.') {
      if (it->is_directory(e2)) it.disable_recursion_pending();
      continue;
    }
    if (it.depth() >= 3 && it->is_directory(e2)) it.disable_recursion_pending();
    if (!it->is_regular_file(e2) || it->is_symlink(e2)) continue;
    std::string rel = it->path().lexically_relative(dir).generic_string();
    if (rel == "SKILL.md") continue;
    if (out.size() >= kMaxListedSkillFiles) {
      *more = true;
      break;
    }
    out.push_back(rel);
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Opens dir/rel for reading, every component with O_NOFOLLOW from "/", so
// a symlink anywhere on the way (in the folder's own path too, if it was
// swapped since start-up) is refused.
Result<UniqueFd> OpenInside(const fs::path& dir, const fs::path& rel) {
  UniqueFd cur(open("/", O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (!cur.valid()) return Error::Make("cannot open /", "io");
  std::vector<std::string> parts;
  for (const auto& c : dir.relative_path()) parts.push_back(c.string());
  size_t dir_parts = parts.size();
  for (const auto& c : rel) parts.push_back(c.string());
  for (size_t i = 0; i < parts.size(); ++i) {
    bool last = i + 1 == parts.size();
    int flags = O_NOFOLLOW | O_CLOEXEC | (last ? (O_RDONLY | O_NONBLOCK) : (O_PATH | O_DIRECTORY));
    UniqueFd next(openat(cur.get(), parts[i].c_str(), flags));
    if (!next.valid()) {
      int err = errno;
      if (err == ELOOP || err == ENOTDIR)
        return Error::Make(i < dir_parts
                               ? "the skill's folder has changed since sepp started (a part of "
                                 "its path is now a symbolic link)"
                               : "\"" + rel.generic_string() +
                                     "\" goes through a symbolic link: the skill tool reads "
                                     "only the skill's own files",
                           "denied");
      if (err == ENOENT)
        return Error::Make("the skill has no file \"" + rel.generic_string() + "\"", "not_found");
      return Error::Make("cannot open \"" + rel.generic_string() + "\": " + strerror(err), "io");
    }
    cur = std::move(next);
  }
  return cur;
}

Result<std::string> ReadResource(const Skill& skill, const std::string& file,
                                 const sandbox::Policy* policy) {
  fs::path rel = fs::path(file).lexically_normal();
  if (file.empty() || rel.is_absolute() || rel.empty() || *rel.begin() == "..")
    return Error::Make("\"file\" must be a path inside the skill's folder, relative to it "
                       "(e.g. references/REFERENCE.md)",
                       "usage");
  for (const auto& c : rel)
    if (c == "..")
      return Error::Make("\"file\" must stay inside the skill's folder (no \"..\")", "usage");
  if (policy)
    for (const auto& c : rel)
      if (sandbox::MatchesDenyName(c.string(), policy->deny_paths))
        return Error::Make("\"" + file + "\" has a name the sandbox policy keeps secret (" +
                               c.string() + "): the skill tool does not read it",
                           "denied");
  auto fd = OpenInside(skill.dir, rel);
  if (!fd.ok()) return fd.error();
  struct stat st;
  if (fstat(fd->get(), &st) != 0 || !S_ISREG(st.st_mode))
    return Error::Make("\"" + file + "\" is not a regular file", "usage");
  if (static_cast<uint64_t>(st.st_size) > kMaxSkillResourceBytes)
    return Error::Make("\"" + file + "\" is " + HumanBytes(st.st_size) + ", more than the " +
                           HumanBytes(kMaxSkillResourceBytes) +
                           " the skill tool returns: read parts of it with bash (head, sed -n)",
                       "too_large");
  std::string out;
  out.resize(static_cast<size_t>(st.st_size));
  size_t got = 0;
  while (got < out.size()) {
    ssize_t n = pread(fd->get(), out.data() + got, out.size() - got, static_cast<off_t>(got));
    if (n <= 0) break;
    got += static_cast<size_t>(n);
  }
  out.resize(got);
  if (out.find('\0') != std::string::npos || !IsValidUtf8(out))
    return Error::Make("\"" + file + "\" is not text (a binary file): use it from a command "
                                     "instead, by its path in the skill's folder",
                       "usage");
  return out;
}

class SkillTool : public tools::Tool {
 public:
  explicit SkillTool(std::shared_ptr<const SkillSet> skills) : skills_(std::move(skills)) {}
  std::string name() const override { return "skill"; }
  std::string description() const override {
    return "Load a skill's instructions by name (from the skills listed in the system prompt), "
           "or one of its files with \"file\"; without a name, list every skill.\n"
           "Call it before doing a task a skill describes; the result lists the skill's files.";
  }
  Json parameters() const override {
    return {{"type", "object"},
            {"properties",
             {{"name", {{"type", "string"}, {"description", "the skill's name"}}},
              {"file",
               {{"type", "string"},
                {"description", "a file of the skill, relative to its folder (optional)"}}}}}};
  }
  std::string Summary(const Json& args) const override {
    std::string n = args.is_object() ? args.value("name", "") : "";
    std::string f = args.is_object() ? args.value("file", "") : "";
    if (n.empty()) return "skill (list)";
    return "skill " + n + (f.empty() ? "" : " " + f);
  }
  tools::ToolResult Run(const Json& args, tools::ToolContext& ctx) override {
    if (!args.is_object()) return Fail("the arguments must be an object {name, file?}");
    if (args.contains("name") && !args["name"].is_string()) return Fail("\"name\" must be a string");
    if (args.contains("file") && !args["file"].is_string()) return Fail("\"file\" must be a string");
    std::string n = args.value("name", "");
    std::string file = args.value("file", "");
    if (n.empty()) return Answer(List(), false);
    const Skill* s = skills_->Find(n);
    if (!s) return Fail("there is no skill \"" + n + "\". " + List());
    if (file.empty()) return Answer(SkillContent(*s), false);
    auto text = ReadResource(*s, file, ctx.policy);
    if (!text.ok()) return Fail(text.error().message);
    return Answer("<skill_file name=\"" + s->name + "\" file=\"" + file + "\">\n" + *text +
                      (EndsWith(*text, "\n") ? "" : "\n") + "</skill_file>",
                  false);
  }

 private:
  static tools::ToolResult Answer(std::string text, bool is_error) {
    tools::ToolResult r;
    r.text = std::move(text);
    r.is_error = is_error;
    return r;
  }
  static tools::ToolResult Fail(std::string text) { return Answer(std::move(text), true); }
  std::string List() const {
    if (skills_->skills.empty()) return "No skills are installed.";
    std::string out = "Skills:\n";
    for (const Skill& s : skills_->skills)
      if (s.model_invocable) out += "- " + s.name + ": " + s.description + "\n";
    return out;
  }
  std::shared_ptr<const SkillSet> skills_;
};

}  // namespace

std::string SkillContent(const Skill& skill, const std::string& arguments) {
  std::string body = skill.body;
  if (skill.claude_rules) {
    PromptTemplate t;
    t.body = ReplaceAll(std::move(body), "${CLAUDE_SKILL_DIR}", skill.dir.string());
    t.rules = ArgumentRules::kClaude;
    body = ExpandTemplate(t, arguments);
  }
  std::string out = "<skill_content name=\"" + skill.name + "\">\n" + body;
  if (!EndsWith(out, "\n")) out += "\n";
  out += "\nSkill directory: " + skill.dir.string() +
         "\nRelative paths in these instructions are relative to it.\n";
  bool more = false;
  std::vector<std::string> files = ListFiles(skill.dir, &more);
  if (!files.empty()) {
    out += "<skill_resources>\n";
    for (const auto& f : files) out += "<file>" + f + "</file>\n";
    if (more) out += "(more files not listed)\n";
    out += "</skill_resources>\n";
  }
  if (!arguments.empty() && !skill.claude_rules) out += "\nARGUMENTS: " + arguments + "\n";
  out += "</skill_content>";
  return out;
}

std::unique_ptr<tools::Tool> MakeSkillTool(std::shared_ptr<const SkillSet> skills) {
  return std::make_unique<SkillTool>(std::move(skills));
}

}  // namespace sepp::ext
