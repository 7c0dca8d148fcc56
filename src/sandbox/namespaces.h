// Namespaces: the child is cloned into new user, mount, pid, ipc, uts,
// cgroup and network namespaces. It is pid 1 of its pid namespace, so when it
// exits (or is killed) the kernel kills every process it left behind.
#pragma once
#include <sys/types.h>

#include "base/result.h"

namespace sepp::sandbox {

// clone() flags for a confined child (without the exit signal).
unsigned long SandboxCloneFlags();

// Parent side, after clone: map the child's uid and gid to sepp's own (one
// id each; setgroups denied), so files it writes belong to the user and it
// holds no capability outside its namespace.
Status WriteIdMaps(pid_t child);

// Child side: sets the host name and brings up loopback in the new network
// namespace (only needed when something must listen inside). 0 or errno.
int SetUpUts();
int BringUpLoopback();

// Whether this kernel lets sepp create all of the namespaces above (probed
// once by cloning a child that exits at once). On failure, *why says which.
bool NamespacesAvailable(std::string* why);

}  // namespace sepp::sandbox
