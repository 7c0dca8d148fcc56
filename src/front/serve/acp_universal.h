// ACP -> the universal event schema (docs/serve.md, "External agents
// through the session API"): what an external agent's adapter says over
// ACP (session/update notifications, session/request_permission, the
// answer of session/prompt) as the events sepp's own sessions stream
// (universal_events.h), so a client of /v1/sessions sees one shape for
// every agent.
//
// ACP streams a message as chunks and never says it is complete; a tool
// call is announced (tool_call) and then changed (tool_call_update, whose
// content *replaces* the earlier content). The translator keeps what is
// open, turns the replaced content into deltas, and completes items itself:
// a message when a tool call or the turn's end follows it, a tool call's
// call item once its input is known or it runs, its result when its status
// becomes completed or failed, whatever is still open when the turn ends
// (failed).
//
// Everything the adapter sends is outside input: a field of the wrong type,
// an update for another session, an unknown update, too many open tool
// calls are not translated; each becomes an `error` event (code
// "agent_protocol", at most kMaxProtocolErrors of them per session), and
// nothing the adapter sends can throw. Every event's strings pass through
// the secret redactor; streamed text through one StreamRedactor per item,
// so a key split across two chunks is caught too.
//
// Not thread-safe: one per session, its caller serialises.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/json.h"
#include "base/stream_redactor.h"

namespace sepp::front::serve {

class AcpUniversalTranslator {
 public:
  static constexpr int kMaxProtocolErrors = 20;
  static constexpr size_t kMaxOpenToolCalls = 1024;

  // session_id: the session API's id; agent: "claude", ...
  AcpUniversalTranslator(std::string session_id, std::string agent);

  // A session served again numbers on after its stored events.
  void ContinueAfter(uint64_t sequence) { sequence_ = next_item_ = sequence; }
  uint64_t last_sequence() const { return sequence_; }

  // session/new answered: session.started, with what the agent said.
  // Updates for any other sessionId are refused from now on.
  std::vector<Json> Started(const std::string& native_session_id, const std::string& cwd,
                            const Json& new_session_result);
  // A session/prompt is sent: turn.started and the user's message.
  std::vector<Json> PromptSent(const std::string& text);
  // The params of one session/update notification.
  std::vector<Json> Update(const Json& params);
  // A session/request_permission request, numbered permission_id by the
  // caller; its toolCall is opened when the agent never announced it.
  std::vector<Json> PermissionRequested(const std::string& permission_id, const Json& params);
  // How it was answered: status accept | accept_for_session | reject;
  // metadata {optionId?, kind?, source: user|cancelled|ended}.
  std::vector<Json> PermissionResolved(const std::string& permission_id, const std::string& status,
                                       const Json& metadata);
  // The answer to session/prompt: its result ({stopReason, usage?}) or its
  // JSON-RPC error. Completes what is open; turn.ended, sepp.usage,
  // sepp.agent.settled.
  std::vector<Json> PromptEnded(const Json& result, const Json& error);
  // The agent cannot go on (it exited, it sent garbage where an answer
  // was due): an error event.
  std::vector<Json> Failure(const std::string& message, const std::string& code);
  // The session ends: reason completed | error | terminated; by agent | daemon.
  std::vector<Json> Ended(const std::string& reason, const std::string& terminated_by,
                          const std::string& message);
  // A line the adapter wrote that is no JSON-RPC message at all.
  std::vector<Json> Malformed(const std::string& what);

  int protocol_errors() const { return protocol_errors_; }
  bool in_turn() const { return in_turn_; }

 private:
  struct Message {  // an assistant message or its thinking, being streamed
    std::string id;
    std::string text;
    std::unique_ptr<StreamRedactor> redactor;
  };
  struct ToolCall {
    std::string call_id;  // the agent's toolCallId
    std::string title, kind, status;
    Json raw_input;        // null until the agent gives it
    Json raw_output;
    std::string output;    // the text content so far (it is replaced, not appended)
    Json files = Json::array();  // file_ref parts (ACP's diffs)
    Json locations = Json::array();
    bool call_done = false;  // its tool_call item completed
    std::unique_ptr<StreamRedactor> redactor;
  };

  Json Make(const std::string& type, Json data, bool synthetic);
  std::string NewItemId(const char* kind);
  void Chunk(bool thinking, const Json& update, std::vector<Json>& out);
  void CloseMessage(Message& m, std::vector<Json>& out);
  void CloseMessages(std::vector<Json>& out);
  // Opens a call (tool_call, or an update / permission for an unknown id).
  // fields: the update that opens it (its title, kind, rawInput are shown).
  ToolCall* OpenCall(const std::string& call_id, const Json& fields, std::vector<Json>& out);
  // Applies the fields of a tool_call / tool_call_update; completes it
  // when its status says so. False: a field had the wrong type.
  bool ApplyCall(ToolCall& c, const Json& update, std::vector<Json>& out, std::string* why);
  // The call item (its name, input, title) completes.
  void CompleteCallItem(ToolCall& c, bool synthetic, std::vector<Json>& out);
  // Its result completes (and the call item, if it had not).
  void CompleteCall(ToolCall& c, const char* status, bool synthetic, std::vector<Json>& out);
  void CloseTurn(std::vector<Json>& out);
  void Protocol(const std::string& what, std::vector<Json>& out);

  std::string session_id_;
  std::string agent_;
  std::string native_id_;
  uint64_t sequence_ = 0;
  uint64_t next_item_ = 0;
  int turn_ = 0;
  bool in_turn_ = false;
  int protocol_errors_ = 0;
  Message message_, thinking_;
  std::map<std::string, ToolCall> calls_;  // open, by the agent's toolCallId
  std::vector<std::string> call_order_;    // opening order, for closing the turn
};

}  // namespace sepp::front::serve
