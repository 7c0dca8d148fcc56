#include "front/tui/context_report.h"

#include <algorithm>

#include "agent/compaction.h"
#include "base/json.h"
#include "front/tui/text.h"

namespace sepp::front::tui {
namespace {

// The agent's rate (agent::EstimateTokens): about 4 bytes a token.
int64_t TokensOf(size_t bytes) { return static_cast<int64_t>(bytes / 4); }

size_t BlockBytes(const llm::ContentBlock& b) {
  size_t bytes = b.text.size() + b.signature.size() / 4 + b.name.size();
  if (b.kind == llm::ContentBlock::Kind::kToolCall)
    bytes += b.raw_arguments.empty() ? DumpJson(b.arguments).size() : b.raw_arguments.size();
  return bytes;
}

std::string OneLine(std::string s, size_t max) {
  for (char& c : s)
    if (c == '\n' || c == '\t' || c == '\r') c = ' ';
  if (s.size() > max) {
    s.resize(max);
    while (!s.empty() && (static_cast<unsigned char>(s.back()) & 0xC0) == 0x80) s.pop_back();
    if (!s.empty()) s.pop_back();
    s += "\u2026";
  }
  return s;
}

std::string Percent(int64_t part, int64_t whole) {
  if (whole <= 0) return "";
  int64_t tenths = part * 1000 / whole;
  if (part > 0 && tenths == 0) return "<0.1%";
  return std::to_string(tenths / 10) + "." + std::to_string(tenths % 10) + "%";
}

std::string Pad(std::string s, size_t width) {
  size_t w = static_cast<size_t>(DisplayWidth(s));
  if (w < width) s += std::string(width - w, ' ');
  return s;
}

// What a message is, for the list of the largest ones.
std::string Describe(const llm::Message& m, size_t index) {
  std::string what;
  if (m.role == llm::Role::kToolResult) {
    what = m.tool_name + " output";
  } else if (m.role == llm::Role::kUser) {
    what = "your message \u201c" + OneLine(m.Text(), 40) + "\u201d";
  } else {
    std::string tools;
    for (const auto* c : m.ToolCalls()) tools += (tools.empty() ? "" : ", ") + c->name;
    what = m.Text().empty() ? "a call of " + tools : "an answer \u201c" + OneLine(m.Text(), 40) + "\u201d";
  }
  return "#" + std::to_string(index + 1) + " " + what;
}

}  // namespace

std::string ContextReport(const ContextReportInput& in) {
  static const std::vector<llm::Message> kNone;
  const std::vector<llm::Message>& messages = in.messages ? *in.messages : kNone;

  int64_t system = in.preamble ? TokensOf(in.preamble->system.size()) : 0;
  int64_t tools = 0;
  size_t tool_count = in.preamble ? in.preamble->tools.size() : 0;
  if (in.preamble)
    for (const auto& t : in.preamble->tools)
      tools += TokensOf(t.name.size() + t.description.size() + DumpJson(t.parameters).size());

  // The messages by kind: what the user wrote, the answers' text, thinking,
  // the model's tool calls, the tools' results.
  enum Part { kUser, kAnswer, kThinking, kCalls, kResults, kParts };
  const char* kNames[kParts] = {"your messages", "answers", "thinking", "tool calls", "tool results"};
  int64_t parts[kParts] = {};
  size_t counts[kParts] = {};
  std::vector<std::pair<int64_t, size_t>> sizes;  // (estimate, index)
  for (size_t i = 0; i < messages.size(); ++i) {
    const llm::Message& m = messages[i];
    sizes.push_back({agent::EstimateTokens(m), i});
    // The per-message overhead goes to the kind of the message.
    Part own = m.role == llm::Role::kUser ? kUser : m.role == llm::Role::kToolResult ? kResults : kAnswer;
    parts[own] += TokensOf(16);
    ++counts[own];
    for (const auto& b : m.content) {
      Part p = own;
      if (m.role == llm::Role::kAssistant) {
        if (b.kind == llm::ContentBlock::Kind::kThinking) p = kThinking;
        else if (b.kind == llm::ContentBlock::Kind::kToolCall) p = kCalls;
      }
      if (p != own) ++counts[p];
      parts[p] += TokensOf(BlockBytes(b));
    }
  }
  int64_t message_total = 0;
  for (int64_t p : parts) message_total += p;
  int64_t used = system + tools + message_total;

  std::string out = "context: ~" + CompactCount(used) + " tokens";
  if (in.window > 0) out += " of the window's " + CompactCount(in.window) + " (" + Percent(used, in.window) + ")";
  if (in.compacts_at > 0) out += "; auto-compaction at " + CompactCount(in.compacts_at);
  else if (in.compacts_at < 0) out += "; auto-compaction off";
  out += "\n";

  // The bar: one cell per 1/40 of the window, the compaction mark as ┃.
  if (in.window > 0) {
    constexpr int kCells = 40;
    auto cells = [&](int64_t tokens) { return static_cast<int>(tokens * kCells / in.window); };
    int s = cells(system), t = cells(system + tools) - cells(system), m = cells(used) - cells(system + tools);
    int mark = in.compacts_at > 0 ? cells(in.compacts_at) : -1;
    std::string bar = "  ";
    for (int i = 0; i < kCells; ++i) {
      if (i == mark) bar += "\u2503";
      else if (i < s) bar += "\u2588";
      else if (i < s + t) bar += "\u2593";
      else if (i < s + t + m) bar += "\u2592";
      else bar += "\u2591";
    }
    out += bar + "  \u2588 system  \u2593 tools  \u2592 messages  \u2591 free" + (mark >= 0 ? "  \u2503 compacts" : "") + "\n";
  }

  auto row = [&](const std::string& name, int64_t tokens) {
    std::string line = "  " + Pad(name, 26) + Pad(CompactCount(tokens), 8);
    if (in.window > 0) line += Percent(tokens, in.window);
    out += line + "\n";
  };
  row("system prompt", system);
  row("tools (" + std::to_string(tool_count) + ")", tools);
  row("messages (" + std::to_string(messages.size()) + ")", message_total);
  for (int p = 0; p < kParts; ++p)
    if (counts[p] > 0) row("  " + std::string(kNames[p]) + " (" + std::to_string(counts[p]) + ")", parts[p]);
  if (in.window > 0) row("free", std::max<int64_t>(0, in.window - used));

  std::sort(sizes.begin(), sizes.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  if (!sizes.empty()) {
    out += "largest messages:\n";
    for (size_t i = 0; i < sizes.size() && i < 3; ++i)
      out += "  " + Pad(CompactCount(sizes[i].first), 8) + Describe(messages[sizes[i].second], sizes[i].second) + "\n";
  }

  // What the provider counted at the last call (prompt and answer).
  int64_t counted = 0;
  for (auto m = messages.rbegin(); m != messages.rend() && counted == 0; ++m)
    if (m->role == llm::Role::kAssistant) counted = m->usage.total();
  out += "(estimates at about 4 bytes a token";
  if (counted > 0) out += "; the provider counted " + CompactCount(counted) + " at the last call";
  out += "; /compact summarises the older messages)";
  return out;
}

}  // namespace sepp::front::tui
