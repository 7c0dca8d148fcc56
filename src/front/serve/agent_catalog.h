// The agents `sepp serve` can run besides its own: the ACP adapters it knows
// (claude, codex, pi) and any ACP agent the user's settings give as a
// command ([[serve.agents]] in SeppHome()/settings.toml; a project's file
// cannot add one: it would run a command of a cloned repository's choosing).
//
// An agent is found in sepp's data folder (AgentsDataDir()/npm, where
// `sepp serve install-agent` puts it) or else on the server's PATH, used as
// it is. What an agent answered to initialize and session/new the last time
// a client asked it (capabilities, modes, models) is remembered here, so
// GET /v1/agents can report it without starting a process.
#pragma once
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "base/json.h"
#include "base/result.h"

namespace sepp::front::serve {

struct AgentSpec {
  std::string id;                    // "claude"; the ?agent= and "agent" value
  std::string package;               // npm package ("" for a command from settings)
  std::string version;               // the version install-agent installs
  std::vector<std::string> command;  // argv; argv[0] a program name or a path
  // Secrets the agent needs, passed from the server's environment into its
  // own (and reported by name, never by value); nothing else secret is.
  std::vector<std::string> credentials;
  // Other variables passed through from the server ("NAME") or set
  // ("NAME=value"): a provider's base URL, the adapter's switches.
  std::vector<std::string> env;
  // The agent's own folders in its private home (made at start).
  std::vector<std::string> config_dirs;
  // The hosts its provider answers on, reached through the egress proxy
  // ("host", "*.domain" or "host:port"); the settings' allow_domains add to it.
  std::vector<std::string> allow_domains;
  std::filesystem::path policy_file;  // settings' `policy`: replaces the default
  std::string default_policy;         // the built-in policy (TOML), = examples/policies/ID.toml
  std::string source;                 // "built in" or the settings file
};

// sepp's folder for external agents: SeppHome()/agents (npm/ the installs,
// home/ID/ each agent's private home).
std::filesystem::path AgentsDataDir();

// The built-in agents, before settings.
std::vector<AgentSpec> BuiltinAgents();

// The built-ins with the user's [[serve.agents]] applied: an entry naming a
// built-in changes it (its command, env, allow_domains, policy), any other
// name is a new agent and needs a command. Errors name the file and line.
Result<std::vector<AgentSpec>> LoadAgentSpecs(const std::filesystem::path& settings_file);

struct AgentLocation {
  bool installed = false;
  std::filesystem::path program;  // argv[0] resolved
  std::string found_in;           // "data folder", "PATH" or "" (a path given as it is)
  std::string version;            // from the package's package.json, when there is one
  std::filesystem::path package_root;  // the folder the package lives in (read by the sandbox)
};

// Where the agent's program is: the data folder first, then PATH.
AgentLocation LocateAgent(const AgentSpec& spec, const std::filesystem::path& data_dir,
                          const std::string& path_env);

class AgentCatalog {
 public:
  AgentCatalog(std::vector<AgentSpec> specs, std::filesystem::path data_dir, std::string path_env);
  const AgentSpec* Find(const std::string& id) const;
  const std::vector<AgentSpec>& specs() const { return specs_; }
  const std::filesystem::path& data_dir() const { return data_dir_; }
  const std::string& path_env() const { return path_env_; }
  AgentLocation Locate(const AgentSpec& spec) const { return LocateAgent(spec, data_dir_, path_env_); }

  // An answer the agent gave (method "initialize" or "session/new"), kept
  // for GET /v1/agents; the last one wins.
  void Remember(const std::string& id, const std::string& method, const Json& result);
  // {initialize?, sessionNew?, atMs} or null when the agent never answered.
  Json Remembered(const std::string& id) const;

 private:
  std::vector<AgentSpec> specs_;
  std::filesystem::path data_dir_;
  std::string path_env_;
  mutable std::mutex mu_;
  std::map<std::string, Json> seen_;
};

}  // namespace sepp::front::serve
