#include "front/tui/chat_view.h"

#include <algorithm>
#include <cstdlib>

#include "front/tui/diff_view.h"

namespace sepp::front::tui {
namespace {

constexpr size_t kMaxToolTailBytes = 8192;
constexpr size_t kMaxThinkingBytes = 64 * 1024;  // the live tail needs only the end

std::string Compact(int64_t n) { return CompactCount(n); }

}  // namespace

void ChatView::SetTheme(const Theme& theme) {
  theme_ = theme;
  answer_.set_theme(&theme_);
  footer_line_.reset();
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
                                bool is_error, bool denied, const SubAgent* sub, size_t max_lines) {
  if (max_lines == 0) max_lines = ToolLines();
  size_t diff_lines = std::max(kDiffLines, max_lines);
  std::vector<Line> lines;
  Line header;
  if (denied) header.Add("\u2717 denied ", theme_.error);
  else if (is_error) header.Add("\u2717 ", theme_.error);
  else header.Add("\u2713 ", theme_.success);
  header.Add(summary);
  lines.push_back(std::move(header));
  // A sub-agent's work, in one line under its call (its session holds all).
  if (sub) {
    std::string what = "  \u23bf sub-agent: " + std::to_string(sub->calls_done) +
                       (sub->calls_done == 1 ? " tool call" : " tool calls");
    if (sub->calls_failed) what += " (" + std::to_string(sub->calls_failed) + " failed)";
    if (!sub->session_id.empty()) what += ", session " + sub->session_id.substr(0, 8);
    lines.push_back(Line{}.Add(what, theme_.muted));
  }
  // An edit's result is a line saying what changed, then its unified diff:
  // drawn with line numbers and the changed words marked.
  if (tool == "edit" && !is_error && result.find("\n@@ ") != std::string::npos) {
    std::string_view first = std::string_view(result).substr(0, result.find('\n'));
    lines.push_back(Line{}.Add("  ").Add(first, theme_.muted));
    size_t omitted = 0;
    for (auto& l : DiffLines(result, theme_, diff_lines, &omitted)) lines.push_back(std::move(l));
    if (omitted > 0)
      lines.push_back(Line{}.Add("  \u2026 " + std::to_string(omitted) + " more lines (/view tool shows them)", theme_.muted));
    lines.emplace_back();
    renderer_->Commit(std::move(lines));
    return;
  }
  size_t earlier = 0;
  auto tail = ToolTail(result, max_lines, &earlier);
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
      case llm::Role::kToolResult:
        CommitToolResult(m.tool_name, m.tool_name, m.Text(), m.is_error, false);
        last_tool_ = {m.tool_name, m.tool_name, m.Text(), m.is_error, false};
        break;
    }
  }
}

void ChatView::OnEvent(const agent::Event& e) {
  using agent::EventType;
  // The footer shows the usage, the queue and whether a turn runs: only
  // these events change it (a key or a streamed piece does not).
  if (e.type == EventType::kUsage || e.type == EventType::kQueueUpdated || e.type == EventType::kAgentStarted ||
      e.type == EventType::kAgentSettled)
    footer_line_.reset();
  // A sub-agent's events belong under its parent's call: drawn nested there,
  // never mixed into the main answer.
  if (!e.parent_call_id.empty()) return OnNestedEvent(e);
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
      tools_[e.call_id].sub.started_ms = e.time_ms;
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
      bool nested = false;
      SubAgent sub;
      if (auto it = tools_.find(e.call_id); it != tools_.end()) {
        if (summary.empty()) summary = it->second.summary;
        nested = it->second.nested;
        sub = std::move(it->second.sub);
        tools_.erase(it);
        std::erase(tool_order_, e.call_id);
      }
      CommitToolResult(e.tool, summary, e.result, e.is_error, e.denied, nested ? &sub : nullptr);
      last_tool_ = {e.tool, summary, e.result, e.is_error, e.denied};
      // Sent to the background (its receipt says so): its progress goes on
      // above the editor until it ends.
      const Json* details = e.data.is_object() && e.data.contains("details") ? &e.data["details"] : nullptr;
      if (e.tool == "agent" && details && details->is_object() && details->value("background", false))
        background_.push_back({e.call_id, BackgroundAgent{summary, std::move(sub)}});
      break;
    }
    case EventType::kBackgroundFinished:
      std::erase_if(background_, [&](const auto& b) { return b.first == e.call_id; });
      break;
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

bool ChatView::ExpandLastTool() {
  if (last_tool_.tool.empty()) return false;
  EndStream();
  const FinishedTool& t = last_tool_;
  renderer_->Commit({Line{}.Add("\u25be the last call, whole:", theme_.muted)});
  CommitToolResult(t.tool, t.summary, t.result, t.is_error, t.denied, nullptr, kMaxExpandLines);
  return true;
}

