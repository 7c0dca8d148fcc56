// The one event stream (docs/events.md). The agent emits these; every front
// end is a view of them: print renders text, stream-json writes each as one
// JSON line, rpc/acp/serve map them to their protocols.
#pragma once
#include <functional>
#include <string>

#include "base/json.h"
#include "llm/message.h"

namespace sepp::agent {

enum class EventType {
  kSessionStarted,
  kTurnStarted,
  kMessageDelta,      // text
  kThinkingDelta,     // text
  kMessageCompleted,  // message (the assistant message, JSON)
  kToolStarted,       // call_id, tool, args, summary
  kToolOutput,        // call_id, text (partial)
  kToolFinished,      // call_id, tool, result, is_error, truncated, denied
  kPermissionRequested,
  kPermissionResolved,
  kCompaction,
  kUsage,             // usage (this call), total (session)
  kTurnFinished,
  kRetry,             // text (why), attempt, delay_s
  kError,             // text, kind
  kSessionEnded,      // reason: "done" | "error" | "aborted" | "max_turns"
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
  Json message;            // message.completed
  llm::Usage usage;
  llm::Usage total;
  Json data;               // anything else (session id, model, ...)

  explicit Event(EventType t) : type(t) {}
};

const char* ToString(EventType t);
// The JSON form documented in docs/events.md ({"type":"tool.started",...}).
Json ToJson(const Event& e);

// Receives events. The agent serialises calls (never two at once), but they
// may come from different threads. Must not throw.
using EventSink = std::function<void(const Event&)>;

}  // namespace sepp::agent
