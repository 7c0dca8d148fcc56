// Build-time generator of sepp's seccomp filter: compiles the rules below
// to BPF with libseccomp and writes them as a C++ array initialiser, which
// src/sandbox/seccomp.cc includes. Compiling them at every launch cost
// 0.25-0.4 ms per sandboxed command (measured, bench/sandbox/RESULTS.md);
// as data the filter costs nothing and libseccomp is not linked into sepp.
//
//   seccomp_filter_gen OUTPUT.inc
//
// The filter's rules. Default: allow. Answered with EPERM (a plain error the
// command can report, not a kill that looks like a crash):
//   - debugging other processes: ptrace, process_vm_readv/writev, kcmp;
//   - the mount API and namespaces: mount, umount2, pivot_root, chroot,
//     move_mount, open_tree, fsopen, fsconfig, fsmount, fspick,
//     mount_setattr, unshare, setns, and clone with any CLONE_NEW* flag;
//     clone3 gets ENOSYS so that libc falls back to clone (whose flags we can
//     inspect; clone3 passes them in memory);
//   - kernel attack surface: bpf, perf_event_open, userfaultfd, io_uring_*,
//     keyctl/add_key/request_key, kexec_*, init/finit/delete_module,
//     open_by_handle_at, name_to_handle_at, syslog, acct, swapon/off, reboot,
//     clock/time setting, iopl/ioperm, quotactl, uselib;
//   - terminal injection: ioctl TIOCSTI and TIOCLINUX;
//   - device nodes: mknod/mknodat of character or block devices;
//   - setuid and setgid bits: chmod, fchmod, fchmodat, fchmodat2 with a mode
//     holding S_ISUID or S_ISGID, and the same bits in the mode of open,
//     openat, creat, mkdir and mkdirat; openat2 (whose mode lies in memory,
//     out of a filter's reach) gets ENOSYS so that libc falls back to
//     openat. When sepp runs as root a file the command makes is root's on
//     the host: with either bit it would be a way out the next time someone
//     runs it. (File capabilities need CAP_SETFCAP, which the command does
//     not have; mounts are nosuid for what is already there.)
//   - sockets other than unix, IPv4 and IPv6 (netlink, packet, vsock, ...),
//     and raw or packet-type sockets in the inet families.
// Foreign architectures (i386 int 0x80, x32) kill the process.
#include <linux/filter.h>
#include <linux/sched.h>
#include <seccomp.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <string>
#include <vector>

namespace {

int Deny(scmp_filter_ctx ctx, const char* name) {
  int nr = seccomp_syscall_resolve_name(name);
  if (nr == __NR_SCMP_ERROR) return 0;  // not on this architecture
  return seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), nr, 0);
}

