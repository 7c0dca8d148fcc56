#include "agent/compaction.h"

namespace sepp::agent {
namespace {

constexpr char kSummaryPrompt[] =
    "You are summarising the earlier part of a coding session so that the work can go "
    "on with a fresh context. Another instance of the agent will continue from your "
    "summary and the most recent messages, which it will see verbatim. Write a "
    "structured summary with these sections:\n"
    "## Goal\nWhat the user asked for, in their words where it matters.\n"
    "## Decisions\nChoices made and why; constraints the user set.\n"
    "## Files touched\nEach file read, created or changed, with what changed.\n"
    "## Open work\nWhat is unfinished, failing or next.\n"
    "## Key facts\nCommands, errors, names and numbers that will be needed again.\n"
    "Be specific and complete; omit pleasantries.";

std::string Transcript(const std::vector<llm::Message>& ms, size_t end) {
  std::string t;
  for (size_t i = 0; i < end; ++i) {
    const llm::Message& m = ms[i];
    switch (m.role) {
      case llm::Role::kUser: t += "[user]\n"; break;
      case llm::Role::kAssistant: t += "[assistant]\n"; break;
      case llm::Role::kToolResult:
        t += "[tool result: " + m.tool_name + (m.is_error ? ", error" : "") + "]\n";
        break;
    }
    for (const auto& b : m.content) {
      if (b.kind == llm::ContentBlock::Kind::kText) t += b.text + "\n";
      if (b.kind == llm::ContentBlock::Kind::kToolCall)
        t += "(calls " + b.name + " " + DumpJson(b.arguments) + ")\n";
    }
    t += "\n";
  }
  return t;
}

}  // namespace

int64_t EstimateTokens(const llm::Message& m) {
  size_t bytes = 16;
  for (const auto& b : m.content) {
    bytes += b.text.size() + b.signature.size() / 4 + b.name.size();
    if (b.kind == llm::ContentBlock::Kind::kToolCall)
      bytes += b.raw_arguments.empty() ? DumpJson(b.arguments).size() : b.raw_arguments.size();
  }
  return static_cast<int64_t>(bytes / 4);
}

int64_t EstimateTokens(const std::vector<llm::Message>& ms) {
  int64_t n = 0;
  for (const auto& m : ms) n += EstimateTokens(m);
  return n;
}

int64_t ContextTokens(const std::vector<llm::Message>& ms) {
  for (size_t i = ms.size(); i-- > 0;) {
    const llm::Message& m = ms[i];
    if (m.role == llm::Role::kAssistant && m.usage.total() > 0) {
      int64_t n = m.usage.total();
      for (size_t j = i + 1; j < ms.size(); ++j) n += EstimateTokens(ms[j]);
      return n;
    }
  }
  return EstimateTokens(ms);
}

size_t FindCutPoint(const std::vector<llm::Message>& ms, int64_t keep_tokens) {
  int64_t kept = 0;
  for (size_t i = ms.size(); i-- > 0;) {
    kept += EstimateTokens(ms[i]);
    // A tool result must stay with the call before it: never cut before one.
    if (kept >= keep_tokens && ms[i].role != llm::Role::kToolResult) return i;
  }
  return 0;
}

Result<CompactionResult> Summarise(llm::Provider& provider, const std::string& model,
                                   const std::vector<llm::Message>& ms,
                                   const CompactionSettings& settings, const std::string& focus,
                                   CancelToken* cancel) {
  size_t cut = FindCutPoint(ms, settings.keep_recent_tokens);
  if (cut == 0)
    return Error::Make("the conversation is too short to compact", "nothing_to_compact");
  llm::Request req;
  req.model = model;
  req.system = kSummaryPrompt;
  req.stream = true;
  std::string ask = "<conversation>\n" + Transcript(ms, cut) + "</conversation>\n\n" +
                    "Summarise the conversation above as instructed.";
  if (!focus.empty()) ask += " Focus especially on: " + focus;
  req.messages.push_back(llm::Message::User(ask));
  auto reply = provider.Complete(req, {}, cancel);
  if (!reply.ok()) return reply.error();
  CompactionResult r;
  r.summary = reply->Text();
  if (r.summary.empty()) return Error::Make("the model returned an empty summary", "protocol");
  r.first_kept = cut;
  r.tokens_before = ContextTokens(ms);
  std::vector<llm::Message> after{SummaryMessage(r.summary)};
  after.insert(after.end(), ms.begin() + static_cast<ptrdiff_t>(cut), ms.end());
  r.tokens_after = EstimateTokens(after);
  r.usage = reply->usage;
  return r;
}

llm::Message SummaryMessage(const std::string& summary) {
  return llm::Message::User(
      "<summary>\nThe earlier part of this session was compacted. Summary:\n\n" + summary +
      "\n</summary>");
}

}  // namespace sepp::agent
