#include "sandbox/workspace_scan.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>

namespace sepp::sandbox {
namespace {

struct Walker {
  const std::function<bool(std::string_view)>& match;
  const ScanLimits& limits;
  ScanResult result;
  size_t entries = 0;

  // dirfd is owned here. Breadth matters less than bounding: depth first,
  // one descriptor per level (at most max_depth + 1 open at once).
  void Walk(int dirfd, const std::string& path, int depth) {
    DIR* dir = fdopendir(dirfd);
    if (!dir) {
      close(dirfd);
      return;
    }
    while (dirent* e = readdir(dir)) {
      std::string_view name = e->d_name;
      if (name == "." || name == "..") continue;
      if (++entries > limits.max_entries) {
        result.truncated = true;
        break;
      }
      auto full = [&] { return path == "/" ? "/" + std::string(name) : path + "/" + std::string(name); };
      if (match(name)) result.matches.push_back(full());
      unsigned char type = e->d_type;
      if (type == DT_UNKNOWN) {
        struct stat st {};
        if (fstatat(dirfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
        type = S_ISDIR(st.st_mode) ? DT_DIR : DT_REG;
      }
      if (type != DT_DIR || name == ".git" || name == "node_modules") continue;
      if (depth >= limits.max_depth) {
        result.truncated = true;
        continue;
      }
      int sub = openat(dirfd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      if (sub >= 0) Walk(sub, full(), depth + 1);
    }
    closedir(dir);
  }
};

}  // namespace

ScanResult ScanWorkspace(const std::string& root,
                         const std::function<bool(std::string_view name)>& match,
                         const ScanLimits& limits) {
  Walker w{match, limits, {}};
  int fd = open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd >= 0) w.Walk(fd, root, 1);
  return std::move(w.result);
}

}  // namespace sepp::sandbox
