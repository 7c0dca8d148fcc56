// Asking the user, through the permission gate, whether an untrusted
// project's own code may run (issue 11).
//
// A project folder can carry code: Lua hooks, hooks.json commands, plugins,
// MCP server configurations (base/project_trust.h, HasProjectCode). None of
// it runs until the user trusts the project as its files are now. A session
// with a front end that answers (rpc, acp, tui, serve) asks once, at its
// first prompt: a request of kind project_trust that lists every keyed file
// with its SHA-256 and offers allow / deny. Allow records the content-keyed
// trust (what `sepp trust` records); deny, or no answer within the gate's
// timeout, records the refusal for `sepp ext list` and nothing runs. The
// session goes on either way. Headless runs never ask: `--trust` or the
// stderr note of the loaders.
#pragma once
#include <string>

#include "agent/permission_gate.h"
#include "base/project_trust.h"

namespace sepp::runtime {

// Whether a session in config's project should ask: it has code the session
// would run (hooks; with extensions, plugins and MCP servers too), it is not
// trusted as it is now, and its content could be read whole.
bool ProjectTrustNeeded(const ProjectConfig& config, bool extensions);

// The gate's request for config: every keyed file, its hash and what it is.
agent::PermissionRequest ProjectTrustRequest(const ProjectConfig& config);

struct ProjectTrustOutcome {
  bool trusted = false;
  std::string note;  // for the session's warning sink: what happened and what to do
};

// Records the answer for the content that was asked about. An allow whose
// files changed while the question was open trusts nothing (the user saw
// other content): the next session asks again.
ProjectTrustOutcome SettleProjectTrust(const ProjectConfig& asked,
                                       const agent::PermissionAnswer& answer);

}  // namespace sepp::runtime
