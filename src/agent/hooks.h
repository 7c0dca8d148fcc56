// LoopHooks: the loop's extension points (pi's contracts, Claude Code's hook
// events), defined here so that the Agent calls them and every front end
// gets them; ext/ (Lua hooks, hooks.json commands) implements them.
//
// Where the Agent calls each one, and what it may change:
//   OnInput            a prompt enters the loop: continue, transform the
//                      text, handle it (nothing goes to the model), block it
//                      (the reason is the outcome's error), add context.
//   BeforeModelRequest before every provider call: text appended to the
//                      system prompt of that one request.
//   BeforeToolCall     a validated tool call, before it runs: allow / ask
//                      (the permission gate asks the user) / deny (the reason
//                      is the model's error result), rewritten arguments,
//                      context appended to the result.
//   AfterToolResult    the result, before the model sees it: replaced text,
//                      flipped is_error, context appended, stop the prompt
//                      after this batch.
//   OnToolBatchEnd     every result of one assistant message is in: stop the
//                      prompt, or context (a user message before the next call).
//   OnStop             the model answered without tool calls: keep going once
//                      more with a reason (a user message). stop_hook_active
//                      says this prompt was already kept going once, so a
//                      hook can avoid keeping it going forever.
//   BeforeCompact      before a compaction (automatic, overflow or /compact):
//                      cancel it, or supply the summary (no model call).
//   OnSubagentStart/Stop  around a sub-agent's run (observe).
//   BeforeAgentStart   a prompt passed OnInput, before its first model call:
//                      text for the system prompt of every request of this
//                      prompt, context appended to the prompt.
//   OnContext          before every provider call, after BeforeModelRequest:
//                      the messages about to go to the model, replaceable for
//                      this one request (the session keeps its own).
//   OnMessageEnd       a message is complete (the user's, the model's, a tool
//                      result), as it is recorded (observe).
//   OnPermissionRequest  before the permission gate is asked (a hook's "ask",
//                      a retry_with_access): allow (the gate is not asked) or
//                      deny (with the reason for the model).
//   OnModelSelect      the model changed (SetModel) (observe).
//   OnError            a prompt ended with an error (observe).
//   OnInterrupt        a prompt ended because the user aborted it (observe).
// And called by the session runtime (runtime/agent_session.h), not the Agent:
//   OnSessionStart     a session is opened (startup or resume): context for
//                      the model, delivered with the first prompt.
//   OnSessionEnd       the session is closed (observe).
//   OnNotification     sepp needs the user: a permission request went to a
//                      front end (observe).
//
// Contract for implementations: no method throws (a failing hook is the
// implementation's to report and to fail open or closed, see ext/);
// BeforeToolCall and AfterToolResult are called from the parallel tool
// threads at once and must be thread-safe, as must OnPermissionRequest (a
// tool thread), OnModelSelect and OnNotification (any thread); the others
// come from the agent's thread. A default-constructed answer means "no opinion", so an
// implementation overrides only what it uses.
//
// Several hooks combine (HookChain, and the Merge functions every
// implementation with several handlers uses) by these rules, in load order:
//   - transforms chain: each hook sees the input / text / arguments as the
//     hooks before it left them;
//   - decisions: deny > ask > allow > no opinion; the first deny ends the
//     chain (later hooks do not see a call that will not run);
//   - context strings concatenate (one paragraph each), in order;
//   - handled / block of an input end the chain (the first wins);
//   - stop, keep_going and cancel: any hook suffices; the first supplied
//     compaction summary wins;
//   - replaced context messages chain like transforms (the last one goes
//     to the model); system-prompt additions concatenate.
#pragma once
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "base/json.h"
#include "llm/message.h"

