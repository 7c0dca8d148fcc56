// McpServers: the configured MCP servers of one sepp run, started confined,
// their tools registered as `mcp__SERVER__TOOL`.
//
// A server starts only when it is enabled and the user has confirmed its
// capabilities as they are now (ext/capabilities.h); otherwise it is listed
// with the reason. Each stdio server runs as a held child
// (sandbox/held_child.h) under ToPolicy(its capabilities) — the system
// folders, its own program's files, and what it declared; the policy's
// masks of secret locations stay whatever it declared — with its `env`
// values set and the workspace offered as its root.
#pragma once
#include <atomic>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "ext/extension_info.h"
#include "ext/mcp/client.h"
#include "ext/mcp/config.h"
#include "sandbox/policy.h"
#include "tools/tool.h"

namespace sepp::ext::mcp {

struct StartOptions {
  std::filesystem::path workspace;
  bool sandbox = true;  // false: `--sandbox off` (unconfined, said loudly by the caller)
  // Offer the workspace as the server's root (roots/list). A roots-aware
  // server (server-filesystem) then limits itself to it; the sandbox
  // confines it either way.
  bool offer_roots = true;
  std::function<Json(const std::string& server, const Json& params)> on_elicitation;
  std::function<void(const std::string& line)> on_warning;
  // notifications/{tools,prompts,resources}/list_changed from a server, on
  // its transport's thread (which must not wait on a request of its own).
  std::function<void(const std::string& server, const std::string& what)> on_list_changed;
};

// One running server.
class McpServer {
 public:
  McpServer(ServerConfig config, std::unique_ptr<McpClient> client);
  const ServerConfig& config() const { return config_; }
  McpClient& client() { return *client_; }
  // The tools as last listed; after notifications/tools/list_changed the
  // next caller lists them again (on failure the last list stays).
  std::vector<ToolInfo> Tools();
  void MarkToolsStale() { tools_stale_ = true; }
  bool ToolsStale() const { return tools_stale_; }
  Status RefreshTools(CancelToken* cancel = nullptr);
  // The prompts as last listed (none when the server does not declare the
  // prompts capability); after notifications/prompts/list_changed the next
  // caller lists them again. Never from the transport's thread.
  std::vector<PromptInfo> Prompts();
  void MarkPromptsStale() { prompts_stale_ = true; }
  Status RefreshPrompts(CancelToken* cancel = nullptr);

 private:
  ServerConfig config_;
  std::unique_ptr<McpClient> client_;
  std::mutex mu_;
  std::vector<ToolInfo> tools_;
  std::vector<PromptInfo> prompts_;
  std::atomic<bool> tools_stale_{true};
  std::atomic<bool> prompts_stale_{true};
};

// The policy a server's process runs under (exposed for tests and `sepp mcp list`).
sandbox::Policy ServerPolicy(const ServerConfig& config, const std::filesystem::path& workspace);
// Where it starts: its cwd as configured; else the workspace when it may
// read it; else the folder of its own program (else /usr).
std::filesystem::path ServerCwd(const ServerConfig& config, const sandbox::Policy& policy,
                                const std::filesystem::path& workspace);

// A server as `sepp ext list` shows it before (or without) starting it:
// source, scope, what it may do, confirmation; errors say why it would not
// start (disabled, unconfirmed). loaded is false.
ExtensionInfo DescribeServer(const ServerConfig& config);

// Starts one server (no confirmation check): spawn, initialize, list tools.
Result<std::shared_ptr<McpServer>> StartServer(const ServerConfig& config, const StartOptions& opts);

class McpServers {
 public:
  // Starts every enabled, confirmed server; never fails as a whole (a
  // server that cannot start is listed with its error).
  static std::unique_ptr<McpServers> Start(const McpConfig& config, const StartOptions& opts);
  // Counts the list changes the servers announced (list_changed): a caller
  // that saw another number makes its tools (MakeTools) again. The lists
  // themselves are fetched by their next reader (McpServer::Tools,
  // Prompts), never on the transport's thread, which the answer needs.
  uint64_t Version() const;

  // One tools::Tool per enabled tool of every running server.
  std::vector<std::unique_ptr<tools::Tool>> MakeTools() const;
  const std::vector<ExtensionInfo>& infos() const { return infos_; }
  const std::vector<std::shared_ptr<McpServer>>& running() const { return running_; }

 private:
  std::vector<std::shared_ptr<McpServer>> running_;
  std::vector<ExtensionInfo> infos_;
  std::shared_ptr<std::atomic<uint64_t>> version_ = std::make_shared<std::atomic<uint64_t>>(0);
};

// "mcp__" + server + "__" + tool, with characters outside [A-Za-z0-9_-]
// replaced by '_' (provider tool-name rules), cut to 64 characters.
std::string ToolName(const std::string& server, const std::string& tool);

// A tool of a running server as the model sees it.
std::unique_ptr<tools::Tool> MakeMcpTool(std::shared_ptr<McpServer> server, ToolInfo info);

}  // namespace sepp::ext::mcp
