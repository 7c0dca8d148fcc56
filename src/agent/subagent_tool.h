// The "agent" tool: runs a child agent on a task with a fresh context.
//
// The child gets its own (optionally restricted) tool set and model, its own
// session (linked from the parent's), and the parent's CancelToken, so an
// abort reaches it. Only its final answer and its usage come back to the
// parent: the parent's context never holds the child's messages; its
// events reach the front ends nested under the parent's call
// (SubagentRuntime::on_child_event), and its denials are recorded in its own
// session and the parent's. Several
// calls in one message run in parallel like any tools. Depth is limited: at
// max_depth the child gets no "agent" tool.
//
// The child runs on a thread of its own while the call waits for it, so the
// user can send a top-level call to the background (background_agents.h):
// the call then returns a receipt and the child goes on.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "agent/agent.h"
#include "agent/agent_definitions.h"
#include "agent/background_agents.h"
#include "llm/provider.h"
#include "sandbox/denial.h"
#include "tools/tool.h"

namespace sepp::agent {

// A child's session: its id and how to record its messages. The keep_alive
// handle holds the session open while the child runs.
struct ChildSession {
  std::string id;
  MessageRecorder record;
  // Records a sandbox denial in the child's own session. May be empty.
  std::function<void(const std::string& call_id, const std::string& tool,
                     const std::vector<sandbox::Denial>& denials)>
      record_denial;
  std::shared_ptr<void> keep_alive;
};

struct SubagentRuntime {
  // A provider for each child (children run in parallel on their own threads).
  std::function<std::unique_ptr<llm::Provider>()> make_provider;
  // A fresh registry of the built-in tools.
  std::function<std::unique_ptr<tools::ToolRegistry>()> make_tools;
  // May be empty (no sessions). Called on the tool's thread; must be thread-safe.
  std::function<ChildSession(const std::string& task, const std::string& agent_name)>
      open_child_session;
  // Receives every event of every child (any depth), with parent_call_id
  // (the "agent" call that runs it) and child_session_id set. May be empty.
  // Called on tool threads; must be thread-safe.
  std::function<void(const Event&)> on_child_event;
  // Records a child's sandbox denial in the top session's audit trail.
  std::function<void(const std::string& child_session, const std::string& call_id,
                     const std::string& tool, const std::vector<sandbox::Denial>& denials)>
      record_child_denial;
  // A tool's part of the system prompt (the skill tool's catalog of
  // skills), added to a child's prompt when the child has that tool.
  struct ToolPrompt {
    std::string tool;
    std::string text;
  };
  std::vector<ToolPrompt> tool_prompts;
  AgentConfig parent;              // model, cwd, policy, limits of the parent
  std::vector<AgentDefinition> definitions;
  std::string date;                // for the child's system prompt
  int max_depth = 2;               // parent = depth 0
  // Where a top-level call (depth 0) may be sent to the background; null:
  // it may not. The session owns its lifetime (Close() before the session
  // it publishes to goes).
  std::shared_ptr<BackgroundAgents> background;
};

class SubagentTool : public tools::Tool {
 public:
  SubagentTool(std::shared_ptr<const SubagentRuntime> runtime, int depth);

  std::string name() const override { return "agent"; }
  std::string description() const override;
  Json parameters() const override;
  std::string Summary(const Json& args) const override;
  tools::ToolResult Run(const Json& args, tools::ToolContext& ctx) override;

 private:
  std::shared_ptr<const SubagentRuntime> runtime_;
  int depth_;
};

}  // namespace sepp::agent
