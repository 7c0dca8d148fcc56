// What `sepp remove` deletes from $SEPP_HOME besides the worktree, its
// scratch folder and its record (workspace::Remove): everything that is
// only that session's and would otherwise be left behind, keyed by a folder
// that no longer exists (docs/workspaces.md, "What remove deletes").
//
// Always: the output sidecar's sources of every session run in the
// worktree or a folder of it (their chunks and index rows with them, unless
// another project's source shares them), the permission grants saved "for
// this project" there (a later session of the same name must not inherit
// them) and the TUI's prompt history there.
// With purge_sessions (`--purge`): the session logs too (both stores,
// sub-agents' included) and the session-scoped memories of those sessions.
// Kept: the branch (unless --delete-branch), project and global memories
// (the repository's and the user's, not the session's), trust records
// (keyed by content, not by a session).
#pragma once
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace sepp::app {

struct PurgeReport {
  int64_t outputs = 0;   // sidecar sources
  int64_t sessions = 0;  // session logs (purge_sessions)
  int64_t memories = 0;  // session-scoped memories (purge_sessions)
  int64_t sessions_kept = 0;
  std::vector<std::string> problems;  // what could not be deleted, and why
};

// worktree: the session's worktree path as recorded, while it still
// exists or after; memory_project: the repository's memory key.
PurgeReport PurgeWorkspaceData(const std::filesystem::path& worktree, const std::string& memory_project,
                               bool purge_sessions);

}  // namespace sepp::app
