// Editor: the multi-line prompt editor (text, caret, kill ring) driven by
// decoded keys, with Emacs bindings. It knows nothing about the session: a
// key that means "submit" comes back as an Action for the caller to act on.
#pragma once
#include <string>
#include <vector>

#include "front/tui/inline_renderer.h"
#include "front/tui/key_decoder.h"
#include "front/tui/text.h"

namespace sepp::front::tui {

class Editor {
 public:
  enum class Action {
    kNone,      // handled (or ignored) here
    kSubmit,    // Enter
    kAltEnter,  // Alt+Enter: a follow-up while working, else a newline
    kEscape,
    kInterrupt,  // Ctrl+C
    kEof,        // Ctrl+D on an empty editor
    kHistoryPrev,  // Up on the first line: the previous prompt
    kHistoryNext,  // Down on the last line: the next one
    kSearch,       // Ctrl+R: search earlier prompts
    kExternal,     // Ctrl+G: edit in $EDITOR
    kComplete,     // Tab: complete a /command or an @path
    kViewer,       // Ctrl+O: the last tool output in the full-screen viewer
    kCalls,        // Ctrl+X: the running tool calls (abort one)
    kToggleTools,  // Ctrl+T: expand / collapse the tool calls' output
    kExpandLast,   // Alt+T: the last tool call again, whole
  };

  Action Handle(const InputEvent& e);

  const std::string& text() const { return text_; }
  size_t cursor() const { return cursor_; }  // byte offset, on a grapheme boundary
  bool empty() const { return text_.empty(); }
  void SetText(std::string text);  // caret at the end
  std::string Take();               // the text; the editor is left empty
  void Insert(std::string_view text);  // at the caret ("\r\n" and "\r" become "\n")
  // Replaces bytes [from, to) with text, caret after it (completion); one undo step.
  void Replace(size_t from, size_t to, std::string_view text);

  // Undo / redo of edits (Ctrl+_ or Ctrl+Z / Alt+_ or Ctrl+Shift+Z). A run
  // of typed characters is one step; SetText and Take are steps too, so a
  // prompt pulled from the history can be undone.
  bool Undo();
  bool Redo();

  // The editor as live lines: "> " before the first line, "  " before the
  // others, and the caret for the renderer (first_line: the index of the
  // first of these lines in the live region).
  std::vector<Line> Render(size_t first_line, Caret* caret) const;

 private:
  Action Apply(const InputEvent& e);  // Handle without the undo bookkeeping
  size_t LineStart(size_t pos) const;
  size_t LineEnd(size_t pos) const;
  size_t PrevGrapheme(size_t pos) const;
  size_t NextGrapheme(size_t pos) const;
  size_t PrevWord(size_t pos) const;
  size_t NextWord(size_t pos) const;
  void MoveVertical(int direction);
  void Kill(size_t from, size_t to);
  struct Snapshot {
    std::string text;
    size_t cursor = 0;
  };
  // Called before a change; typing (a char into a typing run) coalesces.
  void Checkpoint(bool typing);

  std::string text_;
  size_t cursor_ = 0;
  std::string kill_;  // the last killed text (Ctrl+Y yanks it)
  int goal_column_ = -1;  // during Up/Down runs
  std::vector<Snapshot> undo_;
  std::vector<Snapshot> redo_;
  bool typing_run_ = false;  // the last change was a typed character
  static constexpr size_t kMaxUndo = 200;
};

}  // namespace sepp::front::tui
