// LuaHookFile: one Lua hook file (~/.sepp/hooks/*.lua, .sepp/hooks/*.lua,
// --hook FILE) as the loop's extension points (agent/hooks.h).
//
// One sandboxed state per file (lua_sandbox.h) behind one lock: parallel
// tool calls reach a file's handlers one at a time, so a hook never sees a
// data race, and ctx.state is one table per file. Files do not share state.
//
// The file's API (docs/extensions.md, "Tier 2"):
//   sepp.on(event, [filter], fn)   filter: a tool name, "a|b", "*", or a
//                                  table {tool = ..., on_error = "deny"}
//   sepp.register_tool{name, description, parameters, run = fn(args, ctx)}
//   sepp.register_command{name, description, run = fn(args, ctx)}
//   sepp.send_message(text, {deliver = "steer" | "follow_up" | "next_turn"})
//   sepp.notify(text, [level]), sepp.log(level, ...), sepp.json.encode/decode
//   ctx.state.get(key), ctx.state.set(key, value)  (kept in the session)
//   ctx.cwd, ctx.turn, ctx.is_subagent, ctx.event
// A handler returns nil (no opinion) or a table {action = ..., ...}; what
// each event accepts is in kEvents (lua_hook_file.cc) and the docs.
//
// Failures: a handler that errors or breaks a limit is reported (host.report)
// and counts as no opinion (fail-open), except a tool_call handler registered
// with on_error = "deny", whose failure denies the call (fail-closed).
#pragma once
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "agent/hooks.h"
#include "base/json.h"
#include "base/result.h"
#include "ext/lua/lua_sandbox.h"
#include "tools/tool.h"

namespace sepp::ext {

// What the session offers a hook file. Every function may be empty.
struct LuaHost {
  std::filesystem::path cwd;
  // sepp.send_message: deliver is "steer", "follow_up" or "next_turn".
  std::function<void(const std::string& text, const std::string& deliver)> send_message;
  // sepp.notify: level "info" | "warning" | "error".
  std::function<void(const std::string& level, const std::string& text)> notify;
  // A hook failed (an error, a limit, a bad answer): what, for the user.
  std::function<void(const std::string& problem)> report;
  // ctx.state changed: the file's whole state, to keep in the session.
  std::function<void(const std::filesystem::path& file, const Json& state)> save_state;
};

struct LuaCommand {
  std::string name;
  std::string description;
};

class LuaHookFile : public agent::LoopHooks,
                    public std::enable_shared_from_this<LuaHookFile> {
 public:
  // Runs the file (its top level registers handlers, tools, commands).
  // Errors: unreadable file, a syntax error, an error at the top level, an
  // unknown event name; each names the file (and the line, when Lua knows).
  static Result<std::shared_ptr<LuaHookFile>> Load(const std::filesystem::path& file,
                                                   LuaHost host, LuaLimits limits = {});
  static Result<std::shared_ptr<LuaHookFile>> LoadSource(const std::string& source,
                                                         const std::filesystem::path& name,
                                                         LuaHost host, LuaLimits limits = {});
  ~LuaHookFile() override;

  const std::filesystem::path& path() const { return path_; }
  // The events it handles, in registration order, without repeats.
  std::vector<std::string> events() const;
  // The tools it registered (once; the session adds them to its registry).
  std::vector<std::unique_ptr<tools::Tool>> TakeTools();
  std::vector<LuaCommand> commands() const;
  // Runs a registered command with the user's argument text.
  Status RunCommand(const std::string& name, const std::string& args);
  // ctx.state as the session kept it (on resume).
  void RestoreState(const Json& state);
  Json state() const;

  agent::InputVerdict OnInput(const agent::InputInfo& in) override;
  agent::ModelRequestPatch BeforeModelRequest(const agent::ModelRequestInfo& in) override;
  agent::ToolCallVerdict BeforeToolCall(const agent::ToolCallInfo& in) override;
  agent::ToolResultPatch AfterToolResult(const agent::ToolResultInfo& in) override;
  agent::BatchEndVerdict OnToolBatchEnd(const agent::BatchEndInfo& in) override;
  agent::StopVerdict OnStop(const agent::StopInfo& in) override;
  agent::CompactVerdict BeforeCompact(const agent::CompactInfo& in) override;
  void OnSubagentStart(const agent::SubagentInfo& in) override;
  void OnSubagentStop(const agent::SubagentInfo& in) override;
  agent::SessionStartVerdict OnSessionStart(const agent::SessionInfo& in) override;
  void OnSessionEnd(const agent::SessionInfo& in) override;
  agent::AgentStartPatch BeforeAgentStart(const agent::AgentStartInfo& in) override;
  agent::ContextPatch OnContext(const agent::ContextInfo& in) override;
  void OnMessageEnd(const agent::MessageEndInfo& in) override;
  agent::PermissionVerdict OnPermissionRequest(const agent::PermissionHookInfo& in) override;
  void OnModelSelect(const agent::ModelSelectInfo& in) override;
  void OnError(const agent::PromptEndInfo& in) override;
  void OnInterrupt(const agent::PromptEndInfo& in) override;
  void OnNotification(const agent::NotificationInfo& in) override;

  // For the registered tools (lua_tool.cc): runs the tool's function.
  tools::ToolResult RunTool(int ref, const std::string& tool, const Json& args);

  struct Handler {
    std::string event;
    std::vector<std::string> tools;  // empty: every tool
    bool fail_closed = false;
    int ref = 0;                     // the function, in the registry
  };
  struct ToolDef {
    std::string name, description;
    Json parameters;
    int ref = 0;
  };
  struct CommandDef {
    LuaCommand info;
    int ref = 0;
  };

 private:
  LuaHookFile(std::filesystem::path path, LuaHost host, LuaLimits limits);
  Status Init(const std::string& source);
  void InstallApi();
  // Calls every handler of event (whose filter matches tool) with ev; fold
  // gets each answer (a JSON object, or null for none). A failing handler
  // is reported, then fold gets failed = true.
  void Dispatch(const std::string& event, const std::string& tool, const Json& ev, int turn,
                bool subagent, const std::function<bool(const Json& answer, bool failed,
                                                        const Handler& h)>& fold);
  void Report(const std::string& what);
  bool Handles(const char* event) const;

  std::filesystem::path path_;
  LuaHost host_;
  mutable std::mutex mu_;  // the state runs one call at a time
  LuaSandbox lua_;
  int ctx_ref_ = 0;
  Json state_ = Json::object();
  std::vector<Handler> handlers_;
  std::vector<ToolDef> tools_;
  std::vector<CommandDef> commands_;
  bool tools_taken_ = false;

  friend struct LuaApi;
};

}  // namespace sepp::ext
