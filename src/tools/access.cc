#include "tools/access.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <unordered_map>

#include "sandbox/defaults.h"

namespace sepp::tools {
namespace {

namespace fs = std::filesystem;

// The path with every symlink that exists resolved, normalised; empty when
// it cannot be resolved (a symlink loop, a chain longer than PATH_MAX, a
// folder that cannot be searched).
std::string Real(const fs::path& p) {
  std::error_code ec;
  fs::path r = fs::weakly_canonical(p, ec);
  return ec ? std::string() : r.string();
}

bool Under(const std::string& path, const std::string& root) {
  if (root == "/") return true;
  return path == root || (path.size() > root.size() && path.compare(0, root.size(), root) == 0 &&
                          path[root.size()] == '/');
}

// "a/b/" names the folder a/b (protected paths mark folders so).
std::string NoTrailingSlash(std::string p) {
  while (p.size() > 1 && p.back() == '/') p.pop_back();
  return p;
}

// Real() for many paths at once, as the guard's policy has them: ~60 paths
// that share a few folders (the home folder, /etc). A folder resolved once
// is remembered, so a path whose last component is no symlink costs one
// lstat instead of weakly_canonical's stat per component and readlink per
// component. The result is weakly_canonical's: the real path of the longest
// existing prefix, then the rest as spelled; "" when a component cannot be
// looked up (a loop, too long, no search permission).
class Resolver {
 public:
  std::string Real(const fs::path& p) {
    if (!Plain(p)) return sepp::tools::Real(p);
    if (p == p.root_path()) return p.string();
    std::string key = p.string();
    if (auto it = known_.find(key); it != known_.end()) return it->second;
    std::string real;
    struct stat st;
    int rc = ::lstat(p.c_str(), &st), err = errno;
    if (rc == 0 && S_ISLNK(st.st_mode)) {
      real = sepp::tools::Real(p);  // rare: the whole way, as weakly_canonical
    } else if (rc == 0 || err == ENOENT || err == ENOTDIR) {  // absent: spelled as given
      std::string parent = Real(p.parent_path());
      if (!parent.empty()) real = (fs::path(parent) / p.filename()).string();
    }
    known_.emplace(std::move(key), real);
    return real;
  }

