// A session's MCP servers (docs/mcp.md), for every front end: the
// configured ones for its workspace and those its client gave
// (ext/mcp/client_servers.h), started confined; their tools and their
// prompts (as /mcp__SERVER__PROMPT) join the session's, and follow the
// servers' list_changed while it runs.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "base/result.h"
#include "ext/mcp/config.h"
#include "runtime/agent_session.h"

namespace sepp::app {

// so->cwd and so->policy.enabled (off: unconfined) must be set. A client's
// server replaces a configured one of the same name. A broken user
// configuration is an error (kind "usage"); a server that cannot start, or
// is not confirmed, is a warning.
Status AddMcpServers(runtime::SessionOptions* so, std::vector<ext::mcp::ServerConfig> given,
                     const std::function<void(const std::string&)>& warn);

// The session's WebAssembly plugins (docs/plugins.md), for every front end
// too: the confirmed ones' tools join the session's beside the MCP
// servers'; the unconfirmed are asked about at the first prompt
// (app/extension_confirmations.h). One that is not loaded is a warning.
void AddPlugins(runtime::SessionOptions* so, const std::function<void(const std::string&)>& warn);

}  // namespace sepp::app
