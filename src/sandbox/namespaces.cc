#include "sandbox/namespaces.h"

#include <fcntl.h>
#include <linux/sched.h>
#include <net/if.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <string>

#include "base/fd.h"

namespace sepp::sandbox {
namespace {

// One write of the whole text, as /proc/PID/{uid,gid}_map require.
int WriteSelfFile(const char* path, const char* text) {
  int fd = open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return errno;
  size_t n = strlen(text);
  int err = write(fd, text, n) == static_cast<ssize_t>(n) ? 0 : errno;
  close(fd);
  return err;
}

}  // namespace

unsigned long SandboxCloneFlags() {
  return CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWUTS |
         CLONE_NEWNET | CLONE_NEWCGROUP;
}

IdMaps OwnIdMaps() {
  IdMaps m;
  unsigned uid = geteuid(), gid = getegid();
  snprintf(m.uid_map, sizeof m.uid_map, "%u %u 1\n", uid, uid);
  snprintf(m.gid_map, sizeof m.gid_map, "%u %u 1\n", gid, gid);
  return m;
}

int WriteOwnIdMaps(const IdMaps& maps) {
  // sepp is undumpable (base/undumpable.h), and the /proc files of an
  // undumpable process belong to root: as a normal user this process could
  // not open its own maps. It is dumpable for these three writes only (with
  // CLONE_VM the flag is sepp's too; sepp is suspended in vfork meanwhile).
  int dumpable = prctl(PR_GET_DUMPABLE, 0, 0, 0, 0);
  if (dumpable == 0) prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
  int e = WriteSelfFile("/proc/self/setgroups", "deny");
  if (!e) e = WriteSelfFile("/proc/self/uid_map", maps.uid_map);
  if (!e) e = WriteSelfFile("/proc/self/gid_map", maps.gid_map);
  if (dumpable == 0) prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
  return e;
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
