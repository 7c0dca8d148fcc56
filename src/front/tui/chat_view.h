// ChatView: the conversation as the terminal UI shows it, built from the
// session runtime's events (agent/events.h), drawn through an
// InlineRenderer. Finished things (user messages, complete lines of the
// answer, finished tool calls, errors) are committed to the scrollback as
// soon as they are final; the live region holds only what can still change:
// the answer's unfinished last line, the running tool calls with the tail of
// their output, the editor and the footer.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "agent/events.h"
#include "llm/message.h"
#include "front/tui/editor.h"
#include "front/tui/inline_renderer.h"

namespace sepp::front::tui {

struct FooterInfo {
  std::string cwd;    // shown with $HOME as ~
  std::string model;
  int64_t context_window = 0;  // tokens; 0: unknown (not shown)
};

class ChatView {
 public:
  // Lines of a running or finished tool call's output shown under its header.
  static constexpr size_t kToolTailLines = 5;

  explicit ChatView(InlineRenderer* renderer) : renderer_(renderer) {}

  void OnEvent(const agent::Event& e);
  void SetFooter(FooterInfo info) { footer_ = std::move(info); }
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

 private:
  struct RunningTool {
    std::string summary;
    std::string output_tail;  // the last bytes of its output
  };
  void AppendStream(const std::string& text, Style style);
  void EndStream();
  std::vector<Line> ToolTail(const std::string& output, size_t max_lines, size_t* earlier) const;
  Line Footer() const;
  void CommitToolResult(const std::string& summary, const std::string& result, bool is_error,
                        bool denied);

  InlineRenderer* renderer_;
  FooterInfo footer_;
  std::string partial_;  // the streamed block's unfinished last line
  Style partial_style_;
  bool block_open_ = false;  // a streamed block has committed lines
  std::map<std::string, RunningTool> tools_;
  std::vector<std::string> tool_order_;
  bool busy_ = false;
  int64_t tokens_in_ = 0;
  int64_t tokens_out_ = 0;
  int64_t context_used_ = 0;  // the last call's prompt and answer
  size_t queued_ = 0;
};

}  // namespace sepp::front::tui
