// Git's control surface: the files and folders of a git directory through
// which git decides what to run or which configuration to read. A command in
// the sandbox may commit, branch, stash and fetch, so a repository's git
// directory stays writable (git writes its lock files, the index and HEAD
// next to those of its control files); what is kept read-only is every entry
// that names code or configuration, in every layout:
//
//   config, config.worktree   configuration (core.fsmonitor, core.hooksPath,
//                             aliases, filter and diff drivers: all run code)
//   commondir                 names the folder the rest is read from
//   hooks/                    run by git itself
//   info/                     attributes (which driver runs on which file),
//                             exclude (what `git status` does not show)
//   modules/*/, worktrees/*/  git directories of submodules and linked
//                             worktrees: the same entries again, recursively
//   a `.git` file             points at the git directory (linked worktrees,
//                             submodule checkouts): read-only itself
//
// commondir and config.worktree cannot be made ahead of time where they do
// not exist (git refuses an empty commondir), so they are listed as absent:
// the launcher removes them if a command created them (see run.cc).
// docs/policy.md has the same list, with the reasons.
#pragma once
#include <string>
#include <vector>

#include "sandbox/denial.h"

namespace sepp::sandbox {

struct GitControl {
  // Git directories outside the write roots that a checkout inside them
  // needs writable: the workspace is a linked worktree (its own git
  // directory and the repository's common one) or a submodule checkout.
  std::vector<std::string> write_roots;
  // Absolute; a trailing "/" marks a folder, made (empty) when missing so
  // that it can be protected.
  std::vector<std::string> read_only;
  // Control files that do not exist and cannot be made empty ahead of time.
  std::vector<std::string> absent;
  std::vector<std::string> notes;  // what could not be honoured, for the user
};

// write_roots: canonical paths. dot_git: `.git` entries found below them by
// the workspace scan (nested repositories, submodule checkouts); the `.git`
// of each write root itself is looked at here.
GitControl FindGitControl(const std::vector<std::string>& write_roots,
                          const std::vector<std::string>& dot_git);

// After a command: removes each absent control file that now exists and
// returns one protected-path denial per removal (target: the file), for the
// command's denials.
std::vector<Denial> RemovePlantedGitControl(const std::vector<std::string>& absent);

}  // namespace sepp::sandbox
