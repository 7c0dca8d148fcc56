#include "base/fd.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

namespace sepp {

void UniqueFd::Reset(int fd) {
  if (fd_ >= 0) ::close(fd_);
  fd_ = fd;
}

Result<std::pair<UniqueFd, UniqueFd>> MakePipe() {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return Error::Make("pipe: " + ErrnoText(errno));
  return std::make_pair(UniqueFd(fds[0]), UniqueFd(fds[1]));
}

Status WriteAll(int fd, std::string_view data) {
  while (!data.empty()) {
    ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return Error::Make("write: " + ErrnoText(errno));
    }
    data.remove_prefix(static_cast<size_t>(n));
  }
  return Ok();
}

Result<std::string> ReadAll(int fd) {
  std::string out;
  char buf[65536];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      return Error::Make("read: " + ErrnoText(errno));
    }
    if (n == 0) return out;
    out.append(buf, static_cast<size_t>(n));
  }
}

std::string ErrnoText(int err) { return std::strerror(err); }

}  // namespace sepp
