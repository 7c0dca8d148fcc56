// Writer exclusion by flock(2). flock locks belong to the open file, not the
// process, so a second open in the same process conflicts too, and the kernel
// drops the lock when the holder exits or is killed: no stale lock files.
// POSIX record locks would tell the holder's pid directly, but they vanish
// when the process closes *any* descriptor of the file, which a reader in the
// same process would do; so we ask /proc/locks instead, by device and inode.
#include "session/writer_lock.h"

#include <cerrno>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "base/fd.h"

namespace sepp::session {

std::optional<long> FlockHolderPid(int fd) {
  struct stat st;
  if (::fstat(fd, &st) != 0) return std::nullopt;
  char want[64];
  std::snprintf(want, sizeof want, "%02x:%02x:%llu", major(st.st_dev), minor(st.st_dev),
                static_cast<unsigned long long>(st.st_ino));
  std::ifstream in("/proc/locks");
  std::string line;
  while (std::getline(in, line)) {
    // "1: FLOCK  ADVISORY  WRITE 1234 08:01:5678 0 EOF"; waiters have "->".
    std::istringstream words(line);
    std::string n, kind, mode, access, dev;
    long pid = 0;
    if (!(words >> n >> kind)) continue;
    if (kind != "FLOCK") continue;
    if (!(words >> mode >> access >> pid >> dev)) continue;
    if (dev == want) return pid;
  }
  return std::nullopt;
}

Status LockForWriting(int fd, const std::string& what) {
  for (;;) {
    if (::flock(fd, LOCK_EX | LOCK_NB) == 0) return Ok();
    if (errno == EINTR) continue;
    if (errno != EWOULDBLOCK)
      return Error::Make("could not lock " + what + ": " + ErrnoText(errno), "io");
    break;
  }
  std::string holder = "another process";
  if (auto pid = FlockHolderPid(fd)) {
    holder = (*pid == static_cast<long>(::getpid()) ? "this process (pid " : "another process (pid ") +
             std::to_string(*pid) + ")";
  }
  return Error::Make(what + " is open for writing by " + holder +
                         "; finish or close that one first (reading it is fine)",
                     "locked");
}

}  // namespace sepp::session
