#include "tools/access.h"

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

std::vector<std::string> RealAll(const std::vector<std::string>& paths) {
  std::vector<std::string> out;
  for (const auto& p : paths) {
    out.push_back(NoTrailingSlash(fs::path(p).lexically_normal().string()));
    std::string r = Real(p);
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

PathGuard::PathGuard(const ToolContext& ctx) {
  sandbox::Policy fallback;
  const sandbox::Policy* p = ctx.policy;
  if (!p) {
    fallback = sandbox::DefaultToolPolicy(ctx.cwd.empty() ? fs::current_path() : ctx.cwd);
    p = &fallback;
  }
  enabled_ = p->enabled;
  read_roots_ = RealAll(p->read_roots);
  write_roots_ = RealAll(p->write_roots);
  roots_ = read_roots_;
  roots_.insert(roots_.end(), write_roots_.begin(), write_roots_.end());
  deny_names_ = sandbox::NamePatterns(p->deny_paths);
  for (const auto& d : p->deny_paths)
    if (!sandbox::IsNamePattern(d))
      for (auto& r : RealAll({d})) deny_.push_back(std::move(r));
  for (const auto& root : p->write_roots)
    for (const auto& rel : p->protected_paths) {
      // The file tools have no business in any git directory: nothing in
      // one, wherever it lies, is theirs to write (git_control.h).
      if (rel == ".git/") {
        protect_git_ = true;
        continue;
      }
      fs::path abs = fs::path(rel).is_absolute() ? fs::path(rel) : fs::path(root) / rel;
      for (const auto& s : RealAll({abs.string()})) protected_.push_back(s);
    }
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
      if (Under(p, d)) return true;
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
    if (Under(lexical, d)) return true;
  return AnyComponent(lexical, roots_, &deny_names_, nullptr);
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
