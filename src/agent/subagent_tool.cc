#include "agent/subagent_tool.h"

#include <algorithm>
#include <thread>

#include "agent/system_prompt.h"
#include "base/secrets.h"
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

// What a child agent uses, on its own thread; outlives the call's Run when
// the call goes to the background.
struct ChildState {
  AgentConfig cfg;
  std::unique_ptr<tools::ToolRegistry> registry;
  std::unique_ptr<ChildGate> gate;
  ChildSession session;
  std::unique_ptr<llm::Provider> provider;
  std::string agent_name;
  // The call's output (progress lines); used while the call waits (under
  // BackgroundRun::mu, not once detached).
  std::function<void(std::string_view)> on_output;
  tools::ToolResult result;  // the child's end, for the waiting call
};

// Runs the child to its end, then hands the result to the waiting call or,
// detached, to the session's BackgroundAgents.
void RunChild(const SubagentRuntime& rt, BackgroundRun& run, ChildState& state);
tools::ToolResult ResultOf(const Outcome& o, const std::string& session_id);

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

  // Everything the child uses lives here, on its thread: when the call is
  // sent to the background, Run returns and the child goes on.
  auto state = std::make_shared<ChildState>();
  state->registry = std::move(registry);
  // The child asks through the parent's gate, its requests tied to the
  // parent's "agent" call, so a front end can show which call asked.
  if (cfg.permission_gate) {
    state->gate = std::make_unique<ChildGate>(cfg.permission_gate, ctx.call_id);
    cfg.permission_gate = state->gate.get();
  }
  cfg.is_subagent = true;
  state->cfg = std::move(cfg);
  if (rt.open_child_session) state->session = rt.open_child_session(task, agent_name);
  state->provider = rt.make_provider();
  state->on_output = ctx.on_output;
  state->agent_name = agent_name;

  auto run = std::make_shared<BackgroundRun>();
  run->call_id = ctx.call_id;
  run->task = task;
  run->child_session_id = state->session.id;
  BackgroundAgents* background = depth_ == 0 && !ctx.call_id.empty() ? rt.background.get() : nullptr;
  if (background) {
    Status tracked = background->Track(run);
    if (!tracked.ok()) return tools::ErrorResult(tracked.error().message);
  }
  // An abort of the parent's call or turn reaches the child while the call
  // waits; in the background, the session's abort does (BackgroundAgents).
  std::unique_ptr<CancelToken::Registration> link;
  if (ctx.cancel) link = ctx.cancel->OnCancel([run] { run->cancel.Cancel(); });
  std::thread child([runtime = runtime_, run, state] { RunChild(*runtime, *run, *state); });
  std::unique_lock<std::mutex> lock(run->mu);
  run->cv.wait(lock, [&] { return run->done || run->detached; });
  bool detached = !run->done;
  lock.unlock();
  link.reset();
  if (!detached) {
    child.join();
    if (background) background->Untrack(run->call_id);
    return std::move(state->result);
  }
  child.detach();  // it delivers its report to `background`, which Close() waits for
  tools::ToolResult receipt;
  receipt.text = "[sent to the background by the user: the sub-agent goes on with its task in its "
                 "own session" + (run->child_session_id.empty() ? std::string() : " (" + run->child_session_id + ")") +
                 " and sandbox. Its report reaches you in a message when it is done; do not wait "
                 "for it, go on with the rest of the work]";
  receipt.details = {{"background", true}, {"session_id", run->child_session_id}, {"status", "running"}};
  return receipt;
}

namespace {

void RunChild(const SubagentRuntime& rt, BackgroundRun& run, ChildState& state) {
  AgentConfig& cfg = state.cfg;
  ChildSession& child = state.session;
  const std::string call_id = run.call_id;
  auto on_event = [&](const Event& e) {
    // The parent's user sees the child's tool calls as progress lines, while
    // the call runs (not once it returned its receipt).
    if (e.type == EventType::kToolStarted) {
      std::lock_guard<std::mutex> lock(run.mu);
      if (!run.detached && state.on_output) state.on_output("  ⎿ " + e.summary + "\n");
    }
    if (e.type == EventType::kToolFinished && e.denied) {
      if (child.record_denial) child.record_denial(e.call_id, e.tool, e.denials);
      if (rt.record_child_denial) rt.record_child_denial(child.id, e.call_id, e.tool, e.denials);
    }
    if (rt.on_child_event) {
      Event nested = e;
      nested.parent_call_id = call_id;
      nested.child_session_id = child.id;
      rt.on_child_event(nested);
    }
  };
  SubagentInfo hook_info{call_id, state.agent_name, run.task, "", ""};
  if (cfg.hooks) cfg.hooks->OnSubagentStart(hook_info);
  Outcome o;
  {
    Agent child_agent(cfg, *state.provider, *state.registry, on_event, child.record);
    o = child_agent.Prompt(run.task, run.cancel);
  }  // the child's session sandbox ends here, before anyone hears it ended
  if (cfg.hooks) {
    hook_info.last_assistant_message = o.final_text;
    hook_info.status = ToString(o.status);
    cfg.hooks->OnSubagentStop(hook_info);
  }
  tools::ToolResult r = ResultOf(o, child.id);
  r.text = Redact(r.text);  // a report in the background reaches the context as a message
  // What the child held (its session open, the provider's connection) goes
  // before the end is told: once told, the session may close.
  state.registry.reset();
  state.provider.reset();
  state.gate.reset();
  state.session = ChildSession();
  bool detached;
  {
    std::lock_guard<std::mutex> lock(run.mu);
    detached = run.detached;
    if (!detached) {
      state.result = std::move(r);
      run.done = true;
    }
  }
  run.cv.notify_all();
  if (detached)
    rt.background->Deliver({call_id, run.task, run.child_session_id, r.text, r.is_error, r.details});
}

tools::ToolResult ResultOf(const Outcome& o, const std::string& session_id) {
  tools::ToolResult r;
  r.details = {{"session_id", session_id},
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

}  // namespace
}  // namespace sepp::agent
