// AgentSession: the one session runtime under every front end (-p, --rpc,
// --acp, the terminal UI, sepp serve).
//
// Opened from one SessionOptions; owns the provider, the sandbox policy, the
// tool registry, the session binding (file) and the Agent. One worker thread
// runs prompts; front ends submit operations (the methods below, callable
// from any thread) and subscribe to events (Subscribe()). Nothing a front end
// does can stall the worker: events go through bounded per-subscriber queues
// (event_bus.h), and permission requests wait for an answer at most
// permission_timeout_s.
//
// Event order for one busy period: agent.started, message.user, turn.started,
// ..., turn.finished, (steering: message.user at the next tool boundary),
// ..., (each follow-up: message.user, turn.started, ...), agent.settled
// {outcome}. Every subscriber's first event is the current session's
// session.started (the one published when it was opened, with its original
// seq); session.ended {outcome of the last prompt} is published when the
// session is left (new/switch/fork) or closed.
//
// Operations that change which session is current (NewSession,
// SwitchSession, Fork, Branch) need the agent idle and return kind "busy"
// otherwise: abort first.
#pragma once
#include <cstdint>
#include <filesystem>
#include <functional>
#include <future>
#include <memory>
#include <string>
#include <vector>

#include "agent/agent.h"
#include "agent/compaction.h"
#include "agent/events.h"
#include "agent/permission_gate.h"
#include "base/json.h"
#include "base/result.h"
#include "ext/prompts/command_source.h"
#include "ext/prompts/slash_commands.h"
#include "llm/message.h"
#include "llm/provider.h"
#include "runtime/event_bus.h"
#include "runtime/question_broker.h"
#include "sandbox/policy.h"
#include "tools/file_access.h"
#include "tools/tool.h"

namespace sepp::session {
class Store;
}  // namespace sepp::session

namespace sepp::runtime {

// pi's thinking levels; each maps to a token budget (ThinkingBudget()).
enum class ThinkingLevel { kOff, kMinimal, kLow, kMedium, kHigh, kXHigh };
const char* ToString(ThinkingLevel l);
bool ParseThinkingLevel(const std::string& s, ThinkingLevel* out);
int ThinkingBudget(ThinkingLevel l);
// The level whose budget is the closest to budget (off for 0).
ThinkingLevel LevelForBudget(int budget);
std::vector<ThinkingLevel> AllThinkingLevels();

// How headless runs (or a front end that cannot ask) answer the gate.
struct PermissionDefaults {
  // Pre-granted widenings (-p --allow-domain / --allow-write): a request
  // whose every widening is covered is allowed once without asking.
  std::vector<std::string> allow_domains;
  std::vector<std::string> allow_writes;
  // When no front end is attached (or it cannot answer), deny and say so.
  // A front end that answers sets ask_front_end (rpc, acp, tui, serve).
  bool ask_front_end = false;
  double timeout_s = 300;  // no answer within this long is a denial
};

// An extension that runs code of its own (a WebAssembly plugin, an MCP
// server) whose declared capabilities are not confirmed as they are now
// (ext/capabilities.h: the key covers its binary or command and its
// declaration). A session whose front end answers asks through the
// permission gate at its first prompt (kind "extension"); allowed, the
// confirmation is recorded, start() runs and its tools join the session;
// refused or unanswered, the refusal is recorded (`sepp ext list` says why)
// and nothing of it runs. Headless runs never ask (`sepp plugin trust`,
// `sepp mcp trust`).
struct ExtensionToConfirm {
  std::string name;          // as the user knows it ("hello", "git")
  std::string kind;          // "plugin" | "mcp-server"
  std::string confirm_name;  // the name its confirmation is recorded under
  std::string key;           // its confirmation key as it is now
  bool changed = false;      // confirmed once, for other content
  std::string source;        // its manifest or configuration file
  std::string sha256;        // the module's hash (a plugin) or the key (a server)
  std::vector<std::string> capabilities;  // what it declares, in words
  std::string runs;          // what it runs (a server's command line or URL)
  std::function<Result<std::vector<std::unique_ptr<tools::Tool>>>()> start;
};

struct SessionOptions {
  // The provider: config (from the environment), or a factory (tests, or a
  // front end that shares one). make_provider wins when set.
  llm::ProviderConfig provider;
  std::function<std::unique_ptr<llm::Provider>()> make_provider;
  std::string model;  // "" : SEPP_MODEL, else the provider's default
  std::filesystem::path cwd;
  sandbox::Policy policy;  // the tools' sandbox (DefaultToolPolicy(cwd) typically)
  // Where read/write/edit go instead of the disk (an editor's buffers over
  // ACP); null: the disk. Kept alive by the session.
  std::shared_ptr<tools::FileAccess> file_access;

