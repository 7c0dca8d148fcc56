// Compaction: keeping a long session inside the model's context window.
//
// The older part of the conversation is summarised by the model (goal,
// decisions, files touched, open work); the recent part, about
// keep_recent_tokens of it, stays verbatim. The cut never falls between an
// assistant message's tool calls and their results: it is placed only before
// a user or an assistant message. The new context is
//   [user: <summary>] + messages[first_kept..]
// and the session records a "compaction" entry; the original entries stay.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "base/cancel.h"
#include "base/result.h"
#include "llm/message.h"
#include "llm/provider.h"

namespace sepp::agent {

struct CompactionSettings {
  bool enabled = true;
  int64_t reserve_tokens = 16384;      // head-room kept free below the window
  int64_t keep_recent_tokens = 20000;  // verbatim tail
};

// A cheap estimate (about 4 bytes a token) of what a message costs.
int64_t EstimateTokens(const llm::Message& m);
int64_t EstimateTokens(const std::vector<llm::Message>& ms);

// The context's size now: the last assistant message's reported usage (what
// the provider counted) plus an estimate of everything after it.
int64_t ContextTokens(const std::vector<llm::Message>& ms);

// Index of the first message kept verbatim: the latest valid cut such that
// [cut, end) holds at least keep_tokens (estimated). 0 means there is nothing
// worth summarising.
size_t FindCutPoint(const std::vector<llm::Message>& ms, int64_t keep_tokens);

struct CompactionResult {
  std::string summary;
  size_t first_kept = 0;     // index into the old messages
  int64_t tokens_before = 0;
  int64_t tokens_after = 0;
  llm::Usage usage;          // of the summarising call
};

// Asks the model for the summary of ms[0, cut). Error kind "nothing_to_compact"
// when the conversation is too short to cut.
Result<CompactionResult> Summarise(llm::Provider& provider, const std::string& model,
                                   const std::vector<llm::Message>& ms,
                                   const CompactionSettings& settings, const std::string& focus,
                                   CancelToken* cancel);

// The user message that stands for the summarised part.
llm::Message SummaryMessage(const std::string& summary);

}  // namespace sepp::agent
