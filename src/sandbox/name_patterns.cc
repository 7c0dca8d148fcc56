#include "sandbox/name_patterns.h"

#include <fnmatch.h>

#include <cstring>

namespace sepp::sandbox {

bool IsNamePattern(std::string_view e) { return e.starts_with("**/") || e.starts_with("!**/"); }

NamePatterns::NamePatterns(const std::vector<std::string>& deny) {
  for (const auto& e : deny) {
    if (e.starts_with("**/") && e.size() > 3) deny_.push_back(e.substr(3));
    else if (e.starts_with("!**/") && e.size() > 4) exempt_.push_back(e.substr(4));
  }
}

bool NamePatterns::Matches(std::string_view name) const {
  if (deny_.empty() || name.empty() || name == "." || name == ".." || name.size() > 255)
    return false;
  char n[256];
  std::memcpy(n, name.data(), name.size());
  n[name.size()] = '\0';
  bool hit = false;
  for (const auto& g : deny_)
    // A glob that starts with a literal character (".env*") cannot match a
    // name that starts otherwise: most names of a tree skip fnmatch.
    if ((std::strchr("*?[\\", g[0]) || g[0] == n[0]) && fnmatch(g.c_str(), n, FNM_PERIOD) == 0) {
      hit = true;
      break;
    }
  if (!hit) return false;
  for (const auto& g : exempt_)
    if (fnmatch(g.c_str(), n, FNM_PERIOD) == 0) return false;
  return true;
}

bool MatchesDenyName(std::string_view name, const std::vector<std::string>& deny) {
  return NamePatterns(deny).Matches(name);
}

}  // namespace sepp::sandbox
