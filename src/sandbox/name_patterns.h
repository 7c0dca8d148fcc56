// Deny entries that name a file anywhere rather than one path: "**/GLOB"
// matches every file or folder whose name matches GLOB (fnmatch, no
// slashes) wherever it lies in the workspace (`backend/.env`), and
// "!**/GLOB" exempts names from those patterns (`.env.example`, which
// projects commit for others to read). The mount plan finds the matches with
// the workspace scan at set-up; the file tools test each path's components.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace sepp::sandbox {

bool IsNamePattern(std::string_view deny_entry);

// The name patterns of a deny list, taken apart once: the workspace scan
// asks about every entry it reads.
class NamePatterns {
 public:
  explicit NamePatterns(const std::vector<std::string>& deny);
  bool empty() const { return deny_.empty(); }
  // True when `name` (one path component) is matched by a "**/" entry and
  // by no "!**/" entry.
  bool Matches(std::string_view name) const;

 private:
  std::vector<std::string> deny_, exempt_;  // the globs
};

// One-off form of NamePatterns(deny).Matches(name).
bool MatchesDenyName(std::string_view name, const std::vector<std::string>& deny);

}  // namespace sepp::sandbox
