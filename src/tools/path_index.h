// PathIndex: the paths below a folder, kept in memory and fresh with
// inotify, for file_search and content_search.
//
// Built once by a gitignore-aware walk (walk.h; .git and ignored files left
// out, and every entry the PathGuard hides), sorted by path. Each query first
// applies what inotify reported since the last one: a folder whose entries
// changed is walked again (its subtree only), a file whose content changed
// loses its cached git state and content filter. When inotify is full
// (ENOSPC) or overflows, the next query rebuilds the whole index, so results
// are never stale; details report `watching: false` then.
//
// For content_search each file keeps a 2048-bit filter of the byte pairs it
// holds (lower case), filled the first time the file is read: a literal's
// pairs that are not all in the filter rule the file out without reading
// it. Files over 64 KiB skip the filter (it would be full) and are always
// read.
//
// Not thread-safe: the owner (the search tools) holds mutex() around every
// use.
#pragma once
#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "base/cancel.h"
#include "base/fd.h"
#include "tools/access.h"
#include "tools/git_index.h"

namespace sepp::tools {

struct IndexedPath {
  std::string rel;          // '/'-separated, relative to the root
  uint32_t name_start = 0;  // where the last segment starts
  bool is_dir = false;
  bool is_symlink = false;
  uint64_t mask = 0;        // CharMask(rel)
  // Cached, reset when inotify reports a change: 0 unknown, 1 clean, 2 changed.
  uint8_t git = 0;
  // 0 no filter yet, 1 filter filled, 2 no filter (large: always read).
  uint8_t filter_state = 0;
  // Where the last path segment that starts with '.' starts, -1 for none: a
  // search below a prefix skips the entry as hidden when this is at or after
  // the prefix (so `.github/` searched itself still finds its files).
  int32_t hidden_at = -1;
  std::unique_ptr<uint64_t[]> filter;  // 32 words when filter_state == 1
};

// Where the last segment of rel that starts with '.' starts, or -1.
inline int32_t LastHiddenSegment(std::string_view rel) {
  for (size_t i = rel.size(); i-- > 0;)
    if (rel[i] == '.' && (i == 0 || rel[i - 1] == '/')) return static_cast<int32_t>(i);
  return -1;
}

// True when a segment of e below prefix ("" or ending in '/') starts with '.'.
inline bool HiddenBelow(const IndexedPath& e, size_t prefix_size) {
  return e.hidden_at >= 0 && static_cast<size_t>(e.hidden_at) >= prefix_size;
}

class PathIndex {
 public:
  PathIndex(std::filesystem::path root, const PathGuard& guard, CancelToken* cancel);
  ~PathIndex();
  PathIndex(const PathIndex&) = delete;
  PathIndex& operator=(const PathIndex&) = delete;

  std::mutex& mutex() { return mu_; }
  const std::filesystem::path& root() const { return root_; }

  // Applies the changes seen since the last call (see the top of this file).
  void Refresh(const PathGuard& guard, CancelToken* cancel);

  std::vector<IndexedPath>& entries() { return entries_; }
  bool watching() const { return watching_; }
  double build_ms() const { return build_ms_; }
  size_t rebuilds() const { return rebuilds_; }

  // Whether git sees entry i as changed (untracked, modified or in
  // conflict); false outside a repository.
  bool GitChanged(IndexedPath& e);
  bool in_git() const { return git_.has_value(); }

  // The folder the last OpenBeneath went through, kept open for the next.
  struct DirCache {
    std::string rel;
    UniqueFd fd;
  };
  // Opens entry e for reading: beneath the root, with no symlink on the
  // way (openat2 RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS, or folder by folder
  // with O_NOFOLLOW where openat2 is refused), regular files only, without
  // blocking. Invalid when it cannot (gone, not a file, refused).
  UniqueFd OpenBeneath(const IndexedPath& e, DirCache* dirs = nullptr) const;

  // False when the filter rules out that e holds a text with these byte
  // pairs (lower case); fills the filter from content when not done yet
  // (content: the file's bytes, or null to not fill).
  static bool MayHold(const IndexedPath& e, std::string_view lower_literal);
  static void FillFilter(IndexedPath& e, std::string_view content);

 private:
  void Build(const PathGuard& guard, CancelToken* cancel);
  // Walks root/dir ("" for the root) and returns its entries, sorted;
  // watches every folder met.
  std::vector<IndexedPath> WalkSubtree(const std::string& dir, const PathGuard& guard,
                                       CancelToken* cancel);
  void Watch(const std::string& dir_rel);
  void ReplaceSubtree(const std::string& dir, std::vector<IndexedPath> fresh);
  IndexedPath* Find(std::string_view rel);
  void RefreshGit();

  std::mutex mu_;
  const std::filesystem::path root_;
  UniqueFd root_fd_;
  UniqueFd inotify_;
  bool watching_ = true;
  std::map<int, std::string> watches_;  // watch descriptor -> folder (rel)
  std::vector<IndexedPath> entries_;
  double build_ms_ = 0;
  size_t rebuilds_ = 0;
  // git's index of the repository holding the root, if any.
  std::optional<std::filesystem::path> git_index_file_;
  std::string git_prefix_;  // the root's path from the worktree top, "" or "sub/"
  std::optional<GitIndex> git_;
  struct timespec git_mtime_ = {};
  off_t git_size_ = -1;
};

}  // namespace sepp::tools
