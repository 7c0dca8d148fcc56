#include "base/file.h"

#include <cerrno>
#include <fcntl.h>
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
