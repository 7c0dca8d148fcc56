// What every confined start builds from a policy in the parent before it
// clones — Run() for run-to-completion commands, HeldChild for long-lived
// servers, SessionSandbox for a session's tool worker — so that the three
// cannot drift apart: the refusal of what the kernel cannot enforce, the
// mount plan, the Landlock plan over it, the rlimits and the pids cgroup.
#pragma once
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "base/fd.h"
#include "base/result.h"
#include "sandbox/landlock.h"
#include "sandbox/limits.h"
#include "sandbox/mounts.h"
#include "sandbox/policy.h"

namespace sepp::sandbox {

struct Confinement {
  MountPlan mounts;
  LandlockPlan landlock;  // the mount plan's rules; TCP restricted unless the host network
  std::vector<RlimitSetting> rlimits;
  std::unique_ptr<PidsCgroup> cgroup;  // when the process limit needs one (as root)
};

// Fails closed: an error, and nothing started, when the policy asks for
// what this kernel cannot enforce or (proxy mode) its allowlist is invalid.
Result<Confinement> PrepareConfinement(const Policy& policy, const std::filesystem::path& cwd);

// Proxy mode: the channel over which the child hands its in-sandbox
// listener to the egress proxy. The proxy port joins Landlock's connect
// rules and the proxy variables join env; nothing else is reachable, so
// nothing bypasses the proxy (not even localhost). In the other modes:
// no channel, and nothing changes.
struct ProxyChannel {
  UniqueFd parent, child;
};
Result<ProxyChannel> OpenProxyChannel(const Policy& policy, LandlockPlan* landlock,
                                      std::vector<std::string>* env);

}  // namespace sepp::sandbox
