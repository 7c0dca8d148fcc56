// The host's processes as tests see them: a walk of /proc reading each
// command line with plain reads. A process can end between the walk and the
// read (its cmdline then fails with ESRCH); it is simply not there. (An
// ifstream read of it made libstdc++ throw from filebuf::underflow: a test
// that raced a process's end crashed instead of counting it gone.)
#pragma once
#include <dirent.h>
#include <fcntl.h>
#include <sys/types.h>
#include <unistd.h>

#include <cerrno>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sepp::testing_support {

// Every host process with its command line (NUL-separated, as in /proc).
inline std::vector<std::pair<pid_t, std::string>> HostCommandLines() {
  std::vector<std::pair<pid_t, std::string>> out;
  DIR* proc = ::opendir("/proc");
  if (!proc) return out;
  while (dirent* e = ::readdir(proc)) {
    std::string_view name = e->d_name;
    if (name.empty() || name.find_first_not_of("0123456789") != std::string_view::npos) continue;
    int fd = ::open(("/proc/" + std::string(name) + "/cmdline").c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) continue;
    std::string cmd;
    char buf[4096];
    for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) != 0;) {
      if (n < 0) {
        if (errno == EINTR) continue;
        break;  // ended meanwhile
      }
      cmd.append(buf, static_cast<size_t>(n));
    }
    ::close(fd);
    out.emplace_back(static_cast<pid_t>(std::stol(std::string(name))), std::move(cmd));
  }
  ::closedir(proc);
  return out;
}

// Host pids of the processes whose command line contains marker.
inline std::vector<pid_t> HostPidsWith(std::string_view marker) {
  std::vector<pid_t> out;
  for (const auto& [pid, cmd] : HostCommandLines())
    if (cmd.find(marker) != std::string::npos) out.push_back(pid);
  return out;
}

inline int HostProcessesWith(std::string_view marker) { return static_cast<int>(HostPidsWith(marker).size()); }

}  // namespace sepp::testing_support
