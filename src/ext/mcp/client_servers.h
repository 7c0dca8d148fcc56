// MCP servers that a front end's client gives for one session — ACP's
// session/new (and session/load) `mcpServers`, `sepp serve`'s
// POST /v1/sessions/{id} `mcp` — rather than the user's files.
//
// The client chose them, so sepp does not ask the user to confirm them
// (origin "client"); it confines them all the same, with defaults, since
// the client declares no capabilities: a stdio server may read the
// session's workspace (fs_read = ["./"]) and the system folders and its
// own program, and nothing else — no writing, no network, no other
// programs, an environment of only the values the client gave, the secret
// locations (~/.ssh, ~/.aws, ~/.sepp, …) masked. An HTTP server runs
// elsewhere: nothing to confine.
#pragma once
#include <string>
#include <vector>

#include "base/json.h"
#include "base/result.h"
#include "ext/capabilities.h"
#include "ext/mcp/config.h"

namespace sepp::ext::mcp {

// What a client's stdio server may do (above).
Capabilities ClientServerCapabilities();

// ACP v1's McpServer list: {name, command, args, env: [{name, value}]}
// (stdio; "type": "stdio" allowed) and {"type": "http", name, url,
// headers: [{name, value}]}; "sse" is refused (sepp speaks Streamable
// HTTP). Names become valid server names (other characters '_'); two of
// the same name are an error. Errors say which entry and what is wrong.
Result<std::vector<ServerConfig>> ParseAcpServers(const Json& servers);

// Marks servers as the client's (origin, source, the defaults above).
void AsClientServer(ServerConfig* server, const std::string& source);

}  // namespace sepp::ext::mcp
