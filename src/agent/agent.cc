#include "agent/agent.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>

#include "agent/event_redactor.h"
#include "agent/access_retry.h"
#include "agent/output_capture.h"
#include "base/log.h"
#include "sandbox/defaults.h"
#include "base/secrets.h"
#include "base/stream_redactor.h"

namespace sepp::agent {

const char* ToString(Outcome::Status s) {
  switch (s) {
    case Outcome::Status::kDone: return "done";
    case Outcome::Status::kError: return "error";
    case Outcome::Status::kAborted: return "aborted";
    case Outcome::Status::kMaxTurns: return "max_turns";
  }
  return "unknown";
}

Agent::Agent(AgentConfig config, llm::Provider& provider, tools::ToolRegistry& tools,
             EventSink on_event, MessageRecorder on_message)
    : config_(std::move(config)),
      provider_(provider),
      tools_(tools),
      // Front ends see only redacted events (agent/event_redactor.h).
      on_event_(on_event ? EventSink(EventRedactor(std::move(on_event))) : EventSink()),
      on_message_(std::move(on_message)),
      worker_(tools::MakeSessionToolWorker(config_.policy, config_.cwd)),
      auto_compaction_(config_.compaction.enabled) {}

Agent::~Agent() = default;

Json ToJson(const Outcome& o) {
  Json j = {{"status", ToString(o.status)},
            {"final_text", o.final_text},
            {"turns", o.turns},
            {"usage",
             {{"input", o.usage.input},
              {"output", o.usage.output},
              {"cache_read", o.usage.cache_read},
              {"cache_write", o.usage.cache_write}}}};
  if (o.status == Outcome::Status::kError) {
    j["error"] = o.error.message;
    j["error_kind"] = o.error.kind;
  }
  return j;
}

void Agent::SetHistory(std::vector<llm::Message> history) {
  std::lock_guard<std::mutex> lock(messages_mu_);
  messages_ = std::move(history);
}

std::vector<llm::Message> Agent::messages() const {
  std::lock_guard<std::mutex> lock(messages_mu_);
  return in_flight_ ? *in_flight_ : messages_;
}

size_t Agent::message_count() const {
  std::lock_guard<std::mutex> lock(messages_mu_);
  return in_flight_ ? in_flight_->size() : messages_.size();
}

void Agent::AddContext(llm::Message m) {
  std::lock_guard<std::mutex> lock(messages_mu_);
  messages_.push_back(std::move(m));
}

void Agent::SetModel(const std::string& model) {
  std::string previous;
  {
    std::lock_guard<std::mutex> lock(config_mu_);
    previous = config_.model;
    config_.model = model;
  }
  if (config_.hooks && previous != model) config_.hooks->OnModelSelect({model, previous});
}

void Agent::SetThinkingBudget(int budget) {
  std::lock_guard<std::mutex> lock(config_mu_);
  config_.thinking_budget = budget;
}

std::string Agent::model() const {
  std::lock_guard<std::mutex> lock(config_mu_);
  return config_.model;
}

int Agent::sandbox_pid() const { return worker_ ? worker_->sandbox_pid() : 0; }

int Agent::thinking_budget() const {
  std::lock_guard<std::mutex> lock(config_mu_);
  return config_.thinking_budget;
}

void Agent::AppendUser(const std::string& text) {
  Append(llm::Message::User(text));
  Event e(EventType::kUserMessage);
  e.text = text;
  Emit(e);
}

namespace {

// Hook context reaches the model as a reminder after the text it belongs to.
std::string WithContext(std::string text, const std::string& context) {
  if (context.empty()) return text;
  return text + "\n\n<system-reminder>\n" + context + "\n</system-reminder>";
}

}  // namespace

Outcome Agent::Prompt(const std::string& text, CancelToken& cancel) {
  Outcome out = RunPrompt(text, cancel);
  if (config_.hooks && out.status == Outcome::Status::kError)
    config_.hooks->OnError({out.error.kind, out.error.message, out.turns, config_.is_subagent});
  if (config_.hooks && out.status == Outcome::Status::kMaxTurns)
    config_.hooks->OnError({"max_turns", "stopped at the turn limit (--max-turns)", out.turns,
                            config_.is_subagent});
  if (config_.hooks && out.status == Outcome::Status::kAborted)
    config_.hooks->OnInterrupt({"", "", out.turns, config_.is_subagent});
  return out;
}

Outcome Agent::RunPrompt(const std::string& text_in, CancelToken& cancel) {
  Outcome out;
  std::string text = text_in;
  prompt_system_append_.clear();
  if (config_.hooks) {
    InputVerdict v = config_.hooks->OnInput({text});
    if (v.action == InputVerdict::Action::kHandled) return out;  // nothing for the model
    if (v.action == InputVerdict::Action::kBlock) {
      Event e(EventType::kError);
      e.text = "a hook blocked the prompt: " + (v.reason.empty() ? "no reason given" : v.reason);
      e.kind = "hook_blocked";
      Emit(e);
      out.status = Outcome::Status::kError;
      out.error = Error::Make(e.text, e.kind);
      return out;
    }
    if (v.action == InputVerdict::Action::kTransform) text = v.text;
    std::string system;
    {
      std::lock_guard<std::mutex> lock(config_mu_);
      system = config_.system_prompt;
    }
    AgentStartPatch start = config_.hooks->BeforeAgentStart({text, system, config_.is_subagent});
    prompt_system_append_ = std::move(start.system_append);
    AppendContext(v.context, start.context);
    text = WithContext(std::move(text), v.context);
  }
  AppendUser(text);
  bool stop_hook_active = false;
  for (int turn = 1;; ++turn) {
    if (turn > config_.max_turns) {
      out.status = Outcome::Status::kMaxTurns;
      Event e(EventType::kError);
      e.text = "stopped after " + std::to_string(config_.max_turns) +
               " turns (--max-turns); continue with -c to go on";
      e.kind = "max_turns";
      Emit(e);
      return out;
    }
    if (cancel.cancelled()) {
      out.status = Outcome::Status::kAborted;
      return out;
    }
    Event started(EventType::kTurnStarted);
    started.turn = turn;
    Emit(started);

    llm::StreamSink sink;
    bool streamed_text = false;
    sink.on_text = [&](std::string_view t) {
      streamed_text = true;
      Event e(EventType::kMessageDelta);
      e.turn = turn;
      e.text = std::string(t);
      Emit(e);
    };
    sink.on_thinking = [&](std::string_view t) {
      Event e(EventType::kThinkingDelta);
      e.turn = turn;
      e.text = std::string(t);
      Emit(e);
    };
    // The session sandbox is set up at its first tool call; starting it as
    // soon as the reply holds one overlaps the set-up with the rest of the
    // reply (a reply without tool calls never starts it).
    sink.on_tool_call = [&](const llm::ContentBlock& call) {
      tools::Tool* tool = worker_ ? tools_.Find(call.name) : nullptr;
      if (tool && tool->runs_in_worker()) worker_->Prepare();
    };
    sink.on_retry = [&](const std::string& why, int attempt, double delay) {
      Event e(EventType::kRetry);
      e.turn = turn;
      e.text = why;
      e.data = {{"attempt", attempt}, {"delay_s", delay}};
      Emit(e);
    };
    sink.retry_stopper = &retry_stopper_;

    MaybeCompact(cancel);
    auto reply = Ask(turn, sink, cancel);
    ++out.turns;
    if (!reply.ok() && reply.error().kind == "context_overflow" && !cancel.cancelled()) {
      // The provider counted more than we estimated: compact and retry once.
      if (CompactFor("", "overflow", cancel).ok()) reply = Ask(turn, sink, cancel);
    }
    if (!reply.ok()) {
      bool aborted = reply.error().kind == "aborted" || cancel.cancelled();
      if (aborted) {
        // Record what happened so -c shows the interruption to the model.
        llm::Message m;
        m.role = llm::Role::kAssistant;
        m.stop_reason = llm::StopReason::kAborted;
        m.model = model();
        Append(std::move(m));
        out.status = Outcome::Status::kAborted;
        return out;
      }
      Event e(EventType::kError);
      e.turn = turn;
      e.text = reply.error().message;
      e.kind = reply.error().kind;
      Emit(e);
      out.status = Outcome::Status::kError;
      out.error = reply.error();
      return out;
    }
    llm::Message assistant = std::move(reply).value();
    if (assistant.model.empty()) assistant.model = model();
    if (!streamed_text && !assistant.Text().empty()) {
      // A whole (non-streamed) answer: front ends still see its text as a delta.
      Event e(EventType::kMessageDelta);
      e.turn = turn;
      e.text = assistant.Text();
      Emit(e);
    }
    out.usage += assistant.usage;
    total_usage_ += assistant.usage;
    {
      Event e(EventType::kMessageCompleted);
      e.turn = turn;
      e.message = llm::ToJson(assistant);
      Emit(e);
      Event u(EventType::kUsage);
      u.turn = turn;
      u.usage = assistant.usage;
      u.total = total_usage_;
      Emit(u);
    }
    std::string text_now = assistant.Text();
    if (!text_now.empty()) out.final_text = text_now;
    bool has_calls = !assistant.ToolCalls().empty();
    llm::StopReason stop = assistant.stop_reason;
    Append(assistant);

    if (stop == llm::StopReason::kError) {
      Event e(EventType::kError);
      e.turn = turn;
      e.text = assistant.error.empty() ? "the provider ended the answer with an error"
                                       : assistant.error;
      e.kind = "provider";
      Emit(e);
      out.status = Outcome::Status::kError;
      out.error = Error::Make(e.text, "provider");
      return out;
    }
    if (stop == llm::StopReason::kAborted) {
      out.status = Outcome::Status::kAborted;
      return out;
    }
    if (!has_calls) {
      Event e(EventType::kTurnFinished);
      e.turn = turn;
      Emit(e);
      // Steering that arrived while the model wrote its final answer is
      // still steering: the model answers it in this prompt.
      std::vector<std::string> steer = steering_ ? steering_() : std::vector<std::string>();
      if (steer.empty() && config_.hooks) {
        // A stop hook may keep the agent going (once per stop: the next
        // stop tells it stop_hook_active).
        StopVerdict v = config_.hooks->OnStop(
            {stop_hook_active, out.final_text, turn, config_.is_subagent});
        if (v.keep_going) {
          stop_hook_active = true;
          steer.push_back(v.reason.empty() ? "A hook asks you to continue." : v.reason);
        }
      }
      if (steer.empty()) {
        out.status = Outcome::Status::kDone;
        return out;
      }
      for (const std::string& s : steer) AppendUser(s);
      continue;
    }
    std::vector<llm::Message> results = RunTools(assistant, turn, cancel);
    BatchEndVerdict batch;
    if (config_.hooks) {
      BatchEndInfo info;
      info.turn = turn;
      info.subagent = config_.is_subagent;
      for (size_t i = 0; i < results.size(); ++i) {
        const llm::ContentBlock* call = assistant.ToolCalls()[i];
        info.calls.push_back({call->name, call->id, call->arguments, results[i].is_error});
      }
      batch = config_.hooks->OnToolBatchEnd(info);
      std::lock_guard<std::mutex> lock(hook_stop_mu_);
      if (hook_stop_) {
        batch.stop = true;
        AppendContext(batch.reason, hook_stop_reason_);
        hook_stop_ = false;
        hook_stop_reason_.clear();
      }
    }
    for (auto& result : results) Append(std::move(result));
    Event fin(EventType::kTurnFinished);
    fin.turn = turn;
    Emit(fin);
    if (cancel.cancelled()) {
      out.status = Outcome::Status::kAborted;
      return out;
    }
    if (batch.stop) {
      // Claude Code's PostToolBatch block / continue:false: the prompt ends
      // here, done, and the front end is told why.
      Event e(EventType::kError);
      e.turn = turn;
      e.text = "a hook stopped the agent: " + (batch.reason.empty() ? "no reason given" : batch.reason);
      e.kind = "hook_stopped";
      Emit(e);
      out.status = Outcome::Status::kDone;
      return out;
    }
    if (!batch.context.empty()) AppendUser("<system-reminder>\n" + batch.context + "\n</system-reminder>");
    // The tool boundary: steering typed while the tools ran reaches the
    // model with their results, before it decides what to do next.
    if (steering_)
      for (const std::string& s : steering_()) AppendUser(s);
  }
}

void Agent::MaybeCompact(CancelToken& cancel) {
  if (!auto_compaction_ || config_.context_window <= 0) return;
  int64_t limit = config_.context_window - config_.compaction.reserve_tokens;
  if (ContextTokens(messages_) <= limit) return;
  auto r = CompactFor("", "auto", cancel);
  if (!r.ok() && r.error().kind != "nothing_to_compact")
    log::Warn("automatic compaction failed: " + r.error().message);
}

tools::ToolResult Agent::RunUserBash(const std::string& command, CancelToken& cancel,
                                     std::function<void(std::string_view)> on_output) {
  tools::Tool* bash = tools_.Find("bash");
  if (!bash) return {"bash is not among this session's tools", true};
  tools::ToolContext ctx;
  ctx.cwd = config_.cwd;
  ctx.cancel = &cancel;
  ctx.policy = config_.policy;
  ctx.worker = worker_.get();
  StreamRedactor redactor;
  if (on_output)
    ctx.on_output = [&](std::string_view chunk) {
      std::string safe = redactor.Push(chunk);
      if (!safe.empty()) on_output(safe);
    };
  tools::ToolResult r = tools::RunTool(*bash, {{"command", command}}, ctx);
  if (on_output) {
    std::string rest = redactor.Flush();
    if (!rest.empty()) on_output(rest);
  }
  r.text = Redact(r.text);
  return r;
}

Result<CompactionResult> Agent::Compact(const std::string& focus, CancelToken& cancel) {
  return CompactFor(focus, "manual", cancel);
}

Result<CompactionResult> Agent::CompactFor(const std::string& focus, const std::string& trigger,
                                           CancelToken& cancel) {
  CompactVerdict v;
  if (config_.hooks) v = config_.hooks->BeforeCompact({trigger, focus, messages_.size()});
  if (v.cancel) return Error::Make("a hook cancelled the compaction", "cancelled_by_hook");
  Result<CompactionResult> r = Error::Make("", "");
  if (v.summary) {
    // A hook's summary stands for the same part the model would summarise.
    CompactionResult c;
    c.first_kept = FindCutPoint(messages_, config_.compaction.keep_recent_tokens);
    if (c.first_kept == 0)
      return Error::Make("the conversation is too short to compact", "nothing_to_compact");
    c.summary = *v.summary;
    c.tokens_before = ContextTokens(messages_);
    std::vector<llm::Message> after{SummaryMessage(c.summary)};
    after.insert(after.end(), messages_.begin() + static_cast<ptrdiff_t>(c.first_kept),
                 messages_.end());
    c.tokens_after = EstimateTokens(after);
    r = std::move(c);
  } else {
    r = Summarise(provider_, model(), messages_, config_.compaction, focus, &cancel);
  }
  if (!r.ok()) return r;
  std::vector<llm::Message> next{SummaryMessage(r->summary)};
  next.insert(next.end(), messages_.begin() + static_cast<ptrdiff_t>(r->first_kept),
              messages_.end());
  {
    std::lock_guard<std::mutex> lock(messages_mu_);
    messages_ = std::move(next);
  }
  total_usage_ += r->usage;
  Event e(EventType::kCompaction);
  e.data = {{"tokens_before", r->tokens_before},
            {"tokens_after", r->tokens_after},
            {"first_kept", r->first_kept}};
  Emit(e);
  if (on_compaction_) on_compaction_(*r);
  return r;
}

namespace {

tools::ToolResult ErrorResult(std::string text) {
  tools::ToolResult r;
  r.text = std::move(text);
  r.is_error = true;
  return r;
}

}  // namespace

tools::ToolResult Agent::RetryWithAccess(const llm::ContentBlock& call, int turn,
                                         CancelToken& cancel) {
  auto req = ParseAccessRequest(call.arguments, config_.cwd);
  if (!req.ok()) return ErrorResult(req.error().message + "; nothing was run");
  CallMemory::Call earlier;
  if (!past_calls_.Find(req->call_id, &earlier))
    return ErrorResult("there is no earlier call with id \"" + req->call_id +
                       "\" in this conversation: give the id of the call the sandbox refused");
  tools::Tool* tool = tools_.Find(earlier.tool);
  if (!tool) return ErrorResult("the tool \"" + earlier.tool + "\" is not available now");
  if (config_.hooks) {
    // A retry runs the call again: the hooks judge it again (a hook that
    // denies the call denies its retry; a rewrite applies).
    ToolCallVerdict v = config_.hooks->BeforeToolCall(
        {earlier.tool, call.id, earlier.args, turn, config_.is_subagent});
    if (v.decision == ToolCallVerdict::Decision::kDeny)
      return ErrorResult("a hook denied this call: " +
                         (v.reason.empty() ? std::string("no reason given") : v.reason));
    if (v.input.is_object()) earlier.args = v.input;
  }

  PermissionRequest pr;
  pr.call_id = call.id;
  pr.tool = earlier.tool;
  pr.args = earlier.args;
  pr.widenings = req->widenings;
  pr.justification = req->justification;
  pr.denials = earlier.denials;
  PermissionAnswer answer;
  if (!AskHooksForPermission(pr, &answer, &earlier.args))
    answer = config_.permission_gate->Ask(pr, cancel);
  std::string what = DescribeWidenings(req->widenings);
  if (answer.choice == PermissionChoice::kDeny) {
    tools::ToolResult r = ErrorResult(
        "permission denied (" + what + "): " +
        (answer.message.empty() ? "the user said no" : answer.message) +
        ". Do not ask again for the same access; find another way or tell the user what is "
        "blocked.");
    r.details = {{"denied", true}, {"permission", ToJson(answer)}};
    // Typed here, where the answer came: one per widening refused.
    std::string why = answer.message.empty() ? "the user said no" : answer.message;
    for (const Widening& w : req->widenings)
      r.denials.push_back({sandbox::DenialKind::kPermission, w.target,
                           "permission denied (" + DescribeWidenings({w}) + "): " + why});
    return r;
  }
  sandbox::Policy base = config_.policy ? *config_.policy : sandbox::DefaultToolPolicy(config_.cwd);
  sandbox::Policy wider = Widen(base, req->widenings);
  // A wider policy than the session's: runs in a one-off sandbox, not the worker.
  tools::ToolContext ctx = ToolContextFor(call, turn, cancel, &wider, nullptr);
  tools::ToolResult r = tools::RunTool(*tool, earlier.args, ctx);
  r.text = "[ran " + earlier.tool + " again with " + what + " (" + ToString(answer.choice) +
           ")]\n" + r.text;
  Json details = r.details.is_object() ? r.details : Json::object();
  details["permission"] = ToJson(answer);
  details["retried_call_id"] = req->call_id;
  r.details = details;
  return r;
}

bool Agent::AskHooksForPermission(const PermissionRequest& pr, PermissionAnswer* answer,
                                  Json* input) {
  if (!config_.hooks) return false;
  PermissionHookInfo info{pr.tool, pr.call_id, pr.args, pr.justification, {}, config_.is_subagent};
  for (const Widening& w : pr.widenings) info.widenings.push_back(DescribeWidenings({w}));
  PermissionVerdict v = config_.hooks->OnPermissionRequest(info);
  if (v.decision == PermissionVerdict::Decision::kNone) return false;
  if (v.decision == PermissionVerdict::Decision::kAllow) {
    *answer = {PermissionChoice::kAllowOnce, "", "hook"};
    if (v.input.is_object()) *input = v.input;
  } else {
    *answer = {PermissionChoice::kDeny,
               "a hook denied it" + (v.reason.empty() ? std::string() : ": " + v.reason), "hook"};
  }
  return true;
}

tools::ToolContext Agent::ToolContextFor(const llm::ContentBlock& call, int turn,
                                         CancelToken& cancel, const sandbox::Policy* policy,
                                         tools::ToolWorker* worker) {
  tools::ToolContext ctx;
  ctx.cwd = config_.cwd;
  ctx.cancel = &cancel;
  ctx.policy = policy;
  ctx.worker = worker;
  ctx.file_access = config_.file_access;  // the editor's buffers (ACP), when offered
  ctx.call_id = call.id;
  ctx.on_output = [this, turn, id = call.id, name = call.name](std::string_view chunk) {
    if (config_.sidecar) {
      std::lock_guard<std::mutex> lock(calls_mu_);
      AppendCapped(call_output_[id], chunk);
    }
    Event e(EventType::kToolOutput);
    e.turn = turn;
    e.call_id = id;
    e.tool = name;
    e.text = std::string(chunk);  // redacted across chunks by the EventRedactor
    Emit(e);
  };
  return ctx;
}

Result<llm::Message> Agent::Ask(int turn, const llm::StreamSink& sink, CancelToken& cancel) {
  // The context moves into the request for the call and back after it (it
  // is only read meanwhile): a long session is not copied at every call.
  llm::Request request = RequestFor(turn);
  if (config_.hooks) {
    // A hook's replacement goes to the model for this call only; the
    // context stays as it is.
    ContextPatch p = config_.hooks->OnContext({turn, &messages_, config_.is_subagent});
    if (p.messages) {
      request.messages = std::move(*p.messages);
      return provider_.Complete(request, sink, &cancel);
    }
  }
  {
    std::lock_guard<std::mutex> lock(messages_mu_);
    request.messages = std::move(messages_);
    in_flight_ = &request.messages;
  }
  request.tools = TakeToolSpecs();
  request.tools_stamp = tool_specs_stamp_;
  struct Back {
    Agent& agent;
    llm::Request& from;
    ~Back() {
      std::lock_guard<std::mutex> lock(agent.messages_mu_);
      agent.messages_ = std::move(from.messages);
      agent.in_flight_ = nullptr;
      agent.tool_specs_ = std::move(from.tools);
    }
  } back{*this, request};
  return provider_.Complete(request, sink, &cancel);
}

std::vector<llm::ToolSpec> Agent::TakeToolSpecs() {
  // The registry is complete before the agent is made in every front end;
  // should it change, a different tool object (or, at a reused address, a
  // different name) is seen here and the specs are read again.
  std::vector<tools::Tool*> now = tools_.All();
  bool same = now == tool_specs_of_ && !tool_specs_.empty();
  for (size_t i = 0; same && i < now.size(); ++i) same = tool_specs_[i].name == now[i]->name();
  if (!same) {
    tool_specs_.clear();
    for (tools::Tool* t : now) tool_specs_.push_back({t->name(), t->description(), t->parameters()});
    if (config_.permission_gate)
      tool_specs_.push_back({kRetryWithAccessTool, RetryWithAccessDescription(), RetryWithAccessParameters()});
    tool_specs_of_ = std::move(now);
    tool_specs_stamp_ = llm::NewToolsStamp();
  }
  return std::move(tool_specs_);
}

llm::Request Agent::RequestFor(int turn) {
  llm::Request r = BuildRequest();
  if (config_.hooks) {
    if (!prompt_system_append_.empty()) r.system += "\n\n" + prompt_system_append_;
    ModelRequestPatch p = config_.hooks->BeforeModelRequest({turn, r.model, messages_.size()});
    if (!p.system_append.empty()) r.system += "\n\n" + p.system_append;
  }
  return r;
}

tools::ToolResult Agent::RunHookedTool(tools::Tool& tool, const llm::ContentBlock& call, int turn,
                                       CancelToken& cancel, Json* ran_args) {
  *ran_args = nullptr;
  ToolCallInfo info{call.name, call.id, call.arguments, turn, config_.is_subagent};
  ToolCallVerdict v = config_.hooks->BeforeToolCall(info);
  Json args = v.input.is_null() ? call.arguments : v.input;
  auto hook_error = [&](std::string text) {
    tools::ToolResult r = ErrorResult(WithContext(std::move(text), v.context));
    r.details = {{"denied_by_hook", true}};
    return r;
  };
  if (v.decision == ToolCallVerdict::Decision::kDeny)
    return hook_error("a hook denied this call: " +
                      (v.reason.empty() ? std::string("no reason given") : v.reason));
  if (!args.is_object()) return hook_error("a hook rewrote the arguments into a non-object");
  if (v.decision == ToolCallVerdict::Decision::kAsk) {
    PermissionRequest pr;
    pr.call_id = call.id;
    pr.tool = call.name;
    pr.args = args;
    pr.justification = "a hook asks: " + v.reason;
    PermissionAnswer a;
    if (!AskHooksForPermission(pr, &a, &args)) {
      if (!config_.permission_gate)
        return hook_error("a hook asked for the user's confirmation (" + v.reason +
                          ") and no one can answer in this run: not run");
      a = config_.permission_gate->Ask(pr, cancel);
    }
    if (a.choice == PermissionChoice::kDeny && a.source == "hook")
      return hook_error("not run: " + a.message);
    if (a.choice == PermissionChoice::kDeny)
      return hook_error("the user did not confirm this call (" +
                        (a.message.empty() ? std::string("denied") : a.message) + "): not run");
  }
  tools::ToolContext ctx = ToolContextFor(call, turn, cancel, config_.policy, worker_.get());
  *ran_args = args;
  auto t0 = std::chrono::steady_clock::now();
  tools::ToolResult result = tools::RunTool(tool, args, ctx);
  ToolResultInfo done{call.name, call.id,         args, result.text, result.is_error,
                      std::chrono::duration_cast<std::chrono::milliseconds>(
                          std::chrono::steady_clock::now() - t0).count(),
                      turn, config_.is_subagent};
  ToolResultPatch p = config_.hooks->AfterToolResult(done);
  if (p.text) result.text = *p.text;
  if (p.is_error) result.is_error = *p.is_error;
  std::string context = v.context;
  AppendContext(context, p.context);
  result.text = WithContext(std::move(result.text), context);
  if (!v.input.is_null()) {
    Json details = result.details.is_object() ? result.details : Json::object();
    details["hook_input"] = args;
    result.details = details;
  }
  if (p.stop) {
    std::lock_guard<std::mutex> lock(hook_stop_mu_);
    hook_stop_ = true;
    AppendContext(hook_stop_reason_, p.stop_reason);
  }
  return result;
}

// Everything but the context and the tools (Ask adds them).
llm::Request Agent::BuildRequest() const {
  llm::Request r;
  std::lock_guard<std::mutex> lock(config_mu_);
  r.model = config_.model;
  r.system = config_.system_prompt;
  r.max_tokens = config_.max_tokens;
  r.thinking_budget = config_.thinking_budget;
  r.stream = config_.stream;
  r.retry = auto_retry_;
  return r;
}

std::vector<llm::Message> Agent::RunTools(const llm::Message& assistant, int turn,
                                          CancelToken& cancel) {
  std::vector<const llm::ContentBlock*> calls = assistant.ToolCalls();
  // After a length stop the last call's arguments may be cut off: run none.
  bool cut = assistant.stop_reason == llm::StopReason::kLength;
  std::vector<llm::Message> results(calls.size());
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t i; (i = next.fetch_add(1)) < calls.size();)
      results[i] = RunOneTool(*calls[i], cut, turn, cancel);
  };
  size_t n_threads = std::min<size_t>(calls.size(), std::max(1, config_.max_parallel_tools));
  if (n_threads <= 1) {
    worker();
  } else {
    std::vector<std::thread> pool;
    for (size_t i = 0; i < n_threads; ++i) pool.emplace_back(worker);
    for (auto& t : pool) t.join();
  }
  return results;
}

