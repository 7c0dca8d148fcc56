// The filesystem view of a sandboxed process, built with mounts in its own
// mount namespace (see mounts.cc for the construction).
//
// BuildMountPlan() runs in the parent: it resolves the policy's paths against
// the host and turns them into a list of mount operations plus the Landlock
// rules that go with them. ApplyMountPlan() runs in the child between clone
// and exec and uses only syscalls on the prepared strings.
#pragma once
#include <filesystem>
#include <string>
#include <vector>

#include "base/result.h"
#include "sandbox/landlock.h"
#include "sandbox/policy.h"

namespace sepp::sandbox {

struct MountOp {
  enum class Kind {
    kBind,      // bind src onto dst (recursive), then apply attributes
    kTmpfs,     // fresh tmpfs at dst with data options
    kProc,      // fresh proc at dst
    kSymlink,   // symlink at dst pointing to src
    kMaskFile,  // bind the empty file onto dst (read-only)
  };
  Kind kind = Kind::kBind;
  std::string src;   // "/oldroot/..." for host paths, or a symlink target
  std::string dst;   // "/newroot/..."
  bool is_dir = true;
  bool read_only = true;
  bool no_exec = false;
  std::string data;  // mount data for tmpfs
  bool device = false;  // a device node from the host's /dev: optional, keeps dev
  // A workspace path found at set-up (a protected control file, a secret a
  // pattern matched) that may be gone by the time the child mounts: then
  // there is nothing to protect or mask, and the op is skipped.
  bool optional = false;

  MountOp() = default;
  MountOp(Kind k, std::string s, std::string d, bool dir = true, bool ro = true,
          bool noexec = false, std::string mount_data = {})
      : kind(k), src(std::move(s)), dst(std::move(d)), is_dir(dir), read_only(ro),
        no_exec(noexec), data(std::move(mount_data)) {}
};

struct MountPlan {
  // Where the new root is assembled. When a free folder of the host can hold
  // it (no policy path lies under it), it is mounted there and entered with
  // chroot, which needs no unmount (an unmount waits for an RCU grace period,
  // milliseconds on a busy machine). Otherwise (a root of "/", say) the host
  // root is first moved aside with pivot_root (see mounts.cc) and dropped at
  // the end; pivot_mode says which.
  bool pivot_mode = false;
  std::string new_root;    // "/newroot" or e.g. "/mnt"
  std::string empty_file;  // the read-only empty file used to mask files
  std::vector<MountOp> ops;
  std::string cwd;                       // inside the sandbox
  std::vector<LandlockRule> landlock;    // rules for the paths made visible
  // Which policy paths could not be honoured exactly (for the user).
  std::vector<std::string> notes;
  // Git control files that did not exist at set-up and cannot be made
  // ahead of time (git_control.h): removed after the command if it made them.
  std::vector<std::string> git_absent;
};

// The size of each of the sandbox's private /tmp and /dev/shm: tmpfs pages
// are the host's RAM and count against no rlimit of the command, so they are
// bounded like the command itself: by limits.memory when the policy sets it,
// else 1 GiB each. A command that fills one gets ENOSPC ("No space left on
// device"), as on a full disk. The inode count is bounded too.
constexpr uint64_t kDefaultScratchTmpfsBytes = 1ull << 30;
constexpr uint64_t kScratchTmpfsInodes = 65536;
uint64_t ScratchTmpfsBytes(const Limits& limits);

// cwd: where the command starts (host path; must be visible in the sandbox).
Result<MountPlan> BuildMountPlan(const Policy& policy, const std::filesystem::path& cwd);

// In the child, in a fresh mount namespace with user-namespace root. Ends
// with the process chrooted (pivot_root) into the new tree, in plan.cwd.
int ApplyMountPlan(const MountPlan& plan, const char** step);

}  // namespace sepp::sandbox
