#include "sandbox/defaults.h"

#include "base/paths.h"

namespace sepp::sandbox {

Policy DefaultToolPolicy(const std::filesystem::path& workspace) {
  Policy p;
  p.read_roots = {"/usr", "/bin", "/sbin", "/lib", "/lib64", "/etc", "/opt", workspace.string()};
  p.write_roots = {workspace.string()};
  std::string home = HomeDir().string();
  p.deny_paths = {home + "/.ssh",  home + "/.aws",        home + "/.gnupg",
                  home + "/.netrc", home + "/.docker",    home + "/.config/gh",
                  home + "/.kube", SeppHome().string()};
  p.protected_paths = {".git/hooks", ".git/config", ".sepp"};
  p.net = NetMode::kOff;
  p.limits.timeout_s = 0;
  return p;
}

}  // namespace sepp::sandbox
