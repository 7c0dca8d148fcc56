// A bounded walk of a workspace that finds entries by name: the mount plan
// needs, at set-up, every repository's `.git` (nested repositories and
// submodule checkouts lie anywhere) and every file a secret name pattern
// matches (`backend/.env`). Bounded by depth and by entries read, so a huge
// tree costs a bounded time per command; when a bound is reached the result
// says so and the caller tells the user what was not looked at.
#pragma once
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace sepp::sandbox {

struct ScanLimits {
  int max_depth = 8;             // folders below the root
  size_t max_entries = 50000;    // directory entries read, all folders together
};

struct ScanResult {
  std::vector<std::string> matches;  // absolute paths, in walk order
  bool truncated = false;            // a bound was reached: the walk is partial
};

// Entries below `root` (not `root` itself) whose name `match` accepts. Never
// follows symlinks, does not descend into `.git` folders (their inside is the
// git control code's business) nor `node_modules`.
ScanResult ScanWorkspace(const std::string& root,
                         const std::function<bool(std::string_view name)>& match,
                         const ScanLimits& limits = {});

}  // namespace sepp::sandbox
