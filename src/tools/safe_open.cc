#include "tools/safe_open.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <functional>

namespace sepp::tools {
namespace fs = std::filesystem;
namespace {

std::string KindText(mode_t mode) {
  if (S_ISDIR(mode)) return "is a directory, not a file";
  return "is not a regular file (a device, pipe or socket); refusing to open it";
}

}  // namespace

Result<UniqueFd> OpenRegularFile(const fs::path& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) {
    int e = errno;
    return Error::Make(ErrnoText(e), e == ENOENT || e == ENOTDIR ? "not_found" : "");
  }
  if (!S_ISREG(st.st_mode)) return Error::Make(KindText(st.st_mode), "not_regular");
  // O_NONBLOCK: if the file was swapped for a FIFO since the stat, the open
  // returns at once instead of waiting for a writer.
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY));
  if (!fd.valid()) {
    int e = errno;
    return Error::Make(ErrnoText(e), e == ENOENT || e == ENOTDIR ? "not_found" : "");
  }
  if (::fstat(fd.get(), &st) != 0) return Error::Make(ErrnoText(errno));
  if (!S_ISREG(st.st_mode)) return Error::Make(KindText(st.st_mode), "not_regular");
  int flags = fcntl(fd.get(), F_GETFL);
  if (flags >= 0) fcntl(fd.get(), F_SETFL, flags & ~O_NONBLOCK);
  return fd;
}

Result<std::string> ReadRegularFile(const fs::path& path, size_t max_bytes) {
  auto fd = OpenRegularFile(path);
  if (!fd.ok()) return fd.error();
  struct stat st;
  if (::fstat(fd->get(), &st) != 0) return Error::Make(ErrnoText(errno));
  if (static_cast<uint64_t>(st.st_size) > max_bytes)
    return Error::Make("it is " + std::to_string(st.st_size) + " bytes, over the limit of " +
                           std::to_string(max_bytes),
                       "too_large");
  std::string out;
  char buf[65536];
  for (;;) {
    ssize_t r = ::read(fd->get(), buf, sizeof buf);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return Error::Make(ErrnoText(errno));
    if (r == 0) break;
    if (out.size() + static_cast<size_t>(r) > max_bytes)  // it grew while we read
      return Error::Make("it grew past the limit of " + std::to_string(max_bytes) +
                             " bytes while being read",
                         "too_large");
    out.append(buf, static_cast<size_t>(r));
  }
  return out;
}

std::string ReadPrefix(int fd, size_t n) {
  std::string out(n, '\0');
  size_t got = 0;
  while (got < n) {
    ssize_t r = ::pread(fd, out.data() + got, n - got, static_cast<off_t>(got));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    got += static_cast<size_t>(r);
  }
  out.resize(got);
  return out;
}

bool ReadBoundedLine(std::FILE* f, size_t keep, std::string* line, uint64_t* full_bytes) {
  line->clear();
  *full_bytes = 0;
  int c = getc_unlocked(f);
  if (c == EOF) return false;
  // Byte by byte through stdio's buffer (NUL bytes included, which fgets
  // could not tell from the end of its buffer).
  for (; c != EOF && c != '\n'; c = getc_unlocked(f)) {
    ++*full_bytes;
    if (line->size() < keep) line->push_back(static_cast<char>(c));
  }
  return true;
}

std::unique_lock<std::mutex> LockFileForUpdate(const fs::path& path) {
  // Striped: a fixed set of locks, so nothing grows with the files touched;
  // two files that share a stripe only wait for each other.
  static std::array<std::mutex, 64> stripes;
  std::error_code ec;
  fs::path key = fs::weakly_canonical(path, ec);
  if (ec) key = path.lexically_normal();
  return std::unique_lock<std::mutex>(stripes[std::hash<std::string>{}(key.string()) %
                                              stripes.size()]);
}

}  // namespace sepp::tools
