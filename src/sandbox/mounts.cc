// How the sandbox's filesystem is built (in the child, in its own mount
// namespace, as root of its own user namespace):
//
//  1. Make every mount private and mount a fresh tmpfs as the new root: on a
//     host folder no policy path lies in (/mnt, /media, ...), or, when there
//     is none (a read root of "/"), at /newroot after moving the host root
//     aside to /oldroot with pivot_root on a /tmp tmpfs (bubblewrap's way).
//  2. Bind into it, at their own paths, the policy's read roots (read-only)
//     and write roots (read-write), in path order so that a nested root
//     overrides its parent. Every bind is nosuid and nodev: a setuid binary
//     or device node planted in the workspace is inert.
//  3. A fresh /proc (the sandbox's own pid namespace, so no host process is
//     visible) with /proc/sys and /proc/irq read-only; a minimal /dev (null
//     zero full random urandom tty and fd links; no kmsg, no disks); private
//     tmpfs /tmp and /dev/shm. These go in path order with the roots, so a
//     workspace under /tmp is bound over the private /tmp, not hidden by it.
//  4. Deny paths that lie inside a visible root are masked: a directory by an
//     empty read-only tmpfs with mode 000, a file by an empty read-only file.
//     Name patterns ("**/.env") are matched by a bounded walk of the write
//     roots (workspace_scan.h), which also finds every `.git` in them.
//  5. Protected paths inside write roots (the policy's, and for ".git/" the
//     control files of every git directory the write roots use, which
//     git_control.h finds; .sepp/) are bound read-only onto themselves (a
//     missing folder entry, written with a trailing "/", is first created
//     when its parent folder exists: a repository without .git/hooks gets an
//     empty one, a workspace without .sepp/ too), and every directory between
//     the outermost write root and them is bound onto itself too. A mount
//     point cannot be renamed or removed (EBUSY), so `mv .git x; mkdir .git`
//     cannot swap in an unprotected copy.
//  6. The new root and /dev are made read-only and the process enters the new
//     root: chroot in the first case (no unmount needed, and an unmount costs
//     an RCU grace period: milliseconds on a busy machine; escaping a chroot
//     needs chroot, mount or an outside descriptor, and the command has no
//     capability, seccomp forbids those calls, and every descriptor but stdio
//     is closed), pivot_root(".", ".") and a detach of the host root in the
//     second.
#include "sandbox/mounts.h"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <map>
#include <optional>
#include <set>

#include "base/fd.h"
#include "base/paths.h"
#include "sandbox/git_control.h"
#include "sandbox/name_patterns.h"
#include "sandbox/workspace_scan.h"