  // Which session: new (default), the latest of cwd, one by id / prefix, or
  // by file path; then optionally go on from an entry as a branch or a fork.
  bool no_session = false;
  bool continue_latest = false;
  std::string resume;        // id, unique prefix, or a session file path
  std::string branch_entry;  // with continue/resume
  std::string fork_entry;    // with continue/resume
  // Where the session tree lives; null: the store the settings name. `sepp
  // serve --store postgres://…` shares its PostgreSQL store (thread-safe).
  std::shared_ptr<session::Store> store;

  // Limits and model parameters.
  int max_turns = 100;
  int thinking_budget = 0;
  bool stream = true;
  size_t max_queued_messages = 1000;  // steering + follow-ups waiting
  agent::CompactionSettings compaction;

  PermissionDefaults permissions;
  // The ask-the-user path (question_broker.h): the model's question tool and
  // MCP elicitation. relay (may be null): attached to this session's broker
  // while it is open, for askers made before it (MCP servers).
  QuestionDefaults questions;
  std::shared_ptr<agent::QuestionRelay> question_relay;
  // Tools beyond the built-in ones (an extension's, such as an MCP server's
  // mcp__SERVER__TOOL), made for this session's registry once when it
  // opens. What the tools need (a running server) is kept alive by the
  // function object.
  std::function<std::vector<std::unique_ptr<tools::Tool>>()> extra_tools;
  // Counts changes of what extra_tools makes (an MCP server's list_changed):
  // when it moved, the session makes them again before its next prompt.
  std::function<uint64_t()> extra_tools_version;
  // Slash commands that may change while the session runs (the MCP
  // servers' prompts, /mcp__SERVER__PROMPT): listed after the others.
  std::shared_ptr<ext::CommandSource> extra_commands;
  // Lua hook files named with --hook (ext/hook_loader.h), after the user's
  // ~/.sepp/hooks and the trusted project's .sepp/hooks.
  std::vector<std::filesystem::path> hook_files;
  // Asked about at the first prompt when a front end answers (above).
  std::vector<ExtensionToConfirm> extensions_to_confirm;
  // This run loads configured plugins and MCP servers (the TUI, --rpc, -p):
  // a project's plugins and MCP configuration then count as its code for
  // the trust question (runtime/project_trust_prompt.h); sessions that load
  // none (ACP, serve) ask only about the project's hooks.
  bool loads_extensions = false;
  // Claude's Notification "idle_prompt": when the agent has settled and no
  // input came for this long, the hooks are told once per idle period that
  // it waits for the user. Only where a person answers (ask_front_end);
  // <= 0: never.
  double idle_notification_s = 60;
  // Load .sepp/agents etc. and print a line per problem; front ends pass a
  // sink for warnings (default: stderr).
  std::function<void(const std::string&)> on_warning;
};

struct QueueState {
  std::vector<std::string> steering;
  std::vector<std::string> follow_up;
};

// What a user's command (RunBash) did.
struct BashRun {
  std::string output;  // what it printed (redacted; truncated like the model's bash)
  int exit_code = 0;
  bool cancelled = false;  // AbortBash() (or Close()) ended it
  bool truncated = false;
  std::string full_output_path;  // the whole output when truncated, if saved
};

struct SessionState {
  std::string session_id;       // "" with no_session
  std::string session_file;     // where it is stored ("" with no_session)
  std::string session_name;     // the latest "session_info" name, "" if none
  std::string provider;
  std::string model;
  ThinkingLevel thinking = ThinkingLevel::kOff;
  bool busy = false;            // a prompt is running
  bool compacting = false;
  bool auto_compaction = true;  // the loop compacts when the context is full
  bool auto_retry = true;       // retryable provider errors are retried
  size_t message_count = 0;     // messages in the context
  QueueState queue;
  llm::Usage total_usage;
  std::filesystem::path cwd;
  bool sandbox_enabled = true;  // false: --sandbox off, the tools run unconfined
  int sandbox_pid = 0;          // the session sandbox's pid 1; 0: not running
};

// A grant the permission gate answers with, without asking.
struct PermissionGrant {
  agent::Widening widening;
  // Saved "always for this project" (PermissionBroker::project_policy_file);
  // false: for this session only.
  bool for_project = false;
};

// A permission request waiting for its answer (the front end's view).
struct PendingPermission {
  agent::PermissionRequest request;
  int64_t deadline_ms = 0;  // since the Unix epoch
};

class AgentSession {
 public:
  // Opens (or creates) the session and starts the worker. Errors: the
  // provider config, a session that is missing or locked, a bad entry id;
  // each message says what to do.
  static Result<std::unique_ptr<AgentSession>> Open(SessionOptions options);
  // Close() if not yet closed.
  ~AgentSession();
  // Aborts a running prompt, waits for the worker, publishes session.ended
  // and closes every subscription (after that event). Idempotent.
  void Close();
  AgentSession(const AgentSession&) = delete;
  AgentSession& operator=(const AgentSession&) = delete;