llm::Message Agent::RunOneTool(const llm::ContentBlock& call, bool cut_by_length, int turn,
                               CancelToken& cancel) {
  tools::Tool* tool = tools_.Find(call.name);
  Event started(EventType::kToolStarted);
  started.turn = turn;
  started.call_id = call.id;
  started.tool = call.name;
  started.args = call.arguments;
  started.summary = tool ? tools::SummarizeCall(*tool, call.arguments) : call.name;
  // The call's own token, registered before tool.started is seen: AbortCall
  // cancels this call alone; an abort of the turn still reaches it through
  // the parent.
  std::shared_ptr<CancelToken> call_cancel = cancel.Child();
  {
    std::lock_guard<std::mutex> lock(calls_mu_);
    running_calls_[call.id] = call_cancel;
  }
  Emit(started);

  tools::ToolResult result;
  bool retry = !tool && call.name == kRetryWithAccessTool && config_.permission_gate;
  if (retry && !cut_by_length && !cancel.cancelled() && call.arguments_error.empty()) {
    result = RetryWithAccess(call, turn, *call_cancel);
  } else if (cut_by_length) {
    result = {"not run: the answer hit the output token limit, so these arguments may be "
              "cut off. Issue the call again (split large content into several calls).",
              true};
  } else if (cancel.cancelled()) {
    result = {"not run: the user aborted", true};
  } else if (!tool) {
    std::string names;
    for (tools::Tool* t : tools_.All()) names += (names.empty() ? "" : ", ") + t->name();
    result = {"unknown tool \"" + call.name + "\"; the tools are: " + names, true};
  } else if (!call.arguments_error.empty()) {
    result = {"the arguments were not valid JSON (" + call.arguments_error +
                  "); call the tool again with a JSON object",
              true};
  } else if (!call.arguments.is_object()) {
    result = {"the arguments must be a JSON object", true};
  } else {
    // The arguments that ran: a hook may rewrite them, or stop the call
    // (then nothing ran, and there is nothing retry_with_access may repeat).
    Json ran = call.arguments;
    if (config_.hooks) {
      result = RunHookedTool(*tool, call, turn, *call_cancel, &ran);
    } else {
      tools::ToolContext ctx = ToolContextFor(call, turn, *call_cancel, config_.policy, worker_.get());
      result = tools::RunTool(*tool, call.arguments, ctx);
    }
    if (cancel.cancelled()) {
      if (!result.is_error) result.text += "\n[aborted by the user]";
    } else if (call_cancel->cancelled()) {
      result.is_error = true;
      result.text += "\n[the user aborted this call; the rest of the turn went on]";
    }
    if (config_.permission_gate && !ran.is_null()) {
      past_calls_.Remember(call.id, {call.name, ran, result.denials});
      if (!result.denials.empty())
        result.text += "\n[the sandbox refused this call. If the task needs that access, call " +
                       std::string(kRetryWithAccessTool) + " with call_id \"" + call.id +
                       "\", exactly what is needed, and why; the user decides]";
    }
  }
  std::string streamed;
  {
    std::lock_guard<std::mutex> lock(calls_mu_);
    running_calls_.erase(call.id);
    if (auto it = call_output_.find(call.id); it != call_output_.end()) {
      streamed = std::move(it->second);
      call_output_.erase(it);
    }
  }
  // Secrets never enter the context, even if a tool printed one.
  result.text = Redact(result.text);
  if (config_.sidecar && tool) CaptureOversized(*config_.sidecar, call.name, call.arguments, streamed, result);

  Event finished(EventType::kToolFinished);
  finished.turn = turn;
  finished.call_id = call.id;
  finished.tool = call.name;
  finished.result = result.text;
  finished.is_error = result.is_error;
  finished.truncated = result.truncated;
  // Typed by the code that refused (ToolResult::denials); details.denied
  // is the same fact for front ends that read only the details.
  finished.denied = !result.denials.empty() ||
                    (result.details.is_object() && result.details.value("denied", false));
  finished.denials = result.denials;
  if (!result.denials.empty()) {
    // details.denials: the same denials as plain words, for older readers.
    if (!result.details.is_object()) result.details = Json::object();
    Json words = Json::array();
    for (const auto& d : result.denials) words.push_back(d.text);
    result.details["denials"] = std::move(words);
  }
  if (result.details.is_object()) finished.data = {{"details", result.details}};
  Emit(finished);
  return llm::Message::ToolResult(call.id, call.name, std::move(result.text), result.is_error);
}

