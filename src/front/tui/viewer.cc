#include "front/tui/viewer.h"

#include <algorithm>
#include <cctype>

#include "base/strings.h"

namespace sepp::front::tui {
namespace {

constexpr Style kStatusStyle{.inverse = true};

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

void Viewer::Open(std::string title, std::string_view text, int width, int height) {
  open_ = true;
  entered_ = false;
  title_ = std::move(title);
  lines_ = LinesFromText(text);
  width_ = std::max(width, 1);
  height_ = std::max(height, 2);
  top_ = 0;
  typing_query_ = false;
  query_.clear();
  status_.clear();
  Rewrap();
}

void Viewer::Rewrap() {
  rows_.clear();
  row_line_.clear();
  for (size_t i = 0; i < lines_.size(); ++i) {
    for (auto& r : Wrap(lines_[i], width_)) {
      rows_.push_back(std::move(r));
      row_line_.push_back(i);
    }
  }
  top_ = std::min(top_, MaxTop());
}

void Viewer::Resize(int width, int height) {
  // Keep the first logical line shown in view across the rewrap.
  size_t line = top_ < row_line_.size() ? row_line_[top_] : 0;
  width_ = std::max(width, 1);
  height_ = std::max(height, 2);
  Rewrap();
  top_ = static_cast<size_t>(std::find(row_line_.begin(), row_line_.end(), line) - row_line_.begin());
  top_ = std::min(top_, MaxTop());
}

void Viewer::FindNext(int direction) {
  if (query_.empty() || rows_.empty()) return;
  std::string q = Lower(query_);
  size_t n = rows_.size();
  for (size_t step = 1; step <= n; ++step) {
    size_t i = direction > 0 ? (top_ + step) % n : (top_ + n - step % n) % n;
    if (Lower(rows_[i].PlainText()).find(q) != std::string::npos) {
      top_ = std::min(i, MaxTop());
      // A match on the last page: top_ is capped; say where it is.
      status_ = "match at line " + std::to_string(row_line_[i] + 1);
      return;
    }
  }
  status_ = "not found: " + query_;
}

void Viewer::Handle(const InputEvent& e) {
  if (!open_) return;
  if (typing_query_) {
    if (e.type == InputEvent::Type::kPaste) {
      query_ += e.text;
    } else if (e.key == Key::kEnter) {
      typing_query_ = false;
      FindNext(1);
    } else if (e.key == Key::kEscape) {
      typing_query_ = false;
    } else if (e.key == Key::kBackspace) {
      if (!query_.empty()) query_.pop_back();
    } else if (e.key == Key::kChar && !(e.mods & (kCtrl | kAlt)) && e.codepoint >= 0x20) {
      AppendUtf8(e.codepoint, &query_);
    }
    return;
  }
  status_.clear();
  size_t page = BodyRows();
  auto scroll = [&](long by) {
    long t = static_cast<long>(top_) + by;
    top_ = static_cast<size_t>(std::clamp<long>(t, 0, static_cast<long>(MaxTop())));
  };
  if (e.type != InputEvent::Type::kKey) return;
  switch (e.key) {
    case Key::kEscape: open_ = false; return;
    case Key::kUp: scroll(-1); return;
    case Key::kDown:
    case Key::kEnter: scroll(1); return;
    case Key::kPageUp: scroll(-static_cast<long>(page)); return;
    case Key::kPageDown: scroll(static_cast<long>(page)); return;
    case Key::kHome: top_ = 0; return;
    case Key::kEnd: top_ = MaxTop(); return;
    case Key::kChar: break;
    default: return;
  }
  if (e.mods & kCtrl) {
    if (e.codepoint == 'c') open_ = false;
    if (e.codepoint == 'd') scroll(static_cast<long>(page / 2));
    if (e.codepoint == 'u') scroll(-static_cast<long>(page / 2));
    return;
  }
  switch (e.codepoint) {
    case 'q': open_ = false; break;
    case 'j': scroll(1); break;
    case 'k': scroll(-1); break;
    case ' ': case 'f': scroll(static_cast<long>(page)); break;
    case 'b': scroll(-static_cast<long>(page)); break;
    case 'g': top_ = 0; break;
    case 'G': top_ = MaxTop(); break;
    case '/': typing_query_ = true; query_.clear(); break;
    case 'n': FindNext(1); break;
    case 'N': FindNext(-1); break;
    default: break;
  }
}

std::string Viewer::Frame() {
  std::string out;
  if (!entered_) {
    out += kEnterScreen;
    entered_ = true;
  }
  // The alternate screen is the viewer's alone: redraw it whole (a screen
  // of rows per key; no diff needed), inside synchronized output.
  out += "\x1b[?2026h\x1b[H";
  size_t body = BodyRows();
  for (size_t i = 0; i < body; ++i) {
    out += "\x1b[2K";
    if (top_ + i < rows_.size()) AppendEncoded(rows_[top_ + i], &out);
    out += "\r\n";
  }
  Line status;
  std::string text;
  if (typing_query_) {
    text = "/" + query_;
  } else {
    size_t last = std::min(top_ + body, rows_.size());
    text = title_ + "  " + std::to_string(rows_.empty() ? 0 : top_ + 1) + "-" + std::to_string(last) + "/" +
           std::to_string(rows_.size()) + (status_.empty() ? "" : "  " + status_) +
           "  q leaves, / searches";
  }
  status.Add(Sanitize(text), kStatusStyle);
  out += "\x1b[2K";
  AppendEncoded(Wrap(status, width_)[0], &out);
  out += "\x1b[?2026l";
  return out;
}

std::string Viewer::Close() {
  open_ = false;
  if (!entered_) return "";
  entered_ = false;
  return kLeaveScreen;
}

}  // namespace sepp::front::tui
