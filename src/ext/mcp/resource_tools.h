// The MCP servers' resources for the model, as two tools for all servers
// together — mcp_list_resources {server?} and mcp_read_resource {server,
// uri} — rather than an @-mention: every front end (-p, RPC, ACP, the TUI,
// serve) gets them with no work of its own, the model can find a resource
// by itself, and the names cannot collide with a server's own tools
// (those are all mcp__SERVER__TOOL). Only servers that declare the
// resources capability count; with none, there are no resource tools.
#pragma once
#include <memory>
#include <vector>

#include "ext/mcp/servers.h"
#include "tools/tool.h"

namespace sepp::ext::mcp {

std::vector<std::unique_ptr<tools::Tool>> MakeResourceTools(const std::vector<std::shared_ptr<McpServer>>& servers);

}  // namespace sepp::ext::mcp
