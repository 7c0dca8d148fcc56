#include "front/tui/editor.h"

#include <algorithm>

#include "base/strings.h"

namespace sepp::front::tui {
namespace {

bool IsWordByte(char c) {
  return static_cast<unsigned char>(c) >= 0x80 || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
         (c >= 'A' && c <= 'Z') || c == '_';
}

}  // namespace

void Editor::SetText(std::string text) {
  if (text == text_) return;
  Checkpoint(false);
  text_.clear();
  cursor_ = 0;
  Insert(text);
}

std::string Editor::Take() {
  if (!text_.empty()) Checkpoint(false);
  std::string t = std::move(text_);
  text_.clear();
  cursor_ = 0;
  return t;
}

void Editor::Insert(std::string_view text) {
  std::string clean;
  clean.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\r') {
      clean.push_back('\n');
      if (i + 1 < text.size() && text[i + 1] == '\n') ++i;
    } else {
      clean.push_back(text[i]);
    }
  }
  text_.insert(cursor_, clean);
  cursor_ += clean.size();
}

void Editor::Replace(size_t from, size_t to, std::string_view text) {
  from = std::min(from, text_.size());
  to = std::clamp(to, from, text_.size());
  Checkpoint(false);
  text_.replace(from, to - from, text);
  cursor_ = from + text.size();
}

void Editor::Checkpoint(bool typing) {
  if (!(typing && typing_run_)) {
    undo_.push_back({text_, cursor_});
    if (undo_.size() > kMaxUndo) undo_.erase(undo_.begin());
  }
  typing_run_ = typing;
  redo_.clear();
}

bool Editor::Undo() {
  if (undo_.empty()) return false;
  redo_.push_back({std::move(text_), cursor_});
  text_ = std::move(undo_.back().text);
  cursor_ = undo_.back().cursor;
  undo_.pop_back();
  typing_run_ = false;
  return true;
}

bool Editor::Redo() {
  if (redo_.empty()) return false;
  undo_.push_back({std::move(text_), cursor_});
  text_ = std::move(redo_.back().text);
  cursor_ = redo_.back().cursor;
  redo_.pop_back();
  typing_run_ = false;
  return true;
}

size_t Editor::LineStart(size_t pos) const {
  size_t nl = pos == 0 ? std::string::npos : text_.rfind('\n', pos - 1);
  return nl == std::string::npos ? 0 : nl + 1;
}

size_t Editor::LineEnd(size_t pos) const {
  size_t nl = text_.find('\n', pos);
  return nl == std::string::npos ? text_.size() : nl;
}

size_t Editor::PrevGrapheme(size_t pos) const {
  if (pos == 0) return 0;
  size_t start = LineStart(pos);
  if (start == pos) return pos - 1;  // over the newline
  size_t prev = start;
  std::string_view line(text_.data() + start, pos - start);
  size_t at = 0;
  while (at < line.size()) {
    prev = start + at;
    at += std::max<size_t>(NextGraphemeLength(line.substr(at)), 1);
  }
  return prev;
}

size_t Editor::NextGrapheme(size_t pos) const {
  if (pos >= text_.size()) return text_.size();
  if (text_[pos] == '\n') return pos + 1;
  std::string_view rest(text_.data() + pos, LineEnd(pos) - pos);
  return pos + std::max<size_t>(NextGraphemeLength(rest), 1);
}

size_t Editor::PrevWord(size_t pos) const {
  while (pos > 0 && !IsWordByte(text_[pos - 1])) --pos;
  while (pos > 0 && IsWordByte(text_[pos - 1])) --pos;
  return pos;
}

size_t Editor::NextWord(size_t pos) const {
  while (pos < text_.size() && !IsWordByte(text_[pos])) ++pos;
  while (pos < text_.size() && IsWordByte(text_[pos])) ++pos;
  return pos;
}

