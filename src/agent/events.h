// The one event stream (docs/events.md). The agent emits these; every front
// end is a view of them: print renders text, stream-json writes each as one
// JSON line, rpc/acp/serve map them to their protocols.
#pragma once
#include <cstdint>
#include <functional>
#include <string>

#include "base/json.h"
#include "llm/message.h"
#include "sandbox/denial.h"

namespace sepp::agent {

enum class EventType {
  kSessionStarted,
  kTurnStarted,
  kMessageDelta,      // text
  kThinkingDelta,     // text
  kMessageCompleted,  // message (the assistant message, JSON)
  kToolStarted,       // call_id, tool, args, summary
  kToolOutput,        // call_id, text (partial)
  kToolFinished,      // call_id, tool, result, is_error, truncated, denied, denials
  kPermissionRequested,
  kPermissionResolved,
  kCompaction,
  kUsage,             // usage (this call), total (session)
  kTurnFinished,
  kRetry,             // text (why), attempt, delay_s
  kError,             // text, kind
  kSessionEnded,      // reason: "done" | "error" | "aborted" | "max_turns"; outcome
  // Added with the session runtime (src/runtime/); see docs/events.md.
  kUserMessage,       // text: a user message entered the context (prompt or steer)
  kAgentStarted,      // text: a prompt starts running (pi: agent_start)
  kAgentSettled,      // outcome: a prompt and its follow-ups are done, the session is idle
  kQueueUpdated,      // data.steering[], data.follow_up[]: the pending messages
  kSubscriberLagged,  // data.dropped: this subscriber fell behind and was cut off
  // The ask-the-user path (question.h, runtime/question_broker.h).
  kQuestionRequested,  // data: the question ({id, prompt, fields[], source}), timeout_s
  kQuestionResolved,   // data.question_id, data.question, data.answer ({status, values?, source})
  // A sub-agent the user sent to the background ended (background_agents.h):
  // call_id (its "agent" call), tool, result (its report), is_error,
  // child_session_id, data.details.
  kBackgroundFinished,
};

struct Event {
  EventType type;
  int turn = 0;
  std::string text;        // deltas, tool output, error message, retry reason
  std::string kind;        // error kind
  std::string call_id;
  std::string tool;
  std::string summary;     // one-line human summary of a tool call
  Json args;
  std::string result;
  bool is_error = false;
  bool truncated = false;
  bool denied = false;
  std::vector<sandbox::Denial> denials;  // tool.finished: what the sandbox refused, typed
  Json message;            // message.completed
  llm::Usage usage;
  llm::Usage total;
  Json data;               // anything else (session id, model, ...)
  // Set for events of a sub-agent: the parent's tool call ("agent") that runs
  // it, and the child's session. Nesting deeper chains through call ids.
  std::string parent_call_id;
  std::string child_session_id;
  // The envelope, stamped by the session runtime when it publishes the event
  // (0 / empty when an Agent is used on its own): a per-session sequence
  // number starting at 1, milliseconds since the Unix epoch, the session id.
  uint64_t seq = 0;
  int64_t time_ms = 0;
  std::string session_id;

  explicit Event(EventType t) : type(t) {}
};

const char* ToString(EventType t);
// The JSON form documented in docs/events.md ({"type":"tool.started",...}).
Json ToJson(const Event& e);

// Receives events. The agent serialises calls (never two at once), but they
// may come from different threads. Must not throw.
using EventSink = std::function<void(const Event&)>;

}  // namespace sepp::agent
