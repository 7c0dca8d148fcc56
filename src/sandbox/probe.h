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
Status CheckEnforceable(const Policy& policy);

}  // namespace sepp::sandbox
