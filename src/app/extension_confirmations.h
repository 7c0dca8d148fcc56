// The WebAssembly plugins and MCP servers a session could load but whose
// declared capabilities the user has not confirmed as they are now: handed
// to the runtime (runtime::ExtensionToConfirm), which asks through the
// permission gate when a front end answers and starts the confirmed ones.
#pragma once
#include <filesystem>
#include <vector>

#include "ext/mcp/config.h"
#include "ext/mcp/servers.h"
#include "runtime/agent_session.h"

namespace sepp::app {

// The plugins of ~/.sepp/plugins (and of a trusted project) with a valid
// manifest that are not confirmed for this manifest and binary.
std::vector<runtime::ExtensionToConfirm> PluginsToConfirm(const std::filesystem::path& workspace);

// The enabled servers of config that are not confirmed as they are now;
// start() starts one as McpServers::Start would (opts).
std::vector<runtime::ExtensionToConfirm> McpServersToConfirm(const ext::mcp::McpConfig& config,
                                                             const ext::mcp::StartOptions& opts);

}  // namespace sepp::app
