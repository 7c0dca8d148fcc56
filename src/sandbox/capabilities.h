// Capabilities: what an extension (MCP server, plugin exec) declares and the
// user confirms, mapped onto the same Policy the launcher enforces.
//
//   FsRead  [paths]   read those paths (the system folders are always readable
//                     so that programs can run)
//   FsWrite [paths]   write (and read) those paths
//   Net     [domains] reach those domains through the proxy; ["*"] = host network
//   Env     [names]   receive those environment variables (secret-looking
//                     names included: granting them is the point)
//   Exec              start further processes (without it: one process only)
//
// Anything not granted is denied; secrets stay masked as in the defaults.
#pragma once
#include <filesystem>
#include <string>
#include <vector>

#include "sandbox/policy.h"

namespace sepp::sandbox {

enum class Capability { kFsRead, kFsWrite, kNet, kEnv, kExec };

struct CapabilityGrant {
  Capability capability;
  std::vector<std::string> scope;  // paths, domains or names; unused for kExec
};

// Relative paths are resolved against base_dir (the extension's folder or the
// workspace).
Policy PolicyFromCapabilities(const std::vector<CapabilityGrant>& grants,
                              const std::filesystem::path& base_dir);

const char* CapabilityName(Capability c);  // "FsRead", ...

}  // namespace sepp::sandbox
