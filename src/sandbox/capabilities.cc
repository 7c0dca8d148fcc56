#include "sandbox/capabilities.h"

#include "base/paths.h"
#include "sandbox/defaults.h"

namespace sepp::sandbox {

const char* CapabilityName(Capability c) {
  switch (c) {
    case Capability::kFsRead: return "FsRead";
    case Capability::kFsWrite: return "FsWrite";
    case Capability::kNet: return "Net";
    case Capability::kEnv: return "Env";
    case Capability::kExec: return "Exec";
  }
  return "?";
}

Policy PolicyFromCapabilities(const std::vector<CapabilityGrant>& grants,
                              const std::filesystem::path& base_dir) {
  // Start from the tool defaults for the folder, then take away what was not
  // granted: no workspace, no writes, no network, no program but the
  // command itself. The task limit counts threads too (an interpreter such
  // as node runs a dozen), so it bounds a fork bomb, not the thread pool.
  Policy p = DefaultToolPolicy(base_dir);
  p.read_roots.pop_back();  // the workspace
  p.write_roots.clear();
  p.net = NetMode::kOff;
  p.exec_only.emplace();
  p.limits.max_processes = kTasksWithoutExec;
  auto resolve = [&](const std::string& raw) {
    if (!raw.empty() && raw[0] == '~') return ExpandUser(raw).lexically_normal().string();
    return ResolveAgainst(base_dir, raw).string();
  };
  for (const auto& g : grants) {
    switch (g.capability) {
      case Capability::kFsRead:
        for (const auto& s : g.scope) p.read_roots.push_back(resolve(s));
        break;
      case Capability::kFsWrite:
        for (const auto& s : g.scope) {
          p.read_roots.push_back(resolve(s));
          p.write_roots.push_back(resolve(s));
        }
        break;
      case Capability::kNet:
        for (const auto& s : g.scope) {
          if (s == "*") p.net = NetMode::kHost;
          else p.allow_domains.push_back(s);
        }
        if (p.net != NetMode::kHost && !p.allow_domains.empty()) p.net = NetMode::kProxy;
        break;
      case Capability::kEnv:
        for (const auto& s : g.scope) {
          p.env_allow.push_back(s);
          p.env_allow_secrets.push_back(s);
        }
        break;
      case Capability::kExec:
        for (const auto& s : g.scope) p.exec_only->push_back(s);
        p.limits.max_processes = kTasksWithExec;
        break;
    }
  }
  if (!p.env_allow.empty()) {
    // Granted names come on top of the basics.
    for (const char* basic : {"PATH", "HOME", "LANG", "TERM", "TZ"}) p.env_allow.push_back(basic);
  }
  return p;
}

}  // namespace sepp::sandbox
