// Policy: what a sandboxed process may do. Data, not code.
//
// One Policy is enforced by the launcher (run.h) for every child sepp starts.
// Built from TOML (policy files, settings) or from an extension's declared
// capabilities. See docs/policy.md.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace sepp::sandbox {

enum class NetMode { kOff, kProxy, kHost };

struct Limits {
  double timeout_s = 0;         // wall clock; 0 = none
  uint64_t max_processes = 0;   // 0 = default
  uint64_t max_memory_bytes = 0;
  uint64_t max_file_bytes = 0;
  uint64_t max_open_files = 0;
  bool operator==(const Limits&) const = default;
};

struct Policy {
  // When false, the child runs unconfined (only `--sandbox off`, shown loudly).
  bool enabled = true;
  std::vector<std::string> read_roots;
  std::vector<std::string> write_roots;
  // Masked even inside allowed roots; "**/NAME" names a file anywhere in the
  // write roots and "!**/NAME" exempts one (name_patterns.h).
  std::vector<std::string> deny_paths;
  // Folders shown read only inside a denied folder that no root shows (a
  // skill's folder in sepp's home): only they are mounted there, and the
  // rest of the denied folder stays out of the sandbox. Where a root shows
  // the denied folder, its mask wins and the hole is left out (with a
  // note). Not a way to unmask a deny path itself, nor a file.
  std::vector<std::string> read_holes;
  // Read-only inside writable roots; a trailing "/" marks a folder (made
  // when missing); ".git/" stands for git's control surface (git_control.h).
  std::vector<std::string> protected_paths;
  NetMode net = NetMode::kOff;
  std::vector<std::string> allow_domains;    // for kProxy; "*.example.com" allowed
  std::vector<std::string> env_allow;        // names passed through from sepp's env
  // Secret-looking names (API keys, tokens) are never passed through unless
  // listed here too: wrapping another agent may need its provider key.
  std::vector<std::string> env_allow_secrets;
  std::map<std::string, std::string> env_set;
  // When set, the only programs the child may start beside the command
  // itself (names looked up in the child's PATH, or paths): Landlock's
  // execute right is given to exactly those files (child_env.h). Unset: any
  // visible program may run. An extension's `exec` capability.
  std::optional<std::vector<std::string>> exec_only;
  Limits limits;
  bool operator==(const Policy&) const = default;
};

}  // namespace sepp::sandbox
