// The universal event schema of sepp's session API (docs/serve.md): the
// shape sandbox-agent 0.1 streamed from /v1/sessions/{id}/events, made from
// the runtime's events (agent/events.h). One translator per session: it
// numbers its own events (sequence from 1, no gaps, so `offset` means the
// same thing on every read) and keeps the open items, because the runtime
// streams a message as deltas and completes it later, while the universal
// schema wants every item started, updated and completed under one item_id.
//
//   {event_id, sequence, time (RFC 3339), session_id, source, synthetic,
//    type, data}
//
// source is "agent" for an event the agent produced and "daemon" for one the
// translator had to add (an item.started before a message's first delta,
// the completion of an item a turn left open); those are synthetic.
// Runtime events without a universal counterpart (usage, retry, compaction,
// the queue) keep their data under type "sepp.<runtime type>", which a
// universal client ignores. The runtime's questions (the model's `question`
// tool, an MCP server's elicitation; agent/question.h) become question.requested and
// question.resolved in sandbox-agent 0.1's shape ({question_id, prompt,
// options: string[], status: requested | answered | rejected, response:
// string[][]}), with sepp's typed fields, values and source beside it;
// permission requests become permission.requested / permission.resolved.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "agent/events.h"
#include "base/json.h"

namespace sepp::front::serve {

class UniversalTranslator {
 public:
  explicit UniversalTranslator(std::string session_id);

  // The universal events for one runtime event (zero or more, in order).
  std::vector<Json> Translate(const agent::Event& e);
  uint64_t last_sequence() const { return sequence_; }
  // A session served again after a restart numbers on after its stored
  // events; its new item ids stay clear of the old ones (an item id is
  // made at most once per event, so none of the old ones is above it).
  void ContinueAfter(uint64_t sequence) { sequence_ = next_item_ = sequence; }

 private:
  // The items of one agent (the session's own, or a sub-agent's under the
  // parent's tool call) that were started and not yet completed.
  struct Open {
    std::string message_id;    // the assistant message being streamed
    std::string reasoning_id;  // its thinking, streamed as its own item
    std::vector<std::string> results;  // tool_result items, by call id
  };

  Json Make(const agent::Event& e, const std::string& type, Json data, bool synthetic);
  std::string NewItemId(const agent::Event& e, const char* kind);
  // Completes whatever the turn left open (status failed: it never finished).
  void CloseOpen(const agent::Event& e, Open& open, std::vector<Json>& out);

  std::string session_id_;
  uint64_t sequence_ = 0;
  uint64_t next_item_ = 0;
  std::map<std::string, Open> open_;  // by child session id ("" for the session's own agent)
};

// The universal permission status for a sepp choice ("allow_once" -> "accept").
const char* UniversalPermissionStatus(const std::string& choice);

}  // namespace sepp::front::serve
