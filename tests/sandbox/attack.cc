// sandbox_attack: one attack per invocation, for tests/sandbox. Prints
// "BLOCKED <errno text>" when the kernel refused, "ALLOWED" when the attack
// went through; exits 0 in both cases so the test reads the verdict.
//
//   sandbox_attack ptrace PID | kill PID | socket FAMILY TYPE | connect-tcp PORT
//   | connect-unix PATH | connect-abstract NAME | listen-tcp PORT | udp PORT
//   | listen-abstract NAME (prints LISTENING, then ACCEPTED when someone connects)
//   | io_uring | userfaultfd | bpf | perf | keyctl | userns | mount | tiocsti
//   | mknod PATH | read PATH | write PATH | fds | mem BYTES | open-files
//   | chmod-setuid PATH | fchmod-setgid PATH | fchmodat-setuid PATH
//   | fchmodat2-setgid PATH | open-setuid PATH | openat-setgid PATH
//   | creat-setuid PATH | mkdir-setgid PATH | openat2 PATH | setcap PATH
#include <arpa/inet.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

int Verdict(long rc) {
  if (rc < 0) {
    std::printf("BLOCKED %s\n", std::strerror(errno));
  } else {
    std::printf("ALLOWED\n");
  }
  return 0;
}

int Family(const std::string& s) {
  if (s == "netlink") return AF_NETLINK;
  if (s == "packet") return AF_PACKET;
  if (s == "vsock") return 40;  // AF_VSOCK
  if (s == "inet") return AF_INET;
  if (s == "unix") return AF_UNIX;
  return std::atoi(s.c_str());
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  std::string what = argv[1];
  std::string arg = argc > 2 ? argv[2] : "";
  if (what == "ptrace") return Verdict(ptrace(PTRACE_ATTACH, std::atoi(arg.c_str()), 0, 0));
  if (what == "kill") return Verdict(kill(std::atoi(arg.c_str()), 0));
  if (what == "socket") {
    int type = argc > 3 && std::string(argv[3]) == "raw" ? SOCK_RAW : SOCK_DGRAM;
    return Verdict(socket(Family(arg), type, 0));
  }
  if (what == "connect-tcp" || what == "udp") {
    bool udp = what == "udp";
    int s = socket(AF_INET, udp ? SOCK_DGRAM : SOCK_STREAM, 0);
    if (s < 0) return Verdict(s);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<uint16_t>(std::atoi(arg.c_str())));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (udp) {
      long r = sendto(s, "x", 1, 0, reinterpret_cast<sockaddr*>(&a), sizeof a);
      return Verdict(r);
    }
    return Verdict(connect(s, reinterpret_cast<sockaddr*>(&a), sizeof a));
  }
  if (what == "listen-tcp") {
    int s = socket(AF_INET, SOCK_STREAM, 0);
    if (s < 0) return Verdict(s);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<uint16_t>(std::atoi(arg.c_str())));
    if (bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a) < 0) return Verdict(-1);
    return Verdict(listen(s, 1));
  }
  if (what == "connect-unix" || what == "connect-abstract") {
    int s = socket(AF_UNIX, SOCK_STREAM, 0);
    if (s < 0) return Verdict(s);
    sockaddr_un a{};
    a.sun_family = AF_UNIX;
    socklen_t len;
    if (what == "connect-abstract") {
      a.sun_path[0] = '\0';
      std::memcpy(a.sun_path + 1, arg.data(), arg.size());
      len = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + arg.size());
    } else {
      std::memcpy(a.sun_path, arg.data(), arg.size());
      len = sizeof a;
    }
    return Verdict(connect(s, reinterpret_cast<sockaddr*>(&a), len));
  }
  if (what == "listen-abstract") {
    // A name in the abstract unix namespace, which belongs to the network
    // namespace: the test connects to it from outside while it listens.
    int s = socket(AF_UNIX, SOCK_STREAM, 0);
    if (s < 0) return Verdict(s);
    sockaddr_un a{};
    a.sun_family = AF_UNIX;
    std::memcpy(a.sun_path + 1, arg.data(), arg.size());
    auto len = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + arg.size());
    if (bind(s, reinterpret_cast<sockaddr*>(&a), len) < 0 || listen(s, 1) < 0) return Verdict(-1);
    std::printf("LISTENING\n");
    std::fflush(stdout);
    pollfd p{s, POLLIN, 0};
    // Bounded: the test ends the command once it has tried to connect.
    if (poll(&p, 1, 60000) == 1 && accept(s, nullptr, nullptr) >= 0) std::printf("ACCEPTED\n");
    return 0;
  }
  if (what == "chmod-setuid") return Verdict(chmod(arg.c_str(), 04755));
  if (what == "fchmod-setgid") {
    int fd = open(arg.c_str(), O_RDONLY);
    if (fd < 0) return Verdict(fd);
    return Verdict(fchmod(fd, 02755));
  }
  if (what == "fchmodat-setuid") return Verdict(fchmodat(AT_FDCWD, arg.c_str(), 06755, 0));
  if (what == "fchmodat2-setgid") return Verdict(syscall(452, AT_FDCWD, arg.c_str(), 02755, 0));
  if (what == "open-setuid") return Verdict(syscall(SYS_open, arg.c_str(), O_CREAT | O_WRONLY, 04755));
  if (what == "openat-setgid") return Verdict(openat(AT_FDCWD, arg.c_str(), O_CREAT | O_WRONLY, 02755));
  if (what == "creat-setuid") return Verdict(syscall(SYS_creat, arg.c_str(), 04755));
  if (what == "mkdir-setgid") return Verdict(mkdir(arg.c_str(), 02775));
  if (what == "openat2") {
    struct {
      uint64_t flags, mode, resolve;
    } how = {O_CREAT | O_WRONLY, 04755, 0};
    return Verdict(syscall(437, AT_FDCWD, arg.c_str(), &how, sizeof how));
  }
  if (what == "setcap") {
    // A v2 security.capability value granting cap_setuid (bit 7), effective.
    uint32_t value[5] = {0x02000001u, 1u << 7, 0, 0, 0};
    return Verdict(setxattr(arg.c_str(), "security.capability", value, sizeof value, 0));
  }
  if (what == "io_uring") {
    char params[120] = {};
    return Verdict(syscall(425, 8, params));
  }
  if (what == "userfaultfd") return Verdict(syscall(SYS_userfaultfd, 0));
  if (what == "bpf") {
    char attr[128] = {};
    return Verdict(syscall(SYS_bpf, 0 /*MAP_CREATE*/, attr, sizeof attr));
  }
  if (what == "perf") {
    perf_event_attr attr{};
    attr.size = sizeof attr;
    attr.type = PERF_TYPE_SOFTWARE;
    attr.config = PERF_COUNT_SW_CPU_CLOCK;
    return Verdict(syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0));
  }
  if (what == "keyctl") {
    // KEYCTL_GET_KEYRING_ID of the session keyring (-3)
    return Verdict(syscall(SYS_keyctl, 0, -3, 0));
  }
  if (what == "userns") return Verdict(unshare(CLONE_NEWUSER));
  if (what == "clone-userns") {
    long pid = syscall(SYS_clone, CLONE_NEWUSER | SIGCHLD, 0, 0, 0, 0);
    if (pid == 0) _exit(0);
    return Verdict(pid);
  }
  if (what == "mount") return Verdict(mount("none", "/tmp", "tmpfs", 0, nullptr));
  if (what == "tiocsti") {
    char c = 'x';
    int fd = open("/dev/tty", O_RDWR);
    if (fd < 0) fd = 0;
    long r = ioctl(fd, TIOCSTI, &c);
    // No terminal at all is not a pass for the filter: report the errno.
    return Verdict(r);
  }
  if (what == "mknod") return Verdict(mknod(arg.c_str(), S_IFCHR | 0666, makedev(1, 3)));
  if (what == "read") {
    int fd = open(arg.c_str(), O_RDONLY);
    if (fd < 0) return Verdict(fd);
    char buf[64];
    long n = read(fd, buf, sizeof buf);
    if (n <= 0) {
      std::printf("BLOCKED empty\n");
      return 0;
    }
    return Verdict(n);
  }
  if (what == "write") {
    int fd = open(arg.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) return Verdict(fd);
    return Verdict(write(fd, "pwned\n", 6));
  }
  if (what == "fds") {
    // Lists descriptors beyond stdio.
    int extra = 0;
    for (int fd = 3; fd < 1024; ++fd)
      if (fcntl(fd, F_GETFD) >= 0) ++extra;
    std::printf("EXTRA_FDS %d\n", extra);
    return 0;
  }
  if (what == "mem") {
    size_t want = std::strtoull(arg.c_str(), nullptr, 10);
    void* p = std::malloc(want);
    if (!p) {
      std::printf("BLOCKED out of memory\n");
      return 0;
    }
    std::memset(p, 1, want);
    std::printf("ALLOWED\n");
    return 0;
  }
  if (what == "setuid") return Verdict(setuid(0) == 0 && geteuid() == 0 ? 0 : -1);
  std::fprintf(stderr, "unknown attack %s\n", what.c_str());
  return 2;
}
