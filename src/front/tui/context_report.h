// What /context shows: what fills the model's window, part by part (the
// system prompt, the tools' definitions, the messages by kind), against the
// window and the auto-compaction mark, with a bar and the largest messages.
// Sizes are estimates at the agent's own rate (agent::EstimateTokens, about
// 4 bytes a token); the provider's own count of the last call is shown
// beside them when there is one.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "llm/message.h"
#include "llm/provider.h"

namespace sepp::front::tui {

struct ContextReportInput {
  const llm::Request* preamble = nullptr;  // system prompt and tools (no messages)
  const std::vector<llm::Message>* messages = nullptr;
  int64_t window = 0;       // tokens; 0: unknown
  int64_t compacts_at = 0;  // tokens; 0: unknown, -1: auto-compaction off
};

// Plain text, one line a part (the UI sanitizes it when it shows it).
std::string ContextReport(const ContextReportInput& in);

}  // namespace sepp::front::tui
