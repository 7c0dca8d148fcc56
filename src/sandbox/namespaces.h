// Namespaces: the child is cloned into new user, mount, pid, ipc, uts,
// cgroup and network namespaces. It is pid 1 of its pid namespace, so when it
// exits (or is killed) the kernel kills every process it left behind.
#pragma once
#include <sys/types.h>

#include "base/result.h"

namespace sepp::sandbox {

// clone() flags for a confined child (without the exit signal).
unsigned long SandboxCloneFlags();

// The child's uid and gid maps: sepp's own ids onto themselves (one id
// each; setgroups denied), so files it writes belong to the user and it
// holds no capability outside its namespace. A single line mapping one's
// own ids needs no privilege, so the child writes them itself: the parent
// (suspended in vfork) has nothing to do between clone and exec.
struct IdMaps {
  char uid_map[32] = {};  // "UID UID 1\n"
  char gid_map[32] = {};
};
IdMaps OwnIdMaps();                       // parent: the text to write
int WriteOwnIdMaps(const IdMaps& maps);  // child: 0 or errno (async-signal-safe)

// Child side: sets the host name; brings up loopback in the new network
// namespace (only needed when something must listen inside: the proxy's
// listener). 0 or errno.
int SetUpUts();
int BringUpLoopback();

// Whether this kernel lets sepp create all of the namespaces above (probed
// once by cloning a child that exits at once). On failure, *why says which.
bool NamespacesAvailable(std::string* why);

}  // namespace sepp::sandbox
