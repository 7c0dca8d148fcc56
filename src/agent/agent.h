// Agent: the loop that turns a prompt into work.
//
// Prompt() sends the conversation to the provider; if the answer asks for
// tools, it runs them (in parallel, bounded), appends their results in call
// order, and asks again, until the model answers without tool calls, the turn
// limit is reached, an error occurs, or the CancelToken fires. Everything it
// does is reported as Events (events.h), with every registered secret
// redacted (event_redactor.h), and every completed message is handed to the
// MessageRecorder (the session file) as soon as it exists.
//
// Contract: Prompt never throws. A tool that is unknown, gets arguments that
// are not JSON or of any wrong shape, or fails, becomes an error result the
// model can read.
// Thread-compatible: one Prompt at a time per Agent. Each Agent (a
// sub-agent's too) has its own session sandbox for its tools.
#pragma once
#include <atomic>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "agent/access_retry.h"
#include "agent/compaction.h"
#include "agent/events.h"
#include "agent/hooks.h"
#include "agent/permission_gate.h"
#include "base/cancel.h"
#include "base/result.h"
#include "llm/message.h"
#include "llm/provider.h"
#include "sandbox/policy.h"
#include "tools/file_access.h"
#include "tools/tool.h"
#include "tools/tool_worker.h"

namespace sepp::sidecar {
class Sidecar;
}

namespace sepp::agent {

struct AgentConfig {
  std::string model;
  std::string system_prompt;
  std::filesystem::path cwd;
  const sandbox::Policy* policy = nullptr;  // null: the tools' default policy
  int max_turns = 100;
  int max_parallel_tools = 4;
  int max_tokens = 0;        // 0: the model's default
  int thinking_budget = 0;
  bool stream = true;
  // The model's context window; 0 turns automatic compaction off.
  int64_t context_window = 0;
  CompactionSettings compaction;
  // Asked when the model retries a refused call with a wider sandbox
  // (permission_gate.h). Null: such retries are denied, saying so.
  PermissionGate* permission_gate = nullptr;
  // The front end's file access for read/write/edit (tools/file_access.h);
  // null: the disk.
  tools::FileAccess* file_access = nullptr;
  // The extension points (hooks.h); null: none, and no cost. Owned by the
  // caller; a sub-agent's config inherits them.
  LoopHooks* hooks = nullptr;
  bool is_subagent = false;  // this Agent runs a sub-agent (hooks see it)
  // The output sidecar (sidecar/sidecar.h, output_capture.h): oversized
  // tool results go there and the model gets a receipt. Null: results stay
  // as the tools cut them. Owned by the caller; sub-agents inherit it.
  sidecar::Sidecar* sidecar = nullptr;
};

// Persists a completed message (user, assistant or tool result). Must not
// throw; called on the agent's thread, in conversation order.
using MessageRecorder = std::function<void(const llm::Message&)>;
// Persists a compaction (the session's "compaction" entry). Must not throw.
using CompactionRecorder = std::function<void(const CompactionResult&)>;
// Called at each tool boundary (after a turn's tool results are in, before
// the next model call): returns the steering messages to deliver now (each
// becomes a user message), or none. Called on the agent's thread.
using SteeringSource = std::function<std::vector<std::string>()>;

struct Outcome {
  enum class Status { kDone, kError, kAborted, kMaxTurns };
  Status status = Status::kDone;
  std::string final_text;   // the last assistant message's text
  int turns = 0;            // provider calls made
  llm::Usage usage;         // summed over the calls of this prompt
  Error error;              // when kError
};

const char* ToString(Outcome::Status s);
// {"status", "final_text", "turns", "usage", "error"?, "error_kind"?}
Json ToJson(const Outcome& o);

class Agent {
 public:
  Agent(AgentConfig config, llm::Provider& provider, tools::ToolRegistry& tools,
        EventSink on_event, MessageRecorder on_message);
  // Ends the session sandbox: every process in it is killed.
  ~Agent();

