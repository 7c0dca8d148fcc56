// Project trust: configuration a project folder carries that widens the
// sandbox or adds code to run (agent definitions, hooks, plugins, MCP
// servers, persisted permission grants, project policy) takes effect only
// after the user has trusted that project *as it is now*. The trust is keyed
// to the content: a hash over the names and bytes of the project's
// configuration files, recorded in $SEPP_HOME/trust.json (0600). A command or
// a file tool that changes any of those files changes the key, and the
// project is untrusted again until the user looks and says so
// (`sepp trust DIR`, `--trust`, or a front end's question).
//
// Loaders of widening configuration (agent definitions today; hooks and
// plugins, issues 11 and 12) ask ProjectTrustOf() and skip what is not
// trusted with UntrustedNote() on stderr. Data-only resources need no trust.
#pragma once
#include <filesystem>
#include <string>
#include <vector>

#include "base/result.h"

namespace sepp {

// The project files whose content is keyed, relative to the project root;
// a trailing "/" stands for every file below that folder. One list, so that
// every loader asks about the same content.
const std::vector<std::string>& ProjectConfigEntries();

struct ProjectConfig {
  std::filesystem::path root;                // canonical
  std::vector<std::filesystem::path> files;  // existing files, sorted
  std::vector<std::string> file_hashes;      // SHA-256 hex of each file, as files
  std::string key;                           // SHA-256 hex; empty when no file
  std::string problem;  // set when the content could not be read whole (then never trusted)
};

// Reads the configuration files of the project at `root` and keys them.
// Bounded: at most 1000 files and 64 MiB, beyond which `problem` says so.
ProjectConfig ReadProjectConfig(const std::filesystem::path& root);

enum class TrustState {
  kNothingToTrust,  // no configuration file at all
  kTrusted,         // this exact content was trusted
  kChanged,         // trusted once, but the content has changed since
  kUntrusted,       // never trusted
};
TrustState ProjectTrustOf(const ProjectConfig& config);

// Records the config's key for its root. Refuses a config with a problem.
Status TrustProject(const ProjectConfig& config);

// Whether any of the config's files is code that would run, not only data
// or policy: Lua hooks, hooks.json, a .claude/settings.json with hooks,
// Claude's hook scripts; with extensions also plugins and MCP server
// configurations (for sessions that load configured extensions).
bool HasProjectCode(const ProjectConfig& config, bool extensions = true);

// A session asked the user to trust this content and the answer was no (or
// none came): recorded so that `sepp ext list` can say why the project's
// code does not run. Forgotten when the content changes or is trusted.
Status RecordProjectRefusal(const ProjectConfig& config, const std::string& why);
// The recorded refusal of exactly this content, or "".
std::string ProjectRefusalOf(const ProjectConfig& config);

// The stderr note for ignoring `what` (a file or folder) of an untrusted
// project: names the file, the reason and the way to trust it.
std::string UntrustedNote(const ProjectConfig& config, TrustState state,
                          const std::filesystem::path& what);

// Where the trust records live: SeppHome()/trust.json.
std::filesystem::path TrustStorePath();

}  // namespace sepp
