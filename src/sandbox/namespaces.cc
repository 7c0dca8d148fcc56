#include "sandbox/namespaces.h"

#include <fcntl.h>
#include <linux/sched.h>
#include <net/if.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <string>

#include "base/fd.h"

namespace sepp::sandbox {
namespace {

Status WriteProcFile(pid_t pid, const char* name, const std::string& text) {
  std::string path = "/proc/" + std::to_string(pid) + "/" + name;
  int fd = open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return Error::Make("cannot open " + path + ": " + ErrnoText(errno), "sandbox_unavailable");
  UniqueFd f(fd);
  if (write(fd, text.data(), text.size()) != static_cast<ssize_t>(text.size()))
    return Error::Make("cannot write " + path + ": " + ErrnoText(errno), "sandbox_unavailable");
  return Ok();
}

}  // namespace

unsigned long SandboxCloneFlags() {
  return CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWUTS |
         CLONE_NEWNET | CLONE_NEWCGROUP;
}

Status WriteIdMaps(pid_t child) {
  uid_t uid = geteuid();
  gid_t gid = getegid();
  if (auto s = WriteProcFile(child, "setgroups", "deny"); !s.ok()) return s;
  if (auto s = WriteProcFile(child, "uid_map", std::to_string(uid) + " " + std::to_string(uid) + " 1\n");
      !s.ok())
    return s;
  return WriteProcFile(child, "gid_map", std::to_string(gid) + " " + std::to_string(gid) + " 1\n");
}

int SetUpUts() {
  if (sethostname("sepp", 4) != 0) return errno;
  return 0;
}

int BringUpLoopback() {
  int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (s < 0) return errno;
  ifreq ifr{};
  memcpy(ifr.ifr_name, "lo", 3);
  int rc = ioctl(s, SIOCGIFFLAGS, &ifr);
  if (rc == 0) {
    ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
    rc = ioctl(s, SIOCSIFFLAGS, &ifr);
  }
  int err = errno;
  close(s);
  return rc == 0 ? 0 : err;
}

bool NamespacesAvailable(std::string* why) {
  static std::string cached_why;
  static const bool ok = [] {
    long pid = syscall(SYS_clone, SandboxCloneFlags() | SIGCHLD, nullptr, nullptr, nullptr, 0);
    if (pid == 0) _exit(0);
    if (pid < 0) {
      cached_why = std::string("creating user, mount, pid, ipc, uts and network namespaces failed: ") +
                   ErrnoText(errno) +
                   " (enable unprivileged user namespaces: sysctl kernel.unprivileged_userns_clone=1"
                   " or user.max_user_namespaces > 0, or an AppArmor profile that allows them)";
      return false;
    }
    int status = 0;
    while (waitpid(static_cast<pid_t>(pid), &status, 0) < 0 && errno == EINTR) {
    }
    return true;
  }();
  if (!ok && why) *why = cached_why;
  return ok;
}

}  // namespace sepp::sandbox