  // The conversation so far (for -c/-r): replaces the history.
  void SetHistory(std::vector<llm::Message> history);
  // The context now, copied (also while a model call holds it); the front
  // ends' get_messages. Thread-safe.
  std::vector<llm::Message> messages() const;
  size_t message_count() const;  // thread-safe
  // Adds a message to the context without recording it (its record is the
  // caller's: the user's bash, a "bash_execution" entry). Only between
  // prompts, on the thread that runs them.
  void AddContext(llm::Message m);
  const llm::Usage& total_usage() const { return total_usage_; }

  void set_compaction_recorder(CompactionRecorder r) { on_compaction_ = std::move(r); }
  void set_steering_source(SteeringSource s) { steering_ = std::move(s); }

  // Take effect at the next model call; safe to call while Prompt runs.
  void SetModel(const std::string& model);
  void SetThinkingBudget(int budget);
  std::string model() const;
  int thinking_budget() const;

  // Automatic compaction on/off (pi's set_auto_compaction); starts as
  // config.compaction.enabled. Safe to call while Prompt runs.
  void SetAutoCompaction(bool enabled) { auto_compaction_ = enabled; }
  bool auto_compaction() const { return auto_compaction_; }
  // Provider retries of retryable errors on/off (pi's set_auto_retry), from
  // the next model call.
  void SetAutoRetry(bool enabled) { auto_retry_ = enabled; }
  bool auto_retry() const { return auto_retry_; }
  // The session sandbox's pid 1 (0: none, or not started yet: it starts at
  // the first call that runs in it). Thread-safe.
  int sandbox_pid() const;
  // What the next request carries besides the context (the system prompt
  // and the tools' definitions, before hooks add to them): /context
  // measures it. Thread-safe.
  llm::Request RequestPreamble() const { return BuildRequest(); }
  // Ends the provider's wait before a retry, if one is in progress (pi's
  // abort_retry): the turn then ends with the error it would have retried.
  // True when a wait was ended; a later retry is not affected. Thread-safe.
  bool AbortRetry() { return retry_stopper_.Stop(); }

  Outcome Prompt(const std::string& text, CancelToken& cancel);

  // Aborts one running tool call (its process is killed through the call's
  // own token, a child of the prompt's) while the turn and the other
  // parallel calls go on; the model reads that the user aborted it. False
  // when no call with that id is running. Thread-safe.
  bool AbortCall(const std::string& call_id);
  // Sends one running bash call to the background (ToolWorker::Background):
  // its command goes on in the session sandbox, the call returns what it
  // printed so far with the pid and the log. Error kind "not_found" when no
  // bash call with that id runs in the session sandbox. Thread-safe.
  Status BackgroundCall(const std::string& call_id);

  // A command the user runs (pi's RPC "bash", the TUI's !cmd): the bash tool
  // with the model's confinement (the session sandbox's worker and policy),
  // its output redacted (also the pieces on_output gets). Does not touch the context; thread-safe, may run
  // while a prompt does.
  tools::ToolResult RunUserBash(const std::string& command, CancelToken& cancel,
                                std::function<void(std::string_view)> on_output);

  // Summarises the older part of the context now (the front ends' /compact).
  // focus (may be empty) tells the summary what matters most.
  Result<CompactionResult> Compact(const std::string& focus, CancelToken& cancel);

