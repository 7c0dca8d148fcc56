// McpClient: one connection to one MCP server, over any Transport.
//
// Protocol 2025-11-25, negotiated down to 2025-06-18 and 2025-03-26: the
// client offers the newest; a server answering with another version sepp
// knows is accepted, any other ends the connection with an error naming
// both sides' versions.
//
// Requests are matched to responses by id, in whatever order they come; a
// response to an id sepp never sent (or already gave up on) is ignored. Each
// request has a timeout, reset by the server's progress notifications for
// it, and may be cancelled (CancelToken): sepp then sends
// notifications/cancelled and stops waiting. What the server asks of sepp
// is answered on the transport's thread: ping, roots/list (the workspace),
// elicitation/create (through the handler, else declined); anything else
// is "method not found". Logging messages go to the log sink.
#pragma once
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "base/cancel.h"
#include "base/json.h"
#include "base/result.h"
#include "ext/mcp/transport.h"

namespace sepp::ext::mcp {

inline constexpr const char* kLatestProtocol = "2025-11-25";
const std::vector<std::string>& SupportedProtocols();  // newest first

struct RequestOptions {
  double timeout_s = 60;  // without progress; 0 = none
  CancelToken* cancel = nullptr;
  // Progress notifications for this request (a progressToken is sent when set).
  std::function<void(double progress, std::optional<double> total, const std::string& message)>
      on_progress;
};

struct ServerInfo {
  std::string protocol_version;
  std::string name, version, instructions;
  Json capabilities = Json::object();
};

struct ToolInfo {
  std::string name, title, description;
  Json input_schema = Json::object();
  Json output_schema;  // null when none
};

struct PromptInfo {
  std::string name, title, description;
  Json arguments = Json::array();  // [{name, description, required}]
};

struct ResourceInfo {
  std::string uri, name, title, description, mime_type;
};

struct ClientHooks {
  // Absolute folders, offered as file:// roots; empty: the roots
  // capability is not declared.
  std::vector<std::string> roots;
  // elicitation/create: params -> result ({action, content}); unset: declined.
  std::function<Json(const Json& params)> on_elicitation;
  // notifications/message: level, logger, data as text.
  std::function<void(const std::string& level, const std::string& text)> on_log;
  // notifications/{tools,prompts,resources}/list_changed: "tools", ...
  std::function<void(const std::string& what)> on_list_changed;
};

class McpClient {
 public:
  McpClient(std::unique_ptr<Transport> transport, ClientHooks hooks);
  ~McpClient();  // closes the transport
  McpClient(const McpClient&) = delete;
  McpClient& operator=(const McpClient&) = delete;

  // initialize + notifications/initialized. Call once, first.
  Result<ServerInfo> Initialize(double timeout_s);
  const ServerInfo& server() const { return server_; }

  // A JSON-RPC request; the result object, or an Error: kind "mcp" with the
  // server's message for a JSON-RPC error, "timeout", "cancelled", "eof"
  // when the connection is gone (with the reason).
  Result<Json> Request(const std::string& method, Json params, const RequestOptions& opts = {});
  Status Notify(const std::string& method, Json params);

  // The lists, all pages (bounded: a server that pages forever is cut off).
  Result<std::vector<ToolInfo>> ListTools(const RequestOptions& opts = {});
  Result<std::vector<PromptInfo>> ListPrompts(const RequestOptions& opts = {});
  Result<std::vector<ResourceInfo>> ListResources(const RequestOptions& opts = {});

  bool connected() const;
  std::string closed_reason() const;
  Transport& transport() { return *transport_; }

 private:
  struct Pending {
    bool done = false;
    Json response;
    double deadline = 0;  // 0: none
    double timeout_s = 0;
    const RequestOptions* opts = nullptr;
  };
  void OnMessage(Json msg);
  void OnClosed(const std::string& reason);
  void AnswerRequest(const Json& msg);
  Result<Json> Paged(const std::string& method, const char* key, const RequestOptions& opts);

  std::unique_ptr<Transport> transport_;
  ClientHooks hooks_;
  ServerInfo server_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  int64_t next_id_ = 1;
  std::map<int64_t, Pending*> pending_;
  bool closed_ = false;
  std::string closed_reason_;
};

}  // namespace sepp::ext::mcp
