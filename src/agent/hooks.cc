#include "agent/hooks.h"

namespace sepp::agent {

void AppendContext(std::string& into, const std::string& more) {
  if (more.empty()) return;
  if (!into.empty()) into += "\n\n";
  into += more;
}

bool Merge(InputVerdict& into, InputVerdict next) {
  AppendContext(into.context, next.context);
  switch (next.action) {
    case InputVerdict::Action::kContinue:
      return true;
    case InputVerdict::Action::kTransform:
      into.action = InputVerdict::Action::kTransform;
      into.text = std::move(next.text);
      return true;
    case InputVerdict::Action::kHandled:
    case InputVerdict::Action::kBlock:
      into.action = next.action;
      into.reason = std::move(next.reason);
      return false;
  }
  return true;
}

bool Merge(ToolCallVerdict& into, ToolCallVerdict next) {
  AppendContext(into.context, next.context);
  if (!next.input.is_null()) into.input = std::move(next.input);
  if (next.decision > into.decision) {
    into.decision = next.decision;
    into.reason = std::move(next.reason);
  } else if (next.decision == into.decision && !next.reason.empty()) {
    AppendContext(into.reason, next.reason);
  }
  return into.decision != ToolCallVerdict::Decision::kDeny;
}

void Merge(ToolResultPatch& into, ToolResultPatch next) {
  if (next.text) into.text = std::move(next.text);
  if (next.is_error) into.is_error = next.is_error;
  AppendContext(into.context, next.context);
  if (next.stop) {
    into.stop = true;
    AppendContext(into.stop_reason, next.stop_reason);
  }
}

void Merge(BatchEndVerdict& into, BatchEndVerdict next) {
  AppendContext(into.context, next.context);
  if (next.stop) {
    into.stop = true;
    AppendContext(into.reason, next.reason);
  }
}

void Merge(StopVerdict& into, StopVerdict next) {
  if (!next.keep_going) return;
  into.keep_going = true;
  AppendContext(into.reason, next.reason);
}

void Merge(CompactVerdict& into, CompactVerdict next) {
  if (next.cancel) into.cancel = true;
  if (next.summary && !into.summary) into.summary = std::move(next.summary);
}

void Merge(ModelRequestPatch& into, ModelRequestPatch next) {
  AppendContext(into.system_append, next.system_append);
}

void Merge(SessionStartVerdict& into, SessionStartVerdict next) {
  AppendContext(into.context, next.context);
}

void Merge(AgentStartPatch& into, AgentStartPatch next) {
  AppendContext(into.system_append, next.system_append);
  AppendContext(into.context, next.context);
}

void Merge(ContextPatch& into, ContextPatch next) {
  if (next.messages) into.messages = std::move(next.messages);
}

bool Merge(PermissionVerdict& into, PermissionVerdict next) {
  if (next.decision == PermissionVerdict::Decision::kAllow && !next.input.is_null() &&
      into.decision != PermissionVerdict::Decision::kDeny)
    into.input = std::move(next.input);
  if (next.decision > into.decision) {
    into.decision = next.decision;
    into.reason = std::move(next.reason);
  }
  if (into.decision == PermissionVerdict::Decision::kDeny) into.input = nullptr;
  return into.decision != PermissionVerdict::Decision::kDeny;
}

void HookChain::Add(std::shared_ptr<LoopHooks> hooks) {
  std::lock_guard<std::mutex> lock(mu_);
  auto next = std::make_shared<List>(*hooks_);
  next->push_back(std::move(hooks));
  hooks_ = std::move(next);
}

bool HookChain::empty() const { return Snapshot()->empty(); }

std::shared_ptr<const HookChain::List> HookChain::Snapshot() const {
  std::lock_guard<std::mutex> lock(mu_);
  return hooks_;
}

InputVerdict HookChain::OnInput(const InputInfo& in) {
  const auto hooks = Snapshot();
  InputVerdict out;
  InputInfo now = in;
  for (auto& h : *hooks) {
    if (!Merge(out, h->OnInput(now))) break;
    if (out.action == InputVerdict::Action::kTransform) now.text = out.text;
  }
  return out;
}

ModelRequestPatch HookChain::BeforeModelRequest(const ModelRequestInfo& in) {
  const auto hooks = Snapshot();
  ModelRequestPatch out;
  for (auto& h : *hooks) Merge(out, h->BeforeModelRequest(in));
  return out;
}

ToolCallVerdict HookChain::BeforeToolCall(const ToolCallInfo& in) {
  const auto hooks = Snapshot();
  ToolCallVerdict out;
  ToolCallInfo now = in;
  for (auto& h : *hooks) {
    if (!Merge(out, h->BeforeToolCall(now))) break;
    if (!out.input.is_null()) now.input = out.input;
  }
  return out;
}

ToolResultPatch HookChain::AfterToolResult(const ToolResultInfo& in) {
  const auto hooks = Snapshot();
  ToolResultPatch out;
  ToolResultInfo now = in;
  for (auto& h : *hooks) {
    Merge(out, h->AfterToolResult(now));
    if (out.text) now.text = *out.text;
    if (out.is_error) now.is_error = *out.is_error;
  }
  return out;
}

BatchEndVerdict HookChain::OnToolBatchEnd(const BatchEndInfo& in) {
  const auto hooks = Snapshot();
  BatchEndVerdict out;
  for (auto& h : *hooks) Merge(out, h->OnToolBatchEnd(in));
  return out;
}

StopVerdict HookChain::OnStop(const StopInfo& in) {
  const auto hooks = Snapshot();
  StopVerdict out;
  for (auto& h : *hooks) Merge(out, h->OnStop(in));
  return out;
}

CompactVerdict HookChain::BeforeCompact(const CompactInfo& in) {
  const auto hooks = Snapshot();
  CompactVerdict out;
  for (auto& h : *hooks) Merge(out, h->BeforeCompact(in));
  return out;
}

void HookChain::OnSubagentStart(const SubagentInfo& in) {
  const auto hooks = Snapshot();
  for (auto& h : *hooks) h->OnSubagentStart(in);
}

void HookChain::OnSubagentStop(const SubagentInfo& in) {
  const auto hooks = Snapshot();
  for (auto& h : *hooks) h->OnSubagentStop(in);
}

SessionStartVerdict HookChain::OnSessionStart(const SessionInfo& in) {
  const auto hooks = Snapshot();
  SessionStartVerdict out;
  for (auto& h : *hooks) Merge(out, h->OnSessionStart(in));
  return out;
}

void HookChain::OnSessionEnd(const SessionInfo& in) {
  const auto hooks = Snapshot();
  for (auto& h : *hooks) h->OnSessionEnd(in);
}

AgentStartPatch HookChain::BeforeAgentStart(const AgentStartInfo& in) {
  const auto hooks = Snapshot();
  AgentStartPatch out;
  for (auto& h : *hooks) Merge(out, h->BeforeAgentStart(in));
  return out;
}

ContextPatch HookChain::OnContext(const ContextInfo& in) {
  const auto hooks = Snapshot();
  ContextPatch out;
  ContextInfo now = in;
  for (auto& h : *hooks) {
    Merge(out, h->OnContext(now));
    if (out.messages) now.messages = &*out.messages;
  }
  return out;
}

void HookChain::OnMessageEnd(const MessageEndInfo& in) {
  const auto hooks = Snapshot();
  for (auto& h : *hooks) h->OnMessageEnd(in);
}

PermissionVerdict HookChain::OnPermissionRequest(const PermissionHookInfo& in) {
  const auto hooks = Snapshot();
  PermissionVerdict out;
  for (auto& h : *hooks)
    if (!Merge(out, h->OnPermissionRequest(in))) break;
  return out;
}

void HookChain::OnModelSelect(const ModelSelectInfo& in) {
  const auto hooks = Snapshot();
  for (auto& h : *hooks) h->OnModelSelect(in);
}

void HookChain::OnError(const PromptEndInfo& in) {
  const auto hooks = Snapshot();
  for (auto& h : *hooks) h->OnError(in);
}

void HookChain::OnInterrupt(const PromptEndInfo& in) {
  const auto hooks = Snapshot();
  for (auto& h : *hooks) h->OnInterrupt(in);
}

void HookChain::OnNotification(const NotificationInfo& in) {
  const auto hooks = Snapshot();
  for (auto& h : *hooks) h->OnNotification(in);
}

}  // namespace sepp::agent