void ChatView::OnNestedEvent(const agent::Event& e) {
  using agent::EventType;
  SubAgent* found = nullptr;
  if (auto it = tools_.find(e.parent_call_id); it != tools_.end()) {
    it->second.nested = true;
    found = &it->second.sub;
  }
  for (auto& [id, agent] : background_)
    if (id == e.parent_call_id) found = &agent.sub;
  if (found == nullptr) return;  // its call is not running (any more), nor in the background
  SubAgent& sub = *found;
  if (!e.child_session_id.empty()) sub.session_id = e.child_session_id;
  if (e.time_ms > 0) sub.latest_ms = e.time_ms;
  switch (e.type) {
    case EventType::kToolStarted:
      sub.running.push_back({e.call_id, e.summary.empty() ? e.tool : e.summary});
      sub.last_tool = sub.running.back().second;
      sub.activity.clear();
      break;
    case EventType::kUsage:
      sub.tokens_in = e.total.input + e.total.cache_read + e.total.cache_write;
      sub.tokens_out = e.total.output;
      break;
    case EventType::kToolFinished:
      // A deeper sub-agent's calls come with their own ids: only the ones
      // seen starting are counted.
      for (auto r = sub.running.begin(); r != sub.running.end(); ++r) {
        if (r->first != e.call_id) continue;
        sub.running.erase(r);
        ++sub.calls_done;
        if (e.is_error || e.denied) ++sub.calls_failed;
        break;
      }
      break;
    case EventType::kThinkingDelta: sub.activity = "thinking\u2026"; break;
    case EventType::kMessageDelta: {
      // What it writes, bounded (its last line is shown).
      std::string& a = sub.activity;
      if (a == "thinking\u2026") a.clear();
      a += e.text;
      if (a.size() > 400) {
        size_t cut = a.size() - 400;
        while (cut < a.size() && (static_cast<unsigned char>(a[cut]) & 0xC0) == 0x80) ++cut;
        a.erase(0, cut);
      }
      break;
    }
    default: break;
  }
}

std::vector<Line> ChatView::SubAgentLines(const SubAgent& sub) const {
  std::vector<Line> lines;
  size_t shown = std::min(sub.running.size(), kSubAgentCallLines);
  for (size_t i = sub.running.size() - shown; i < sub.running.size(); ++i)
    lines.push_back(Line{}.Add("  \u23bf ", theme_.muted).Add("\u25cf ", theme_.running).Add(sub.running[i].second));
  std::string status;
  if (sub.running.size() > shown) status += std::to_string(sub.running.size() - shown) + " more running  ";
  if (sub.calls_done)
    status += std::to_string(sub.calls_done) + (sub.calls_done == 1 ? " call done" : " calls done") +
              (sub.calls_failed ? " (" + std::to_string(sub.calls_failed) + " failed)" : "");
  std::string activity = sub.activity;
  while (!activity.empty() && (activity.back() == '\n' || activity.back() == ' ')) activity.pop_back();
  if (size_t nl = activity.find_last_of('\n'); nl != std::string::npos) activity.erase(0, nl + 1);
  if (!activity.empty()) status += (status.empty() ? "" : "  ") + activity;
  if (status.empty()) status = "starting\u2026";
  Line l;
  l.Add("  \u23bf ", theme_.muted);
  for (auto& row : LinesFromText(status, theme_.muted))
    for (auto& s : row.spans) l.spans.push_back(std::move(s));
  lines.push_back(std::move(l));
  return lines;
}

Line ChatView::BackgroundLine(const BackgroundAgent& agent) const {
  const SubAgent& sub = agent.sub;
  std::string status = "  \u25d4 in the background: " + agent.summary;
  size_t calls = sub.calls_done + sub.running.size();
  status += " \u00b7 " + std::to_string(calls) + (calls == 1 ? " call" : " calls");
  if (!sub.last_tool.empty()) status += " \u00b7 last: " + sub.last_tool;
  if (sub.tokens_in || sub.tokens_out)
    status += " \u00b7 \u2191" + CompactCount(sub.tokens_in) + " \u2193" + CompactCount(sub.tokens_out);
  // As of its latest event: no timer runs for it (an idle UI has no wake-ups).
  if (sub.started_ms > 0 && sub.latest_ms >= sub.started_ms)
    status += " \u00b7 " + std::to_string((sub.latest_ms - sub.started_ms) / 1000) + " s";
  Line l;
  // One row: the summary and the tool's are the model's text.
  for (auto& row : LinesFromText(status, theme_.muted))
    for (auto& s : row.spans) l.spans.push_back(std::move(s));
  return l;
}

const Line& ChatView::Footer() const {
  if (footer_line_ && footer_width_ == renderer_->width()) return *footer_line_;
  footer_width_ = renderer_->width();
  footer_line_ = BuildFooter();
  return *footer_line_;
}

