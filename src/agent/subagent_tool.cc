#include "agent/subagent_tool.h"

#include <algorithm>

#include "agent/system_prompt.h"
#include "base/strings.h"
#include "tools/args.h"

namespace sepp::agent {
namespace {

// The parent's gate, as a child sees it: each request carries the parent's
// call id (the "agent" call that runs the child), unless a deeper child set
// its own already.
class ChildGate : public PermissionGate {
 public:
  ChildGate(PermissionGate* parent, std::string parent_call_id)
      : parent_(parent), parent_call_id_(std::move(parent_call_id)) {}
  PermissionAnswer Ask(const PermissionRequest& request, CancelToken& cancel) override {
    PermissionRequest tied = request;
    if (tied.parent_call_id.empty()) tied.parent_call_id = parent_call_id_;
    return parent_->Ask(tied, cancel);
  }

 private:
  PermissionGate* parent_;
  std::string parent_call_id_;
};

constexpr char kChildNote[] =
    "\n\nYou are a sub-agent: another agent gave you the task below. Work on it with your "
    "tools, then answer with a complete, self-contained final report: the other agent sees "
    "only your final message, not your tool calls.";

}  // namespace

SubagentTool::SubagentTool(std::shared_ptr<const SubagentRuntime> runtime, int depth)
    : runtime_(std::move(runtime)), depth_(depth) {}

std::string SubagentTool::description() const {
  std::string d =
      "Runs a sub-agent on a self-contained task in a fresh context and returns its final "
      "report. Use it for side work that would fill your context (searching a large code "
      "base, reviewing many files); several calls in one message run in parallel. Give the "
      "task all the context it needs: the sub-agent sees nothing of this conversation.";
  if (!runtime_->definitions.empty()) {
    d += "\nNamed agents (argument \"agent\"):";
    for (const auto& def : runtime_->definitions) d += "\n- " + def.name + ": " + def.description;
  }
  return d;
}

Json SubagentTool::parameters() const {
  Json p = {{"type", "object"},
            {"properties",
             {{"task", {{"type", "string"}, {"description", "the complete task for the sub-agent"}}},
              {"agent", {{"type", "string"}, {"description", "optional: a named agent to run"}}},
              {"tools",
               {{"type", "array"},
                {"items", {{"type", "string"}}},
                {"description", "optional: restrict the sub-agent to these tools"}}},
              {"model", {{"type", "string"}, {"description", "optional: model id"}}}}},
            {"required", {"task"}}};
  return p;
}

std::string SubagentTool::Summary(const Json& args) const {
  // Any argument shape: StringOr gives "" for what is absent or not a string.
  std::string task = tools::StringOr(args, "task");
  task = task.substr(0, task.find('\n'));
  if (task.size() > 60) task = task.substr(0, Utf8SafePrefix(task, 57)) + "...";
  std::string who = tools::StringOr(args, "agent");
  return "agent " + (who.empty() ? "" : who + ": ") + task;
}

tools::ToolResult SubagentTool::Run(const Json& args, tools::ToolContext& ctx) {
  const SubagentRuntime& rt = *runtime_;
  // Every argument is type-checked here: a wrong type is a result the model
  // reads, never an exception.
  auto task_arg = tools::RequiredString(args, "task");
  if (!task_arg.ok()) return tools::ErrorResult(task_arg.error().message);
  if (task_arg->empty()) return tools::ErrorResult("argument \"task\" (string) must not be empty");
  std::string task = *task_arg;
  auto agent_arg = tools::OptionalString(args, "agent");
  if (!agent_arg.ok()) return tools::ErrorResult(agent_arg.error().message);
  auto model_arg = tools::OptionalString(args, "model");
  if (!model_arg.ok()) return tools::ErrorResult(model_arg.error().message);
  const Json* tools_arg = args.contains("tools") && !args["tools"].is_null() ? &args["tools"] : nullptr;
  if (tools_arg) {
    bool strings = tools_arg->is_array();
    if (strings)
      for (const auto& t : *tools_arg) strings = strings && t.is_string();
    if (!strings)
      return tools::ErrorResult("Invalid argument \"tools\": expected an array of tool names (strings), got " +
                                tools::JsonTypeName(*tools_arg) + ".");
  }
  const AgentDefinition* def = nullptr;
  std::string agent_name = agent_arg->value_or("");
  if (!agent_name.empty()) {
    for (const auto& d : rt.definitions)
      if (d.name == agent_name) def = &d;
    if (!def) {
      std::string names;
      for (const auto& d : rt.definitions) names += (names.empty() ? "" : ", ") + d.name;
      return {"no agent named \"" + agent_name + "\"" +
                  (names.empty() ? "; none are defined" : "; the agents are: " + names),
              true};
    }
  }

  auto registry = rt.make_tools();
  std::vector<std::string> allowed;
  if (tools_arg) {
    for (const auto& t : *tools_arg) allowed.push_back(MapToolName(t.get<std::string>()));
  } else if (def && !def->tools.empty()) {
    allowed = def->tools;
  }
  if (!allowed.empty()) registry->Retain(allowed);
  bool may_delegate = depth_ + 1 < rt.max_depth &&
                      (allowed.empty() ||
                       std::find(allowed.begin(), allowed.end(), "agent") != allowed.end());
  if (may_delegate) registry->Add(std::make_unique<SubagentTool>(runtime_, depth_ + 1));

  AgentConfig cfg = rt.parent;
  std::string model = model_arg->value_or("");
  if (model.empty() && def) model = def->model;
  if (!model.empty()) cfg.model = model;
  std::vector<ToolLine> lines;
  for (tools::Tool* t : registry->All()) lines.push_back({t->name(), t->description()});
  cfg.system_prompt = BuildSystemPrompt(cfg.cwd, rt.date, lines, FindContextFiles(cfg.cwd));
  for (const auto& tp : rt.tool_prompts)
    if (registry->Find(tp.tool)) cfg.system_prompt += tp.text;
  if (def && !def->system_prompt.empty()) cfg.system_prompt = def->system_prompt + "\n\n" + cfg.system_prompt;
  cfg.system_prompt += kChildNote;

  // The child asks through the parent's gate, its requests tied to the
  // parent's "agent" call, so a front end can show which call asked.
  std::unique_ptr<ChildGate> gate;
  if (cfg.permission_gate) {
    gate = std::make_unique<ChildGate>(cfg.permission_gate, ctx.call_id);
    cfg.permission_gate = gate.get();
  }

  ChildSession child;
  if (rt.open_child_session) child = rt.open_child_session(task, agent_name);
  auto provider = rt.make_provider();
  auto on_event = [&](const Event& e) {
    // The parent's user sees the child's tool calls as progress lines.
    if (e.type == EventType::kToolStarted && ctx.on_output) ctx.on_output("  ⎿ " + e.summary + "\n");
    if (e.type == EventType::kToolFinished && e.denied) {
      if (child.record_denial) child.record_denial(e.call_id, e.tool, e.denials);
      if (rt.record_child_denial) rt.record_child_denial(child.id, e.call_id, e.tool, e.denials);
    }
    if (rt.on_child_event) {
      Event nested = e;
      nested.parent_call_id = ctx.call_id;
      nested.child_session_id = child.id;
      rt.on_child_event(nested);
    }
  };
  cfg.is_subagent = true;
  SubagentInfo hook_info{ctx.call_id, agent_name, task, "", ""};
  if (cfg.hooks) cfg.hooks->OnSubagentStart(hook_info);
  Agent child_agent(cfg, *provider, *registry, on_event, child.record);
  CancelToken local;
  CancelToken& cancel = ctx.cancel ? *ctx.cancel : local;
  Outcome o = child_agent.Prompt(task, cancel);
  if (cfg.hooks) {
    hook_info.last_assistant_message = o.final_text;
    hook_info.status = ToString(o.status);
    cfg.hooks->OnSubagentStop(hook_info);
  }

  tools::ToolResult r;
  r.details = {{"session_id", child.id},
               {"status", ToString(o.status)},
               {"turns", o.turns},
               {"usage", {{"input", o.usage.input}, {"output", o.usage.output},
                          {"cache_read", o.usage.cache_read}, {"cache_write", o.usage.cache_write}}}};
  switch (o.status) {
    case Outcome::Status::kDone:
      r.text = o.final_text.empty() ? "(the sub-agent gave no final text)" : o.final_text;
      break;
    case Outcome::Status::kAborted:
      r = {"the sub-agent was aborted", true, false, r.details};
      break;
    case Outcome::Status::kMaxTurns:
      r.text = "the sub-agent stopped at its turn limit; its last text:\n" + o.final_text;
      r.is_error = true;
      break;
    case Outcome::Status::kError:
      r.text = "the sub-agent failed: " + o.error.message;
      r.is_error = true;
      break;
  }
  return r;
}

}  // namespace sepp::agent
