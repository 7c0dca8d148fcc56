#include "sandbox/confinement.h"

#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>

#include "sandbox/child_env.h"
#include "sandbox/probe.h"
#include "sandbox/proxy.h"

namespace sepp::sandbox {

Result<Confinement> PrepareConfinement(const Policy& policy, const std::filesystem::path& cwd) {
  if (auto s = CheckEnforceable(policy, /*probe_namespaces=*/false); !s.ok()) return s.error();
  if (policy.net == NetMode::kProxy)
    if (auto allow = NormalizeAllowlist(policy.allow_domains); !allow.ok()) return allow.error();
  auto mounts = BuildMountPlan(policy, cwd);
  if (!mounts.ok()) return mounts.error();
  Confinement c;
  c.mounts = std::move(*mounts);
  c.landlock.abi = LandlockAbi();
  c.landlock.rules = c.mounts.landlock;
  c.landlock.restrict_tcp = policy.net != NetMode::kHost;
  c.rlimits = BuildRlimits(policy.limits);
  if (policy.limits.max_processes > 0 && geteuid() == 0) {
    auto cg = PidsCgroup::Create(policy.limits.max_processes);
    if (!cg.ok()) return cg.error();
    c.cgroup = std::move(*cg);
  }
  return c;
}

Result<ProxyChannel> OpenProxyChannel(const Policy& policy, LandlockPlan* landlock,
                                      std::vector<std::string>* env) {
  if (policy.net != NetMode::kProxy) return ProxyChannel{};
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0)
    return Error::Make("socketpair: " + ErrnoText(errno));
  ProxyChannel ch;
  ch.parent.Reset(sv[0]);
  ch.child.Reset(sv[1]);
  landlock->connect_ports.push_back(kProxyPort);
  AddProxyEnv(policy, env);
  return ch;
}

}  // namespace sepp::sandbox