namespace sepp::sandbox {

uint64_t ScratchTmpfsBytes(const Limits& limits) {
  return limits.max_memory_bytes ? limits.max_memory_bytes : kDefaultScratchTmpfsBytes;
}
namespace fs = std::filesystem;
namespace {

// Folders of the host that usually hold nothing a policy names; the first
// one that fits holds the new root.
constexpr const char* kStagingCandidates[] = {"/mnt", "/media", "/srv", "/boot"};

#ifndef __NR_mount_setattr
#define __NR_mount_setattr 442
#endif
struct MountAttr {
  uint64_t attr_set, attr_clr, propagation, userns_fd;
};
constexpr uint64_t kAttrRdonly = 0x1, kAttrNosuid = 0x2, kAttrNodev = 0x4, kAttrNoexec = 0x8;
constexpr unsigned kAtRecursive = 0x8000;

bool IsUnder(const std::string& path, const std::string& root) {
  if (root == "/") return true;
  return path == root || (path.size() > root.size() && path.compare(0, root.size(), root) == 0 &&
                          path[root.size()] == '/');
}

// Host path resolved (symlinks, "..", "~"); empty if it does not exist.
// One open and one readlink of /proc/self/fd/N whatever the depth, where
// std::filesystem::canonical makes a readlink per component (~100 syscalls
// for the default policy instead of ~40).
// A path with no symlink and no ".." on the way is its own canonical form:
// one openat2 that refuses symlinks says whether it exists, with no readlink
// (whose walk of /proc/self/fd/N costs as much as the open). Anything else
// (a symlink on the way: ELOOP; no openat2: ENOSYS) goes the general way.
bool HasDotDot(const std::string& path) {
  for (size_t at = path.find(".."); at != std::string::npos; at = path.find("..", at + 1))
    if ((at == 0 || path[at - 1] == '/') && (at + 2 == path.size() || path[at + 2] == '/'))
      return true;
  return false;
}

// An absolute path already in normal form ("/a/b": no empty, "." or ".."
// component, no trailing slash), as nearly all of a policy's are: it needs
// no std::filesystem::path to be taken apart and put together again.
bool IsPlainAbsolute(std::string_view path) {
  if (path.empty() || path[0] != '/') return false;
  if (path.size() == 1) return true;
  if (path.back() == '/') return false;
  for (size_t i = 1, start = 1; i <= path.size(); ++i) {
    if (i < path.size() && path[i] != '/') continue;
    std::string_view part = path.substr(start, i - start);
    if (part.empty() || part == "." || part == "..") return false;
    start = i + 1;
  }
  return true;
}

// The absolute, normal form of a policy path: as is when it is one already.
std::string AbsoluteNormal(const std::string& raw, const fs::path& base) {
  if (IsPlainAbsolute(raw)) return raw;
  fs::path p = ExpandUser(raw);
  if (p.is_relative()) p = base / p;
  std::string normal = p.lexically_normal().string();
  while (normal.size() > 1 && normal.back() == '/') normal.pop_back();
  return normal;
}

int OpenNoSymlinks(const std::string& path) {
  open_how how{};
  how.flags = O_PATH | O_CLOEXEC;
  how.resolve = RESOLVE_NO_SYMLINKS;
  return static_cast<int>(syscall(SYS_openat2, AT_FDCWD, path.c_str(), &how, sizeof how));
}

std::string Canonical(const std::string& raw, const fs::path& base) {
  std::string path = raw;
  if (!IsPlainAbsolute(raw)) {
    fs::path p = ExpandUser(raw);
    if (p.is_relative()) p = base / p;
    path = p.string();
  }
  if (!HasDotDot(path)) {
    if (int direct = OpenNoSymlinks(path); direct >= 0) {
      close(direct);
      return AbsoluteNormal(path, base);
    }
    if (errno == ENOENT || errno == ENOTDIR) return {};  // missing before any symlink
  }
  UniqueFd fd(open(path.c_str(), O_PATH | O_CLOEXEC));
  if (!fd.valid()) return {};
  char link[32], target[PATH_MAX];
  snprintf(link, sizeof link, "/proc/self/fd/%d", fd.get());
  ssize_t n = readlink(link, target, sizeof target);
  std::string_view resolved(target, n > 0 ? static_cast<size_t>(n) : 0);
  if (n > 0 && static_cast<size_t>(n) < sizeof target && target[0] == '/' &&
      !resolved.ends_with(" (deleted)"))
    return std::string(resolved);
  std::error_code ec;  // no /proc: the slow way
  fs::path c = fs::canonical(path, ec);
  return ec ? std::string() : c.string();
}

// The names in one folder, read once. Most of a policy's deny paths (the
// default secrets, ~40) lie in the home folder, and most of them are absent;
// each is otherwise one failed open, whose lookup walks the dentry cache's
// hash chains (several microseconds each on a machine whose cache holds a
// million entries: a tenth of a launch's CPU went to those walks). A path
// whose first name below the folder is not in the listing is absent, with
// no syscall. Not used when the folder cannot be read or holds more entries
// than a listing is worth; a name that appears after the listing is as
// absent as one that appears after a lookup would have been.
class FolderNames {
 public:
  static constexpr size_t kMaxEntries = 2048;

