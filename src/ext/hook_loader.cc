#include "ext/hook_loader.h"

#include <algorithm>
#include <optional>

#include "base/file.h"
#include "base/paths.h"
#include "base/project_trust.h"

namespace sepp::ext {

namespace {

struct Found {
  std::filesystem::path file;
  std::string scope;  // "user" | "project" | "flag"
};

std::vector<std::filesystem::path> LuaFilesIn(const std::filesystem::path& dir) {
  std::vector<std::filesystem::path> files;
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) return files;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec))
    if (e.path().extension() == ".lua" && e.is_regular_file(ec)) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  return files;
}

std::vector<Found> Find(const HookSources& s) {
  std::vector<Found> out;
  std::filesystem::path user = s.user_dir.empty() ? SeppHome() / "hooks" : s.user_dir;
  if (!s.project_only)
    for (auto& f : LuaFilesIn(user)) out.push_back({f, "user"});
  for (auto& f : LuaFilesIn(s.cwd / ".sepp" / "hooks")) out.push_back({f, "project"});
  if (!s.project_only)
    for (auto& f : s.flag_files) out.push_back({f, "flag"});
  return out;
}

ExtensionInfo InfoFor(const Found& f) {
  ExtensionInfo info;
  info.name = f.file.stem().string();
  info.tier = Tier::kHook;
  info.kind = "lua-hook";
  info.source = f.file;
  info.scope = f.scope;
  info.may = {"see and change the loop's events in-process (no files, no processes, no network)"};
  info.trust = f.scope == "project" ? "trusted" : "not needed";
  return info;
}

// The trust of the project's hooks, read once.
struct ProjectTrust {
  std::optional<ProjectConfig> config;
  TrustState state = TrustState::kNothingToTrust;
  std::string refusal;  // a session's recorded "no" to this content
  TrustState Of(const std::filesystem::path& cwd) {
    if (!config) {
      config = ReadProjectConfig(cwd);
      state = ProjectTrustOf(*config);
      if (state != TrustState::kTrusted) refusal = ProjectRefusalOf(*config);
    }
    return state;
  }
  std::string Words() const {
    std::string w = state == TrustState::kChanged ? "untrusted: changed since trusted; run `sepp trust`"
                                                  : "untrusted: run `sepp trust` (or --trust)";
    if (!refusal.empty()) w += "; " + refusal;
    return w;
  }
};

struct JsonFile {
  std::filesystem::path file;
  std::string scope;
};

std::vector<JsonFile> FindJson(const HookSources& s) {
  std::filesystem::path claude = s.claude_home.empty() ? HomeDir() / ".claude" : s.claude_home;
  std::filesystem::path user = s.user_dir.empty() ? SeppHome() / "hooks" : s.user_dir;
  std::vector<JsonFile> out;
  for (const auto& [f, scope] :
       std::vector<std::pair<std::filesystem::path, std::string>>{
           {claude / "settings.json", "user"},
           {user.parent_path() / "hooks.json", "user"},
           {s.cwd / ".claude" / "settings.json", "project"},
           {s.cwd / ".sepp" / "hooks.json", "project"}}) {
    std::error_code ec;
    if (s.project_only && scope != "project") continue;
    if (std::filesystem::is_regular_file(f, ec)) out.push_back({f, scope});
  }
  return out;
}

ExtensionInfo JsonInfoFor(const JsonFile& f) {
  ExtensionInfo info;
  info.name = f.file.parent_path().filename().string() + "/" + f.file.filename().string();
  info.tier = Tier::kHook;
  info.kind = "hooks-json";
  info.source = f.file;
  info.scope = f.scope;
  info.trust = f.scope == "project" ? "trusted" : "not needed";
  return info;
}

}  // namespace

