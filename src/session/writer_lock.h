// Internal to src/session: the exclusive writer lock both stores use.
#pragma once
#include <optional>
#include <string>

#include "base/result.h"

namespace sepp::session {

// Takes a non-blocking exclusive flock on fd (held until fd is closed). If
// another open file holds it, fails with kind "locked" and a message naming
// `what` ("session 0193…") and, when /proc/locks tells, the holder's pid.
Status LockForWriting(int fd, const std::string& what);

// The pid holding a flock on the file behind fd, from /proc/locks.
std::optional<long> FlockHolderPid(int fd);

}  // namespace sepp::session