  // ---- events
  std::shared_ptr<Subscription> Subscribe(size_t capacity = EventBus::kDefaultCapacity);

  // ---- input
  // Prompt, Steer and FollowUp expand a slash command first: text
  // "/name args" naming a prompt template or a skill (Commands()) is sent
  // as its expansion, one naming a hook's command runs it; any other text
  // goes as written. An MCP server's prompt (/mcp__SERVER__PROMPT args) is
  // fetched from the server here (prompts/get, on the caller's thread); a
  // missing argument or the server's error is the call's error, and
  // nothing is sent.
  // Starts a prompt now. If one is running: kind "busy" (use Steer/FollowUp).
  Status Prompt(const std::string& text);
  // Delivered at the next tool boundary of the running prompt; when idle,
  // starts a prompt like Prompt().
  Status Steer(const std::string& text);
  // Runs after the current prompt settles; when idle, starts now.
  Status FollowUp(const std::string& text);
  // Removes every queued message; returns them.
  QueueState ClearQueue();
  // Ends the running prompt cleanly (the session stays valid) and hands back
  // the queued messages (which are removed from the queue); the sub-agents
  // sent to the background are aborted too. Does not wait.
  QueueState Abort();
  // Aborts one running tool call of the prompt (its process is killed; the
  // model reads that the user aborted it), leaving the turn and the other
  // calls running, or one sub-agent sent to the background (by its "agent"
  // call's id). Error kind "not_found" when no call has that id.
  Status AbortCall(const std::string& call_id);
  // Sends one running call of the prompt to the background. A bash call:
  // its command goes on in the session sandbox (until process_signal or the
  // session's end), the call returns what it printed so far with the pid
  // and the log of the rest. An "agent" call: the call returns a receipt,
  // the sub-agent goes on in its own session and sandbox, its report is
  // published (background.finished) and reaches the model at the next turn
  // boundary or with the next prompt; it ends with the session, or with
  // Abort()/AbortCall(). Error kind "not_found" when no such call runs.
  Status BackgroundCall(const std::string& call_id);
  // Blocks until the agent is idle (no prompt running, nothing queued), or
  // timeout_s passes (< 0: no limit). True when idle.
  bool WaitIdle(double timeout_s = -1);

  // ---- model
  Status SetModel(const std::string& model);       // next call
  Status SetThinking(ThinkingLevel level);          // next call
  // Summarises the older context now, on the worker (after a running
  // prompt). focus may be empty.
  std::future<Result<agent::CompactionResult>> Compact(const std::string& focus);

  // Turns automatic compaction on or off (from the next model call).
  void SetAutoCompaction(bool enabled);
  // Turns the provider's retries of retryable errors (overloaded, rate
  // limited, ...) on or off, from the next model call.
  void SetAutoRetry(bool enabled);
  // Ends a wait before a provider retry now (pi's abort_retry): the running
  // turn ends with the error it would have retried. True when a wait was in
  // progress; otherwise nothing happens.
  bool AbortRetry();

