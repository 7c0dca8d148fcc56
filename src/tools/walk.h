// A walk over a folder tree that skips what git would ignore.
//
// Depth-first, each folder's entries in byte order of their names, so output
// built from a walk is sorted and stable. `.git` folders are always skipped.
// .gitignore files are honoured in every folder visited and in the folders
// above the root up to the repository's top (the nearest folder holding
// .git), together with .git/info/exclude. Symlinks are reported but never
// followed into folders (no loops).
#pragma once
#include <filesystem>
#include <functional>
#include <string>

#include "base/cancel.h"

namespace sepp::tools {

struct WalkEntry {
  std::filesystem::path path;  // root / rel
  std::string rel;             // relative to the walk root, '/'-separated
  bool is_dir = false;         // a real folder (not a symlink to one)
  bool is_symlink = false;
};

struct WalkOptions {
  bool respect_gitignore = true;
  CancelToken* cancel = nullptr;  // stops the walk when cancelled
};

// Calls visit for every entry below root (not root itself). visit returns
// false to stop the walk. Unreadable folders are skipped silently.
void Walk(const std::filesystem::path& root, const WalkOptions& options,
          const std::function<bool(const WalkEntry&)>& visit);

}  // namespace sepp::tools