namespace sepp::agent {

struct InputInfo {
  std::string text;
};
struct InputVerdict {
  enum class Action { kContinue, kTransform, kHandled, kBlock };
  Action action = Action::kContinue;
  std::string text;     // kTransform: the new prompt
  std::string reason;   // kBlock: why (shown to the user)
  std::string context;  // appended to the prompt for the model
};

struct ModelRequestInfo {
  int turn = 0;
  std::string model;
  size_t messages = 0;  // in the context now
};
struct ModelRequestPatch {
  std::string system_append;  // added to this request's system prompt
};

struct ToolCallInfo {
  std::string tool;
  std::string call_id;
  Json input;  // the arguments (a JSON object)
  int turn = 0;
  bool subagent = false;  // the call is a sub-agent's
};
struct ToolCallVerdict {
  // Ordered: a higher decision wins when several hooks answer.
  enum class Decision { kNone = 0, kAllow = 1, kAsk = 2, kDeny = 3 };
  Decision decision = Decision::kNone;
  Json input;           // non-null: the arguments to run instead
  std::string reason;   // deny: the model's error text; ask: the user's question
  std::string context;  // appended to the call's result
};

struct ToolResultInfo {
  std::string tool;
  std::string call_id;
  Json input;
  std::string text;
  bool is_error = false;
  int64_t duration_ms = 0;
  int turn = 0;
  bool subagent = false;
};
struct ToolResultPatch {
  std::optional<std::string> text;  // replaces the result the model sees
  std::optional<bool> is_error;
  std::string context;              // appended after the result
  bool stop = false;                // end the prompt after this batch
  std::string stop_reason;
};

struct BatchCall {
  std::string tool;
  std::string call_id;
  Json input;
  bool is_error = false;
};
struct BatchEndInfo {
  int turn = 0;
  std::vector<BatchCall> calls;
  bool subagent = false;
};
struct BatchEndVerdict {
  bool stop = false;
  std::string reason;
  std::string context;  // a user message before the next model call
};

struct StopInfo {
  bool stop_hook_active = false;
  std::string last_assistant_message;
  int turn = 0;
  bool subagent = false;
};
struct StopVerdict {
  bool keep_going = false;
  std::string reason;  // the user message the model answers next
};

struct CompactInfo {
  std::string trigger;  // "auto" | "overflow" | "manual"
  std::string focus;    // the user's /compact instructions
  size_t messages = 0;
};
struct CompactVerdict {
  bool cancel = false;
  std::optional<std::string> summary;  // used instead of asking the model
};

struct SubagentInfo {
  std::string call_id;     // the parent's "agent" call
  std::string agent_type;  // the definition's name, "" for the general one
  std::string prompt;
  std::string last_assistant_message;  // stop only
  std::string status;                  // stop only: the outcome's status
};

struct SessionInfo {
  std::string source;      // start: "startup" | "resume"
  std::string reason;      // end: "other" (closed), "clear" (a new session)
  std::string session_id;  // "" without a session file
};
struct SessionStartVerdict {
  std::string context;
};

struct AgentStartInfo {
  std::string prompt;         // as the input hooks left it
  std::string system_prompt;  // the session's
  bool subagent = false;
};
struct AgentStartPatch {
  std::string system_append;  // added to every request of this prompt
  std::string context;        // appended to the prompt
};

struct ContextInfo {
  int turn = 0;
  const std::vector<llm::Message>* messages = nullptr;  // never null
  bool subagent = false;
};
struct ContextPatch {
  std::optional<std::vector<llm::Message>> messages;  // sent instead, this request only
};

struct MessageEndInfo {
  const llm::Message* message = nullptr;  // never null
  bool subagent = false;
};

struct PermissionHookInfo {
  std::string tool;
  std::string call_id;
  Json input;
  std::string reason;                   // why it is asked (the hook's or the model's words)
  std::vector<std::string> widenings;   // the access asked for, in words ("reading /x")
  bool subagent = false;
};
struct PermissionVerdict {
  enum class Decision { kNone = 0, kAllow = 1, kDeny = 2 };
  Decision decision = Decision::kNone;
  std::string reason;  // deny: told to the model
  // With kAllow, non-null: the call's arguments to run instead (Claude's
  // hookSpecificOutput.decision.updatedInput); the last hook's wins.
  Json input;
};

struct ModelSelectInfo {
  std::string model;
  std::string previous;
};

struct PromptEndInfo {
  std::string kind;     // error: the error's kind ("provider", "max_turns", ...)
  std::string message;  // error: what went wrong
  int turn = 0;
  bool subagent = false;
};

struct NotificationInfo {
  std::string type;  // "permission_prompt"
  std::string message;
};

class LoopHooks {
 public:
  virtual ~LoopHooks() = default;
  virtual InputVerdict OnInput(const InputInfo&) { return {}; }
  virtual ModelRequestPatch BeforeModelRequest(const ModelRequestInfo&) { return {}; }
  virtual ToolCallVerdict BeforeToolCall(const ToolCallInfo&) { return {}; }
  virtual ToolResultPatch AfterToolResult(const ToolResultInfo&) { return {}; }
  virtual BatchEndVerdict OnToolBatchEnd(const BatchEndInfo&) { return {}; }
  virtual StopVerdict OnStop(const StopInfo&) { return {}; }
  virtual CompactVerdict BeforeCompact(const CompactInfo&) { return {}; }
  virtual void OnSubagentStart(const SubagentInfo&) {}
  virtual void OnSubagentStop(const SubagentInfo&) {}
  virtual SessionStartVerdict OnSessionStart(const SessionInfo&) { return {}; }
  virtual void OnSessionEnd(const SessionInfo&) {}
  virtual AgentStartPatch BeforeAgentStart(const AgentStartInfo&) { return {}; }
  virtual ContextPatch OnContext(const ContextInfo&) { return {}; }
  virtual void OnMessageEnd(const MessageEndInfo&) {}
  virtual PermissionVerdict OnPermissionRequest(const PermissionHookInfo&) { return {}; }
  virtual void OnModelSelect(const ModelSelectInfo&) {}
  virtual void OnError(const PromptEndInfo&) {}
  virtual void OnInterrupt(const PromptEndInfo&) {}
  virtual void OnNotification(const NotificationInfo&) {}
};

// The combination rules above, one answer at a time: `into` is what the
// hooks so far decided, `next` the next hook's answer (given the inputs as
// `into` left them). Each returns false when the chain ends here.
bool Merge(InputVerdict& into, InputVerdict next);
bool Merge(ToolCallVerdict& into, ToolCallVerdict next);
void Merge(ToolResultPatch& into, ToolResultPatch next);
void Merge(BatchEndVerdict& into, BatchEndVerdict next);
void Merge(StopVerdict& into, StopVerdict next);
void Merge(CompactVerdict& into, CompactVerdict next);
void Merge(ModelRequestPatch& into, ModelRequestPatch next);
void Merge(SessionStartVerdict& into, SessionStartVerdict next);
void Merge(AgentStartPatch& into, AgentStartPatch next);
void Merge(ContextPatch& into, ContextPatch next);
bool Merge(PermissionVerdict& into, PermissionVerdict next);
// Context strings join as paragraphs: "" + b = b, a + "" = a.
void AppendContext(std::string& into, const std::string& more);

// Several hooks as one, in the order added, combined by the rules above.
// Add() is safe while events are dispatched on other threads (parallel tool
// calls, a sub-agent): the list is copied on write, and each dispatch walks
// the list as it was when the dispatch began (a hook added meanwhile sees
// the next event). A project's hooks join a running session this way once
// the user trusts the project (runtime/project_trust_prompt.h).
class HookChain : public LoopHooks {
 public:
  void Add(std::shared_ptr<LoopHooks> hooks);
  bool empty() const;

