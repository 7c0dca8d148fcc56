// Plugins: the WebAssembly plugins of one sepp run (tier 3,
// docs/plugins.md), loaded when confirmed, their tools registered as
// `plugin__NAME__TOOL`.
//
// A plugin loads only when the user has confirmed its capabilities for this
// very binary and manifest: the confirmation key (ext/capabilities.h) covers
// the name, the .wasm's sha256, the limits and the declaration, so a rebuilt
// binary or a changed declaration asks again. Unconfirmed, refused (imports
// beyond its grants, a hash that does not match) or broken plugins are not
// loaded and are reported as ExtensionInfo with the reason.
#pragma once
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "ext/extension_info.h"
#include "ext/plugins/manifest.h"
#include "ext/plugins/plugin.h"
#include "tools/tool.h"

namespace sepp::ext::plugins {

// The name a plugin's confirmation is recorded under (apart from MCP
// servers of the same name): "plugin:NAME".
std::string ConfirmName(const std::string& plugin);
// The confirmation key of a manifest whose .wasm has hash sha256 (the
// manifest's own field is what is checked against the file).
std::string ConfirmKey(const PluginManifest& manifest);

// "plugin__" + plugin + "__" + tool, cut to 64 characters.
std::string ToolName(const std::string& plugin, const std::string& tool);
std::unique_ptr<tools::Tool> MakePluginTool(std::shared_ptr<Plugin> plugin, PluginToolInfo info);

// The plugins as `sepp ext list` shows them, without running any of them.
std::vector<ExtensionInfo> ListPlugins(const std::filesystem::path& workspace);

class Plugins {
 public:
  // Finds, checks and loads every confirmed plugin; never fails as a whole.
  // warnings: lines for stderr (skipped folders, untrusted projects).
  static std::unique_ptr<Plugins> Load(const std::filesystem::path& workspace,
                                       std::vector<std::string>* warnings);

  std::vector<std::unique_ptr<tools::Tool>> MakeTools() const;
  const std::vector<ExtensionInfo>& infos() const { return infos_; }
  const std::vector<std::shared_ptr<Plugin>>& loaded() const { return loaded_; }

 private:
  std::vector<std::shared_ptr<Plugin>> loaded_;
  std::vector<ExtensionInfo> infos_;
};

}  // namespace sepp::ext::plugins
