#include "agent/agent_definitions.h"

#include <algorithm>
#include <map>
#include <optional>

#include "base/file.h"
#include "base/paths.h"
#include "base/project_trust.h"
#include "base/strings.h"

namespace sepp::agent {
namespace {

std::string Unquote(std::string_view v) {
  v = Trim(v);
  if (v.size() >= 2 && (v.front() == '"' || v.front() == '\'') && v.back() == v.front())
    v = v.substr(1, v.size() - 2);
  return std::string(v);
}

void AddTools(std::string_view list, std::vector<std::string>& out) {
  std::string s(Trim(list));
  if (!s.empty() && s.front() == '[' && s.back() == ']') s = s.substr(1, s.size() - 2);
  for (const auto& part : Split(s, ',')) {
    std::string name = Unquote(part);
    if (!name.empty()) out.push_back(MapToolName(name));
  }
}

}  // namespace

std::string MapToolName(std::string_view name) {
  static const std::map<std::string, std::string> kClaude = {
      {"glob", "find"}, {"multiedit", "edit"}, {"notebookedit", "edit"}};
  std::string lower = ToLower(name);
  auto it = kClaude.find(lower);
  return it == kClaude.end() ? lower : it->second;
}

Result<AgentDefinition> ParseAgentDefinition(std::string_view text, const std::string& file_name) {
  std::string body(text);
  if (StartsWith(body, "\xEF\xBB\xBF")) body.erase(0, 3);
  body = ReplaceAll(body, "\r\n", "\n");
  if (!StartsWith(body, "---\n"))
    return Error::Make(file_name + ": no front matter: the file must start with a '---' line",
                       "usage");
  size_t end = body.find("\n---", 3);
  if (end == std::string::npos)
    return Error::Make(file_name + ": the front matter has no closing '---' line", "usage");
  AgentDefinition d;
  std::string stem = std::filesystem::path(file_name).stem().string();
  d.name = stem;
  std::string key_in_list;
  for (const auto& raw : Split(std::string_view(body).substr(4, end - 4), '\n')) {
    std::string_view line = raw;
    if (Trim(line).empty() || Trim(line)[0] == '#') continue;
    if (StartsWith(Trim(line), "- ") && key_in_list == "tools") {
      AddTools(Trim(line).substr(2), d.tools);
      continue;
    }
    size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    std::string key = std::string(Trim(line.substr(0, colon)));
    std::string value = Unquote(line.substr(colon + 1));
    key_in_list = value.empty() ? key : "";
    if (key == "name" && !value.empty()) d.name = value;
    else if (key == "description") d.description = value;
    else if (key == "tools") AddTools(value, d.tools);
    else if (key == "model") d.model = value;
  }
  if (d.model == "inherit" || d.model == "sonnet" || d.model == "opus" || d.model == "haiku")
    d.model.clear();
  size_t body_start = body.find('\n', end + 1);
  d.system_prompt = body_start == std::string::npos ? "" : std::string(Trim(body.substr(body_start)));
  if (d.description.empty())
    return Error::Make(file_name + ": the front matter needs a description: line", "usage");
  return d;
}

std::vector<AgentDefinition> LoadAgentDefinitions(const std::filesystem::path& cwd,
                                                  std::vector<std::string>* warnings) {
  std::vector<AgentDefinition> out;
  // The project's definitions come from files a command may have written:
  // they load only when the user trusted the project as it is now.
  std::optional<ProjectConfig> project;
  TrustState trust = TrustState::kTrusted;
  for (const auto& dir : {SeppHome() / "agents", cwd / ".claude" / "agents", cwd / ".sepp" / "agents"}) {
    std::error_code ec;
    if (!std::filesystem::is_directory(dir, ec)) continue;
    std::vector<std::filesystem::path> files;
    for (const auto& e : std::filesystem::directory_iterator(dir, ec))
      if (e.path().extension() == ".md") files.push_back(e.path());
    std::sort(files.begin(), files.end());
    if (files.empty()) continue;
    if (dir != SeppHome() / "agents") {
      if (!project) {
        project = ReadProjectConfig(cwd);
        trust = ProjectTrustOf(*project);
      }
      if (trust != TrustState::kTrusted) {
        std::string names;
        for (const auto& f : files) names += (names.empty() ? "" : ", ") + f.filename().string();
        if (warnings)
          warnings->push_back(UntrustedNote(*project, trust, dir.string() + " (" + names + ")"));
        continue;
      }
    }
    for (const auto& f : files) {
      auto text = ReadBoundedFile(f, kMaxConfigFileBytes, "an agent definition");
      auto def = text.ok() ? ParseAgentDefinition(*text, f.string())
                           : Result<AgentDefinition>(text.error());
      if (!def.ok()) {
        if (warnings) warnings->push_back(def.error().message);
        continue;
      }
      def->path = f;
      out.erase(std::remove_if(out.begin(), out.end(),
                               [&](const AgentDefinition& d) { return d.name == def->name; }),
                out.end());
      out.push_back(std::move(def).value());
    }
  }
  return out;
}

}  // namespace sepp::agent