std::vector<ExtensionInfo> ListHooks(const HookSources& sources) {
  // Listed, not run: "loaded" means a session here runs it; an untrusted
  // project's hooks say why they would not.
  std::vector<ExtensionInfo> out;
  ProjectTrust trust;
  auto judge = [&](ExtensionInfo info, const std::string& scope) {
    info.loaded = true;
    if (scope == "project") {
      TrustState st = trust.Of(sources.cwd);
      if (st != TrustState::kTrusted) {
        info.trust = trust.Words();
        info.loaded = false;
        info.errors.push_back("not run until the project is trusted");
      }
    }
    out.push_back(std::move(info));
  };
  for (const Found& f : Find(sources)) judge(InfoFor(f), f.scope);
  for (const JsonFile& f : FindJson(sources)) judge(JsonInfoFor(f), f.scope);
  return out;
}

LoadedHooks LoadHooks(const HookSources& sources, const LuaHost& host, CommandHost command,
                      LuaLimits limits) {
  LoadedHooks out;
  ProjectTrust trust;
  std::vector<std::string> skipped;
  for (const Found& f : Find(sources)) {
    ExtensionInfo info = InfoFor(f);
    if (f.scope == "project") {
      TrustState st = trust.Of(sources.cwd);
      if (st != TrustState::kTrusted) {
        info.trust = trust.Words();
        skipped.push_back(f.file.filename().string());
        out.infos.push_back(std::move(info));
        continue;
      }
    }
    auto file = LuaHookFile::Load(f.file, host, limits);
    if (!file.ok()) {
      info.errors.push_back(file.error().message);
      out.warnings.push_back("a Lua hook did not load: " + file.error().message);
      out.infos.push_back(std::move(info));
      continue;
    }
    info.loaded = true;
    std::string events;
    for (const auto& e : (*file)->events()) events += (events.empty() ? "" : ", ") + e;
    if (!events.empty()) info.may.push_back("handles " + events);
    for (const auto& c : (*file)->commands()) info.may.push_back("command /" + c.name);
    out.chain->Add(*file);
    out.lua_files.push_back(std::move(*file));
    out.infos.push_back(std::move(info));
  }
  std::vector<CommandHook> commands;
  for (const JsonFile& f : FindJson(sources)) {
    ExtensionInfo info = JsonInfoFor(f);
    if (f.scope == "project") {
      TrustState st = trust.Of(sources.cwd);
      if (st != TrustState::kTrusted) {
        info.trust = trust.Words();
        skipped.push_back(f.file.parent_path().filename().string() + "/" + f.file.filename().string());
        out.infos.push_back(std::move(info));
        continue;
      }
    }
    auto text = ReadFile(f.file);
    std::vector<std::string> unsupported;
    auto parsed = text.ok() ? ParseHooksJson(*text, f.file, &unsupported)
                            : Result<std::vector<CommandHook>>(text.error());
    for (const auto& u : unsupported) {
      info.errors.push_back(u);
      out.warnings.push_back("a hook was skipped: " + u);
    }
    if (!parsed.ok()) {
      info.errors.push_back(parsed.error().message);
      out.warnings.push_back("hooks did not load: " + parsed.error().message);
      out.infos.push_back(std::move(info));
      continue;
    }
    info.loaded = true;
    for (const auto& c : *parsed)
      info.may.push_back("run `" + c.command + "` in the sandbox on " + c.event +
                         (c.matcher.empty() ? "" : " (" + c.matcher + ")"));
    commands.insert(commands.end(), parsed->begin(), parsed->end());
    out.infos.push_back(std::move(info));
  }
  if (!commands.empty()) {
    if (command.cwd.empty()) command.cwd = sources.cwd;
    if (!command.report) command.report = host.report;
    out.chain->Add(std::make_shared<CommandHooks>(std::move(commands), std::move(command)));
  }
  if (!skipped.empty()) {
    std::string names;
    for (const auto& n : skipped) names += (names.empty() ? "" : ", ") + n;
    out.warnings.push_back(UntrustedNote(*trust.config, trust.state,
                                         "the project's hooks (" + names + ")"));
  }
  return out;
}

}  // namespace sepp::ext
