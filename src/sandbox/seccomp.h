// The seccomp filter every sandboxed process runs under: default allow,
// EPERM for what a coding task never needs (the list and the reasons are in
// codegen/seccomp_filter_gen.cc). Compiled to BPF at build time
// and installed in the child with one prctl, so the child allocates nothing.
#pragma once
#include <linux/filter.h>

namespace sepp::sandbox {

// The compiled BPF program (for the architecture sepp was built for).
const sock_fprog* SeccompProgram();

// In the child, after no_new_privs. Returns 0 or errno.
int InstallSeccomp(const sock_fprog* prog);

// True if this kernel accepts seccomp filters.
bool SeccompAvailable();

}  // namespace sepp::sandbox