void Editor::MoveVertical(int direction) {
  size_t start = LineStart(cursor_);
  // The column the first of a run of vertical moves started at, so that
  // passing a short line does not pull the caret to the left for good.
  if (goal_column_ < 0) {
    goal_column_ = DisplayWidth(Sanitize(std::string_view(text_).substr(start, cursor_ - start)));
  }
  int column = goal_column_;
  size_t target;
  if (direction < 0) {
    if (start == 0) {
      cursor_ = 0;
      return;
    }
    target = LineStart(start - 1);
  } else {
    size_t end = LineEnd(cursor_);
    if (end == text_.size()) {
      cursor_ = end;
      return;
    }
    target = end + 1;
  }
  // The same column on the target line, or its end.
  size_t pos = target;
  size_t end = LineEnd(target);
  while (pos < end) {
    size_t next = NextGrapheme(pos);
    if (DisplayWidth(Sanitize(std::string_view(text_).substr(target, next - target))) > column) break;
    pos = next;
  }
  cursor_ = pos;
}

void Editor::Kill(size_t from, size_t to) {
  if (from >= to) return;
  kill_ = text_.substr(from, to - from);
  text_.erase(from, to - from);
  cursor_ = from;
}

Editor::Action Editor::Handle(const InputEvent& e) {
  const bool ctrl = e.mods & kCtrl;
  const bool alt = e.mods & kAlt;
  if (e.type == InputEvent::Type::kKey && e.key == Key::kChar) {
    // Undo: Ctrl+_ (what Ctrl+- and Ctrl+/ send on most terminals) or
    // Ctrl+Z; redo: Alt+_ or Ctrl+Shift+Z (kitty reports the shift).
    char32_t c = e.codepoint;
    if ((ctrl && !alt && (c == '_' || c == '-' || c == '/' || (c == 'z' && !(e.mods & kShift)))) ) {
      Undo();
      return Action::kNone;
    }
    if ((alt && c == '_') || (ctrl && (e.mods & kShift) && (c == 'z' || c == 'Z'))) {
      Redo();
      return Action::kNone;
    }
  }
  std::string before_text = text_;
  size_t before_cursor = cursor_;
  // A typed character extends a typing run: one undo step per run.
  bool typing = e.type == InputEvent::Type::kKey && e.key == Key::kChar && !ctrl && !alt &&
                e.codepoint != ' ';
  Action a = Apply(e);
  if (text_ != before_text) {
    if (!(typing && typing_run_)) {
      undo_.push_back({std::move(before_text), before_cursor});
      if (undo_.size() > kMaxUndo) undo_.erase(undo_.begin());
    }
    typing_run_ = typing;
    redo_.clear();
  } else if (cursor_ != before_cursor) {
    typing_run_ = false;  // moving the caret ends a typing run
  }
  return a;
}

