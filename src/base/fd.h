// File descriptors and whole-buffer I/O on them.
#pragma once
#include <string>
#include <string_view>
#include <utility>

#include "base/result.h"

namespace sepp {

// Owns a file descriptor; closes it on destruction.
class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  ~UniqueFd() { Reset(); }
  UniqueFd(UniqueFd&& o) noexcept : fd_(std::exchange(o.fd_, -1)) {}
  UniqueFd& operator=(UniqueFd&& o) noexcept {
    if (this != &o) {
      Reset();
      fd_ = std::exchange(o.fd_, -1);
    }
    return *this;
  }
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;

  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  int release() { return std::exchange(fd_, -1); }
  void Reset(int fd = -1);

 private:
  int fd_ = -1;
};

// A close-on-exec pipe: [0] read end, [1] write end.
Result<std::pair<UniqueFd, UniqueFd>> MakePipe();

// Writes all of data, retrying on EINTR and short writes.
Status WriteAll(int fd, std::string_view data);

// Reads until EOF.
Result<std::string> ReadAll(int fd);

// errno as text: "No such file or directory".
std::string ErrnoText(int err);

}  // namespace sepp