 private:
  // Absolute, with no ".", ".." or empty component (those have their own
  // rules: ".." after a symlink is not lexical).
  static bool Plain(const fs::path& p) {
    if (!p.is_absolute()) return false;
    for (const auto& part : p.relative_path())
      if (part.empty() || part == "." || part == "..") return false;
    return true;
  }
  std::unordered_map<std::string, std::string> known_;
};

std::vector<std::string> RealAll(const std::vector<std::string>& paths, Resolver& resolver) {
  std::vector<std::string> out;
  for (const auto& p : paths) {
    out.push_back(NoTrailingSlash(fs::path(p).lexically_normal().string()));
    std::string r = resolver.Real(p);
    if (r.empty()) continue;  // only the spelling given
    r = NoTrailingSlash(r);
    if (r != out.back()) out.push_back(r);  // both spellings: the link and its target
  }
  return out;
}

// True when a component of `path` below the root it lies in is named `name`
// or matches the deny patterns (every component: a secret folder hides what
// lies in it). The root's own components do not count: a workspace that
// happens to lie in a folder named like a secret is still the workspace.
bool AnyComponent(const std::string& path, const std::vector<std::string>& roots,
                  const sandbox::NamePatterns* deny, const char* name) {
  size_t cut = 0;
  for (const auto& r : roots)
    if (Under(path, r) && r.size() > cut) cut = r.size();
  for (const auto& part : fs::path(path.substr(cut))) {
    std::string c = part.string();
    if ((name && c == name) || (deny && deny->Matches(c))) return true;
  }
  return false;
}

}  // namespace

PathGuard::PathGuard(const ToolContext& ctx, const std::vector<std::string>& own_mounts) {
  sandbox::Policy fallback;
  const sandbox::Policy* p = ctx.policy;
  if (!p) {
    fallback = sandbox::DefaultToolPolicy(ctx.cwd.empty() ? fs::current_path() : ctx.cwd);
    p = &fallback;
  }
  enabled_ = p->enabled;
  Resolver resolver;
  read_roots_ = RealAll(p->read_roots, resolver);
  write_roots_ = RealAll(p->write_roots, resolver);
  roots_ = read_roots_;
  roots_.insert(roots_.end(), write_roots_.begin(), write_roots_.end());
  deny_names_ = sandbox::NamePatterns(p->deny_paths);
  for (const auto& d : p->deny_paths)
    if (!sandbox::IsNamePattern(d))
      for (auto& r : RealAll({d}, resolver)) deny_.push_back(std::move(r));
  // Read holes, decided as sandbox/mounts.cc decides them: on the resolved
  // folder, against the resolved deny paths and the roots.
  for (const auto& raw : p->read_holes) {
    std::string c = Real(raw);
    struct stat st {};
    if (c.empty() || ::stat(c.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) continue;
    bool itself = false, in_denied = false, shown = false;
    for (const auto& d_raw : p->deny_paths) {
      if (sandbox::IsNamePattern(d_raw)) continue;
      std::string d = Real(d_raw);
      if (d.empty() || !Under(c, d)) continue;
      if (d == c) itself = true;
      in_denied = true;
      for (const auto& r : roots_)
        if (Under(d, r) && std::find(own_mounts.begin(), own_mounts.end(), r) == own_mounts.end())
          shown = true;
      if (shown) break;
    }
    if (itself || shown) continue;  // the mask wins, as in the kernel
    std::vector<std::string> spellings = RealAll({raw}, resolver);
    read_roots_.insert(read_roots_.end(), spellings.begin(), spellings.end());
    roots_.insert(roots_.end(), spellings.begin(), spellings.end());
    if (in_denied) holes_.push_back({std::move(spellings)});
  }
  for (const auto& root : p->write_roots)
    for (const auto& rel : p->protected_paths) {
      // The file tools have no business in any git directory: nothing in
      // one, wherever it lies, is theirs to write (git_control.h).
      if (rel == ".git/") {
        protect_git_ = true;
        continue;
      }
      fs::path abs = fs::path(rel).is_absolute() ? fs::path(rel) : fs::path(root) / rel;
      for (const auto& s : RealAll({abs.string()}, resolver)) protected_.push_back(s);
    }
}

bool PathGuard::ThroughHole(const std::string& p, const std::string& d) const {
  for (const Hole& h : holes_)
    for (const auto& spelling : h.spellings)
      if (Under(p, spelling) && Under(spelling, d) && spelling != d) return true;
  return false;
}

std::optional<sandbox::Denial> PathGuard::CheckRead(const fs::path& path) const {
  return Check(path, false);
}
std::optional<sandbox::Denial> PathGuard::CheckWrite(const fs::path& path) const {
  return Check(path, true);
}

std::optional<sandbox::Denial> PathGuard::Check(const fs::path& path, bool write) const {
  using sandbox::DenialKind;
  if (!enabled_) return std::nullopt;
  std::string lexical = path.lexically_normal().string();
  std::string real = Real(path);
  auto refuse = [&](DenialKind kind, std::string why) {
    return sandbox::Denial{kind, path.string(), std::move(why)};
  };
  auto secret_at = [&](const std::string& p) {
    if (AnyComponent(p, roots_, &deny_names_, nullptr)) return true;
    for (const auto& d : deny_)
      if (Under(p, d) && (write || !ThroughHole(p, d))) return true;
    return false;
  };
  // A secret by its spelling is refused as one, even where it cannot be
  // resolved (inside the sandbox, a deny path cannot be searched).
  bool secret = secret_at(lexical);
  // Fail closed: what cannot be resolved here is never taken for the plain
  // path it looks like (the kernel would follow it somewhere else).
  if (real.empty() && !secret)
    return refuse(DenialKind::kOther,
                  path.string() +
                      " cannot be resolved (a symlink loop, a chain of links longer than the "
                      "system allows, or a folder that cannot be searched), so it is refused; use "
                      "the real path");
  if (!secret) secret = secret_at(real);
  if (secret)
    return refuse(DenialKind::kSecret,
                  "access to " + path.string() +
                      " is denied: it is a secret location the sandbox policy keeps from every "
                      "tool");
  if (write && protect_git_ &&
      (AnyComponent(lexical, roots_, nullptr, ".git") ||
       AnyComponent(real, roots_, nullptr, ".git")))
    return refuse(DenialKind::kProtected,
                  path.string() +
                      " is protected: it lies in a git directory, whose configuration, hooks and "
                      "control files decide what git runs outside the sandbox; the file tools "
                      "never write there (use git commands through bash)");
  if (write) {
    for (const auto& p : protected_)
      if (Under(lexical, p) || Under(real, p))
        return refuse(DenialKind::kProtected,
                      path.string() +
                          " is protected: it stays read-only inside the workspace (as .sepp "
                          "does), so that nothing the model writes runs later outside the "
                          "sandbox");
    for (const auto& w : write_roots_)
      if (Under(real, w)) return std::nullopt;
    return refuse(DenialKind::kWrite,
                  path.string() + " is outside the workspace, the only place this session may write");
  }
  for (const auto& r : read_roots_)
    if (Under(real, r)) return std::nullopt;
  for (const auto& w : write_roots_)
    if (Under(real, w)) return std::nullopt;
  return refuse(DenialKind::kRead,
                path.string() +
                    " is outside the folders this session may read (the workspace and the system "
                    "folders); the user can widen the sandbox policy if it is needed");
}

bool PathGuard::Hidden(const fs::path& path) const {
  if (!enabled_) return false;
  std::string lexical = path.lexically_normal().string();
  for (const auto& d : deny_)
    if (Under(lexical, d) && !ThroughHole(lexical, d)) return true;
  return AnyComponent(lexical, roots_, &deny_names_, nullptr);
}

const PathGuard& GuardOf(const ToolContext& ctx, std::optional<PathGuard>* own) {
  return ctx.guard ? *ctx.guard : own->emplace(ctx);
}

ToolResult DeniedResult(sandbox::Denial denial) {
  ToolResult r;
  r.text = denial.text;
  r.is_error = true;
  r.details = {{"denied", true}};
  r.denials.push_back(std::move(denial));
  return r;
}

}  // namespace sepp::tools
