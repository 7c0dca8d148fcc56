#include "agent/events.h"

namespace sepp::agent {
namespace {

Json UsageJson(const llm::Usage& u) {
  return {{"input", u.input}, {"output", u.output}, {"cache_read", u.cache_read},
          {"cache_write", u.cache_write}};
}

}  // namespace

const char* ToString(EventType t) {
  switch (t) {
    case EventType::kSessionStarted: return "session.started";
    case EventType::kTurnStarted: return "turn.started";
    case EventType::kMessageDelta: return "message.delta";
    case EventType::kThinkingDelta: return "thinking.delta";
    case EventType::kMessageCompleted: return "message.completed";
    case EventType::kToolStarted: return "tool.started";
    case EventType::kToolOutput: return "tool.output";
    case EventType::kToolFinished: return "tool.finished";
    case EventType::kPermissionRequested: return "permission.requested";
    case EventType::kPermissionResolved: return "permission.resolved";
    case EventType::kCompaction: return "compaction";
    case EventType::kUsage: return "usage";
    case EventType::kTurnFinished: return "turn.finished";
    case EventType::kRetry: return "retry";
    case EventType::kError: return "error";
    case EventType::kSessionEnded: return "session.ended";
    case EventType::kUserMessage: return "message.user";
    case EventType::kAgentStarted: return "agent.started";
    case EventType::kAgentSettled: return "agent.settled";
    case EventType::kQueueUpdated: return "queue.updated";
    case EventType::kSubscriberLagged: return "subscriber.lagged";
    case EventType::kQuestionRequested: return "question.requested";
    case EventType::kQuestionResolved: return "question.resolved";
    case EventType::kBackgroundFinished: return "background.finished";
  }
  return "unknown";
}

Json ToJson(const Event& e) {
  Json j = {{"type", ToString(e.type)}};
  if (e.seq) j["seq"] = e.seq;
  if (e.time_ms) j["time_ms"] = e.time_ms;
  if (!e.session_id.empty()) j["session_id"] = e.session_id;
  if (!e.parent_call_id.empty()) j["parent_call_id"] = e.parent_call_id;
  if (!e.child_session_id.empty()) j["child_session_id"] = e.child_session_id;
  if (e.turn) j["turn"] = e.turn;
  switch (e.type) {
    case EventType::kMessageDelta:
    case EventType::kThinkingDelta:
      j["text"] = e.text;
      break;
    case EventType::kMessageCompleted:
      j["message"] = e.message;
      break;
    case EventType::kToolStarted:
      j["call_id"] = e.call_id;
      j["tool"] = e.tool;
      j["args"] = e.args;
      j["summary"] = e.summary;
      break;
    case EventType::kToolOutput:
      j["call_id"] = e.call_id;
      j["text"] = e.text;
      break;
    case EventType::kBackgroundFinished:
      j["call_id"] = e.call_id;
      j["tool"] = e.tool;
      j["result"] = e.result;
      j["is_error"] = e.is_error;
      break;
    case EventType::kToolFinished:
      j["call_id"] = e.call_id;
      j["tool"] = e.tool;
      j["result"] = e.result;
      j["is_error"] = e.is_error;
      j["truncated"] = e.truncated;
      j["denied"] = e.denied;
      j["denials"] = sandbox::DenialsToJson(e.denials);
      break;
    case EventType::kUsage:
      j["usage"] = UsageJson(e.usage);
      j["total"] = UsageJson(e.total);
      break;
    case EventType::kUserMessage:
    case EventType::kAgentStarted:
      j["text"] = e.text;
      break;
    case EventType::kRetry:
    case EventType::kError:
      j["text"] = e.text;
      if (!e.kind.empty()) j["kind"] = e.kind;
      break;
    default:
      break;
  }
  if (!e.data.is_null())
    for (auto& [k, v] : e.data.items()) j[k] = v;
  return j;
}

}  // namespace sepp::agent
