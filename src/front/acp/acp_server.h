// `sepp --acp`: an Agent Client Protocol (v1) agent on a pair of descriptors
// (stdin/stdout). One runtime::AgentSession per ACP session, several in one
// process. The reader thread parses and dispatches; each session's pump
// thread turns the runtime's events into session/update notifications and
// answers the session/prompt that started the turn when the runtime says the
// session settled. All output goes through one Outbox, so neither a slow
// client nor a long turn can keep the reader from acting on session/cancel
// or a permission answer.
//
// Mapping: docs/acp.md. Ends when the input ends: running turns are
// aborted (each session file stays valid) and the sessions closed.
#pragma once
#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "ext/mcp/config.h"
#include "runtime/agent_session.h"
#include "session/store.h"

namespace sepp::front::acp {

struct AcpOptions {
  // What every session starts from (provider, model, limits); the server
  // sets cwd, policy, the session to open and who answers permissions.
  runtime::SessionOptions base;
  // The policy for a session in cwd (the app's default tool policy).
  std::function<sandbox::Policy(const std::filesystem::path& cwd)> policy_for;
  // Sessions of cwd (or all), most recent first, for session/list.
  std::function<Result<std::vector<session::SessionSummary>>(const std::optional<std::string>&)>
      list_sessions;
  // Model ids offered in the "model" config option besides the current one.
  std::vector<std::string> models;
  std::string version;  // agentInfo.version
  size_t max_line = 64u << 20;          // longest accepted message
  size_t max_queued_output = 32u << 20;  // streamed updates past this are dropped
  // How long a file tool waits for the client's answer to fs/read_text_file
  // or fs/write_text_file (when the client offers them) before it fails.
  std::chrono::milliseconds fs_timeout{30000};
  // Adds a session's MCP servers to its options before it opens: the
  // configured ones for its cwd and those its client gave (session/new
  // mcpServers, ext/mcp/client_servers.h). Unset: none. An error refuses the session.
  std::function<Status(std::vector<ext::mcp::ServerConfig> given, runtime::SessionOptions* options)>
      add_mcp_servers;
};

// Serves until in_fd ends. Returns 0, or 1 when the output broke.
int RunAcpServer(int in_fd, int out_fd, AcpOptions options);

}  // namespace sepp::front::acp
