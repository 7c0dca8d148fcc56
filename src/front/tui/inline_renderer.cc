#include "front/tui/inline_renderer.h"

#include <algorithm>

namespace sepp::front::tui {
namespace {

constexpr const char* kSyncBegin = "\x1b[?2026h";
constexpr const char* kSyncEnd = "\x1b[?2026l";
constexpr const char* kHideCursor = "\x1b[?25l";
constexpr const char* kShowCursor = "\x1b[?25h";
constexpr const char* kEraseLine = "\x1b[2K";
constexpr const char* kEraseBelow = "\x1b[J";  // cursor to the end of the screen only

void CursorUp(size_t n, std::string* out) {
  if (n > 0) *out += "\x1b[" + std::to_string(n) + "A";
}
void CursorDown(size_t n, std::string* out) {
  if (n > 0) *out += "\x1b[" + std::to_string(n) + "B";
}

// now is old with text appended (a streaming line that grew): the appended
// part as a row of its own, so that only it needs writing.
bool Extends(const Line& old, const Line& now, Line* suffix) {
  if (old.spans.empty() || now.spans.size() < old.spans.size()) return false;
  size_t last = old.spans.size() - 1;
  for (size_t i = 0; i < last; ++i) {
    if (!(old.spans[i] == now.spans[i])) return false;
  }
  const Span& o = old.spans[last];
  const Span& n = now.spans[last];
  if (!(o.style == n.style) || n.text.compare(0, o.text.size(), o.text) != 0) return false;
  suffix->spans.clear();
  if (n.text.size() > o.text.size()) suffix->spans.push_back({n.text.substr(o.text.size()), n.style});
  for (size_t i = last + 1; i < now.spans.size(); ++i) suffix->spans.push_back(now.spans[i]);
  return true;
}

}  // namespace

InlineRenderer::InlineRenderer(int width, int height)
    : width_(std::max(width, 1)), height_(std::max(height, 1)) {}

void InlineRenderer::Commit(std::vector<Line> lines) {
  for (auto& line : lines) pending_commits_.push_back(std::move(line));
}

void InlineRenderer::SetLive(std::vector<Line> lines, Caret caret) {
  live_ = std::move(lines);
  caret_ = caret;
  live_dirty_ = true;
}

void InlineRenderer::Resize(int width, int height) {
  width = std::max(width, 1);
  height = std::max(height, 1);
  if (width == width_ && height == height_) return;
  width_ = width;
  height_ = height;
  redraw_all_ = true;
}

std::string InlineRenderer::Frame() {
  if (pending_commits_.empty() && !live_dirty_ && !redraw_all_) return "";

  // The live region's rows at this width, and the caret's row and column.
  std::vector<Line> rows;
  size_t caret_row = 0;
  int caret_col = 0;
  std::vector<int> starts;
  for (size_t i = 0; i < live_.size(); ++i) {
    auto wrapped = Wrap(live_[i], width_, &starts);
    if (i == caret_.line) {
      size_t k = 0;
      while (k + 1 < starts.size() && starts[k + 1] <= caret_.column) ++k;
      caret_row = rows.size() + k;
      caret_col = std::clamp(caret_.column - starts[k], 0, width_ - 1);
    }
    for (auto& row : wrapped) rows.push_back(std::move(row));
  }
  // Taller than the screen: the bottom (editor, footer) stays; the top of a
  // long streaming block waits for its commit to reach the scrollback.
  if (rows.size() > static_cast<size_t>(height_)) {
    size_t cut = rows.size() - static_cast<size_t>(height_);
    rows.erase(rows.begin(), rows.begin() + static_cast<std::ptrdiff_t>(cut));
    caret_row = caret_row >= cut ? caret_row - cut : 0;
  }

  std::string out = kSyncBegin;
  out += kHideCursor;
  size_t cur = cursor_row_;  // the cursor's row in the live region
  // From row cur to row k of the live region. Down by newlines, which also
  // create rows the region did not have yet (and scroll when at the bottom).
  auto move_to = [&](size_t k) {
    out += '\r';
    if (k < cur) CursorUp(cur - k, &out);
    for (; cur < k; ++cur) out += "\r\n";
    cur = k;
  };
  // Commits land where the live region was, so every live row moves.
  bool all = redraw_all_ || !pending_commits_.empty();
  if (all) {
    move_to(0);
    out += kEraseBelow;
    ++stats_.full_redraws;
    for (const auto& line : pending_commits_) {
      AppendEncoded(line, &out);
      out += "\r\n";
    }
    stats_.lines_committed += pending_commits_.size();
    pending_commits_.clear();
    for (size_t k = 0; k < rows.size(); ++k) {
      if (k > 0) out += "\r\n";
      AppendEncoded(rows[k], &out);
    }
    stats_.rows_written += rows.size();
    cur = rows.empty() ? 0 : rows.size() - 1;
  } else {
    // Only the rows that changed; a row that grew gets its new end only.
    for (size_t k = 0; k < rows.size(); ++k) {
      if (k < drawn_rows_.size() && drawn_rows_[k] == rows[k]) continue;
      Line suffix;
      if (k < drawn_rows_.size() && Extends(drawn_rows_[k], rows[k], &suffix)) {
        if (k != cur) move_to(k);
        out += "\x1b[" + std::to_string(drawn_rows_[k].Width() + 1) + "G";
        AppendEncoded(suffix, &out);
      } else {
        move_to(k);
        out += kEraseLine;
        AppendEncoded(rows[k], &out);
      }
      ++stats_.rows_written;
    }
    if (drawn_rows_.size() > rows.size()) {
      // The region shrank: clear the rows it left (they exist on screen, so
      // moving down to them never scrolls).
      move_to(rows.size());
      out += kEraseBelow;
    }
  }

  if (caret_.visible && !rows.empty()) {
    size_t target = std::min(caret_row, rows.size() - 1);
    if (target < cur) CursorUp(cur - target, &out);
    if (target > cur) CursorDown(target - cur, &out);
    cur = target;
    out += "\x1b[" + std::to_string(caret_col + 1) + "G";
    out += kShowCursor;
  }
  cursor_row_ = cur;
  out += kSyncEnd;

  drawn_rows_ = std::move(rows);
  live_dirty_ = false;
  redraw_all_ = false;
  ++stats_.frames;
  stats_.bytes += out.size();
  return out;
}

std::string InlineRenderer::Finish() {
  std::string frame = Frame();
  std::string out;
  size_t bottom = drawn_rows_.empty() ? 0 : drawn_rows_.size() - 1;
  out += "\r";
  CursorDown(bottom - std::min(cursor_row_, bottom), &out);
  if (!drawn_rows_.empty()) out += "\r\n";
  out += kShowCursor;
  cursor_row_ = 0;
  drawn_rows_.clear();
  redraw_all_ = true;
  stats_.bytes += out.size();
  return frame + out;
}

}  // namespace sepp::front::tui
