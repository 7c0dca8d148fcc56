#include "ext/hooks_json/command_hooks.h"

#include "base/strings.h"
#include "ext/hooks_json/claude_names.h"
#include "sandbox/run.h"

namespace sepp::ext {

namespace {

// The command's stderr comes back after this line (sandbox::Run gives one
// stream): the wrapper captures stderr and prints it last.
constexpr char kStderrMark[] = "\x1e" "sepp-hook-stderr\n";

// bash -c WRAPPER COMMAND: runs COMMAND with stdout through, stderr
// captured, then the mark and stderr, and COMMAND's exit status.
constexpr char kWrapper[] =
    "{ __sepp_err=$(bash -c \"$0\" 2>&1 1>&3); __sepp_rc=$?; } 3>&1; "
    "printf '\\036sepp-hook-stderr\\n%s' \"$__sepp_err\"; exit $__sepp_rc";

std::string Context(const std::string& label, const std::string& text) {
  if (text.empty()) return "";
  return label + " hook additional context: " + text;
}

const Json* Specific(const CommandHooks::Answer& a) {
  if (!a.json.is_object()) return nullptr;
  auto it = a.json.find("hookSpecificOutput");
  return it != a.json.end() && it->is_object() ? &*it : nullptr;
}

std::string StrOf(const Json* j, const char* key) {
  if (!j || !j->is_object()) return "";
  auto it = j->find(key);
  return it != j->end() && it->is_string() ? it->get<std::string>() : "";
}

bool Stops(const CommandHooks::Answer& a) {
  return a.json.is_object() && a.json.contains("continue") && a.json["continue"].is_boolean() &&
         !a.json["continue"].get<bool>();
}

}  // namespace

CommandHooks::CommandHooks(std::vector<CommandHook> hooks, CommandHost host)
    : hooks_(std::move(hooks)), host_(std::move(host)) {
  host_.policy.env_set["CLAUDE_PROJECT_DIR"] = host_.cwd.string();
}

std::vector<const CommandHook*> CommandHooks::Matching(const std::string& event,
                                                       const std::string& value) const {
  std::vector<const CommandHook*> out;
  for (const auto& h : hooks_)
    if (h.event == event && MatcherMatches(h.matcher, value)) out.push_back(&h);
  return out;
}

Json CommandHooks::Common(const std::string& event) const {
  return {{"session_id", host_.session_id ? host_.session_id() : ""},
          {"transcript_path", host_.transcript_path ? host_.transcript_path() : ""},
          {"cwd", host_.cwd.string()},
          {"permission_mode", "default"},
          {"hook_event_name", event}};
}

CommandHooks::Answer CommandHooks::Run(const CommandHook& hook, const Json& input) const {
  Answer a;
  sandbox::RunSpec spec;
  spec.argv = {"bash", "-c", kWrapper, hook.command};
  spec.cwd = host_.cwd;
  spec.stdin_data = DumpJson(input);
  spec.timeout_s = hook.timeout_s;
  std::string out;
  auto r = sandbox::Run(spec, host_.policy, [&](std::string_view chunk) {
    if (out.size() < (4u << 20)) out.append(chunk);
  }, nullptr);
  if (!r.ok()) {
    a.exit_code = -1;
    a.stderr_text = "could not start: " + r.error().message;
    return a;
  }
  a.ran = true;
  a.exit_code = r->timed_out ? -1 : r->exit_code;
  size_t mark = out.rfind(kStderrMark);
  if (mark != std::string::npos) {
    a.stdout_text = out.substr(0, mark);
    a.stderr_text = out.substr(mark + sizeof(kStderrMark) - 1);
  } else {
    a.stdout_text = out;
  }
  if (r->timed_out) a.stderr_text = "timed out after " + std::to_string(hook.timeout_s) + " s";
  auto j = ParseJson(Trim(a.stdout_text));
  if (j.ok() && j->is_object()) a.json = std::move(*j);
  return a;
}

void CommandHooks::ReportFailure(const CommandHook& h, const Answer& a) const {
  std::string first = a.stderr_text.substr(0, a.stderr_text.find('\n'));
  std::string line = h.event + " hook `" + h.command + "` (" + h.source.string() + ") failed (exit " +
                     std::to_string(a.exit_code) + ")" + (first.empty() ? "" : ": " + first);
  if (host_.report) host_.report(line);
}

agent::InputVerdict CommandHooks::OnInput(const agent::InputInfo& in) {
  agent::InputVerdict out;
  for (const CommandHook* h : Matching("UserPromptSubmit", "")) {
    Json input = Common("UserPromptSubmit");
    input["prompt"] = in.text;
    Answer a = Run(*h, input);
    agent::InputVerdict v;
    if (a.exit_code == 2) {
      v.action = agent::InputVerdict::Action::kBlock;
      v.reason = Trim(a.stderr_text);
    } else if (a.exit_code != 0) {
      ReportFailure(*h, a);
      continue;
    } else if (a.json.is_object()) {
      if (StrOf(&a.json, "decision") == "block" || Stops(a)) {
        v.action = agent::InputVerdict::Action::kBlock;
        v.reason = StrOf(&a.json, "reason");
        if (v.reason.empty()) v.reason = StrOf(&a.json, "stopReason");
      }
      v.context = Context("UserPromptSubmit", StrOf(Specific(a), "additionalContext"));
    } else {
      v.context = Context("UserPromptSubmit", std::string(Trim(a.stdout_text)));
    }
    if (!agent::Merge(out, std::move(v))) break;
  }
  return out;
}

agent::ToolCallVerdict CommandHooks::BeforeToolCall(const agent::ToolCallInfo& in) {
  agent::ToolCallVerdict out;
  std::string name = ClaudeToolName(in.tool);
  Json tool_input = ClaudeToolInput(in.tool, in.input);
  for (const CommandHook* h : Matching("PreToolUse", name)) {
    Json input = Common("PreToolUse");
    input["tool_name"] = name;
    input["tool_input"] = tool_input;
    input["tool_use_id"] = in.call_id;
    Answer a = Run(*h, input);
    agent::ToolCallVerdict v;
    if (a.exit_code == 2) {
      v.decision = agent::ToolCallVerdict::Decision::kDeny;
      v.reason = Trim(a.stderr_text);
    } else if (a.exit_code != 0) {
      ReportFailure(*h, a);
      continue;
    } else if (a.json.is_object()) {
      const Json* s = Specific(a);
      std::string d = StrOf(s, "permissionDecision");
      std::string legacy = StrOf(&a.json, "decision");
      if (d == "deny" || legacy == "block" || Stops(a)) v.decision = agent::ToolCallVerdict::Decision::kDeny;
      else if (d == "ask") v.decision = agent::ToolCallVerdict::Decision::kAsk;
      else if (d == "allow" || legacy == "approve") v.decision = agent::ToolCallVerdict::Decision::kAllow;
      v.reason = StrOf(s, "permissionDecisionReason");
      if (v.reason.empty()) v.reason = StrOf(&a.json, "reason");
      if (v.reason.empty()) v.reason = StrOf(&a.json, "stopReason");
      if (s && s->contains("updatedInput") && (*s)["updatedInput"].is_object()) {
        // Merged over the input, as Claude Code does.
        Json merged = tool_input.is_object() ? tool_input : Json::object();
        for (const auto& [k, val] : (*s)["updatedInput"].items()) merged[k] = val;
        tool_input = merged;
        v.input = SeppToolInput(in.tool, merged);
      }
      v.context = Context("PreToolUse:" + name, StrOf(s, "additionalContext"));
    }
    if (!agent::Merge(out, std::move(v))) break;
  }
  return out;
}

agent::ToolResultPatch CommandHooks::AfterToolResult(const agent::ToolResultInfo& in) {
  agent::ToolResultPatch out;
  std::string name = ClaudeToolName(in.tool);
  std::string text = in.text;
  for (const CommandHook* h : Matching("PostToolUse", name)) {
    Json input = Common("PostToolUse");
    input["tool_name"] = name;
    input["tool_input"] = ClaudeToolInput(in.tool, in.input);
    // Bash's response in Claude's shape; other tools' as their text.
    if (in.tool == "bash")
      input["tool_response"] = {{"stdout", text}, {"stderr", ""}, {"interrupted", false}, {"isImage", false}};
    else
      input["tool_response"] = text;
    input["tool_use_id"] = in.call_id;
    input["duration_ms"] = in.duration_ms;
    Answer a = Run(*h, input);
    agent::ToolResultPatch p;
    if (a.exit_code == 2) {
      p.context = Context("PostToolUse:" + name, std::string(Trim(a.stderr_text)));
    } else if (a.exit_code != 0) {
      ReportFailure(*h, a);
      continue;
    } else if (a.json.is_object()) {
      const Json* s = Specific(a);
      if (s && s->contains("updatedToolOutput")) {
        const Json& u = (*s)["updatedToolOutput"];
        p.text = u.is_string() ? u.get<std::string>() : DumpJson(u);
        text = *p.text;
      }
      std::string ctx = StrOf(s, "additionalContext");
      if (StrOf(&a.json, "decision") == "block") agent::AppendContext(ctx, StrOf(&a.json, "reason"));
      p.context = Context("PostToolUse:" + name, ctx);
      if (Stops(a)) {
        p.stop = true;
        p.stop_reason = StrOf(&a.json, "stopReason");
      }
    }
    agent::Merge(out, std::move(p));
  }
  return out;
}

agent::BatchEndVerdict CommandHooks::OnToolBatchEnd(const agent::BatchEndInfo& in) {
  agent::BatchEndVerdict out;
  for (const CommandHook* h : Matching("PostToolBatch", "")) {
    Json input = Common("PostToolBatch");
    Json calls = Json::array();
    for (const auto& c : in.calls)
      calls.push_back({{"tool_name", ClaudeToolName(c.tool)},
                       {"tool_input", ClaudeToolInput(c.tool, c.input)},
                       {"tool_use_id", c.call_id}});
    input["tool_calls"] = calls;
    Answer a = Run(*h, input);
    agent::BatchEndVerdict v;
    if (a.exit_code == 2) {
      v.stop = true;
      v.reason = Trim(a.stderr_text);
    } else if (a.exit_code != 0) {
      ReportFailure(*h, a);
      continue;
    } else if (a.json.is_object()) {
      v.stop = StrOf(&a.json, "decision") == "block" || Stops(a);
      v.reason = StrOf(&a.json, "reason");
      v.context = Context("PostToolBatch", StrOf(Specific(a), "additionalContext"));
    }
    agent::Merge(out, std::move(v));
  }
  return out;
}

agent::StopVerdict CommandHooks::OnStop(const agent::StopInfo& in) {
  agent::StopVerdict out;
  std::string event = in.subagent ? "SubagentStop" : "Stop";
  for (const CommandHook* h : Matching(event, "")) {
    Json input = Common(event);
    input["stop_hook_active"] = in.stop_hook_active;
    input["last_assistant_message"] = in.last_assistant_message;
    Answer a = Run(*h, input);
    agent::StopVerdict v;
    if (a.exit_code == 2) {
      v.keep_going = true;
      v.reason = Trim(a.stderr_text);
    } else if (a.exit_code != 0) {
      ReportFailure(*h, a);
      continue;
    } else if (a.json.is_object() && StrOf(&a.json, "decision") == "block") {
      v.keep_going = true;
      v.reason = StrOf(&a.json, "reason");
    }
    agent::Merge(out, std::move(v));
  }
  return out;
}

agent::CompactVerdict CommandHooks::BeforeCompact(const agent::CompactInfo& in) {
  agent::CompactVerdict out;
  std::string trigger = in.trigger == "manual" ? "manual" : "auto";
  for (const CommandHook* h : Matching("PreCompact", trigger)) {
    Json input = Common("PreCompact");
    input["trigger"] = trigger;
    input["custom_instructions"] = in.focus;
    Answer a = Run(*h, input);
    if (a.exit_code == 2 || (a.json.is_object() && StrOf(&a.json, "decision") == "block")) {
      out.cancel = true;
    } else if (a.exit_code != 0) {
      ReportFailure(*h, a);
    }
  }
  return out;
}

void CommandHooks::OnSubagentStart(const agent::SubagentInfo& in) {
  for (const CommandHook* h : Matching("SubagentStart", in.agent_type)) {
    Json input = Common("SubagentStart");
    input["agent_id"] = in.call_id;
    input["agent_type"] = in.agent_type;
    Answer a = Run(*h, input);
    if (a.exit_code != 0 && a.exit_code != 2) ReportFailure(*h, a);
  }
}

agent::SessionStartVerdict CommandHooks::OnSessionStart(const agent::SessionInfo& in) {
  agent::SessionStartVerdict out;
  for (const CommandHook* h : Matching("SessionStart", in.source)) {
    Json input = Common("SessionStart");
    input["source"] = in.source;
    Answer a = Run(*h, input);
    if (a.exit_code != 0) {
      if (a.exit_code != 2) ReportFailure(*h, a);
      continue;  // exit 2 shows stderr to the user only (Claude Code)
    }
    // Plain stdout is context, as for UserPromptSubmit.
    std::string ctx = a.json.is_object() ? StrOf(Specific(a), "additionalContext")
                                         : std::string(Trim(a.stdout_text));
    agent::Merge(out, {Context("SessionStart", ctx)});
  }
  return out;
}

void CommandHooks::OnSessionEnd(const agent::SessionInfo& in) {
  for (const CommandHook* h : Matching("SessionEnd", in.reason)) {
    Json input = Common("SessionEnd");
    input["reason"] = in.reason;
    Answer a = Run(*h, input);
    if (a.exit_code != 0 && a.exit_code != 2) ReportFailure(*h, a);
  }
}

agent::PermissionVerdict CommandHooks::OnPermissionRequest(const agent::PermissionHookInfo& in) {
  agent::PermissionVerdict out;
  std::string name = ClaudeToolName(in.tool);
  for (const CommandHook* h : Matching("PermissionRequest", name)) {
    Json input = Common("PermissionRequest");
    input["tool_name"] = name;
    input["tool_input"] = ClaudeToolInput(in.tool, in.input);
    input["tool_use_id"] = in.call_id;
    agent::PermissionVerdict v;
    Answer a = Run(*h, input);
    if (a.exit_code == 2) {
      v.decision = agent::PermissionVerdict::Decision::kDeny;
      v.reason = Trim(a.stderr_text);
    } else if (a.exit_code != 0) {
      ReportFailure(*h, a);
      continue;
    } else if (const Json* s = Specific(a); s && s->contains("decision") && (*s)["decision"].is_object()) {
      const Json& d = (*s)["decision"];
      std::string behavior = StrOf(&d, "behavior");
      if (behavior == "allow") {
        v.decision = agent::PermissionVerdict::Decision::kAllow;
        // Claude's updatedInput: the tool's input (Claude's names) to run instead.
        // Merged over the input, as PreToolUse's is.
        if (d.contains("updatedInput")) {
          if (d["updatedInput"].is_object()) {
            Json merged = input["tool_input"].is_object() ? input["tool_input"] : Json::object();
            for (const auto& [k, val] : d["updatedInput"].items()) merged[k] = val;
            v.input = SeppToolInput(in.tool, merged);
          } else if (host_.report)
            host_.report("PermissionRequest hook `" + h->command +
                         "` answered an updatedInput that is not an object: ignored");
        }
      } else if (behavior == "deny") v.decision = agent::PermissionVerdict::Decision::kDeny;
      else if (!behavior.empty() && host_.report)
        host_.report("PermissionRequest hook `" + h->command + "` answered behavior \"" + behavior +
                     "\"; expected allow or deny: ignored");
      v.reason = StrOf(&d, "message");
    }
    if (!agent::Merge(out, std::move(v))) break;
  }
  return out;
}

void CommandHooks::OnNotification(const agent::NotificationInfo& in) {
  for (const CommandHook* h : Matching("Notification", in.type)) {
    Json input = Common("Notification");
    input["message"] = in.message;
    input["notification_type"] = in.type;
    Answer a = Run(*h, input);
    if (a.exit_code != 0 && a.exit_code != 2) ReportFailure(*h, a);
  }
}

}  // namespace sepp::ext
