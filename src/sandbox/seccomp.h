// The seccomp filter every sandboxed process runs under: default allow,
// EPERM for what a coding task never needs (see seccomp.cc for the list and
// the reasons). Built once with libseccomp in the parent and installed in the
// child with one prctl, so the child allocates nothing.
#pragma once
#include <linux/filter.h>

#include <vector>

#include "base/result.h"

namespace sepp::sandbox {

// The compiled BPF program (for the running architecture). Cached.
Result<const sock_fprog*> SeccompProgram();

// In the child, after no_new_privs. Returns 0 or errno.
int InstallSeccomp(const sock_fprog* prog);

// True if this kernel accepts seccomp filters.
bool SeccompAvailable();

}  // namespace sepp::sandbox
