// What this machine's kernel offers the sandbox, and the fail-closed check
// that refuses a policy the kernel cannot enforce.
#pragma once
#include <string>
#include <vector>

#include "base/result.h"
#include "sandbox/policy.h"

namespace sepp::sandbox {

struct KernelSupport {
  std::string kernel;           // uname release
  int landlock_abi = 0;         // 0: unavailable
  bool namespaces = false;      // user+mount+pid+ipc+uts+net+cgroup
  std::string namespaces_why;   // when not
  bool seccomp = false;
  bool running_as_root = false;
  std::string pids_cgroup;      // where per-run pids cgroups go; empty: none
  std::vector<std::string> cgroup_controllers;  // v1 hierarchies and v2 controllers
};

KernelSupport ProbeKernel();

// Ok when the policy can be enforced here; otherwise an Error of kind
// "sandbox_unavailable" naming the missing feature and how to proceed.
// probe_namespaces: also clone a throw-away child to test namespace
// creation (the launcher skips it: its own clone reports the same failure).
Status CheckEnforceable(const Policy& policy, bool probe_namespaces = true);

// The message for a failed namespace clone (errno err), with what to do.
std::string NamespaceFailureMessage(int err);

}  // namespace sepp::sandbox