Editor::Action Editor::Apply(const InputEvent& e) {
  if (e.type == InputEvent::Type::kPaste) {
    goal_column_ = -1;
    Insert(e.text);
    return Action::kNone;
  }
  const bool ctrl = e.mods & kCtrl;
  const bool alt = e.mods & kAlt;
  const bool vertical = e.key == Key::kUp || e.key == Key::kDown ||
                        (e.key == Key::kChar && ctrl && (e.codepoint == 'p' || e.codepoint == 'n'));
  if (!vertical) goal_column_ = -1;
  switch (e.key) {
    case Key::kEnter:
      if (e.mods & (kShift | kCtrl)) {
        Insert("\n");
        return Action::kNone;
      }
      return alt ? Action::kAltEnter : Action::kSubmit;
    case Key::kEscape: return Action::kEscape;
    case Key::kTab: return Action::kComplete;
    case Key::kBackspace:
      if (alt || ctrl) {
        Kill(PrevWord(cursor_), cursor_);
      } else {
        size_t prev = PrevGrapheme(cursor_);
        text_.erase(prev, cursor_ - prev);
        cursor_ = prev;
      }
      return Action::kNone;
    case Key::kDelete: text_.erase(cursor_, NextGrapheme(cursor_) - cursor_); return Action::kNone;
    case Key::kLeft: cursor_ = (alt || ctrl) ? PrevWord(cursor_) : PrevGrapheme(cursor_); return Action::kNone;
    case Key::kRight: cursor_ = (alt || ctrl) ? NextWord(cursor_) : NextGrapheme(cursor_); return Action::kNone;
    case Key::kUp:
      if (LineStart(cursor_) == 0) return Action::kHistoryPrev;
      MoveVertical(-1);
      return Action::kNone;
    case Key::kDown:
      if (LineEnd(cursor_) == text_.size()) return Action::kHistoryNext;
      MoveVertical(1);
      return Action::kNone;
    case Key::kHome: cursor_ = LineStart(cursor_); return Action::kNone;
    case Key::kEnd: cursor_ = LineEnd(cursor_); return Action::kNone;
    case Key::kChar: break;
    default: return Action::kNone;
  }
  if (ctrl) {
    switch (e.codepoint) {
      case 'a': cursor_ = LineStart(cursor_); break;
      case 'e': cursor_ = LineEnd(cursor_); break;
      case 'b': cursor_ = PrevGrapheme(cursor_); break;
      case 'f': cursor_ = NextGrapheme(cursor_); break;
      case 'p':
        if (LineStart(cursor_) == 0) return Action::kHistoryPrev;
        MoveVertical(-1);
        break;
      case 'n':
        if (LineEnd(cursor_) == text_.size()) return Action::kHistoryNext;
        MoveVertical(1);
        break;
      case 'r': return Action::kSearch;
      case 'g': return Action::kExternal;
      case 'o': return Action::kViewer;
      case 'x': return Action::kCalls;
      case 't': return Action::kToggleTools;
      case 'j': Insert("\n"); break;
      case 'h': Kill(PrevGrapheme(cursor_), cursor_); break;
      case 'd':
        if (text_.empty()) return Action::kEof;
        text_.erase(cursor_, NextGrapheme(cursor_) - cursor_);
        break;
      case 'k': {
        size_t end = LineEnd(cursor_);
        Kill(cursor_, end == cursor_ ? std::min(end + 1, text_.size()) : end);
        break;
      }
      case 'u': Kill(LineStart(cursor_), cursor_); break;
      case 'w': Kill(PrevWord(cursor_), cursor_); break;
      case 'y': Insert(kill_); break;
      case 'c': return Action::kInterrupt;
      default: break;
    }
    return Action::kNone;
  }
  if (alt) {
    switch (e.codepoint) {
      case 'b': cursor_ = PrevWord(cursor_); break;
      case 'f': cursor_ = NextWord(cursor_); break;
      case 'd': Kill(cursor_, NextWord(cursor_)); break;
      case 't': return Action::kExpandLast;
      default: break;
    }
    return Action::kNone;
  }
  std::string ch;
  AppendUtf8(e.codepoint, &ch);
  Insert(ch);
  return Action::kNone;
}

std::vector<Line> Editor::Render(size_t first_line, Caret* caret) const {
  std::vector<Line> lines;
  size_t start = 0;
  while (true) {
    size_t end = LineEnd(start);
    Line line;
    line.Add(lines.empty() ? "> " : "  ", Style{.fg = 5, .bold = true});
    std::string_view body = std::string_view(text_).substr(start, end - start);
    line.Add(body);
    if (caret && cursor_ >= start && cursor_ <= end) {
      caret->line = first_line + lines.size();
      caret->column = 2 + DisplayWidth(Sanitize(body.substr(0, cursor_ - start), 2));
      caret->visible = true;
    }
    lines.push_back(std::move(line));
    if (end == text_.size()) break;
    start = end + 1;
  }
  return lines;
}

}  // namespace sepp::front::tui
