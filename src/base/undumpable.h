// Keeps the provider keys sepp holds out of core files and out of reach of
// other processes of the same user.
#pragma once

namespace sepp {

// Makes this process undumpable (PR_SET_DUMPABLE 0: no core file, and its
// /proc/PID/environ, mem, maps, ... belong to root, so a same-uid process
// cannot read them or ptrace it) and sets the soft RLIMIT_CORE to 0, so no
// core is written even where the kernel dumps undumpable processes
// (fs.suid_dumpable=2). Both are inherited by forked children until they
// exec, and exec resets the dumpable flag: commands sepp runs get normal
// core dumps again, with the hard limit unchanged. Called first thing in
// main. Async-signal-safe; cannot fail in a way worth reporting.
void MakeProcessUndumpable();

}  // namespace sepp