bool Agent::AbortCall(const std::string& call_id) {
  std::shared_ptr<CancelToken> token;
  {
    std::lock_guard<std::mutex> lock(calls_mu_);
    auto it = running_calls_.find(call_id);
    if (it == running_calls_.end()) return false;
    token = it->second;
  }
  token->Cancel();
  return true;
}

Status Agent::BackgroundCall(const std::string& call_id) {
  {
    std::lock_guard<std::mutex> lock(calls_mu_);
    if (!running_calls_.count(call_id))
      return Error::Make("no running tool call has the id \"" + call_id + "\" (it may have finished)",
                         "not_found");
  }
  if (!worker_)
    return Error::Make("a call can go to the background only in the session sandbox, whose end "
                       "also ends it; this session runs without one (--sandbox off)",
                       "not_found");
  return worker_->Background(call_id);
}

void Agent::Emit(const Event& e) {
  if (!on_event_) return;
  std::lock_guard<std::mutex> lock(emit_mu_);
  on_event_(e);
}

void Agent::Append(llm::Message m) {
  {
    std::lock_guard<std::mutex> lock(messages_mu_);
    messages_.push_back(std::move(m));
  }
  if (on_message_) on_message_(messages_.back());
  if (config_.hooks) config_.hooks->OnMessageEnd({&messages_.back(), config_.is_subagent});
}

}  // namespace sepp::agent
