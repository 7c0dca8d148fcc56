#include "sandbox/defaults.h"

#include "base/paths.h"

namespace sepp::sandbox {

Policy DefaultToolPolicy(const std::filesystem::path& workspace) {
  Policy p;
  p.read_roots = {"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt",
                  workspace.string()};
  p.write_roots = {workspace.string()};
  std::string home = HomeDir().string();
  p.deny_paths = {home + "/.ssh",        home + "/.aws",         home + "/.gnupg",
                  home + "/.netrc",      home + "/.docker",      home + "/.config/gh",
                  home + "/.kube",       home + "/.git-credentials", home + "/.pgpass",
                  home + "/.config/gcloud", home + "/.azure",    SeppHome().string(),
                  // Readable by the owner only; sepp may run as root, and the
                  // command then keeps root's uid (without its powers).
                  "/etc/shadow", "/etc/gshadow", "/etc/sudoers",
                  (workspace / ".env").string(), (workspace / ".env.local").string()};
  p.protected_paths = {".git/hooks/", ".git/config", ".sepp/"};  // "/": a folder
  p.net = NetMode::kOff;
  p.limits.timeout_s = 0;
  p.limits.max_processes = 1024;
  p.limits.max_open_files = 4096;
  return p;
}

}  // namespace sepp::sandbox
