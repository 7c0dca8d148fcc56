// Workspace sessions: a session in its own git worktree, on its own branch,
// with a scratch folder (`sepp new`, `sepp list`, `sepp merge`, ...;
// docs/workspaces.md). This file is the git side: making, finding,
// inspecting, merging, pushing and removing session worktrees. Starting the
// agent in one is the app's (app/workspace_command.cc); confining it is the
// sandbox's (the default policy recognises a session worktree by its path,
// base/worktree_layout.h).
//
// Every operation runs git outside the sandbox (workspace/git.h) and leaves
// the repository as it found it when it fails: a refused merge changes
// nothing, a conflicting one is aborted.
#pragma once
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "base/json.h"
#include "base/result.h"
#include "base/worktree_layout.h"

namespace sepp::workspace {

// The repository a folder belongs to.
struct Repo {
  std::filesystem::path common_dir;  // the shared git directory (".git" of the main checkout)
  std::filesystem::path checkout;    // the main checkout (common_dir's parent); "" for a bare repository
  std::string key;                   // WorktreeSlot::repo_key
  // Set when the folder lies inside one of sepp's session worktrees.
  std::optional<WorktreeSlot> inside;
};

// Fails (kind "not_a_repository") outside a git repository.
Result<Repo> FindRepo(const std::filesystem::path& dir);

// What `sepp new` records beside the worktree (WorktreeSlot::record).
struct Workspace {
  WorktreeSlot slot;
  std::string branch;       // "sepp/<name>"
  std::string base_ref;     // what the session started from (a branch name, or a commit)
  std::string base_commit;  // the commit base_ref named then
  std::string checkout;     // the main checkout, for messages
  int64_t created_ms = 0;
};

Json WorkspaceToJson(const Workspace& w);

struct CreateOptions {
  std::string base;  // "" = $SEPP_BASE_REF, else the current branch, else HEAD's commit
  std::string name;  // "" = a fresh one from the time and a random suffix
};

// `git worktree add -b sepp/<name> <slot.worktree> <base>` and the scratch
// folder. An explicit name that is taken (branch or folder) is an error
// (kind "exists"); a generated one is made again.
Result<Workspace> Create(const Repo& repo, const CreateOptions& options);

// The repository's workspaces, oldest first. Records whose worktree is gone
// are listed too (state "missing").
Result<std::vector<Workspace>> List(const Repo& repo);

// Finds one by "" (the one the caller is inside, else the newest), a list
// index ("1" is the oldest), a name, a branch or a worktree path.
Result<Workspace> Find(const Repo& repo, const std::string& target);

// Held by the process that runs a session in the workspace (`sepp new`,
// `sepp attach`): `sepp list` shows it live, `sepp remove` refuses it.
class LiveLock {
 public:
  // Fails with kind "live" when another process holds it.
  static Result<LiveLock> Take(const Workspace& w);
  LiveLock(LiveLock&& o) noexcept;
  LiveLock& operator=(LiveLock&&) = delete;
  ~LiveLock();

 private:
  explicit LiveLock(int fd) : fd_(fd) {}
  int fd_ = -1;
};
bool IsLive(const Workspace& w);

struct State {
  bool worktree_exists = false;
  bool live = false;
  int ahead = 0, behind = 0;  // commits of the branch / of the base since their merge base
  int changed_files = 0;      // uncommitted changes in the worktree, untracked included
  std::string base;           // the base compared with (see BaseFor)
};
State StateOf(const Workspace& w, const std::string& base_override);

// The ref to compare with: base_override, else $SEPP_BASE_REF, else the
// recorded base_ref when it still resolves, else the recorded commit.
std::string BaseFor(const Workspace& w, const std::string& base_override);

// What the session changed: the worktree (committed and not) against the
// merge base of its branch and the base, untracked files as added.
Result<std::string> Diff(const Workspace& w, const std::string& base_override, bool stat);

// `git status --short --branch` of the worktree plus the diff stat.
Result<std::string> StatusText(const Workspace& w, const std::string& base_override);

// Commits every pending change in the worktree (`git add -A`) with message;
// false when there was nothing to commit.
Result<bool> CommitPending(const Workspace& w, const std::string& message);

enum class MergeMode { kNoFastForward, kSquash, kFastForwardOnly };

struct MergeOptions {
  MergeMode mode = MergeMode::kNoFastForward;
  std::string message;          // "" = "Merge sepp session <name>"
  std::string pending_message;  // for CommitPending first
};

struct MergeOutcome {
  bool merged = false;
  std::string report;                   // what happened, for the user
  std::vector<std::string> conflicts;   // files, when aborted on conflict
};

// Merges the session's branch into the branch checked out at `into`.
// Refuses (kind "refused", nothing changed) when `into` is detached, is the
// session's own branch, or has any uncommitted or untracked change.
Result<MergeOutcome> Merge(const Workspace& w, const std::filesystem::path& into,
                           const MergeOptions& options);

// Commits pending work, then `git push -u remote sepp/<name>` with the
// terminal's stdio; git's exit code.
Result<int> Push(const Workspace& w, const std::string& remote, const std::string& pending_message);

// Removes the worktree, its scratch folder and its record; the branch stays
// unless delete_branch. Refuses a live workspace, and one with uncommitted
// changes unless force (they would be lost).
Status Remove(const Repo& repo, const Workspace& w, bool delete_branch, bool force);

}  // namespace sepp::workspace
