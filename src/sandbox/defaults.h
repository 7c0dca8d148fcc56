// The built-in policy for the bash tool: read the system and the workspace,
// write the workspace and a private /tmp, no network, the usual secret
// locations denied, environment limited to the basics, at most 1024
// processes and 4096 open files (the caller adds its time limit).
#pragma once
#include <filesystem>

#include "sandbox/policy.h"

namespace sepp::sandbox {

Policy DefaultToolPolicy(const std::filesystem::path& workspace);

}  // namespace sepp::sandbox
