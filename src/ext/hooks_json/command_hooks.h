// CommandHooks: hooks.json command handlers (hooks_config.h) as the loop's
// extension points (agent/hooks.h), with Claude Code's protocol:
//   - stdin: one JSON object {session_id, transcript_path, cwd,
//     permission_mode, hook_event_name, ...event fields} with Claude's tool
//     names and inputs (claude_names.h);
//   - exit 0: stdout is JSON ({continue, stopReason, decision, reason,
//     hookSpecificOutput{permissionDecision, permissionDecisionReason,
//     updatedInput, additionalContext, updatedToolOutput}}), or for
//     UserPromptSubmit plain text that becomes context;
//   - exit 2: blocks, with stderr as the reason (the model reads it): denies
//     a tool call, erases a prompt, keeps the agent going at Stop, cancels a
//     compaction, shows the model stderr after a PostToolUse;
//   - any other exit: a non-blocking error, reported with its first line.
// PermissionRequest answers hookSpecificOutput.decision = {behavior: "allow"
// | "deny", message} (exit 2 denies with stderr); Notification is observed.
// Injected context reaches the model in Claude's words:
// "PreToolUse:Bash hook additional context: ...".
//
// Every command runs through the sandbox launcher (sandbox/run.h) under the
// session's policy, in the project folder, with $CLAUDE_PROJECT_DIR set; its
// environment is the policy's (no provider keys). Matching handlers run one
// after another in file order (Claude runs them in parallel; their answers
// combine the same way). Thread-safe: it keeps no mutable state.
#pragma once
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "agent/hooks.h"
#include "ext/hooks_json/hooks_config.h"
#include "sandbox/policy.h"

namespace sepp::ext {

struct CommandHost {
  std::filesystem::path cwd;
  sandbox::Policy policy;
  std::function<std::string()> session_id;       // may be empty
  std::function<std::string()> transcript_path;  // may be empty
  std::function<void(const std::string& problem)> report;
};

class CommandHooks : public agent::LoopHooks {
 public:
  CommandHooks(std::vector<CommandHook> hooks, CommandHost host);

  agent::InputVerdict OnInput(const agent::InputInfo& in) override;
  agent::ToolCallVerdict BeforeToolCall(const agent::ToolCallInfo& in) override;
  agent::ToolResultPatch AfterToolResult(const agent::ToolResultInfo& in) override;
  agent::BatchEndVerdict OnToolBatchEnd(const agent::BatchEndInfo& in) override;
  agent::StopVerdict OnStop(const agent::StopInfo& in) override;
  agent::CompactVerdict BeforeCompact(const agent::CompactInfo& in) override;
  void OnSubagentStart(const agent::SubagentInfo& in) override;
  agent::SessionStartVerdict OnSessionStart(const agent::SessionInfo& in) override;
  void OnSessionEnd(const agent::SessionInfo& in) override;
  agent::PermissionVerdict OnPermissionRequest(const agent::PermissionHookInfo& in) override;
  void OnNotification(const agent::NotificationInfo& in) override;

  // What one command did, parsed.
  struct Answer {
    int exit_code = 0;
    std::string stdout_text;
    std::string stderr_text;
    Json json;  // stdout as JSON, when it is a JSON object
    bool ran = false;
  };
  // Runs one hook command with input on stdin (public for tests).
  Answer Run(const CommandHook& hook, const Json& input) const;

 private:
  std::vector<const CommandHook*> Matching(const std::string& event, const std::string& value) const;
  Json Common(const std::string& event) const;
  void ReportFailure(const CommandHook& h, const Answer& a) const;

  std::vector<CommandHook> hooks_;
  CommandHost host_;
};

}  // namespace sepp::ext
