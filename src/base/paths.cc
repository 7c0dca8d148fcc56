#include "base/paths.h"

#include <cstdlib>
#include <pwd.h>
#include <unistd.h>

namespace sepp {

std::filesystem::path HomeDir() {
  if (const char* h = std::getenv("HOME"); h && *h) return h;
  if (struct passwd* pw = getpwuid(getuid()); pw && pw->pw_dir) return pw->pw_dir;
  return "/";
}

std::filesystem::path SeppHome() {
  if (const char* h = std::getenv("SEPP_HOME"); h && *h) return h;
  return HomeDir() / ".sepp";
}

std::filesystem::path ExpandUser(const std::string& path) {
  if (path == "~") return HomeDir();
  if (path.rfind("~/", 0) == 0) return HomeDir() / path.substr(2);
  return path;
}

std::string DisplayPath(const std::filesystem::path& path, const std::filesystem::path& base) {
  auto rel = path.lexically_relative(base);
  if (!rel.empty() && *rel.begin() != "..") return rel.string();
  return path.string();
}

std::filesystem::path ResolveAgainst(const std::filesystem::path& base, const std::string& path) {
  std::filesystem::path p = ExpandUser(path);
  if (p.is_relative()) p = base / p;
  return p.lexically_normal();
}

}  // namespace sepp
