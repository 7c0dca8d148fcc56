#include "app/extension_confirmations.h"

#include "base/file.h"
#include "ext/capabilities.h"
#include "ext/plugins/plugins.h"

namespace sepp::app {

using ToolList = std::vector<std::unique_ptr<tools::Tool>>;

std::vector<runtime::ExtensionToConfirm> PluginsToConfirm(const std::filesystem::path& workspace) {
  std::vector<runtime::ExtensionToConfirm> out;
  std::vector<std::string> warnings;  // said already when the plugins were loaded
  for (auto& found : ext::plugins::FindPlugins(workspace, &warnings)) {
    if (!found.manifest.ok()) continue;
    const ext::plugins::PluginManifest& m = *found.manifest;
    std::string name = ext::plugins::ConfirmName(m.name), key = ext::plugins::ConfirmKey(m);
    ext::ConfirmState state = ext::ConfirmationOf(name, key);
    if (state == ext::ConfirmState::kConfirmed) continue;
    runtime::ExtensionToConfirm x;
    x.name = m.name;
    x.kind = "plugin";
    x.confirm_name = name;
    x.key = key;
    x.changed = state == ext::ConfirmState::kChanged;
    x.source = m.wasm.string();
    x.sha256 = m.sha256;
    x.capabilities = ext::Describe(m.capabilities);
    // The module is checked against the manifest's sha256 when it loads, so
    // what starts is what was confirmed.
    x.start = [m, workspace]() -> Result<ToolList> {
      auto bytes = ReadBoundedFile(m.wasm, 64ull << 20, "plugin module");
      if (!bytes.ok()) return bytes.error();
      auto plugin = ext::plugins::Plugin::Load(m, *bytes, workspace);
      if (!plugin.ok()) return plugin.error();
      ToolList tools;
      for (const auto& t : (*plugin)->tools()) tools.push_back(ext::plugins::MakePluginTool(*plugin, t));
      return tools;
    };
    out.push_back(std::move(x));
  }
  return out;
}

std::vector<runtime::ExtensionToConfirm> McpServersToConfirm(const ext::mcp::McpConfig& config,
                                                             const ext::mcp::StartOptions& opts) {
  std::vector<runtime::ExtensionToConfirm> out;
  for (const auto& s : config.servers) {
    if (!s.enabled) continue;
    std::string key = ext::CapabilityKey(s.name, s.Runs(), s.capabilities);
    ext::ConfirmState state = ext::ConfirmationOf(s.name, key);
    if (state == ext::ConfirmState::kConfirmed) continue;
    runtime::ExtensionToConfirm x;
    x.name = s.name;
    x.kind = "mcp-server";
    x.confirm_name = s.name;
    x.key = key;
    x.changed = state == ext::ConfirmState::kChanged;
    x.source = s.source.string();
    x.sha256 = key;
    x.runs = s.Runs();
    x.capabilities = ext::Describe(s.capabilities);
    x.start = [s, opts]() -> Result<ToolList> {
      auto server = ext::mcp::StartServer(s, opts);
      if (!server.ok()) return server.error();
      ToolList tools;
      for (auto& t : (*server)->Tools())
        if (s.ToolEnabled(t.name)) tools.push_back(ext::mcp::MakeMcpTool(*server, std::move(t)));
      return tools;
    };
    out.push_back(std::move(x));
  }
  return out;
}

}  // namespace sepp::app
