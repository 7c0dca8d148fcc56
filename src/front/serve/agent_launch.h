// Starting an external agent (agent_catalog.h) confined: a held child of
// the sandbox launcher (sandbox/held_child.h), pid 1 of its own namespaces,
// so killing it ends every process it started.
//
// Its policy is the agent's (the built-in default, examples/policies/ID.toml,
// or the settings' policy file) for the server's first workspace, plus:
//   - every other workspace of the server, read and write (a client picks
//     the session's folder after the process started; AcpHub keeps it
//     inside the workspaces);
//   - a private home, AgentsDataDir()/home/ID, read and write, as HOME
//     (the agent's config folders, ~/.claude or ~/.codex, are made in it);
//     the user's own home stays out of reach;
//   - its installation (the npm folder it lives in) read only;
//   - the settings' env ("NAME" passed, "NAME=value" set), credentials
//     (secrets passed, by name) and allow_domains (the egress proxy's list).
// Everything else of sepp's folder stays hidden (no read root shows it).
#pragma once
#include <filesystem>
#include <memory>
#include <vector>

#include "base/result.h"
#include "front/serve/agent_catalog.h"
#include "sandbox/held_child.h"
#include "sandbox/policy.h"

namespace sepp::front::serve {

// The policy the agent runs under for `workspace`; errors name the policy
// file and what is wrong with it.
Result<sandbox::Policy> AgentPolicy(const AgentSpec& spec, const AgentLocation& where,
                                    const std::filesystem::path& data_dir,
                                    const std::vector<std::filesystem::path>& workspaces);

// Starts it in workspaces[0] (not installed: kind "not_installed", saying
// how to install). unconfined: `--sandbox off`, the same environment
// without confinement.
Result<std::unique_ptr<sandbox::HeldChild>> LaunchAgent(
    const AgentCatalog& catalog, const AgentSpec& spec,
    const std::vector<std::filesystem::path>& workspaces, bool unconfined);

}  // namespace sepp::front::serve
