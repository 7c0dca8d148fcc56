#include "front/tui/chat_view.h"

#include <algorithm>
#include <cstdlib>

#include "front/tui/diff_view.h"

namespace sepp::front::tui {
namespace {

constexpr size_t kMaxToolTailBytes = 8192;
constexpr size_t kMaxThinkingBytes = 64 * 1024;  // the live tail needs only the end

std::string Compact(int64_t n) {
  // 950 -> "950", 12345 -> "12.3k", 200000 -> "200k", 1500000 -> "1.5M".
  auto scaled = [](int64_t v, int64_t unit, const char* suffix) {
    int64_t tenth = v % unit / (unit / 10);
    return std::to_string(v / unit) + (tenth ? "." + std::to_string(tenth) : "") + suffix;
  };
  if (n < 1000) return std::to_string(n);
  if (n < 1000000) return scaled(n, 1000, "k");
  return scaled(n, 1000000, "M");
}

}  // namespace

void ChatView::SetTheme(const Theme& theme) {
  theme_ = theme;
  answer_.set_theme(&theme_);
}

void ChatView::Notice(const std::string& text) {
  EndStream();
  std::vector<Line> lines = LinesFromText(text, theme_.muted);
  renderer_->Commit(std::move(lines));
}

void ChatView::AppendAnswer(const std::string& text) {
  EndThinking();
  answer_.set_theme(&theme_);
  std::vector<Line> done;
  answer_.Append(text, renderer_->width(), &done);
  if (!done.empty()) {
    renderer_->Commit(std::move(done));
    answer_open_ = true;
  }
}

void ChatView::AppendThinking(const std::string& text) {
  if (!answer_.empty()) EndStream();
  thinking_ += text;
  if (thinking_.size() > kMaxThinkingBytes) {
    thinking_lines_dropped_ += static_cast<size_t>(
        std::count(thinking_.begin(), thinking_.begin() + static_cast<std::ptrdiff_t>(thinking_.size() - kMaxThinkingBytes), '\n'));
    thinking_.erase(0, thinking_.size() - kMaxThinkingBytes);
  }
}

// Thinking folds to one line when it ends: it was read live; the answer is
// what stays in the scrollback.
void ChatView::EndThinking() {
  if (thinking_.empty()) return;
  std::string_view text = thinking_;
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.remove_suffix(1);
  size_t lines = thinking_lines_dropped_ + static_cast<size_t>(std::count(text.begin(), text.end(), '\n')) + 1;
  thinking_.clear();
  thinking_lines_dropped_ = 0;
  if (text.empty()) return;
  renderer_->Commit({Line{}.Add("\u25b8 thought for " + std::to_string(lines) + (lines == 1 ? " line" : " lines") +
                                   " (/view thinking expands it)",
                               theme_.thinking),
                     Line{}});
}

void ChatView::EndStream() {
  EndThinking();
  std::vector<Line> done;
  answer_.Finish(renderer_->width(), &done);
  if (!done.empty()) answer_open_ = true;
  if (answer_open_) done.emplace_back();  // a blank line ends the answer
  answer_open_ = false;
  if (!done.empty()) renderer_->Commit(std::move(done));
}

std::vector<Line> ChatView::ToolTail(const std::string& output, size_t max_lines, size_t* earlier) const {
  std::string_view text = output;
  while (!text.empty() && text.back() == '\n') text.remove_suffix(1);
  std::vector<Line> lines;
  if (!text.empty()) lines = LinesFromText(text, theme_.muted);
  *earlier = lines.size() > max_lines ? lines.size() - max_lines : 0;
  std::vector<Line> tail;
  for (size_t i = *earlier; i < lines.size(); ++i) {
    Line l;
    l.Add("  ");
    for (auto& s : lines[i].spans) l.spans.push_back(std::move(s));
    tail.push_back(std::move(l));
  }
  return tail;
}

void ChatView::CommitToolResult(const std::string& tool, const std::string& summary, const std::string& result,
                                bool is_error, bool denied) {
  std::vector<Line> lines;
  Line header;
  if (denied) header.Add("\u2717 denied ", theme_.error);
  else if (is_error) header.Add("\u2717 ", theme_.error);
  else header.Add("\u2713 ", theme_.success);
  header.Add(summary);
  lines.push_back(std::move(header));
  // An edit's result is a line saying what changed, then its unified diff:
  // drawn with line numbers and the changed words marked.
  if (tool == "edit" && !is_error && result.find("\n@@ ") != std::string::npos) {
    std::string_view first = std::string_view(result).substr(0, result.find('\n'));
    lines.push_back(Line{}.Add("  ").Add(first, theme_.muted));
    size_t omitted = 0;
    for (auto& l : DiffLines(result, theme_, kDiffLines, &omitted)) lines.push_back(std::move(l));
    if (omitted > 0)
      lines.push_back(Line{}.Add("  \u2026 " + std::to_string(omitted) + " more lines (/view tool shows them)", theme_.muted));
    lines.emplace_back();
    renderer_->Commit(std::move(lines));
    return;
  }
  size_t earlier = 0;
  auto tail = ToolTail(result, kToolTailLines, &earlier);
  if (earlier > 0) lines.push_back(Line{}.Add("  \u2026 " + std::to_string(earlier) + " earlier lines", theme_.muted));
  for (auto& l : tail) lines.push_back(std::move(l));
  lines.emplace_back();
  renderer_->Commit(std::move(lines));
}

void ChatView::ShowHistory(const std::vector<llm::Message>& messages, size_t max_messages) {
  size_t first = messages.size() > max_messages ? messages.size() - max_messages : 0;
  if (first > 0) Notice("\u2026 " + std::to_string(first) + " earlier messages not shown");
  for (size_t i = first; i < messages.size(); ++i) {
    const llm::Message& m = messages[i];
    switch (m.role) {
      case llm::Role::kUser: {
        agent::Event e(agent::EventType::kUserMessage);
        e.text = m.Text();
        OnEvent(e);
        break;
      }
      case llm::Role::kAssistant:
        if (!m.Text().empty()) {
          AppendAnswer(m.Text());
          EndStream();
        }
        break;
      case llm::Role::kToolResult: CommitToolResult(m.tool_name, m.tool_name, m.Text(), m.is_error, false); break;
    }
  }
}

void ChatView::OnEvent(const agent::Event& e) {
  using agent::EventType;
  // A sub-agent's events belong under its parent's call, which shows as a
  // running tool; drawing them nested is not built yet, and mixing them into
  // the main answer would be wrong.
  if (!e.parent_call_id.empty()) return;
  switch (e.type) {
    case EventType::kUserMessage: {
      EndStream();
      std::vector<Line> lines;
      bool first = true;
      for (auto& l : LinesFromText(e.text, theme_.user)) {
        Line row;
        row.Add(first ? "\u203a " : "  ", theme_.user);
        for (auto& s : l.spans) row.spans.push_back(std::move(s));
        lines.push_back(std::move(row));
        first = false;
      }
      lines.emplace_back();
      renderer_->Commit(std::move(lines));
      break;
    }
    case EventType::kMessageDelta: AppendAnswer(e.text); break;
    case EventType::kThinkingDelta: AppendThinking(e.text); break;
    case EventType::kMessageCompleted:
    case EventType::kTurnFinished: EndStream(); break;
    case EventType::kToolStarted:
      EndStream();
      if (!tools_.count(e.call_id)) tool_order_.push_back(e.call_id);
      tools_[e.call_id] = RunningTool{e.summary.empty() ? e.tool : e.summary, ""};
      break;
    case EventType::kToolOutput: {
      auto it = tools_.find(e.call_id);
      if (it == tools_.end()) break;
      std::string& tail = it->second.output_tail;
      tail += e.text;
      if (tail.size() > kMaxToolTailBytes) tail.erase(0, tail.size() - kMaxToolTailBytes);
      break;
    }
    case EventType::kToolFinished: {
      EndStream();
      std::string summary = e.summary.empty() ? e.tool : e.summary;
      if (auto it = tools_.find(e.call_id); it != tools_.end()) {
        if (summary.empty()) summary = it->second.summary;
        tools_.erase(it);
        std::erase(tool_order_, e.call_id);
      }
      CommitToolResult(e.tool, summary, e.result, e.is_error, e.denied);
      break;
    }
    case EventType::kError:
      EndStream();
      renderer_->Commit({Line{}.Add("error: ", theme_.error).Add(e.text), Line{}});
      break;
    case EventType::kRetry:
      renderer_->Commit({Line{}.Add("retrying: " + e.text, theme_.muted)});
      break;
    case EventType::kUsage:
      tokens_in_ = e.total.input + e.total.cache_read + e.total.cache_write;
      tokens_out_ = e.total.output;
      tokens_cached_ = e.total.cache_read;
      context_used_ = e.usage.input + e.usage.cache_read + e.usage.cache_write + e.usage.output;
      break;
    case EventType::kAgentStarted: busy_ = true; break;
    case EventType::kAgentSettled:
      EndStream();
      busy_ = false;
      break;
    case EventType::kQueueUpdated:
      queue_.clear();
      for (const char* k : {"steering", "follow_up"}) {
        if (!e.data.is_object() || !e.data.contains(k) || !e.data[k].is_array()) continue;
        for (const auto& m : e.data[k])
          queue_.push_back({k[0] == 's', m.is_string() ? m.get<std::string>() : std::string()});
      }
      break;
    default: break;
  }
}

Line ChatView::Footer() const {
  std::string cwd = footer_.cwd;
  if (const char* home = std::getenv("HOME"); home && *home && cwd.rfind(home, 0) == 0) {
    cwd = "~" + cwd.substr(std::string(home).size());
  }
  std::string text = cwd;
  if (!footer_.branch.empty()) text += " (" + footer_.branch + ")";
  if (!footer_.session_name.empty()) text += "  \u201c" + footer_.session_name + "\u201d";
  text += "  " + footer_.model;
  if (!footer_.thinking.empty() && footer_.thinking != "off") text += " \u00b7 thinking " + footer_.thinking;
  text += "  \u2191" + Compact(tokens_in_) + " \u2193" + Compact(tokens_out_);
  if (tokens_cached_ > 0) text += " cached " + Compact(tokens_cached_);
  if (footer_.context_window > 0) {
    text += "  ctx " + Compact(context_used_) + "/" + Compact(footer_.context_window) + " (" +
            std::to_string(context_used_ * 100 / footer_.context_window) + "%";
    // The auto-compaction mark: where the loop will compact by itself.
    if (footer_.compacts_at > 0) text += ", compacts at " + Compact(footer_.compacts_at);
    else if (footer_.compacts_at < 0) text += ", auto-compaction off";
    text += ")";
  }
  if (!queue_.empty()) text += "  queued " + std::to_string(queue_.size());
  Line footer;
  footer.Add(text, theme_.muted);
  if (busy_) footer.Add("  working (Esc aborts)", theme_.running);
  return footer;
}

void ChatView::Refresh(const Editor& editor, std::vector<Line> panel) {
  std::vector<Line> live;
  if (!thinking_.empty()) {
    size_t earlier = 0;
    for (auto& l : ToolTail(thinking_, kThinkingTailLines, &earlier)) {
      for (auto& s : l.spans) s.style = theme_.thinking;
      live.push_back(std::move(l));
    }
  }
  for (auto& l : answer_.Live(renderer_->width())) live.push_back(std::move(l));
  for (const auto& id : tool_order_) {
    const RunningTool& tool = tools_.at(id);
    live.push_back(Line{}.Add("\u25cf ", theme_.running).Add(tool.summary));
    size_t earlier = 0;
    for (auto& l : ToolTail(tool.output_tail, kToolTailLines, &earlier)) live.push_back(std::move(l));
  }
  // The queue, one line a message (its first line), so what is waiting can
  // be seen and taken back (Alt+Up) before it goes in.
  for (size_t i = 0; i < queue_.size() && i < kQueueLines; ++i) {
    std::string_view text = queue_[i].second;
    bool more_lines = text.find('\n') != std::string_view::npos;
    text = text.substr(0, text.find('\n'));
    Line l;
    l.Add(queue_[i].first ? "  \u23f8 steer: " : "  \u23f8 follow-up: ", theme_.muted).Add(text);
    if (more_lines) l.Add(" \u2026", theme_.muted);
    if (i == 0) l.Add("  (Alt+Up edits the queue)", theme_.muted);
    live.push_back(std::move(l));
  }
  if (queue_.size() > kQueueLines)
    live.push_back(Line{}.Add("  \u2026 " + std::to_string(queue_.size() - kQueueLines) + " more queued", theme_.muted));
  for (auto& l : panel) live.push_back(std::move(l));
  Caret caret;
  for (auto& l : editor.Render(live.size(), &caret)) live.push_back(std::move(l));
  live.push_back(Footer());
  renderer_->SetLive(std::move(live), caret);
}

}  // namespace sepp::front::tui
