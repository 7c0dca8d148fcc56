// MCP server configuration: `[[mcp.servers]]` tables in sepp's TOML files,
// and the servers other agents' files name (imported, with no capabilities
// until the user declares them in sepp's own file).
//
//   [[mcp.servers]]
//   name = "git"                       # [A-Za-z0-9_-]+, unique
//   command = ["uvx", "mcp-server-git"] # a stdio server ...
//   # url = "https://example.com/mcp"  # ... or a Streamable HTTP one, with
//   # headers = { X-Team = "a" } and bearer_token_env_var = "EXAMPLE_TOKEN"
//   cwd = "./"                         # where it starts (default: the workspace)
//   env = { GIT_AUTHOR_NAME = "me" }   # values set for it
//   enabled = true
//   startup_timeout_sec = 10
//   tool_timeout_sec = 60
//   enabled_tools = ["git_status"]     # only these (default: all)
//   disabled_tools = ["git_push"]
//   [mcp.servers.capabilities]         # ext/capabilities.h
//   fs_read = ["./"]
//   fs_write = ["./"]
//   exec = ["git"]
//
// Sources, later ones replacing servers of the same name: the user's
// SeppHome()/settings.toml and SeppHome()/mcp.toml (the one `sepp mcp add`
// writes), then Codex's $CODEX_HOME/config.toml `[mcp_servers.NAME]`
// (imported), then — in a trusted project only — the project's .mcp.json
// (Claude Code's, imported), .sepp/settings.toml and .sepp/mcp.toml.
// Unknown keys are errors naming the file and line.
#pragma once
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "ext/capabilities.h"

namespace sepp::ext::mcp {

struct ServerConfig {
  std::string name;
  std::vector<std::string> command;  // stdio
  std::string url;                   // Streamable HTTP
  std::optional<std::string> cwd;    // as written; resolved against the workspace
  std::map<std::string, std::string> env;
  // HTTP servers: headers sent on every request, and the name of the
  // environment variable holding a bearer token (sent as Authorization;
  // the token itself never goes into a file sepp writes).
  std::map<std::string, std::string> headers;
  std::string bearer_token_env_var;
  // OAuth (when no Authorization header is configured): a pre-registered
  // client id and the variable holding its secret, or sepp's client ID
  // metadata document URL; none: dynamic client registration.
  std::string oauth_client_id, oauth_client_secret_env_var, oauth_client_metadata_url;
  // A remote server with no Authorization of its own configured: sepp signs in with OAuth.
  bool UsesOAuth() const;
  bool enabled = true;
  double startup_timeout_s = 10;
  double tool_timeout_s = 60;
  std::vector<std::string> enabled_tools, disabled_tools;
  Capabilities capabilities;
  std::filesystem::path source;  // the file it came from
  int line = 0;                  // where its table starts
  std::string origin;            // "sepp", "claude" (.mcp.json), "codex"
  bool project = false;          // from the project's files

  // What runs, for the confirmation key: the command line or URL, cwd, env.
  std::string Runs() const;
  bool ToolEnabled(const std::string& tool) const;
};

// The `[[mcp.servers]]` array of one TOML document.
Result<std::vector<ServerConfig>> ParseSeppServers(std::string_view text, const std::string& source);
// Claude Code's {"mcpServers": {...}}.
Result<std::vector<ServerConfig>> ParseClaudeServers(std::string_view text, const std::string& source);
// Codex's [mcp_servers.NAME] tables (other tables of its config.toml are
// not sepp's business and are ignored).
Result<std::vector<ServerConfig>> ParseCodexServers(std::string_view text, const std::string& source);

struct McpConfig {
  std::vector<ServerConfig> servers;
  std::vector<std::string> warnings;  // skipped files (untrusted project, broken import)
};

// Every source above for the workspace cwd. A broken sepp user file is an
// error; a broken project or imported file is skipped with a warning.
Result<McpConfig> LoadMcpConfig(const std::filesystem::path& cwd);

// The user's file that `sepp mcp add/remove` edit.
std::filesystem::path UserMcpFile();  // SeppHome()/mcp.toml
// Adds (or replaces) a server in UserMcpFile(); keeps the other servers.
Status AddUserServer(const ServerConfig& server);
// Removes it; an error when it is not there.
Status RemoveUserServer(const std::string& name);
// The TOML text of one server (for the file and for `sepp mcp list`).
std::string ToToml(const ServerConfig& server);

bool ValidServerName(const std::string& name);

}  // namespace sepp::ext::mcp
