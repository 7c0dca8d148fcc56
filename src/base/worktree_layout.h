// Where sepp keeps the git worktrees and scratch folders of its workspace
// sessions (`sepp new`, docs/workspaces.md):
//
//   SeppHome()/worktrees/<repo key>/<name>/       the session's worktree
//   SeppHome()/worktrees/<repo key>/<name>.json   its record (workspace/)
//   SeppHome()/scratch/<repo key>/<name>/          its scratch folder
//
// In base because the sandbox's default policy needs it too: a session whose
// workspace is such a worktree gets its scratch folder writable, and
// SeppHome() stays hidden around the two (sandbox/defaults.cc).
#pragma once
#include <filesystem>
#include <optional>
#include <string>

namespace sepp {

struct WorktreeSlot {
  std::string repo_key;  // "<repository folder name>-<8 hex of its git directory>"
  std::string name;      // the session's name; its branch is "sepp/<name>"
  std::filesystem::path worktree;
  std::filesystem::path scratch;
  std::filesystem::path record;  // <name>.json beside the worktree
};

// SeppHome()/worktrees and SeppHome()/scratch, made absolute and normal.
std::filesystem::path WorktreesRoot();
std::filesystem::path ScratchRoot();

WorktreeSlot SlotFor(const std::string& repo_key, const std::string& name);

// The slot whose worktree is dir or holds it; nullopt for any other folder.
// Lexical: dir should be absolute and normal (as current_path() is).
std::optional<WorktreeSlot> SlotOf(const std::filesystem::path& dir);

}  // namespace sepp