 private:
  // Prompt without the error/interrupt hooks it ends with.
  Outcome RunPrompt(const std::string& text, CancelToken& cancel);
  // The hooks' OnPermissionRequest before the gate: true when a hook
  // decided (*answer is its answer, the gate is not asked).
  // An allowing hook may rewrite the call's arguments: *input is then set
  // (an object), else left alone.
  bool AskHooksForPermission(const PermissionRequest& pr, PermissionAnswer* answer, Json* input);
  // Compacts when the context has grown past the window minus the reserve.
  void MaybeCompact(CancelToken& cancel);
  // trigger: "auto" | "overflow" | "manual" (what hooks.h's BeforeCompact sees).
  Result<CompactionResult> CompactFor(const std::string& focus, const std::string& trigger,
                                      CancelToken& cancel);
  llm::Request BuildRequest() const;
  // One model call with the context and the tools' specs (moved in and
  // back, never copied).
  Result<llm::Message> Ask(int turn, const llm::StreamSink& sink, CancelToken& cancel);
  // The specs of the registry's tools (and retry_with_access), read again
  // only when the registry's set of tools changed: a tool's name,
  // description and schema are fixed for its life (tool.h), and reading
  // them parses each schema.
  std::vector<llm::ToolSpec> TakeToolSpecs();
  // BuildRequest() with the hooks' additions for this turn (no context or
  // tools: Ask adds them).
  llm::Request RequestFor(int turn);
  // BeforeToolCall/AfterToolResult around running one validated call;
  // *ran_args: the arguments that ran (null when a hook stopped the call).
  tools::ToolResult RunHookedTool(tools::Tool& tool, const llm::ContentBlock& call, int turn,
                                  CancelToken& cancel, Json* ran_args);
  // Runs the tool calls of one assistant message; returns results in call order.
  std::vector<llm::Message> RunTools(const llm::Message& assistant, int turn, CancelToken& cancel);
  llm::Message RunOneTool(const llm::ContentBlock& call, bool cut_by_length, int turn,
                          CancelToken& cancel);
  void Emit(const Event& e);
  void Append(llm::Message m);
  void AppendUser(const std::string& text);  // a user message, with its event
  // The retry_with_access tool (access_retry.h).
  tools::ToolResult RetryWithAccess(const llm::ContentBlock& call, int turn, CancelToken& cancel);
  // The context one call runs in: its output streams as tool.output events.
  // worker: the session sandbox's (null: a one-off sandbox, or unconfined).
  tools::ToolContext ToolContextFor(const llm::ContentBlock& call, int turn, CancelToken& cancel,
                                    const sandbox::Policy* policy, tools::ToolWorker* worker);

  AgentConfig config_;
  llm::Provider& provider_;
  tools::ToolRegistry& tools_;
  EventSink on_event_;
  MessageRecorder on_message_;
  CompactionRecorder on_compaction_;
  SteeringSource steering_;
  CallMemory past_calls_;  // what retry_with_access may name
  mutable std::mutex config_mu_;  // model and thinking budget change mid-prompt
  std::mutex emit_mu_;
  // The context. The loop's thread alone changes it, under messages_mu_,
  // and reads it without the lock; other threads read it (messages()) under
  // the lock. During a model call it is lent to the request (Ask):
  // in_flight_ then points at it there (the provider only reads it).
  mutable std::mutex messages_mu_;
  std::vector<llm::Message> messages_;
  const std::vector<llm::Message>* in_flight_ = nullptr;
  // TakeToolSpecs()'s cache (the loop's thread only): the specs, the tools
  // they were read from, and the stamp of that set (llm::NewToolsStamp).
  std::vector<llm::ToolSpec> tool_specs_;
  std::vector<tools::Tool*> tool_specs_of_;
  uint64_t tool_specs_stamp_ = 0;
  llm::Usage total_usage_;
  // The session sandbox the tools run in (null with --sandbox off, or when
  // no worker executable is set); started at the first tool call.
  std::unique_ptr<tools::ToolWorker> worker_;
  std::atomic<bool> auto_compaction_;
  std::atomic<bool> auto_retry_{true};
  llm::RetryStopper retry_stopper_;
  std::mutex calls_mu_;
  std::map<std::string, std::shared_ptr<CancelToken>> running_calls_;  // AbortCall
  // The streamed output of each running call, whole, for the sidecar
  // (only when config_.sidecar is set); guarded by calls_mu_.
  std::map<std::string, std::string> call_output_;
  // BeforeAgentStart's addition to the system prompt of this prompt's requests.
  std::string prompt_system_append_;
  // Set by an AfterToolResult that asks to stop after this batch.
  std::mutex hook_stop_mu_;
  bool hook_stop_ = false;
  std::string hook_stop_reason_;
};

}  // namespace sepp::agent
