// PiEventMapper: the runtime's event stream as pi's RPC event stream
// (docs/json.md of pi 1.6): agent_start, turn_start, message_start /
// message_update (delta-only) / message_end, tool_execution_start / update /
// end, turn_end, queue_update, compaction_start / end, auto_retry_start / end,
// agent_end, agent_settled.
//
// Where the orders differ it follows pi: user messages (prompt, steering,
// follow-ups) appear after the turn_start of the turn that sends them; an
// assistant message starts at its first streamed piece; tool calls are
// reported as toolcall_start / delta / end when the message completes (sepp
// streams text and thinking, and hands over tool calls whole). Events of
// sub-agents (parent_call_id set) have no pi form and are left out.
//
// Records are written as text, in DumpJson's bytes (members in key order),
// with no JSON tree built per record: a turn's messages are kept as the
// text that turn_end and agent_end repeat.
// Not thread-safe: one mapper per output stream.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "agent/events.h"
#include "base/json.h"
#include "base/json_text.h"

namespace sepp::front::rpc {

class PiEventMapper {
 public:
  explicit PiEventMapper(std::string provider) : provider_(std::move(provider)) {}
  void set_provider(std::string p) { provider_ = std::move(p); }
  // Appends the pi records for one runtime event (often none, sometimes
  // several), one line each.
  void Map(const agent::Event& e, std::string* out);

 private:
  void StartAssistant(std::string& out);
  void CloseBlock(std::string& out);
  void Delta(std::string& out, const char* kind, const std::string& text);
  void EndTurnIfOpen(std::string& out, const char* stop_reason, const std::string& error);
  void AddRunMessage(const std::string& message);

  std::string provider_;
  std::string model_;
  int64_t now_ms_ = 0;
  // The messages as pi's message objects' text.
  std::vector<std::string> pending_users_;
  std::string run_messages_;  // joined by commas
  bool turn_open_ = false;
  bool assistant_open_ = false;
  std::string last_assistant_;  // empty: none yet in this turn
  std::string tool_results_;    // joined by commas
  // The streamed block now open: "text" | "thinking" | null.
  const char* block_kind_ = nullptr;
  int block_index_ = -1;
  std::string block_text_;
  struct Call {
    Json args;
    int64_t started_ms = 0;
    std::string output;  // the tail of the partial output
  };
  std::map<std::string, Call> calls_;
  int retry_attempt_ = 0;
};

}  // namespace sepp::front::rpc
