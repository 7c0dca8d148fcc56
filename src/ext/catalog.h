// The catalog behind `sepp ext list`: every extension of every tier that a
// working directory would load, in the one ExtensionInfo shape.
//
// Each tier's loader contributes one function (a line in kContributors in
// catalog.cc): it reports what it finds, loaded or not, with its errors,
// and must not run extension code to do so.
#pragma once
#include <filesystem>
#include <vector>

#include "ext/extension_info.h"

namespace sepp::ext {

using CatalogContributor = std::vector<ExtensionInfo> (*)(const std::filesystem::path& cwd);

// Tier 1: skills and prompt templates (resources.h).
std::vector<ExtensionInfo> ResourceExtensions(const std::filesystem::path& cwd);

// Tier 1: the theme files of SeppHome()/themes, each parsed (themes/theme_file.h).
std::vector<ExtensionInfo> ThemeExtensions(const std::filesystem::path& cwd);

// Tier 2: Lua hooks and hooks.json commands, listed without running them
// (hook_loader.h), with whether the project's are trusted.
std::vector<ExtensionInfo> HookExtensions(const std::filesystem::path& cwd);

// Tier 4: the configured MCP servers, described without starting them
// (mcp/servers.h); a broken configuration file is one entry with its error.
std::vector<ExtensionInfo> McpExtensions(const std::filesystem::path& cwd);

// Every contributor's extensions, by tier, in its order.
std::vector<ExtensionInfo> ListExtensions(const std::filesystem::path& cwd);

}  // namespace sepp::ext
