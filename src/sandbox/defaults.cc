#include "sandbox/defaults.h"

#include "base/paths.h"
#include "base/worktree_layout.h"

namespace sepp::sandbox {

const std::vector<std::string>& DefaultSecretEntries() {
  static const std::vector<std::string> kEntries = {
      // Keys and cloud credentials.
      "~/.ssh", "~/.gnupg", "~/.aws", "~/.azure", "~/.config/gcloud", "~/.oci", "~/.kube",
      "~/.docker", "~/.s3cfg", "~/.boto", "~/.config/doctl", "~/.vault-token",
      "~/.terraform.d/credentials.tfrc.json", "~/.terraformrc", "~/.password-store",
      "~/.local/share/keyrings", "~/.config/op",
      // Git hosts and package registries.
      "~/.netrc", "~/.git-credentials", "~/.config/git/credentials", "~/.config/gh",
      "~/.config/hub", "~/.npmrc", "~/.yarnrc.yml", "~/.pypirc", "~/.cargo/credentials",
      "~/.cargo/credentials.toml", "~/.gem/credentials", "~/.m2/settings.xml",
      "~/.gradle/gradle.properties", "~/.pgpass",
      // Other agents' logins.
      "~/.claude/.credentials.json", "~/.claude.json", "~/.codex/auth.json",
      // Shell and REPL history (commands typed with passwords and tokens).
      "~/.bash_history", "~/.zsh_history", "~/.local/share/fish/fish_history",
      "~/.python_history", "~/.node_repl_history", "~/.psql_history", "~/.mysql_history",
      "~/.sqlite_history",
      // Readable by the owner only; sepp may run as root, and the command
      // then keeps root's uid (without its powers). The "-" files are the
      // backups shadow's tools keep.
      "/etc/shadow", "/etc/shadow-", "/etc/gshadow", "/etc/gshadow-", "/etc/security/opasswd",
      "/etc/sudoers",
      // Environment files anywhere in the workspace; the examples projects
      // commit for others to copy stay readable.
      "**/.env", "**/.env.*", "**/.envrc", "!**/.env.example", "!**/.env.sample",
      "!**/.env.template", "!**/.env.dist"};
  return kEntries;
}

namespace fs = std::filesystem;

namespace {

// Denies every entry of root except the paths down to each of keep (and
// keep itself). Entries made in root later are not listed; they stay out of
// reach because no read root contains root (Landlock grants nothing there).
void DenyAllBut(const fs::path& root, const std::vector<fs::path>& keep,
                std::vector<std::string>* deny) {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(root, ec)) {
    const fs::path& path = e.path();
    bool kept = false, on_the_way = false;
    for (const auto& k : keep) {
      auto rel = k.lexically_relative(path);
      if (rel == ".") kept = true;
      else if (!rel.empty() && *rel.begin() != "..") on_the_way = true;
    }
    if (kept) continue;
    if (on_the_way) DenyAllBut(path, keep, deny);
    else deny->push_back(path.string());
  }
}

}  // namespace

Policy DefaultToolPolicy(const std::filesystem::path& workspace) {
  Policy p;
  p.read_roots = {"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt",
                  workspace.string()};
  p.write_roots = {workspace.string()};
  for (const auto& e : DefaultSecretEntries())
    p.deny_paths.push_back(e.starts_with("~/") ? ExpandUser(e).string() : e);
  // sepp's own folder is hidden, except, for a workspace session (`sepp
  // new`), the session's own worktree and scratch folder inside it.
  if (auto slot = SlotOf(workspace)) {
    p.read_roots.push_back(slot->scratch.string());
    p.write_roots.push_back(slot->scratch.string());
    DenyAllBut(WorktreesRoot().parent_path(), {slot->worktree, slot->scratch}, &p.deny_paths);
  } else {
    p.deny_paths.push_back(SeppHome().string());
  }
  // ".git/": git's control surface in every repository of the write roots
  // (sandbox/git_control.h). The workspace's .sepp/ is made when missing,
  // so a command cannot create project configuration either; only the
  // workspace's, where sepp reads it (not in every extra write root).
  p.protected_paths = {".git/", (workspace / ".sepp").string() + "/"};  // "/": a folder
  p.net = NetMode::kOff;
  p.limits.timeout_s = 0;
  p.limits.max_processes = 1024;
  p.limits.max_open_files = 4096;
  return p;
}

}  // namespace sepp::sandbox
