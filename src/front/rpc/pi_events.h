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
// Not thread-safe: one mapper per output stream.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "agent/events.h"
#include "base/json.h"

namespace sepp::front::rpc {

class PiEventMapper {
 public:
  explicit PiEventMapper(std::string provider) : provider_(std::move(provider)) {}
  void set_provider(std::string p) { provider_ = std::move(p); }
  // The pi records for one runtime event (often none, sometimes several).
  std::vector<Json> Map(const agent::Event& e);

 private:
  void StartAssistant(std::vector<Json>& out);
  void CloseBlock(std::vector<Json>& out);
  void Delta(std::vector<Json>& out, const std::string& kind, const std::string& text);
  void EndTurnIfOpen(std::vector<Json>& out, const char* stop_reason, const std::string& error);
  Json Update(Json assistant_event) const;

  std::string provider_;
  std::string model_;
  int64_t now_ms_ = 0;
  std::vector<Json> pending_users_;
  std::vector<Json> run_messages_;
  bool turn_open_ = false;
  bool assistant_open_ = false;
  Json last_assistant_;
  Json tool_results_ = Json::array();
  // The streamed block now open: "text" | "thinking" | "".
  std::string block_kind_;
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
