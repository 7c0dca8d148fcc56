// Finding, confirming and loading the plugins of a run (plugins.h).
#include "ext/plugins/plugins.h"

#include "base/file.h"

namespace sepp::ext::plugins {

std::string ConfirmName(const std::string& plugin) { return "plugin:" + plugin; }

std::string ConfirmKey(const PluginManifest& m) {
  const PluginLimits& l = m.limits;
  std::string runs = "wasm sha256:" + m.sha256 + " pages:" + std::to_string(l.max_memory_pages) +
                     " fuel:" + std::to_string(l.fuel_per_call) + " ms:" + std::to_string(l.timeout_ms) +
                     " depth:" + std::to_string(l.max_call_depth);
  return CapabilityKey(ConfirmName(m.name), runs, m.capabilities);
}

namespace {

// What is known of a found plugin before any of it runs: its listing entry,
// and its manifest when it may be loaded (read and confirmed as it is now).
const PluginManifest* Examine(const FoundPlugin& found, ExtensionInfo* info) {
  info->tier = Tier::kPlugin;
  info->kind = "plugin";
  info->scope = found.scope;
  info->source = found.dir;
  if (!found.manifest.ok()) {
    info->name = found.dir.filename().string();
    info->trust = "not checked";
    info->errors.push_back(found.manifest.error().message);
    return nullptr;
  }
  const PluginManifest& m = *found.manifest;
  info->name = m.name;
  info->may = Describe(m.capabilities);
  ConfirmState state = ConfirmationOf(ConfirmName(m.name), ConfirmKey(m));
  if (state != ConfirmState::kConfirmed) {
    info->trust = state == ConfirmState::kChanged ? "changed since confirmed" : "unconfirmed";
    info->errors.push_back(
        std::string("not loaded: ") +
        (state == ConfirmState::kChanged
             ? "its binary, limits or capabilities changed since they were confirmed"
             : "its capabilities have not been confirmed") +
        "; review them with `sepp plugin list` and confirm with `sepp plugin trust " + m.name + "`");
    std::string refused = RefusalOf(ConfirmName(m.name), ConfirmKey(m));
    if (!refused.empty()) info->errors.back() += " (" + refused + ")";
    return nullptr;
  }
  info->trust = "confirmed";
  return &m;
}

}  // namespace

std::unique_ptr<Plugins> Plugins::Load(const std::filesystem::path& workspace,
                                       std::vector<std::string>* warnings) {
  auto out = std::make_unique<Plugins>();
  for (auto& found : FindPlugins(workspace, warnings)) {
    ExtensionInfo info;
    const PluginManifest* m = Examine(found, &info);
    if (m) {
      auto bytes = ReadBoundedFile(m->wasm, 64ull << 20, "plugin module");
      auto plugin = bytes.ok() ? Plugin::Load(*m, *bytes, workspace)
                               : Result<std::shared_ptr<Plugin>>(bytes.error());
      if (plugin.ok()) {
        info.loaded = true;
        out->loaded_.push_back(std::move(*plugin));
      } else {
        info.errors.push_back(plugin.error().message);
      }
    }
    out->infos_.push_back(std::move(info));
  }
  return out;
}

std::vector<ExtensionInfo> ListPlugins(const std::filesystem::path& workspace) {
  std::vector<std::string> warnings;
  std::vector<ExtensionInfo> infos;
  for (auto& found : FindPlugins(workspace, &warnings)) {
    ExtensionInfo info;
    // Listed, not run: a confirmed plugin whose module passes the checks is
    // loaded when a session starts.
    if (const PluginManifest* m = Examine(found, &info)) {
      auto bytes = ReadBoundedFile(m->wasm, 64ull << 20, "plugin module");
      auto verified = bytes.ok() ? VerifyModule(*m, *bytes)
                                 : Result<std::shared_ptr<const wasm::Module>>(bytes.error());
      info.loaded = verified.ok();
      if (!verified.ok()) info.errors.push_back(verified.error().message);
    }
    infos.push_back(std::move(info));
  }
  for (auto& w : warnings)
    infos.push_back(
        NotLoaded(Tier::kPlugin, "plugin", "project plugins", "project", "untrusted", std::move(w)));
  return infos;
}

std::vector<std::unique_ptr<tools::Tool>> Plugins::MakeTools() const {
  std::vector<std::unique_ptr<tools::Tool>> tools;
  for (const auto& p : loaded_)
    for (const auto& t : p->tools()) tools.push_back(MakePluginTool(p, t));
  return tools;
}

}  // namespace sepp::ext::plugins
