// Landlock: the kernel's unprivileged access control, applied last-but-one
// in the child (before seccomp). Rules are prepared in the parent as plain
// data; ApplyLandlock() runs between clone and exec and uses only syscalls.
//
// What is handled depends on the kernel's ABI: file rights (1), refer (2),
// truncate (3), TCP bind/connect (4), device ioctls (5), abstract unix socket
// and signal scoping (6). Anything the ABI does not know is simply not
// handled; the caller decides whether that is acceptable (fail-closed).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace sepp::sandbox {

// 0 when Landlock is unavailable (not built in, or disabled at boot).
int LandlockAbi();

namespace landlock_access {
// Filesystem rights (uapi values).
constexpr uint64_t kExecute = 1ull << 0;
constexpr uint64_t kWriteFile = 1ull << 1;
constexpr uint64_t kReadFile = 1ull << 2;
constexpr uint64_t kReadDir = 1ull << 3;
constexpr uint64_t kRemoveDir = 1ull << 4;
constexpr uint64_t kRemoveFile = 1ull << 5;
constexpr uint64_t kMakeChar = 1ull << 6;
constexpr uint64_t kMakeDir = 1ull << 7;
constexpr uint64_t kMakeReg = 1ull << 8;
constexpr uint64_t kMakeSock = 1ull << 9;
constexpr uint64_t kMakeFifo = 1ull << 10;
constexpr uint64_t kMakeBlock = 1ull << 11;
constexpr uint64_t kMakeSym = 1ull << 12;
constexpr uint64_t kRefer = 1ull << 13;     // ABI 2
constexpr uint64_t kTruncate = 1ull << 14;  // ABI 3
constexpr uint64_t kIoctlDev = 1ull << 15;  // ABI 5
// Rights that may be granted on a regular file (not a directory).
constexpr uint64_t kFileOnly = kExecute | kWriteFile | kReadFile | kTruncate | kIoctlDev;
constexpr uint64_t kRead = kExecute | kReadFile | kReadDir;
// Everything except device nodes (never created in a sandbox).
constexpr uint64_t kWrite = kRead | kWriteFile | kRemoveDir | kRemoveFile | kMakeDir |
                            kMakeReg | kMakeSock | kMakeFifo | kMakeSym | kRefer | kTruncate;
}  // namespace landlock_access

struct LandlockRule {
  std::string path;     // as seen inside the sandbox (after pivot_root)
  uint64_t access = 0;  // landlock_access bits; masked to the ABI when applied
  bool is_dir = true;
};

struct LandlockPlan {
  int abi = 0;
  std::vector<LandlockRule> rules;
  bool restrict_tcp = true;              // handle TCP bind/connect (ABI >= 4)
  std::vector<uint16_t> connect_ports;   // allowed TCP connect ports (the proxy)
  bool scope = true;                     // abstract unix sockets and signals (ABI >= 6)
};

// In the child, after no_new_privs. Returns 0, or an errno with *step set to
// a static description of what failed.
int ApplyLandlock(const LandlockPlan& plan, const char** step);

}  // namespace sepp::sandbox
