// `sepp serve install-agent NAME` and POST /v1/agents/{id}/install: the
// agent's npm package, at the version sepp pins, installed with npm into
// sepp's data folder (AgentsDataDir()/npm), where LocateAgent() looks
// first. npm runs as the user, unconfined: it needs the registry, and it
// only writes that folder. An agent already found (in the data folder or on
// PATH) is left as it is unless `reinstall`.
#pragma once
#include <filesystem>
#include <string>

#include "base/json.h"
#include "base/result.h"
#include "front/serve/agent_catalog.h"

namespace sepp::front::serve {

struct InstallRequest {
  bool reinstall = false;
  // Instead of PACKAGE@VERSION from the registry: a package folder or
  // tarball (offline installs, tests).
  std::string from;
  std::string npm = "npm";  // the program
};

// {already_installed, artifacts: [{kind: "npm", package, version, path}]}.
// Errors: kind "usage" (an agent from settings has no package: it is a
// command of yours), "io" (npm failed: its last lines of output).
Result<Json> InstallAgent(const AgentCatalog& catalog, const AgentSpec& spec, const InstallRequest& req);

}  // namespace sepp::front::serve
