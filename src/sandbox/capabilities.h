// Capabilities: what an extension (MCP server, plugin exec) declares and the
// user confirms, mapped onto the same Policy the launcher enforces.
//
//   FsRead  [paths]   read those paths (the system folders are always readable
//                     so that programs can run)
//   FsWrite [paths]   write (and read) those paths
//   Net     [domains] reach those domains through the proxy; ["*"] = host network
//   Env     [names]   receive those environment variables (secret-looking
//                     names included: granting them is the point)
//   Exec    [names]   start those programs (names in the child's PATH, or
//                     paths); without it no program but the command itself
//                     (Policy::exec_only, enforced by Landlock's execute right)
//
// Anything not granted is denied; secrets stay masked as in the defaults.
#pragma once
#include <filesystem>
#include <string>
#include <vector>

#include "sandbox/policy.h"

namespace sepp::sandbox {

// Task limits (threads count: an interpreter runs a pool of them).
inline constexpr uint64_t kTasksWithoutExec = 64;
inline constexpr uint64_t kTasksWithExec = 256;

enum class Capability { kFsRead, kFsWrite, kNet, kEnv, kExec };

struct CapabilityGrant {
  Capability capability;
  std::vector<std::string> scope;  // paths, domains, variable or program names
};

// Relative paths are resolved against base_dir (the extension's folder or the
// workspace).
Policy PolicyFromCapabilities(const std::vector<CapabilityGrant>& grants,
                              const std::filesystem::path& base_dir);

const char* CapabilityName(Capability c);  // "FsRead", ...

}  // namespace sepp::sandbox
