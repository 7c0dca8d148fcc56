// Markdown (CommonMark + GFM through cmark-gfm) as the terminal UI's lines.
//
// Plain text stays plain: paragraphs, list items and quotes are logical
// lines that the terminal wraps itself, so a native selection copies them
// without inserted breaks or padding spaces. Only tables are laid out to the
// width (cells wrapped, raw Markdown when the width cannot hold them).
// Code fences stay visible (```lang) around highlighted code (highlight.h),
// links are OSC 8 hyperlinks with the target shown after the text, and
// every piece of text goes through Sanitize(): Markdown cannot carry a
// control sequence to the terminal.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "front/tui/highlight.h"
#include "front/tui/text.h"
#include "front/tui/theme.h"

namespace sepp::front::tui {

// A whole document; blocks separated by one empty line, none at the end.
std::vector<Line> RenderMarkdown(std::string_view source, int width, const Theme& theme);

// A streamed answer: text arrives in pieces; a block is committed (handed
// back once, never redrawn) as soon as it is final, the rest is the live
// tail. Final means: a later top-level block has begun; the lines of an
// open paragraph but its last (the last may still turn the paragraph into a
// table or a heading); each complete line of an open fenced code block.
// Limit: an inline span across a committed line break (`**a\nb**`) shows
// its markers on both sides.
class MarkdownStream {
 public:
  explicit MarkdownStream(const Theme* theme) : theme_(theme) {}

  // Appends streamed text; the lines that became final go to *done.
  void Append(std::string_view text, int width, std::vector<Line>* done);
  // What is not final yet, rendered: the live region's part.
  std::vector<Line> Live(int width) const;
  // The stream ended: the rest goes to *done. The stream is empty after.
  void Finish(int width, std::vector<Line>* done);
  bool empty() const { return pending_.empty() && !in_code_ && !committed_any_; }
  void set_theme(const Theme* theme) { theme_ = theme; }

 private:
  void CommitBlocks(int width, std::vector<Line>* done);
  bool TakeCodeLines(std::vector<Line>* done);
  void Emit(std::vector<Line> lines, bool block_start, std::vector<Line>* done);

  const Theme* theme_;
  std::string pending_;         // source not yet committed
  bool committed_any_ = false;  // something of this answer was committed
  bool gap_ = false;            // the next block starts after an empty line
  // An open fenced code block: its lines are committed as they complete.
  bool in_code_ = false;
  char fence_char_ = '`';
  size_t fence_length_ = 3;
  size_t fence_indent_ = 0;
  std::string language_;
  HighlightState highlight_;
};

}  // namespace sepp::front::tui
