// Landlock through raw syscalls, with our own copies of the uapi structs so
// that the build does not depend on how new the installed kernel headers
// are (Debian 12 ships 6.1 headers; the machines run newer kernels).
#include "sandbox/landlock.h"

#include <cerrno>
#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace sepp::sandbox {
namespace {

#ifndef __NR_landlock_create_ruleset
#define __NR_landlock_create_ruleset 444
#define __NR_landlock_add_rule 445
#define __NR_landlock_restrict_self 446
#endif

struct RulesetAttr {
  uint64_t handled_access_fs;
  uint64_t handled_access_net;  // ABI 4
  uint64_t scoped;              // ABI 6
};
struct PathBeneathAttr {
  uint64_t allowed_access;
  int32_t parent_fd;
} __attribute__((packed));
struct NetPortAttr {
  uint64_t allowed_access;
  uint64_t port;
};

constexpr uint32_t kCreateRulesetVersion = 1u << 0;
constexpr int kRulePathBeneath = 1;
constexpr int kRuleNetPort = 2;
constexpr uint64_t kNetBindTcp = 1ull << 0;
constexpr uint64_t kNetConnectTcp = 1ull << 1;
constexpr uint64_t kScopeAbstractUnix = 1ull << 0;
constexpr uint64_t kScopeSignal = 1ull << 1;

uint64_t FsRightsForAbi(int abi) {
  uint64_t all = (1ull << 13) - 1;
  if (abi >= 2) all |= landlock_access::kRefer;
  if (abi >= 3) all |= landlock_access::kTruncate;
  if (abi >= 5) all |= landlock_access::kIoctlDev;
  return all;
}

}  // namespace

int LandlockAbi() {
  static const int abi = [] {
    long v = syscall(__NR_landlock_create_ruleset, nullptr, 0, kCreateRulesetVersion);
    return v < 0 ? 0 : static_cast<int>(v);
  }();
  return abi;
}

int ApplyLandlock(const LandlockPlan& plan, const char** step) {
  const int abi = plan.abi;
  RulesetAttr attr{};
  attr.handled_access_fs = FsRightsForAbi(abi);
  size_t attr_size = sizeof(uint64_t);
  if (abi >= 4 && plan.restrict_tcp) {
    attr.handled_access_net = kNetBindTcp | kNetConnectTcp;
    attr_size = 2 * sizeof(uint64_t);
  }
  if (abi >= 6 && plan.scope) {
    attr.scoped = kScopeAbstractUnix | kScopeSignal;
    attr_size = sizeof attr;
  }
  int ruleset = static_cast<int>(syscall(__NR_landlock_create_ruleset, &attr, attr_size, 0));
  if (ruleset < 0) {
    *step = "creating the Landlock ruleset";
    return errno;
  }
  for (const auto& rule : plan.rules) {
    int fd = open(rule.path.c_str(), O_PATH | O_CLOEXEC);
    if (fd < 0) {
      if (errno == ENOENT) continue;
      int err = errno;
      close(ruleset);
      *step = "opening a path for a Landlock rule";
      return err;
    }
    PathBeneathAttr pb{};
    pb.allowed_access = rule.access & attr.handled_access_fs;
    if (!rule.is_dir) pb.allowed_access &= landlock_access::kFileOnly;
    pb.parent_fd = fd;
    long r = syscall(__NR_landlock_add_rule, ruleset, kRulePathBeneath, &pb, 0);
    int err = errno;
    close(fd);
    if (r < 0) {
      close(ruleset);
      *step = "adding a Landlock path rule";
      return err;
    }
  }
  if (attr.handled_access_net) {
    for (uint16_t port : plan.connect_ports) {
      NetPortAttr np{kNetConnectTcp, port};
      if (syscall(__NR_landlock_add_rule, ruleset, kRuleNetPort, &np, 0) < 0) {
        int err = errno;
        close(ruleset);
        *step = "adding a Landlock network rule";
        return err;
      }
    }
  }
  long r = syscall(__NR_landlock_restrict_self, ruleset, 0);
  int err = errno;
  close(ruleset);
  if (r < 0) {
    *step = "enforcing the Landlock ruleset";
    return err;
  }
  return 0;
}

}  // namespace sepp::sandbox
