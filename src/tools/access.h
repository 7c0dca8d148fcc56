// PathGuard: the file tools' side of the sandbox policy.
//
// read, write, edit, ls, find and grep run in the session sandbox's tool
// worker (tool_worker.h), where the kernel enforces the Policy; the guard
// stays in front for plain-words refusals and as defence in depth, checking
// each path against the same Policy: deny paths (secrets) are never read or listed, reads stay within the
// read roots, writes within the write roots and outside the protected paths
// (any git directory, .sepp). Secrets match by path or by name pattern
// (`**/.env`). Symlinks are resolved first, so a link in the workspace
// cannot lead to ~/.ssh, and a path that cannot be resolved is refused (fail
// closed). Read holes (Policy::read_holes: a skill's folder shown read only
// inside sepp's hidden home) are honoured exactly as the kernel mount
// honours them (sandbox/mounts.cc): a folder that exists, is not itself a
// deny path and lies in a denied folder that no root shows may be read, as
// may what resolves into it; a sibling, a ".." out of it or a symlink in it
// that leads out is the denied folder again. With the sandbox off (policy
// disabled), everything is allowed, as for bash.
#pragma once
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "sandbox/denial.h"
#include "sandbox/name_patterns.h"
#include "tools/tool.h"

namespace sepp::tools {

class PathGuard {
 public:
  // Uses ctx.policy, or the default tool policy for ctx.cwd. own_mounts:
  // roots that are the sandbox's own fresh mounts (the session worker's
  // /tmp and /dev/shm, added to its policy there), which show nothing of
  // the host: they do not mask a read hole, as they are not in the policy
  // the kernel mounted from.
  explicit PathGuard(const ToolContext& ctx, const std::vector<std::string>& own_mounts = {});

  // Nothing when allowed; else the refusal, typed (its kind and the path as
  // given) with the reason in plain words for the model.
  std::optional<sandbox::Denial> CheckRead(const std::filesystem::path& path) const;
  std::optional<sandbox::Denial> CheckWrite(const std::filesystem::path& path) const;
  // For entries met while walking a tree: true if the entry lies in a deny
  // path (lexical: walks never follow symlinks into folders).
  bool Hidden(const std::filesystem::path& path) const;

 private:
  friend class WalkHider;
  std::optional<sandbox::Denial> Check(const std::filesystem::path& path, bool write) const;

  bool enabled_ = true;
  bool protect_git_ = false;  // the policy protects ".git/": no write in a git directory
  std::vector<std::string> read_roots_, write_roots_, deny_, protected_;
  std::vector<std::string> roots_;  // read and write roots: name checks start below them
  // The read holes the kernel would mount, both spellings (as given and
  // resolved), each with the deny paths it lies in, which do not hide it.
  struct Hole {
    std::vector<std::string> spellings;
  };
  std::vector<Hole> holes_;
  // True when p lies in a hole that the deny path d holds (d is then no
  // mask for p); deny paths inside a hole still mask.
  bool ThroughHole(const std::string& p, const std::string& d) const;
  sandbox::NamePatterns deny_names_{{}};  // "**/NAME" patterns
};

// Hidden() for the entries of one walk below `base`, met in the walk's
// depth-first order: each entry is decided from its own name (the folders
// above it were decided when the walk met them, and the entries of a hidden
// folder are skipped with it). That is Hidden()'s answer at a fraction of
// its cost (no parsing of the whole path per entry: a 100,000-file index
// build spent most of its time there). Where another read or write root
// lies below base (its own components would not count), every entry falls
// back to Hidden() on the whole path. One per walk: it keeps state.
class WalkHider {
 public:
  WalkHider(const PathGuard& guard, const std::filesystem::path& base);
  // rel: '/'-separated below base, in walk order.
  bool Hidden(std::string_view rel, bool is_dir);

 private:
  const PathGuard& guard_;
  std::filesystem::path base_;
  bool all_hidden_ = false;   // base itself is hidden
  bool whole_path_ = false;   // fall back to guard_.Hidden(base / rel)
  std::vector<std::string> deny_below_;  // deny paths below base, relative to it
  std::string hidden_dir_;    // "rel/" of the hidden folder whose entries are passing
};

// ctx.guard when set, else a guard made for this call in *own.
const PathGuard& GuardOf(const ToolContext& ctx, std::optional<PathGuard>* own);

// The result a tool returns when the guard refuses (is_error, details.denied,
// the denial).
ToolResult DeniedResult(sandbox::Denial denial);

}  // namespace sepp::tools
