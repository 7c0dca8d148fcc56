// Runs git for the workspace commands (sepp new, merge, push, ...), outside
// any sandbox: these are the user's own git operations, run by sepp on the
// user's behalf, so SSH keys and credential helpers stay outside the
// sandbox where the model works. The child's environment is sepp's minus
// every secret-looking variable (provider keys never reach a child), except
// the ones git's credential helpers read (GH_TOKEN, GITHUB_TOKEN,
// GIT_ASKPASS, SSH_AUTH_SOCK).
#pragma once
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace sepp::workspace {

struct GitOutput {
  int exit_code = -1;
  std::string out;
  std::string err;
  bool ok() const { return exit_code == 0; }
};

// `git -C cwd args...` with stdout and stderr captured; stdin is input
// (at most 4 KiB: it is put in the pipe before git starts), else /dev/null.
// Fails only when git cannot be started.
Result<GitOutput> Git(const std::filesystem::path& cwd, const std::vector<std::string>& args,
                      std::string_view input = {});

// The same with the terminal's stdio (push: progress and prompts); the exit code.
Result<int> GitInteractive(const std::filesystem::path& cwd, const std::vector<std::string>& args);

// out without the trailing newline(s).
std::string Trimmed(const std::string& out);

}  // namespace sepp::workspace
