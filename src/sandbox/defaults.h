// The built-in policy for the bash tool: read the system and the workspace,
// write the workspace and a private /tmp, no network, the usual secret
// locations denied, git's control files and .sepp/ read-only, environment
// limited to the basics, at most 1024 processes and 4096 open files (the
// caller adds its time limit).
#pragma once
#include <filesystem>
#include <string>
#include <vector>

#include "sandbox/policy.h"

namespace sepp::sandbox {

Policy DefaultToolPolicy(const std::filesystem::path& workspace);

// The secret locations every default policy denies, as docs/policy.md lists
// them (the tests compare the two): "~/" is the home folder, "**/NAME" a name
// anywhere in the workspace, "!**/NAME" an exemption (name_patterns.h).
// sepp's own folder (SeppHome()) is denied beside them.
const std::vector<std::string>& DefaultSecretEntries();

}  // namespace sepp::sandbox
