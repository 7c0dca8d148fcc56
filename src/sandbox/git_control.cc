#include "sandbox/git_control.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <set>


namespace sepp::sandbox {
namespace fs = std::filesystem;
namespace {

bool IsUnder(const std::string& path, const std::string& root) {
  if (root == "/") return true;
  return path == root || (path.size() > root.size() && path.compare(0, root.size(), root) == 0 &&
                          path[root.size()] == '/');
}

bool IsDir(const std::string& p) {
  struct stat st {};
  return lstat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}
bool IsFile(const std::string& p) {
  struct stat st {};
  return lstat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

std::string CanonicalOrEmpty(const fs::path& p) {
  std::error_code ec;
  fs::path c = fs::canonical(p, ec);
  return ec ? std::string() : c.string();
}

// The first line of a pointer file (`.git`, commondir, gitdir), without its
// line end; empty if unreadable. Reads at most 4 KiB whatever the file's
// size (a command may have planted a huge one or swapped in a FIFO).
std::string FirstLine(const std::string& path) {
  int fd = open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return {};
  char buf[4096];
  ssize_t n = read(fd, buf, sizeof buf);
  close(fd);
  if (n <= 0) return {};
  std::string s(buf, static_cast<size_t>(n));
  s = s.substr(0, s.find('\n'));
  while (!s.empty() && (s.back() == '\r' || s.back() == ' ')) s.pop_back();
  return s;
}

// A submodule's git directory names its checkout back in its config
// (`core.worktree = ../../../sub`, relative to the git directory). A light
// reading: the first `worktree = ...` line, within the first 64 KiB.
std::string SubmoduleWorktree(const std::string& g) {
  int fd = open((g + "/config").c_str(), O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return {};
  std::string text(65536, '\0');
  ssize_t n = read(fd, text.data(), text.size());
  close(fd);
  text.resize(n > 0 ? static_cast<size_t>(n) : 0);
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    std::string line = text.substr(pos, end == std::string::npos ? std::string::npos : end - pos);
    pos = end == std::string::npos ? text.size() : end + 1;
    line.erase(0, line.find_first_not_of(" \t"));
    if (line.rfind("worktree", 0) != 0) continue;
    size_t eq = line.find('=');
    if (eq == std::string::npos || line.find_first_not_of(" \t", 8) != eq) continue;
    std::string v = line.substr(eq + 1);
    v.erase(0, v.find_first_not_of(" \t"));
    while (!v.empty() && (v.back() == ' ' || v.back() == '\t' || v.back() == '\r')) v.pop_back();
    fs::path p = fs::path(v).is_absolute() ? fs::path(v) : fs::path(g) / v;
    return CanonicalOrEmpty(p);
  }
  return {};
}

// A git directory has HEAD (git's own test, is_git_directory, also wants
// objects/ and refs/, which a linked worktree's takes from its common dir).
bool LooksLikeGitDir(const std::string& dir) { return IsDir(dir) && IsFile(dir + "/HEAD"); }

class Finder {
 public:
  explicit Finder(const std::vector<std::string>& roots) : roots_(roots) {}

  bool InWriteRoots(const std::string& p) const {
    for (const auto& r : roots_)
      if (IsUnder(p, r)) return true;
    for (const auto& r : out_.write_roots)
      if (IsUnder(p, r)) return true;
    return false;
  }

  void GitDir(const std::string& g, int depth = 0) {
    if (depth > 8 || !seen_.insert(g).second) return;
    bool has_commondir = IsFile(g + "/commondir");
    for (const char* f : {"config", "config.worktree", "commondir"}) {
      std::string p = g + "/" + f;
      if (IsFile(p)) out_.read_only.push_back(p);
      else if (std::string(f) != "config" || !has_commondir) out_.absent.push_back(p);
    }
    // hooks/ and info/ are read from the common directory; a linked
    // worktree's own git directory gets none made (they would be litter).
    for (const char* d : {"hooks", "info"}) {
      std::string p = g + "/" + d;
      if (IsDir(p) || !has_commondir) out_.read_only.push_back(p + "/");
    }
    if (has_commondir) {
      std::string common = FirstLine(g + "/commondir");
      fs::path c = fs::path(common).is_absolute() ? fs::path(common) : fs::path(g) / common;
      std::string cc = CanonicalOrEmpty(c);
      // Only the repository this git directory is a linked worktree of
      // (it lies in that repository's worktrees/) is taken as its common
      // directory: a planted commondir naming another repository gets no
      // write access to it.
      if (!cc.empty() && IsDir(cc + "/objects") && IsUnder(g, cc + "/worktrees")) {
        if (!InWriteRoots(cc)) out_.write_roots.push_back(cc);
        GitDir(cc, depth + 1);
      } else if (!cc.empty() && !InWriteRoots(cc)) {
        out_.notes.push_back(g + "/commondir names " + cc +
                             ", which does not hold this git directory; it stays read-only");
      }
    }
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(g + "/worktrees", ec))
      if (e.is_directory(ec) && !e.is_symlink(ec)) GitDir(e.path().string(), depth + 1);
    Modules(g + "/modules", depth, 0);
  }

  // Submodule names may hold slashes: modules/a/b is the git directory of
  // submodule "a/b" when it has a HEAD, else a folder on the way to one.
  void Modules(const std::string& dir, int depth, int level) {
    if (level > 4) return;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir, ec)) {
      if (!e.is_directory(ec) || e.is_symlink(ec)) continue;
      std::string p = e.path().string();
      if (LooksLikeGitDir(p)) GitDir(p, depth + 1);
      else Modules(p, depth, level + 1);
    }
  }