Line ChatView::BuildFooter() const {
  // Pieces in the order shown; when the row is too narrow for them all, the
  // least needed give way first (the cost, the cache, the compaction mark,
  // ...): first to their short form, then entirely. The footer stays one row.
  struct Piece {
    std::string text, shorter;  // shorter "" : dropped when it gives way
    Style style;
    int keep;  // higher stays longer
  };
  std::vector<Piece> pieces;
  std::string cwd = footer_.cwd;
  if (const char* home = std::getenv("HOME"); home && *home && cwd.rfind(home, 0) == 0) {
    cwd = "~" + cwd.substr(std::string(home).size());
  }
  pieces.push_back({cwd, "", theme_.muted, 9});
  if (!footer_.branch.empty()) pieces.push_back({" (" + footer_.branch + ")", "", theme_.muted, 4});
  if (!footer_.session_name.empty()) pieces.push_back({"  \u201c" + footer_.session_name + "\u201d", "", theme_.muted, 5});
  pieces.push_back({"  " + footer_.model, "", theme_.muted, 8});
  if (!footer_.thinking.empty() && footer_.thinking != "off")
    pieces.push_back({" \u00b7 thinking " + footer_.thinking, "", theme_.muted, 7});
  pieces.push_back({"  \u2191" + Compact(tokens_in_) + " \u2193" + Compact(tokens_out_), "", theme_.muted, 3});
  if (tokens_cached_ > 0) pieces.push_back({" cached " + Compact(tokens_cached_), "", theme_.muted, 2});
  if (footer_.context_window > 0) {
    std::string ctx = "  ctx " + Compact(context_used_) + "/" + Compact(footer_.context_window) + " (" +
                      std::to_string(context_used_ * 100 / footer_.context_window) + "%";
    // The auto-compaction mark: where the loop will compact by itself.
    std::string mark = footer_.compacts_at > 0   ? ", compacts at " + Compact(footer_.compacts_at)
                       : footer_.compacts_at < 0 ? ", auto-compaction off"
                                                 : "";
    pieces.push_back({ctx + mark + ")", ctx + ")", theme_.muted, 6});
  }
  // No price table exists to turn the provider's usage into money, so the
  // cost is said to be unknown rather than guessed.
  pieces.push_back({"  cost unknown", "", theme_.muted, 1});
  if (!queue_.empty()) pieces.push_back({"  queued " + std::to_string(queue_.size()), "", theme_.muted, 8});
  switch (footer_.sandbox) {
    case FooterInfo::Sandbox::kOff: pieces.push_back({"  sandbox OFF", "", theme_.warning, 10}); break;
    case FooterInfo::Sandbox::kOn: pieces.push_back({"  sandbox on", "", theme_.muted, 7}); break;
    case FooterInfo::Sandbox::kRunning: pieces.push_back({"  sandbox running", "  sandbox on", theme_.muted, 7}); break;
  }
  if (busy_) pieces.push_back({"  working (Esc aborts)", "  working", theme_.running, 9});

  std::vector<int> widths;
  int total = 0;
  for (const auto& p : pieces) total += widths.emplace_back(Line{}.Add(p.text).Width());
  int width = renderer_->width();
  std::vector<bool> shortened(pieces.size(), false), dropped(pieces.size(), false);
  while (total > width) {
    // The least needed piece that can still give way (the later on a tie).
    // Those kept at 9 and above may only shorten.
    long pick = -1;
    for (size_t i = 0; i < pieces.size(); ++i) {
      bool can = !dropped[i] && (pieces[i].keep < 9 || (!shortened[i] && !pieces[i].shorter.empty()));
      if (can && (pick < 0 || pieces[i].keep <= pieces[static_cast<size_t>(pick)].keep)) pick = static_cast<long>(i);
    }
    if (pick < 0) break;  // what is left must stay: the terminal wraps it
    size_t i = static_cast<size_t>(pick);
    total -= widths[i];
    if (!shortened[i] && !pieces[i].shorter.empty()) {
      shortened[i] = true;
      pieces[i].text = pieces[i].shorter;
      total += widths[i] = Line{}.Add(pieces[i].text).Width();
    } else {
      dropped[i] = true;
    }
  }
  Line footer;
  for (size_t i = 0; i < pieces.size(); ++i)
    if (!dropped[i]) footer.Add(pieces[i].text, pieces[i].style);
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
    if (tool.nested) {
      // Its output is the sub-agent's progress lines: the nested view says more.
      for (auto& l : SubAgentLines(tool.sub)) live.push_back(std::move(l));
      continue;
    }
    size_t earlier = 0;
    for (auto& l : ToolTail(tool.output_tail, ToolLines(), &earlier)) live.push_back(std::move(l));
  }
  for (const auto& [id, agent] : background_) live.push_back(BackgroundLine(agent));
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
