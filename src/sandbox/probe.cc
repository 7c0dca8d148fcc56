#include "sandbox/probe.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "base/fd.h"
#include "base/file.h"
#include "sandbox/landlock.h"
#include "sandbox/limits.h"
#include "sandbox/namespaces.h"
#include "sandbox/seccomp.h"

namespace sepp::sandbox {
namespace {

std::vector<std::string> CgroupControllers() {
  std::vector<std::string> out;
  std::ifstream mi("/proc/self/mountinfo");
  std::string line;
  while (std::getline(mi, line)) {
    size_t dash = line.find(" - ");
    if (dash == std::string::npos) continue;
    std::stringstream rest(line.substr(dash + 3));
    std::string type, source, opts;
    rest >> type >> source >> opts;
    std::stringstream head(line);
    std::string f[5];
    for (auto& x : f) head >> x;
    if (type == "cgroup") {
      std::stringstream o(opts);
      std::string c;
      while (std::getline(o, c, ','))
        if (c != "rw" && c != "ro" && c.find('=') == std::string::npos && c != "relatime" &&
            c != "nosuid" && c != "nodev" && c != "noexec")
          out.push_back(c + " (v1)");
    } else if (type == "cgroup2") {
      auto ctl = ReadFile(f[4] + "/cgroup.controllers");
      if (ctl.ok()) {
        std::stringstream o(*ctl);
        std::string c;
        while (o >> c) out.push_back(c + " (v2)");
      }
    }
  }
  return out;
}

const char kHowToProceed[] =
    " To run anyway, widen or relax the policy, or run unconfined explicitly with "
    "`--sandbox off` (not recommended).";

}  // namespace

KernelSupport ProbeKernel() {
  KernelSupport k;
  utsname u{};
  if (uname(&u) == 0) k.kernel = u.release;
  k.landlock_abi = LandlockAbi();
  k.namespaces = NamespacesAvailable(&k.namespaces_why);
  k.seccomp = SeccompAvailable();
  k.running_as_root = geteuid() == 0;
  k.pids_cgroup = PidsCgroupParent();
  k.cgroup_controllers = CgroupControllers();
  return k;
}

std::string NamespaceFailureMessage(int err) {
  return "sepp refuses to run the command: the kernel does not allow the sandbox's namespaces "
         "(creating user, mount, pid, ipc, uts and network namespaces failed: " +
         ErrnoText(err) +
         "). Enable unprivileged user namespaces (sysctl user.max_user_namespaces > 0; on "
         "Debian kernel.unprivileged_userns_clone = 1; on Ubuntu an AppArmor profile that "
         "allows them)." + std::string(kHowToProceed);
}

Status CheckEnforceable(const Policy& policy, bool probe_namespaces) {
  if (!policy.enabled) return Ok();
  std::string why;
  if (probe_namespaces && !NamespacesAvailable(&why))
    return Error::Make("sepp refuses to run the command: the kernel does not allow the sandbox's "
                       "namespaces. " + why + "." + kHowToProceed,
                       "sandbox_unavailable");
  if (!SeccompAvailable())
    return Error::Make("sepp refuses to run the command: this kernel has no seccomp filter "
                       "support (CONFIG_SECCOMP_FILTER)." + std::string(kHowToProceed),
                       "sandbox_unavailable");
  if (LandlockAbi() < 1)
    return Error::Make("sepp refuses to run the command: Landlock is not enabled in this kernel "
                       "(add landlock to the lsm= boot parameter; kernel 5.13 or newer)." +
                           std::string(kHowToProceed),
                       "sandbox_unavailable");
  if (policy.limits.max_processes > 0 && !ProcessLimitEnforceable())
    return Error::Make("sepp refuses to run the command: the policy limits processes to " +
                           std::to_string(policy.limits.max_processes) +
                           ", but sepp runs as root (RLIMIT_NPROC does not bind uid 0) and no "
                           "writable pids cgroup controller was found. Run sepp as a normal "
                           "user, delegate a pids cgroup, or set limits.processes = 0." +
                           kHowToProceed,
                       "sandbox_unavailable");
  if (policy.net == NetMode::kProxy && LandlockAbi() < 4)
    return Error::Make("sepp refuses to run the command: network proxy mode needs Landlock ABI 4 "
                       "(kernel 6.7) to confine TCP to the proxy; this kernel has ABI " +
                           std::to_string(LandlockAbi()) + "." + kHowToProceed,
                       "sandbox_unavailable");
  return Ok();
}

}  // namespace sepp::sandbox
