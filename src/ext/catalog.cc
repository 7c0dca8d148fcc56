#include "ext/catalog.h"

#include <algorithm>

#include "base/paths.h"
#include "ext/hook_loader.h"
#include "ext/mcp/config.h"
#include "ext/mcp/servers.h"
#include "ext/plugins/plugins.h"
#include "ext/resources.h"
#include "ext/themes/theme_file.h"

namespace sepp::ext {
namespace {

// One line per tier's loader.
constexpr CatalogContributor kContributors[] = {
    &ResourceExtensions,  // tier 1: skills, prompt templates
    &ThemeExtensions,     // tier 1: themes
    &HookExtensions,      // tier 2: Lua hooks, hooks.json
    &plugins::ListPlugins,  // tier 3: WebAssembly plugins
    &McpExtensions,       // tier 4: MCP servers
};

}  // namespace

std::vector<ExtensionInfo> ResourceExtensions(const std::filesystem::path& cwd) {
  return LoadResources(cwd).infos;
}

std::vector<ExtensionInfo> ThemeExtensions(const std::filesystem::path&) {
  std::vector<ExtensionInfo> infos;
  const std::filesystem::path dir = SeppHome() / "themes";
  for (const std::string& name : themes::ListThemes(dir)) {
    ExtensionInfo info;
    info.name = name;
    info.tier = Tier::kResource;
    info.kind = "theme";
    info.source = dir / (name + ".json");
    info.scope = "user";
    info.may = {"colours the terminal UI (data only)"};
    info.trust = "not needed (data)";
    auto file = themes::LoadTheme(dir, name);
    info.loaded = file.ok();
    if (!file.ok()) info.errors.push_back(file.error().message);
    infos.push_back(std::move(info));
  }
  return infos;
}

std::vector<ExtensionInfo> HookExtensions(const std::filesystem::path& cwd) {
  HookSources sources;
  sources.cwd = cwd;
  return ListHooks(sources);
}

std::vector<ExtensionInfo> McpExtensions(const std::filesystem::path& cwd) {
  std::vector<ExtensionInfo> infos;
  auto config = mcp::LoadMcpConfig(cwd);
  if (!config.ok()) {
    ExtensionInfo broken = NotLoaded(Tier::kMcpServer, "mcp-server", "mcp configuration", "user",
                                     "-", config.error().message);
    broken.source = mcp::UserMcpFile();
    infos.push_back(std::move(broken));
    return infos;
  }
  // Listed, not started: "loaded" here means a session in cwd starts it.
  for (const auto& server : config->servers) {
    ExtensionInfo info = mcp::DescribeServer(server);
    info.loaded = info.errors.empty();
    infos.push_back(std::move(info));
  }
  for (const auto& w : config->warnings)
    infos.push_back(NotLoaded(Tier::kMcpServer, "mcp-server", "mcp configuration", "project", "-", w));
  return infos;
}

std::vector<ExtensionInfo> ListExtensions(const std::filesystem::path& cwd) {
  std::vector<ExtensionInfo> all;
  for (CatalogContributor c : kContributors) {
    std::vector<ExtensionInfo> part = c(cwd);
    all.insert(all.end(), std::make_move_iterator(part.begin()), std::make_move_iterator(part.end()));
  }
  std::stable_sort(all.begin(), all.end(), [](const ExtensionInfo& a, const ExtensionInfo& b) {
    return static_cast<int>(a.tier) < static_cast<int>(b.tier);
  });
  return all;
}

}  // namespace sepp::ext
