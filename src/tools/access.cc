#include "tools/access.h"

#include <sys/stat.h>
#include <unistd.h>

#include <climits>
#include <algorithm>
#include <cerrno>
#include <string_view>
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
// that share a few folders (the home folder, /etc). Each folder is resolved
// once and remembered, parent before child, so that
//  - a path whose last component is no symlink costs one lstat;
//  - a path in a folder known to be absent costs none (inside the session
//    sandbox most deny paths lie in a home folder that is not there at all:
//    one lstat for ~45 of them instead of one each);
//  - a symlink costs one readlink, its target resolved the same way (from
//    its folder's real path, which holds no symlink) when it is plain.
// The result is weakly_canonical's: the real path of the longest existing
// prefix, then the rest as spelled; "" when a component cannot be looked up
// (a loop, too long, no search permission).
//
// Plain paths (nearly all of a policy's) stay strings throughout: making a
// std::filesystem::path of each, and normalising it, cost half of the
// guard's set-up in the worker (callgrind: ~250k of ~540k instructions).
class Resolver {
 public:
  std::string Real(const std::string& p) {
    std::string s = NoTrailingSlash(p);  // "a/b/" names the folder a/b
    if (!Plain(s)) return sepp::tools::Real(fs::path(p));
    return Lookup(s, 0).real;
  }

  // Absolute, with no ".", ".." or empty component (those have their own
  // rules: ".." after a symlink is not lexical), no trailing slash: such a
  // path is its own lexically_normal() form.
  static bool Plain(const std::string& p) {
    if (p.empty() || p[0] != '/') return false;
    if (p == "/") return true;
    if (p.back() == '/') return false;
    for (size_t i = 1, next; i <= p.size(); i = next + 1) {
      next = p.find('/', i);
      if (next == std::string::npos) next = p.size();
      std::string_view part(p.data() + i, next - i);
      if (part.empty() || part == "." || part == "..") return false;
    }
    return true;
  }

 private:
  struct Known {
    std::string real;     // "" when it cannot be resolved
    bool absent = false;  // nothing there: nothing below it either
  };
  static constexpr int kMaxLinks = 40;  // the kernel's MAXSYMLINKS

  // p is Plain. links: the symlinks followed so far on the way here.
  Known Lookup(const std::string& p, int links) {
    if (p == "/") return {"/", false};
    if (auto it = known_.find(p); it != known_.end()) return it->second;
    size_t cut = p.rfind('/');
    Known parent = Lookup(cut == 0 ? std::string("/") : p.substr(0, cut), links);
    std::string_view name(p.data() + cut + 1, p.size() - cut - 1);
    auto below = [&](const std::string& folder) {
      return (folder == "/" ? std::string() : folder) + "/" + std::string(name);
    };
    Known k;
    if (parent.real.empty()) {
      // unresolvable above: unresolvable here
    } else if (parent.absent) {
      k = {below(parent.real), true};
    } else {
      struct stat st;
      std::string at = below(parent.real);
      if (::lstat(at.c_str(), &st) == 0) {
        k = S_ISLNK(st.st_mode) ? FollowLink(at, parent.real, links) : Known{at, false};
      } else if (errno == ENOENT || errno == ENOTDIR) {
        k = {at, true};
      }  // else EACCES, ELOOP, ENAMETOOLONG: unresolvable
    }
    known_.emplace(p, k);
    return k;
  }

  Known FollowLink(const std::string& link, const std::string& folder, int links) {
    char buf[PATH_MAX];
    ssize_t n = ::readlink(link.c_str(), buf, sizeof buf);
    if (n <= 0 || static_cast<size_t>(n) >= sizeof buf || links >= kMaxLinks)
      return {sepp::tools::Real(link), false};  // the slow way decides
    std::string target(buf, static_cast<size_t>(n));
    if (target[0] != '/') target = (folder == "/" ? std::string() : folder) + "/" + target;
    target = NoTrailingSlash(target);
    if (!Plain(target)) return {sepp::tools::Real(link), false};
    Known to = Lookup(target, links + 1);
    if (!to.absent) return to;
    // A dangling link stands for itself, as in weakly_canonical; one the
    // kernel can follow all the same (a magic link of /proc) is left to it.
    struct stat st;
    if (::stat(link.c_str(), &st) == 0) return {sepp::tools::Real(link), false};
    return {link, true};
  }

  std::unordered_map<std::string, Known> known_;
};

std::vector<std::string> RealAll(const std::vector<std::string>& paths, Resolver& resolver) {
  std::vector<std::string> out;
  for (const auto& p : paths) {
    std::string spelled = NoTrailingSlash(p);
    out.push_back(Resolver::Plain(spelled) ? std::move(spelled)
                                           : NoTrailingSlash(fs::path(p).lexically_normal().string()));
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
  // With the sandbox off every path is allowed (Check, Hidden and WalkHider
  // answer before looking at anything else), so there is nothing to
  // resolve: a call with --sandbox off makes its guard for free.
  if (!enabled_) return;
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

WalkHider::WalkHider(const PathGuard& guard, const fs::path& base)
    : guard_(guard), base_(base.lexically_normal()) {
  if (!guard.enabled_) return;
  all_hidden_ = guard.Hidden(base_);
  std::string b = NoTrailingSlash(base_.string());
  for (const auto& r : guard.roots_)
    if (r != b && Under(r, b)) whole_path_ = true;
  for (const auto& d : guard.deny_)
    if (d != b && Under(d, b)) deny_below_.push_back(d.substr(b == "/" ? 1 : b.size() + 1));
}

bool WalkHider::Hidden(std::string_view rel, bool is_dir) {
  if (!guard_.enabled_) return false;
  if (all_hidden_) return true;
  if (!hidden_dir_.empty()) {  // depth first: its entries come right after it
    if (rel.substr(0, hidden_dir_.size()) == hidden_dir_) return true;
    hidden_dir_.clear();
  }
  size_t slash = rel.rfind('/');
  std::string_view name = slash == std::string_view::npos ? rel : rel.substr(slash + 1);
  bool hidden = whole_path_ ? guard_.Hidden(base_ / std::string(rel)) : guard_.deny_names_.Matches(name);
  for (size_t i = 0; !hidden && i < deny_below_.size(); ++i) hidden = deny_below_[i] == rel;
  if (hidden && is_dir) hidden_dir_ = std::string(rel) + "/";
  return hidden;
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