  explicit FolderNames(std::string folder) : folder_(std::move(folder)) {
    UniqueFd fd(open(folder_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!fd.valid()) return;
    alignas(8) char buf[32768];
    for (;;) {
      long n = syscall(SYS_getdents64, fd.get(), buf, sizeof buf);
      if (n < 0) return;
      if (n == 0) break;
      for (long off = 0; off < n;) {
        const char* rec = buf + off;
        unsigned short reclen;
        memcpy(&reclen, rec + 16, sizeof reclen);  // struct linux_dirent64's d_reclen
        names_.insert(std::string(rec + 19));      // and d_name
        off += reclen;
      }
      if (names_.size() > kMaxEntries) return;
    }
    listed_ = true;
  }

  // True when `path` (absolute, lexically normal) lies in the folder and
  // the entry it goes through there does not exist.
  bool Absent(const std::string& path) const {
    if (!listed_ || path.size() <= folder_.size() + 1 || !IsUnder(path, folder_)) return false;
    size_t start = folder_ == "/" ? 1 : folder_.size() + 1;
    std::string name = path.substr(start, path.find('/', start) - start);
    return !name.empty() && name != "." && name != ".." && !names_.count(name);
  }

 private:
  std::string folder_;
  std::set<std::string> names_;
  bool listed_ = false;
};

// The folder worth listing (FolderNames): the home folder, when enough of
// the policy's deny paths lie in it.
std::optional<FolderNames> ListHomeIfWorthIt(const Policy& policy) {
  constexpr size_t kWorthIt = 8;
  std::string home = ExpandUser("~").lexically_normal().string();
  while (home.size() > 1 && home.back() == '/') home.pop_back();
  if (home.empty() || home[0] != '/' || home == "/") return std::nullopt;
  size_t under = 0;
  for (const auto& raw : policy.deny_paths)
    if (!raw.empty() && !IsNamePattern(raw) &&
        IsUnder(raw[0] == '~' ? ExpandUser(raw).string() : raw, home))
      ++under;
  if (under < kWorthIt) return std::nullopt;
  return FolderNames(home);
}

// True when `path` needs no mount (nor Landlock rule) of its own: the nearest
// root above it has the same access, so that root's recursive bind already
// shows it with the same flags (/usr/bin under /usr, from /bin -> usr/bin),
// and none of the sandbox's own mounts (/tmp, /dev, /proc) lies in between
// to hide it. Each bind saved is also a mount fewer to tear down at exit.
bool CoveredByEnclosingRoot(const std::map<std::string, bool>& roots, const std::string& path,
                            bool write) {
  const std::string* nearest = nullptr;
  bool nearest_write = false;
  for (const auto& [root, w] : roots)
    if (root != path && IsUnder(path, root) && (!nearest || root.size() > nearest->size())) {
      nearest = &root;
      nearest_write = w;
    }
  if (!nearest || nearest_write != write) return false;
  for (const char* own : {"/tmp", "/dev", "/proc"})
    if (IsUnder(own, *nearest) && IsUnder(path, own)) return false;
  return true;
}

// --- child side: syscalls only, no allocation -------------------------------

int MkdirP(const char* path) {
  // Most mount points have an existing parent (the plan is in path order):
  // one mkdir instead of one per component.
  if (mkdir(path, 0755) == 0 || errno == EEXIST) return 0;
  if (errno != ENOENT) return errno;
  char buf[4096];
  size_t n = strlen(path);
  if (n >= sizeof buf) return ENAMETOOLONG;
  memcpy(buf, path, n + 1);
  for (size_t i = 1; i <= n; ++i) {
    if (buf[i] == '/' || buf[i] == '\0') {
      char c = buf[i];
      buf[i] = '\0';
      if (mkdir(buf, 0755) != 0 && errno != EEXIST) return errno;
      buf[i] = c;
    }
  }
  return 0;
}

int MakeMountPoint(const char* dst, bool is_dir) {
  if (is_dir) return MkdirP(dst);
  // mknod makes an empty file, or answers EEXIST, without opening anything:
  // an existing file may be unreadable to us (a masked /etc/shadow when sepp
  // runs as a normal user).
  if (mknod(dst, S_IFREG | 0444, 0) == 0 || errno == EEXIST) return 0;
  if (errno != ENOENT) return errno;
  char parent[4096];
  size_t n = strlen(dst);
  if (n >= sizeof parent) return ENAMETOOLONG;
  memcpy(parent, dst, n + 1);
  char* slash = strrchr(parent, '/');
  if (!slash || slash == parent) return ENOENT;
  *slash = '\0';
  if (int e = MkdirP(parent)) return e;
  if (mknod(dst, S_IFREG | 0444, 0) == 0 || errno == EEXIST) return 0;
  return errno;
}

int SetAttrs(const char* path, uint64_t set, bool recursive) {
  MountAttr attr{set, 0, 0, 0};
  if (syscall(__NR_mount_setattr, AT_FDCWD, path, recursive ? kAtRecursive : 0, &attr,
              sizeof attr) != 0)
    return errno;
  return 0;
}

int Fail(const char** step, const char* what, int err) {
  *step = what;
  return err ? err : EINVAL;
}

}  // namespace

Result<MountPlan> BuildMountPlan(const Policy& policy, const fs::path& cwd) {
  MountPlan plan;
  fs::path base = cwd.empty() ? fs::current_path() : cwd;
  std::string kOld, kNew;  // host paths are kOld + path; sandbox paths kNew + path
  // Every path is resolved once (each resolution is three syscalls, and
  // deny paths are looked at once per staging candidate and again below).
  std::map<std::string, std::string> resolved;
  std::optional<FolderNames> home = ListHomeIfWorthIt(policy);
  auto canonical = [&](const std::string& raw) -> const std::string& {
    auto it = resolved.find(raw);
    if (it == resolved.end()) {
      bool absent = home && home->Absent(AbsoluteNormal(raw, base));
      it = resolved.emplace(raw, absent ? std::string() : Canonical(raw, base)).first;
    }
    return it->second;
  };

  // Roots: canonical path -> writable. A path both read and write is written.
  std::map<std::string, bool> roots;
  std::vector<std::pair<std::string, std::string>> links;  // literal symlink -> target
  auto add_root = [&](const std::string& raw, bool write) {
    fs::path literal = ExpandUser(raw);
    if (literal.is_relative()) literal = base / literal;
    literal = literal.lexically_normal();
    const std::string& c = canonical(literal.string());
    if (c.empty()) {
      if (write) plan.notes.push_back("write root " + literal.string() + " does not exist");
      return;
    }
    std::string lit = literal.string();
    if (lit.size() > 1 && lit.back() == '/') lit.pop_back();
    char target[PATH_MAX];
    ssize_t n;
    if (lit != c && (n = readlink(lit.c_str(), target, sizeof target)) > 0 &&
        static_cast<size_t>(n) < sizeof target)
      links.emplace_back(lit, std::string(target, static_cast<size_t>(n)));
    bool& w = roots[c];
    w = w || write;
  };
  for (const auto& r : policy.read_roots) add_root(r, false);
  for (const auto& r : policy.write_roots) add_root(r, true);
  // Read holes (policy.h): a folder inside a denied folder that no root
  // shows is mounted alone; the denied folder's other entries never enter
  // the sandbox. The denied folder itself, a file, or a hole in a denied
  // folder a root shows (whose mask would cover it) is left out.
  std::set<std::string> holes;
  for (const auto& raw : policy.read_holes) {
    const std::string& c = canonical(raw);
    struct stat st {};
    if (c.empty() || stat(c.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) continue;
    bool itself = false;
    std::string denied, shown_by;  // a denied folder that holds it, a root that shows that
    for (const auto& d_raw : policy.deny_paths) {
      if (IsNamePattern(d_raw)) continue;
      const std::string& d = canonical(d_raw);
      if (d.empty() || !IsUnder(c, d)) continue;
      if (d == c) itself = true;
      denied = d;
      for (const auto& [root, write] : roots)
        if (IsUnder(d, root)) shown_by = root;
      if (!shown_by.empty()) break;
    }
    if (itself) continue;
    if (!shown_by.empty()) {
      plan.notes.push_back(c + " is not shown to the command: it lies in " + denied +
                           ", which the sandbox masks inside " + shown_by);
      continue;
    }
    if (!denied.empty()) holes.insert(c);
    add_root(raw, false);
  }
  // Writing "/" undoes the sandbox (every deny path and protected file lies
  // under it, and so do the start-up files that run outside it later).
  if (auto it = roots.find("/"); it != roots.end() && it->second)
    return Error::Make("the sandbox policy lets the command write \"/\", the whole filesystem, which undoes "
                       "the sandbox; list the folders it needs to write instead (or run with --sandbox off "
                       "to go without a sandbox knowingly)",
                       "policy");

  // One bounded walk of each write root finds what lies anywhere in it:
  // repositories' `.git` entries (nested repositories, submodule checkouts)
  // and files a secret name pattern matches.
  bool protect_git = std::find(policy.protected_paths.begin(), policy.protected_paths.end(),
                               ".git/") != policy.protected_paths.end();
  NamePatterns secret_names(policy.deny_paths);
  bool name_patterns = !secret_names.empty();
  std::vector<std::string> write_roots, dot_git, secret_hits;
  for (const auto& [root, write] : roots)
    if (write) write_roots.push_back(root);
  if (protect_git || name_patterns)
    for (const auto& root : write_roots) {
      ScanResult scan = ScanWorkspace(root, [&](std::string_view name) {
        return (protect_git && name == ".git") ||
               (name_patterns && secret_names.Matches(name));
      });
      for (auto& m : scan.matches) {
        if (fs::path(m).filename() == ".git") dot_git.push_back(m);
        else secret_hits.push_back(m);
      }
      if (scan.truncated)
        plan.notes.push_back("the workspace " + root + " is too large to look through whole at "
                             "start-up: nested repositories and secret files (.env) deeper "
                             "than that are not protected by the sandbox");
    }
  GitControl git;
  if (protect_git) {
    git = FindGitControl(write_roots, dot_git);
    for (const auto& g : git.write_roots) add_root(g, true);
    plan.notes.insert(plan.notes.end(), git.notes.begin(), git.notes.end());
    plan.git_absent = git.absent;
  }

  for (const char* cand : kStagingCandidates) {
    struct stat st {};
    if (lstat(cand, &st) != 0 || !S_ISDIR(st.st_mode)) continue;
    bool clash = false;
    for (const auto& [path, write] : roots)
      if (IsUnder(path, cand) || IsUnder(cand, path)) clash = true;
    for (const auto& raw : policy.deny_paths) {
      if (IsNamePattern(raw)) continue;  // matched by name in the workspace, not a path
      const std::string& c = canonical(raw);
      if (!c.empty() && IsUnder(c, cand)) clash = true;
    }
    if (!clash) {
      kNew = cand;
      break;
    }
  }
  if (kNew.empty()) {
    plan.pivot_mode = true;
    kOld = "/oldroot";
    kNew = "/newroot";
    plan.empty_file = "/empty";
  } else {
    plan.empty_file = kNew + "/.sepp-empty";
  }
  plan.new_root = kNew;
  plan.ops.push_back({MountOp::Kind::kTmpfs, "", kNew, true, false, false, "mode=0755,size=1m"});
  // Groups of mounts keyed by the path they cover, applied in path order so
  // that whatever lies inside another comes after it (a workspace under /tmp
  // is bound over the private /tmp, not hidden by it).
  std::vector<std::pair<std::string, std::vector<MountOp>>> groups;
  // The private /tmp first: a root that is /tmp itself (a workspace there)
  // then comes after it in the stable sort below and is bound on top, as
  // the policy says, instead of being hidden by it.
  const std::string scratch = "mode=1777,size=" + std::to_string(ScratchTmpfsBytes(policy.limits)) +
                              ",nr_inodes=" + std::to_string(kScratchTmpfsInodes);
  groups.push_back({"/tmp", {MountOp{MountOp::Kind::kTmpfs, "", std::string(kNew) + "/tmp", true,
                                     false, false, scratch}}});
  for (const auto& [path, write] : roots) {
    if (path == "/proc" || path == "/dev" || IsUnder(path, "/proc") || IsUnder(path, "/dev"))
      continue;  // replaced by the sandbox's own
    if (CoveredByEnclosingRoot(roots, path, write)) continue;
    struct stat st {};
    if (stat(path.c_str(), &st) != 0) continue;
    MountOp op{MountOp::Kind::kBind, path == "/" ? (kOld.empty() ? "/" : kOld) : kOld + path,
               kNew + (path == "/" ? std::string() : path)};
    op.is_dir = S_ISDIR(st.st_mode);
    op.read_only = !write;
    groups.push_back({path, {op}});
    plan.landlock.push_back({path, write ? landlock_access::kWrite : landlock_access::kRead,
                             op.is_dir});
  }
  for (const auto& [lit, target] : links) {
    if (roots.count(lit)) continue;
    groups.push_back({lit, {MountOp{MountOp::Kind::kSymlink, target, kNew + lit, false}}});
  }

  // The sandbox's own /proc, /dev, /tmp, /dev/shm.
  std::vector<MountOp> proc;
  proc.push_back({MountOp::Kind::kProc, "", std::string(kNew) + "/proc"});
  // Root-owned and writable by uid 0 without any capability check; Landlock
  // keeps all of /proc read-only too, this is the second lock. Only when sepp
  // runs as root: for anyone else these files are not writable anyway (and
  // the binds cost four syscalls and their unmounting at exit).
  if (geteuid() == 0)
    for (const char* p : {"/proc/sys", "/proc/irq"}) {
      MountOp op{MountOp::Kind::kBind, std::string(kNew) + p, std::string(kNew) + p};
      op.device = true;  // optional: absent in some kernels' fresh proc
      proc.push_back(op);
    }
  groups.push_back({"/proc", proc});
  std::vector<MountOp> dev;
  dev.push_back({MountOp::Kind::kTmpfs, "", std::string(kNew) + "/dev", true, false, true,
                 "mode=0755,size=64k"});
  for (const char* d : {"null", "zero", "full", "random", "urandom", "tty"}) {
    MountOp op{MountOp::Kind::kBind, std::string(kOld) + "/dev/" + d,
               std::string(kNew) + "/dev/" + d};
    op.is_dir = false;
    op.read_only = false;
    op.device = true;
    dev.push_back(op);
  }
  for (auto [name, target] : {std::pair{"fd", "/proc/self/fd"}, {"stdin", "/proc/self/fd/0"},
                              {"stdout", "/proc/self/fd/1"}, {"stderr", "/proc/self/fd/2"},
                              {"ptmx", "pts/ptmx"}})
    dev.push_back({MountOp::Kind::kSymlink, target, std::string(kNew) + "/dev/" + name, false});
  dev.push_back({MountOp::Kind::kTmpfs, "", std::string(kNew) + "/dev/shm", true, false, false, scratch});
  groups.push_back({"/dev", dev});
  std::stable_sort(groups.begin(), groups.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  for (auto& g : groups)
    for (auto& op : g.second) plan.ops.push_back(std::move(op));
  // Listing folders is harmless: only what the policy allows is mounted.
  plan.landlock.push_back({"/", landlock_access::kReadDir, true});
  plan.landlock.push_back({"/tmp", landlock_access::kWrite, true});
  plan.landlock.push_back({"/dev/shm", landlock_access::kWrite, true});
  plan.landlock.push_back({"/dev", landlock_access::kRead | landlock_access::kWriteFile |
                                       landlock_access::kIoctlDev, true});
  plan.landlock.push_back({"/proc", landlock_access::kReadFile | landlock_access::kReadDir, true});

  // Deny paths inside visible roots, and the files name patterns matched.
  std::vector<std::string> masked, denied;
  for (const auto& raw : policy.deny_paths)
    if (!IsNamePattern(raw)) denied.push_back(canonical(raw));
  denied.insert(denied.end(), secret_hits.begin(), secret_hits.end());
  for (const auto& c : denied) {
    if (c.empty()) continue;
    bool visible = false;
    for (const auto& [root, write] : roots) {
      if (IsUnder(c, root)) visible = true;
      if (root != c && IsUnder(root, c) && !holes.count(root))
        return Error::Make("the sandbox policy both denies " + c + " and allows " + root +
                               " inside it; remove one of them",
                           "policy");
    }
    if (!visible || IsUnder(c, "/proc") || IsUnder(c, "/dev")) continue;
    struct stat st {};
    if (stat(c.c_str(), &st) != 0) continue;
    if (S_ISDIR(st.st_mode)) {
      plan.ops.push_back({MountOp::Kind::kTmpfs, "", kNew + c, true, true, true,
                          "mode=000,size=4k,nr_inodes=1"});
    } else {
      plan.ops.push_back({MountOp::Kind::kMaskFile, plan.empty_file, kNew + c, false, true});
    }
    plan.ops.back().optional = true;
    masked.push_back(c);
  }

  // Protected paths inside write roots: pin every directory from the
  // outermost write root down, then bind the protected path read-only.
  // Relative entries are taken in every write root; ".git/" stands for git's
  // control surface (git_control.h), found above as absolute paths.
  std::vector<std::string> protect;
  for (const auto& prot : policy.protected_paths) {
    if (prot == ".git/") continue;
    if (fs::path(prot).is_absolute()) {
      // Its folder resolved as the roots are (the workspace may be reached
      // through a symlink); the entry itself may not exist yet.
      fs::path a = fs::path(prot).lexically_normal();
      bool dir = prot.back() == '/';
      if (dir) a = a.parent_path();  // "x/.sepp/" normalises to "x/.sepp/"
      const std::string& parent = canonical(a.parent_path().string());
      if (!parent.empty() && !a.filename().empty())
        protect.push_back((fs::path(parent) / a.filename()).string() + (dir ? "/" : ""));
      continue;
    }
    for (const auto& [root, write] : roots)
      if (write) protect.push_back((fs::path(root) / prot).string());
  }
  protect.insert(protect.end(), git.read_only.begin(), git.read_only.end());
  std::vector<std::string> pinned;
  for (const auto& prot : protect) {
    std::string f = fs::path(prot).lexically_normal().string();
    bool dir_entry = f.size() > 1 && f.back() == '/';  // ".git/hooks/": a directory
    while (f.size() > 1 && f.back() == '/') f.pop_back();
    const std::string* outer = nullptr;
    for (const auto& [root, write] : roots)
      if (write && IsUnder(f, root) && f != root && (!outer || root.size() < outer->size()))
        outer = &root;
    if (!outer) continue;
    const std::string& root = *outer;
    struct stat st {};
    if (lstat(f.c_str(), &st) != 0 && errno == ENOENT && dir_entry) {
      // A missing folder would let the command create what git or sepp
      // then reads outside the sandbox (hooks, .sepp/settings.toml). Make
      // it (empty: git ignores empty folders, so nothing shows in `git
      // status`) so that it can be protected, when its parent exists.
      std::string parent = fs::path(f).parent_path().string();
      struct stat pst {};
      if (lstat(parent.c_str(), &pst) == 0 && S_ISDIR(pst.st_mode)) mkdir(f.c_str(), 0755);
    }
    if (lstat(f.c_str(), &st) != 0 || S_ISLNK(st.st_mode)) continue;
    std::string rel_part = f.substr(root == "/" ? 1 : root.size() + 1);
    std::string cur = root == "/" ? "" : root;
    size_t pos = 0;
    while ((pos = rel_part.find('/', pos)) != std::string::npos) {
      std::string dir = cur + "/" + rel_part.substr(0, pos);
      if (std::find(pinned.begin(), pinned.end(), dir) == pinned.end()) {
        pinned.push_back(dir);
        MountOp op{MountOp::Kind::kBind, kNew + dir, kNew + dir, true, false};
        op.optional = true;
        plan.ops.push_back(op);
      }
      ++pos;
    }
    MountOp op{MountOp::Kind::kBind, kNew + f, kNew + f};
    op.is_dir = S_ISDIR(st.st_mode);
    op.read_only = true;
    op.optional = true;
    plan.ops.push_back(op);
  }

  std::string c = canonical(base.string());
  bool cwd_visible = false;
  for (const auto& [root, write] : roots)
    if (!c.empty() && IsUnder(c, root)) cwd_visible = true;
  for (const auto& m : masked)
    if (!c.empty() && IsUnder(c, m)) cwd_visible = false;
  if (!cwd_visible)
    return Error::Make("the working directory " + base.string() +
                           " is not readable under the sandbox policy; add it to the read roots",
                       "policy");
  plan.cwd = c;
  return plan;
}

int ApplyMountPlan(const MountPlan& plan, const char** step) {
  if (mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0)
    return Fail(step, "making mounts private", errno);
  if (plan.pivot_mode) {
    if (mount("tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755,size=1m") != 0)
      return Fail(step, "mounting the staging tmpfs", errno);
    if (chdir("/tmp") != 0) return Fail(step, "entering the staging tmpfs", errno);
    if (mkdir("newroot", 0755) != 0 || mkdir("oldroot", 0755) != 0)
      return Fail(step, "creating staging folders", errno);
    int empty = open("empty", O_RDONLY | O_CREAT | O_CLOEXEC, 0);
    if (empty < 0) return Fail(step, "creating the mask file", errno);
    close(empty);
    if (syscall(SYS_pivot_root, "/tmp", "/tmp/oldroot") != 0)
      return Fail(step, "pivot_root into the staging tmpfs", errno);
    if (chdir("/") != 0) return Fail(step, "chdir /", errno);
  }

  bool first = true;
  for (const auto& op : plan.ops) {
    const char* dst = op.dst.c_str();
    switch (op.kind) {
      case MountOp::Kind::kTmpfs: {
        // An optional mask over a folder that is gone: never made anew.
        if (op.optional && access(dst, F_OK) != 0 && errno == ENOENT) break;
        if (int e = MkdirP(dst)) return Fail(step, "creating a tmpfs mount point", e);
        unsigned long flags = MS_NOSUID | MS_NODEV | (op.no_exec ? MS_NOEXEC : 0);
        if (mount("tmpfs", dst, "tmpfs", flags, op.data.c_str()) != 0)
          return Fail(step, "mounting a tmpfs", errno);
        if (op.read_only && SetAttrs(dst, kAttrRdonly | kAttrNosuid | kAttrNodev, false) != 0)
          return Fail(step, "making a tmpfs read-only", errno);
        if (first && !plan.pivot_mode) {
          int empty = open(plan.empty_file.c_str(), O_RDONLY | O_CREAT | O_CLOEXEC, 0);
          if (empty < 0) return Fail(step, "creating the mask file", errno);
          close(empty);
        }
        break;
      }
      case MountOp::Kind::kProc:
        if (int e = MkdirP(dst)) return Fail(step, "creating /proc", e);
        if (mount("proc", dst, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, nullptr) != 0)
          return Fail(step, "mounting a fresh /proc", errno);
        break;
      case MountOp::Kind::kSymlink:
        if (symlink(op.src.c_str(), dst) != 0 && errno != EEXIST)
          return Fail(step, "creating a symlink", errno);
        break;
      case MountOp::Kind::kMaskFile:
      case MountOp::Kind::kBind: {
        if (op.optional && access(dst, F_OK) != 0 && errno == ENOENT) break;
        if (op.src != op.dst) {
          if (int e = MakeMountPoint(dst, op.is_dir)) {
            if (op.device) break;
            return Fail(step, "creating a bind mount point", e);
          }
        }
        if (mount(op.src.c_str(), dst, nullptr, MS_BIND | MS_REC, nullptr) != 0) {
          if (op.device) break;
          return Fail(step, "bind-mounting a policy path", errno);
        }
        // Device nodes keep their flags (a bind of one file, nothing to add).
        if (op.device && !op.read_only) break;
        uint64_t attrs = kAttrNosuid | kAttrNodev | (op.read_only ? kAttrRdonly : 0);
        if (op.device) attrs = kAttrRdonly;
        if (SetAttrs(dst, attrs, true) != 0)
          return Fail(step, "setting bind mount attributes", errno);
        break;
      }
    }
    first = false;
  }
  char path[4096];
  size_t n = plan.new_root.size();
  if (n + 5 >= sizeof path) return Fail(step, "sandbox root path too long", ENAMETOOLONG);
  memcpy(path, plan.new_root.c_str(), n);
  memcpy(path + n, "/dev", 5);
  if (SetAttrs(path, kAttrRdonly | kAttrNosuid | kAttrNoexec, false) != 0)
    return Fail(step, "making /dev read-only", errno);
  if (SetAttrs(plan.new_root.c_str(), kAttrRdonly | kAttrNosuid | kAttrNodev, false) != 0)
    return Fail(step, "making the sandbox root read-only", errno);
  if (chdir(plan.new_root.c_str()) != 0) return Fail(step, "entering the sandbox root", errno);
  if (plan.pivot_mode) {
    if (syscall(SYS_pivot_root, ".", ".") != 0) return Fail(step, "pivot_root into the sandbox", errno);
    if (umount2(".", MNT_DETACH) != 0) return Fail(step, "detaching the host root", errno);
  } else if (chroot(".") != 0) {
    return Fail(step, "entering the sandbox root", errno);
  }
  if (chdir(plan.cwd.c_str()) != 0) return Fail(step, "entering the working directory", errno);
  return 0;
}

}  // namespace sepp::sandbox
