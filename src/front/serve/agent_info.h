// GET /v1/agents' entry for an external agent: sandbox-agent's AgentInfo
// shape ({id, installed, credentialsAvailable, version, capabilities,
// serverStatus}) and what sepp adds: where it was found, the credentials it
// wants (by variable name and whether each is set; never a value), and what
// the agent last answered to initialize and session/new (its ACP
// capabilities, modes and models), with when; null until a client opened a
// connection to it (sepp does not start an agent to ask).
#pragma once
#include "base/json.h"
#include "front/serve/agent_catalog.h"

namespace sepp::front::serve {

// running: AcpHub::List() ({servers: [{serverId, agent, createdAtMs}]}).
Json ExternalAgentInfo(const AgentCatalog& catalog, const AgentSpec& spec, const Json& running);

}  // namespace sepp::front::serve
