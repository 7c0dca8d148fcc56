// ChatView: the conversation as the terminal UI shows it, built from the
// session runtime's events (agent/events.h), drawn through an
// InlineRenderer. Finished things (user messages, the answer's Markdown
// blocks as they become final, finished tool calls, errors) are committed to
// the scrollback; the live region holds only what can still change: the
// answer's unfinished block, the thinking while it streams (folded to one
// line when it ends), the running tool calls with the tail of their output,
// the editor and the footer.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "agent/events.h"
#include "llm/message.h"
#include "front/tui/editor.h"
#include "front/tui/inline_renderer.h"
#include "front/tui/markdown.h"
#include "front/tui/theme.h"

namespace sepp::front::tui {

struct FooterInfo {
  std::string cwd;    // shown with $HOME as ~
  std::string model;
  int64_t context_window = 0;  // tokens; 0: unknown (not shown)
  std::string branch;          // git branch of cwd, "" outside a repository
  std::string session_name;    // "" when not named
  std::string thinking;        // the level; "" or "off": not shown
  // The context size at which the loop compacts by itself (window minus
  // reserve); 0: not shown, -1: automatic compaction is off.
  int64_t compacts_at = 0;
  // The tools' sandbox: off (--sandbox off: shown as a warning), on, or on
  // with the session sandbox running (its pid 1 started at the first call).
  enum class Sandbox { kOff, kOn, kRunning } sandbox = Sandbox::kOn;
};

class ChatView {
 public:
  // Lines of a running or finished tool call's output shown under its header.
  static constexpr size_t kToolTailLines = 5;

  // Thinking shows its last lines while it streams.
  static constexpr size_t kThinkingTailLines = 6;

  // Expanded (Ctrl+T): the lines of output a call shows instead.
  static constexpr size_t kExpandedToolLines = 30;
  // At most this much of a call written again by ExpandLastTool.
  static constexpr size_t kMaxExpandLines = 2000;

  // A sub-agent's running calls shown under its parent's call.
  static constexpr size_t kSubAgentCallLines = 4;

  // Lines of an edit's diff shown under its header (/view tool N shows all).
  static constexpr size_t kDiffLines = 40;

  explicit ChatView(InlineRenderer* renderer) : renderer_(renderer), answer_(&Theme::Dark()) {}

  // The theme for what is drawn from now on (the scrollback keeps its colours).
  void SetTheme(const Theme& theme);

  void OnEvent(const agent::Event& e);
  // Expanded or collapsed, for all calls: running calls show this many
  // lines of their output and calls that finish from now on are committed
  // with as many (the scrollback keeps what it was written with).
  void SetToolsExpanded(bool expanded) { tools_expanded_ = expanded; }
  bool tools_expanded() const { return tools_expanded_; }
  // The last finished call again, whole (up to kMaxExpandLines), under its
  // header: the scrollback cannot unfold what it holds, so it is written
  // anew. False when no call has finished yet.
  bool ExpandLastTool();
  void SetFooter(FooterInfo info) {
    footer_ = std::move(info);
    footer_line_.reset();
  }
  // A resumed session's last max_messages messages into the scrollback
  // (older ones are not written: a long session starts as fast as a short
  // one), with a line saying how many were left out.
  void ShowHistory(const std::vector<llm::Message>& messages, size_t max_messages);
  // A line of the UI's own (a hint, "aborted") into the scrollback.
  void Notice(const std::string& text);
  // Hands the live region (with the editor) to the renderer; panel (a
  // modal, a picker, a completion list) goes just above the editor.
  void Refresh(const Editor& editor, std::vector<Line> panel = {});

  bool busy() const { return busy_; }
  size_t queued() const { return queue_.size(); }

  // Queued messages shown above the editor (the footer counts all).
  static constexpr size_t kQueueLines = 4;

 private:
  // What a sub-agent run by an `agent` call is doing (its own events,
  // tied to the call by parent_call_id), drawn nested under the call.
  struct SubAgent {
    std::string session_id;  // the child's session ("" : none)
    std::vector<std::pair<std::string, std::string>> running;  // its calls: id, summary
    size_t calls_done = 0, calls_failed = 0;
    std::string activity;  // "thinking", or the last line of its answer
    std::string last_tool;  // the summary of the call it started last
    int64_t tokens_in = 0, tokens_out = 0;  // its own usage so far
    // When its call started and its latest event came (the runtime's
    // milliseconds; 0: not stamped): how long it has run, as of that event.
    int64_t started_ms = 0, latest_ms = 0;
  };
  struct RunningTool {
    std::string summary;
    std::string output_tail;  // the last bytes of its output
    bool nested = false;      // a sub-agent's events arrived: drawn from sub
    SubAgent sub;
  };
  // A sub-agent the user sent to the background: its call has ended, its
  // events go on arriving under the call's id until background.finished.
  struct BackgroundAgent {
    std::string summary;  // its call's
    SubAgent sub;
  };
  void OnNestedEvent(const agent::Event& e);
  std::vector<Line> SubAgentLines(const SubAgent& sub) const;
  // One line a sub-agent in the background: its task, calls, last tool,
  // tokens and time so far.
  Line BackgroundLine(const BackgroundAgent& agent) const;
  void AppendAnswer(const std::string& text);
  void AppendThinking(const std::string& text);
  void EndThinking();
  void EndStream();
  std::vector<Line> ToolTail(const std::string& output, size_t max_lines, size_t* earlier) const;
  // The footer row, built again only when what it shows or the width
  // changed: a keystroke does not pay for fitting it.
  const Line& Footer() const;
  Line BuildFooter() const;
  void CommitToolResult(const std::string& tool, const std::string& summary, const std::string& result,
                        bool is_error, bool denied, const SubAgent* sub = nullptr, size_t max_lines = 0);
  size_t ToolLines() const { return tools_expanded_ ? kExpandedToolLines : kToolTailLines; }

  InlineRenderer* renderer_;
  FooterInfo footer_;
  mutable std::optional<Line> footer_line_;
  mutable int footer_width_ = 0;
  Theme theme_ = Theme::Dark();
  MarkdownStream answer_;      // the streamed answer's Markdown
  std::string thinking_;       // the streaming thinking text
  bool answer_open_ = false;   // the answer has committed lines
  size_t thinking_lines_dropped_ = 0;  // lines cut from the front of thinking_
  std::map<std::string, RunningTool> tools_;
  std::vector<std::string> tool_order_;
  std::vector<std::pair<std::string, BackgroundAgent>> background_;  // by call id, oldest first
  bool tools_expanded_ = false;
  struct FinishedTool {
    std::string tool, summary, result;
    bool is_error = false, denied = false;
  };
  FinishedTool last_tool_;  // for ExpandLastTool; tool "" before the first

  bool busy_ = false;
  int64_t tokens_in_ = 0;
  int64_t tokens_out_ = 0;
  int64_t tokens_cached_ = 0;  // of tokens_in_: read from the provider's cache
  int64_t context_used_ = 0;  // the last call's prompt and answer
  // The queued messages in the order they go in: steers (at the next tool
  // boundary) first, then follow-ups (after the turn). true: a steer.
  std::vector<std::pair<bool, std::string>> queue_;
};

}  // namespace sepp::front::tui