  // ---- the user's own commands
  // Runs command now, on the calling thread, in the session sandbox with
  // the model's confinement (the same worker and policy as its bash tool),
  // also while a prompt runs; on_output (may be empty) gets its output as
  // it comes, redacted. Recorded as a "bash_execution" entry {command,
  // output, exit_code, cancelled, truncated, full_output_path?,
  // exclude_from_context}; unless excluded, the model reads it as a user
  // message from the next prompt on (user_bash.h). One that ends while a
  // prompt runs is recorded and enters the context when that prompt ends.
  Result<BashRun> RunBash(const std::string& command, bool exclude_from_context,
                          std::function<void(std::string_view)> on_output = {});
  // Cancels every running RunBash (their processes are killed).
  void AbortBash();

  // Writes the current branch as a self-contained HTML page to output_path
  // ("" : sepp-session-<session file name>.html in the working directory);
  // returns the path written. Errors: sessions are off, or the write failed.
  Result<std::string> ExportHtml(const std::string& output_path);

  // ---- sessions (need the agent idle: kind "busy" otherwise)
  Status NewSession();
  Status SwitchSession(const std::string& id_or_path);
  // Moves the leaf to entry: the next prompt goes on from there.
  Status Branch(const std::string& entry_id);
  // A new session holding the path to entry; becomes current. Returns its id.
  Result<std::string> Fork(const std::string& entry_id);
  Status Label(const std::string& entry_id, const std::string& label);
  Status SetSessionName(const std::string& name);

  // ---- queries (any time, from any thread)
  SessionState GetState() const;
  std::vector<llm::Message> Messages() const;   // the model's context
  Json Entries() const;                         // every entry, append order
  Json Tree() const;                            // {leaf, nodes:[{id,parent_id,type,label,children}]}
  std::string LastAssistantText() const;
  agent::Outcome LastOutcome() const;
  // The slash commands from prompt templates, skills and Lua hooks'
  // sepp.register_command (loaded at Open; source "prompt", "skill",
  // "extension"), for the front ends' menus; their own commands (compact,
  // ...) are not in it. A hook's "/name args" runs its function (nothing
  // goes to the model unless it sends a message); while a prompt runs it
  // runs at once, and its error is the call's. Then the MCP servers'
  // prompts (source "mcp"), as they are now: the list may change while the
  // session runs, so it is a copy.
  std::vector<ext::CommandInfo> Commands() const;
  // The system prompt and tool definitions the next request carries (no
  // messages), for a front end to show what fills the window.
  llm::Request RequestPreamble() const;

  // ---- permissions
  std::vector<PendingPermission> PendingPermissions() const;
  // Answers a pending request. Error kind "not_found" if none has that id
  // (already answered, timed out, or never asked).
  Status AnswerPermission(const std::string& request_id, agent::PermissionAnswer answer);
  // Persisting allow_project grants writes .sepp/policy.toml; the front end
  // has shown DescribeAsPolicyToml() first.
  // The grants in effect, in the order they were made (the project's first).
  std::vector<PermissionGrant> PermissionGrants() const;
  // Withdraws a grant made for this session: the next request it covered is
  // asked again. Kind "not_found" when the session has no such grant; a
  // project grant stays (its file is named in the message).
  Status RevokeSessionGrant(const agent::Widening& widening);
  // ---- questions (question_broker.h)
  std::vector<PendingQuestion> PendingQuestions() const;
  // Answers a waiting question with values (field name -> value; checked,
  // defaults filled in). Kinds: "not_found" (none waiting with that id),
  // "invalid" (the values do not fit the fields; it stays open).
  Status AnswerQuestion(const std::string& question_id, const Json& values);
  // sandbox-agent's {answers: string[][]} (one array per field).
  Status AnswerQuestionStrings(const std::string& question_id, const Json& answers);
  // Declined by the user; with `why`, by the front end, which says why
  // (QuestionBroker::Decline).
  Status DeclineQuestion(const std::string& question_id, const std::string& why = "");
  // The same path for a front end's own asker (e.g. confirmations).
  agent::QuestionAsker& questions();

  // The tools' sandbox policy in effect (before any grant).
  const sandbox::Policy& policy() const;

  struct Impl;

 private:
  explicit AgentSession(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace sepp::runtime