std::string AddRules(scmp_filter_ctx ctx) {

  static const char* const kDenied[] = {
      "ptrace", "process_vm_readv", "process_vm_writev", "kcmp",
      "mount", "umount", "umount2", "pivot_root", "chroot", "move_mount", "open_tree",
      "fsopen", "fsconfig", "fsmount", "fspick", "mount_setattr", "unshare", "setns",
      "bpf", "perf_event_open", "userfaultfd", "io_uring_setup", "io_uring_enter",
      "io_uring_register", "keyctl", "add_key", "request_key", "kexec_load",
      "kexec_file_load", "init_module", "finit_module", "delete_module",
      "create_module", "open_by_handle_at", "name_to_handle_at", "syslog", "acct",
      "swapon", "swapoff", "reboot", "settimeofday", "clock_settime", "clock_adjtime",
      "adjtimex", "stime", "iopl", "ioperm", "quotactl", "quotactl_fd", "uselib",
      "nfsservctl", "lookup_dcookie", "vhangup", "fanotify_init", "pidfd_getfd"};
  for (const char* name : kDenied)
    if (int rc = Deny(ctx, name); rc < 0) return std::string("seccomp rule for ") + name;

  // clone: any namespace flag.
  const uint64_t kNsFlags[] = {CLONE_NEWUSER, CLONE_NEWNS,  CLONE_NEWPID,   CLONE_NEWNET,
                               CLONE_NEWIPC,  CLONE_NEWUTS, CLONE_NEWCGROUP, 0x00000080 /*NEWTIME*/};
  for (uint64_t f : kNsFlags)
    if (seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(clone), 1,
                         SCMP_A0(SCMP_CMP_MASKED_EQ, f, f)) < 0)
      return "seccomp rule for clone";
  if (seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0) < 0)
    return "seccomp rule for clone3";

  // Terminal injection. The kernel truncates the command to 32 bits.
  for (unsigned long cmd : {static_cast<unsigned long>(TIOCSTI), static_cast<unsigned long>(TIOCLINUX)})
    if (seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(ioctl), 1,
                         SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffu, cmd)) < 0)
      return "seccomp rule for ioctl";

  // Device nodes.
  for (unsigned type : {static_cast<unsigned>(S_IFCHR), static_cast<unsigned>(S_IFBLK)}) {
    if (seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(mknod), 1,
                         SCMP_A1(SCMP_CMP_MASKED_EQ, S_IFMT, type)) < 0 ||
        seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(mknodat), 1,
                         SCMP_A2(SCMP_CMP_MASKED_EQ, S_IFMT, type)) < 0)
      return "seccomp rule for mknod";
  }

  // Setuid/setgid bits in a mode argument: (syscall, index of the mode).
  struct ModeArg {
    const char* name;
    int nr;  // when libseccomp does not know the name (fchmodat2 is new): the number, one on every architecture
    unsigned index;
  };
  for (ModeArg m : {ModeArg{"chmod", -1, 1}, {"fchmod", -1, 1}, {"fchmodat", -1, 2}, {"fchmodat2", 452, 2},
                    {"open", -1, 2}, {"openat", -1, 3}, {"creat", -1, 1}, {"mkdir", -1, 1},
                    {"mkdirat", -1, 2}}) {
    int nr = seccomp_syscall_resolve_name(m.name);
    if (nr == __NR_SCMP_ERROR) nr = m.nr;
    if (nr < 0) continue;  // not on this architecture
    for (unsigned bit : {static_cast<unsigned>(S_ISUID), static_cast<unsigned>(S_ISGID)}) {
      scmp_arg_cmp cmp = {m.index, SCMP_CMP_MASKED_EQ, bit, bit};
      if (seccomp_rule_add_array(ctx, SCMP_ACT_ERRNO(EPERM), nr, 1, &cmp) < 0)
        return std::string("seccomp rule for ") + m.name;
    }
  }
  // Syscalls added since 5.1 have one number on every architecture.
  int openat2 = seccomp_syscall_resolve_name("openat2");
  if (openat2 == __NR_SCMP_ERROR) openat2 = 437;
  if (seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), openat2, 0) < 0) return "seccomp rule for openat2";

  // Socket families: unix, inet, inet6 only; no raw or packet types.
  static_assert(AF_UNIX == 1 && AF_INET == 2 && AF_INET6 == 10);
  if (seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(socket), 1, SCMP_A0(SCMP_CMP_EQ, 0)) < 0 ||
      seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(socket), 1,
                       SCMP_A0(SCMP_CMP_GT, AF_INET6)) < 0 ||
      seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(socketpair), 1,
                       SCMP_A0(SCMP_CMP_NE, AF_UNIX)) < 0)
    return "seccomp rule for socket";
  for (unsigned fam = 3; fam < AF_INET6; ++fam)
    if (seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(socket), 1,
                         SCMP_A0(SCMP_CMP_EQ, fam)) < 0)
      return "seccomp rule for socket";
  for (unsigned fam : {AF_INET, AF_INET6})
    for (unsigned type : {SOCK_RAW, SOCK_PACKET})
      if (seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(socket), 2,
                           SCMP_A0(SCMP_CMP_EQ, fam), SCMP_A1(SCMP_CMP_MASKED_EQ, 0xf, type)) < 0)
        return "seccomp rule for raw sockets";

  return {};
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: seccomp_filter_gen OUTPUT.inc\n");
    return 2;
  }
  scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
  if (!ctx) {
    std::fprintf(stderr, "seccomp_filter_gen: seccomp_init failed\n");
    return 1;
  }
  seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS);
  seccomp_attr_set(ctx, SCMP_FLTATR_CTL_NNP, 0);  // sepp sets no_new_privs itself
  // A binary tree over syscall numbers instead of a chain: the kernel
  // evaluates the filter for every syscall number when it is installed (to
  // cache the always-allowed ones), and a tree halves that: 0.11 -> 0.065 ms.
  seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2);
  std::string error = AddRules(ctx);
  if (!error.empty()) {
    std::fprintf(stderr, "seccomp_filter_gen: %s\n", error.c_str());
    return 1;
  }
  int fd = memfd_create("seccomp-filter", MFD_CLOEXEC);
  if (fd < 0 || seccomp_export_bpf(ctx, fd) < 0) {
    std::fprintf(stderr, "seccomp_filter_gen: exporting the filter failed\n");
    return 1;
  }
  seccomp_release(ctx);
  off_t size = lseek(fd, 0, SEEK_END);
  if (size <= 0 || size % sizeof(sock_filter) != 0) {
    std::fprintf(stderr, "seccomp_filter_gen: the filter has a bad size\n");
    return 1;
  }
  std::vector<sock_filter> code(static_cast<size_t>(size) / sizeof(sock_filter));
  if (pread(fd, code.data(), static_cast<size_t>(size), 0) != size) {
    std::fprintf(stderr, "seccomp_filter_gen: reading the filter back failed\n");
    return 1;
  }
  std::string tmp = std::string(argv[1]) + ".tmp";
  FILE* out = std::fopen(tmp.c_str(), "w");
  if (!out) {
    std::perror(tmp.c_str());
    return 1;
  }
  std::fprintf(out, "// Generated by codegen/seccomp_filter_gen.cc; do not edit.\n");
  for (const sock_filter& f : code)
    std::fprintf(out, "{0x%04x, %u, %u, 0x%08x},\n", f.code, f.jt, f.jf, f.k);
  if (std::fclose(out) != 0 || std::rename(tmp.c_str(), argv[1]) != 0) {
    std::perror(argv[1]);
    return 1;
  }
  return 0;
}
