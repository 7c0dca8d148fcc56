// The git branch of a folder for the footer, read from the repository's HEAD
// file, never by running git: a workspace's git config (core.fsmonitor,
// hooks, aliases) can make git run programs, and the TUI runs unconfined.
#pragma once
#include <filesystem>
#include <string>

namespace sepp::front::tui {

// "main" for "ref: refs/heads/main"; the commit's first 7 hex digits when
// HEAD is detached; "" outside a repository or when HEAD cannot be read.
// Looks in dir and its parents; a ".git" file ("gitdir: PATH", worktrees and
// submodules) is followed.
std::string GitBranch(const std::filesystem::path& dir);

}  // namespace sepp::front::tui
