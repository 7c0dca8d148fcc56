#include "base/file.h"

#include <cerrno>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fd.h"
#include "base/ids.h"

namespace sepp {

Result<std::string> ReadFile(const std::filesystem::path& path) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) return Error::Make(path.string() + ": " + ErrnoText(errno), "io");
  auto data = ReadAll(fd.get());
  if (!data.ok()) return Error::Make(path.string() + ": " + data.error().message, "io");
  return data;
}

namespace {

std::string Size(uint64_t bytes) {
  if (bytes >= (1ull << 20)) return std::to_string(bytes >> 20) + " MiB";
  if (bytes >= 1024) return std::to_string(bytes >> 10) + " KiB";
  return std::to_string(bytes) + " bytes";
}

const char* Kind(mode_t mode) {
  if (S_ISDIR(mode)) return "a folder";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

}  // namespace

Result<std::string> ReadBoundedFd(int fd, const std::filesystem::path& path, uint64_t max_bytes,
                                  std::string_view what) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) return Error::Make(path.string() + ": " + ErrnoText(errno), "io");
  std::string w(what);
  if (!S_ISREG(st.st_mode))
    return Error::Make(path.string() + " is " + Kind(st.st_mode) + ", not a regular file; sepp reads " + w +
                           " only from a regular file",
                       "io");
  auto too_big = [&] {
    return Error::Make(path.string() + " is larger than " + Size(max_bytes) + ", the limit for " + w +
                           "; shorten it or point sepp at the right file",
                       "io");
  };
  if (static_cast<uint64_t>(st.st_size) > max_bytes) return too_big();
  std::string out;
  out.reserve(static_cast<size_t>(st.st_size));
  char buf[65536];
  for (;;) {  // bounded again while reading: the file may grow meanwhile
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      return Error::Make(path.string() + ": " + ErrnoText(errno), "io");
    }
    if (n == 0) return out;
    if (out.size() + static_cast<size_t>(n) > max_bytes) return too_big();
    out.append(buf, static_cast<size_t>(n));
  }
}

Result<std::string> ReadBoundedFile(const std::filesystem::path& path, uint64_t max_bytes,
                                    std::string_view what) {
  // O_NONBLOCK: opening a FIFO must not wait for a writer before the check.
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY));
  if (!fd.valid()) return Error::Make(path.string() + ": " + ErrnoText(errno), "io");
  return ReadBoundedFd(fd.get(), path, max_bytes, what);
}

Status WriteFileAtomic(const std::filesystem::path& path, std::string_view data, int mode) {
  std::error_code ec;
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path(), ec);
  std::filesystem::path tmp = path;
  tmp += ".tmp-" + NewId();
  UniqueFd fd(::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode));
  if (!fd.valid()) return Error::Make(tmp.string() + ": " + ErrnoText(errno), "io");
  if (auto st = WriteAll(fd.get(), data); !st.ok()) {
    ::unlink(tmp.c_str());
    return Error::Make(path.string() + ": " + st.error().message, "io");
  }
  if (::fsync(fd.get()) != 0 || ::rename(tmp.c_str(), path.c_str()) != 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    return Error::Make(path.string() + ": " + ErrnoText(err), "io");
  }
  return Ok();
}

}  // namespace sepp