  // A `.git` entry of a checkout (the root of a write root, or one found
  // below it).
  void DotGit(const std::string& path, bool at_root) {
    struct stat st {};
    if (lstat(path.c_str(), &st) != 0) return;
    if (S_ISDIR(st.st_mode)) {
      if (LooksLikeGitDir(path)) GitDir(path);
      return;
    }
    if (S_ISLNK(st.st_mode)) {
      out_.notes.push_back(path + " is a symbolic link; git's control files behind it are "
                           "protected only where it points inside the workspace");
      std::string target = CanonicalOrEmpty(path);
      if (!target.empty() && InWriteRoots(target) && LooksLikeGitDir(target)) GitDir(target);
      return;
    }
    if (!S_ISREG(st.st_mode)) return;
    out_.read_only.push_back(path);  // the pointer itself
    std::string line = FirstLine(path);
    if (line.rfind("gitdir:", 0) != 0) return;
    std::string target = line.substr(7);
    target.erase(0, target.find_first_not_of(' '));
    fs::path t = fs::path(target).is_absolute() ? fs::path(target)
                                                 : fs::path(path).parent_path() / target;
    std::string g = CanonicalOrEmpty(t);
    if (g.empty() || !LooksLikeGitDir(g)) return;
    if (InWriteRoots(g)) {
      GitDir(g);
      return;
    }
    if (!at_root) {
      out_.notes.push_back(path + " points at " + g +
                           ", outside the workspace: that repository stays read-only");
      return;
    }
    // The workspace is a linked worktree or a submodule checkout: git needs
    // its git directory (and the common one) writable for commits. Only a
    // git directory that names this checkout back is taken: a linked
    // worktree's `gitdir` file, a submodule's core.worktree.
    std::string back = IsFile(g + "/gitdir") ? CanonicalOrEmpty(FirstLine(g + "/gitdir")) : "";
    bool linked = IsFile(g + "/commondir") && back == CanonicalOrEmpty(path);
    bool submodule = !IsFile(g + "/commondir") && g.find("/modules/") != std::string::npos &&
                     SubmoduleWorktree(g) == CanonicalOrEmpty(fs::path(path).parent_path());
    if (!linked && !submodule) {
      out_.notes.push_back(path + " points at " + g +
                           ", which does not name this checkout back; it stays read-only");
      return;
    }
    out_.write_roots.push_back(g);
    GitDir(g);
  }

  GitControl Take() {
    auto dedupe = [](std::vector<std::string>& v) {
      std::vector<std::string> out;
      for (auto& s : v)
        if (std::find(out.begin(), out.end(), s) == out.end()) out.push_back(std::move(s));
      v = std::move(out);
    };
    dedupe(out_.read_only);
    dedupe(out_.absent);
    dedupe(out_.write_roots);
    return std::move(out_);
  }

 private:
  const std::vector<std::string>& roots_;
  std::set<std::string> seen_;
  GitControl out_;
};

}  // namespace

GitControl FindGitControl(const std::vector<std::string>& write_roots,
                          const std::vector<std::string>& dot_git) {
  Finder f(write_roots);
  for (const auto& root : write_roots) f.DotGit(root == "/" ? "/.git" : root + "/.git", true);
  for (const auto& p : dot_git) f.DotGit(p, false);
  return f.Take();
}

std::vector<Denial> RemovePlantedGitControl(const std::vector<std::string>& absent) {
  std::vector<Denial> removed;
  for (const auto& p : absent) {
    struct stat st {};
    if (lstat(p.c_str(), &st) != 0) continue;
    std::error_code ec;
    fs::remove_all(p, ec);
    removed.push_back({DenialKind::kProtected, p, "the command created " + p +
                      ", through which git would read configuration or run code outside the "
                      "sandbox; sepp removed it" +
                      (ec ? " (removing failed: " + ec.message() + "; remove it by hand)" : "")});
  }
  return removed;
}

}  // namespace sepp::sandbox