  InputVerdict OnInput(const InputInfo& in) override;
  ModelRequestPatch BeforeModelRequest(const ModelRequestInfo& in) override;
  ToolCallVerdict BeforeToolCall(const ToolCallInfo& in) override;
  ToolResultPatch AfterToolResult(const ToolResultInfo& in) override;
  BatchEndVerdict OnToolBatchEnd(const BatchEndInfo& in) override;
  StopVerdict OnStop(const StopInfo& in) override;
  CompactVerdict BeforeCompact(const CompactInfo& in) override;
  void OnSubagentStart(const SubagentInfo& in) override;
  void OnSubagentStop(const SubagentInfo& in) override;
  SessionStartVerdict OnSessionStart(const SessionInfo& in) override;
  void OnSessionEnd(const SessionInfo& in) override;
  AgentStartPatch BeforeAgentStart(const AgentStartInfo& in) override;
  ContextPatch OnContext(const ContextInfo& in) override;
  void OnMessageEnd(const MessageEndInfo& in) override;
  PermissionVerdict OnPermissionRequest(const PermissionHookInfo& in) override;
  void OnModelSelect(const ModelSelectInfo& in) override;
  void OnError(const PromptEndInfo& in) override;
  void OnInterrupt(const PromptEndInfo& in) override;
  void OnNotification(const NotificationInfo& in) override;

 private:
  using List = std::vector<std::shared_ptr<LoopHooks>>;
  std::shared_ptr<const List> Snapshot() const;
  mutable std::mutex mu_;
  std::shared_ptr<const List> hooks_ = std::make_shared<const List>();
};

}  // namespace sepp::agent
