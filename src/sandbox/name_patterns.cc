#include "sandbox/name_patterns.h"

#include <fnmatch.h>

namespace sepp::sandbox {

bool IsNamePattern(std::string_view e) { return e.starts_with("**/") || e.starts_with("!**/"); }

bool MatchesDenyName(std::string_view name, const std::vector<std::string>& deny) {
  if (name.empty() || name == "." || name == "..") return false;
  std::string n(name);
  bool hit = false;
  for (const auto& e : deny) {
    bool exempt = e.starts_with("!**/");
    if (!exempt && !e.starts_with("**/")) continue;
    std::string glob = e.substr(exempt ? 4 : 3);
    if (fnmatch(glob.c_str(), n.c_str(), FNM_PERIOD) != 0) continue;
    if (exempt) return false;
    hit = true;
  }
  return hit;
}

bool HasNamePatterns(const std::vector<std::string>& deny) {
  for (const auto& e : deny)
    if (e.starts_with("**/")) return true;
  return false;
}

}  // namespace sepp::sandbox
