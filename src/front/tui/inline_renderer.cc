#include "front/tui/inline_renderer.h"

#include <algorithm>
#include <chrono>

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
  if (!(o.style == n.style) || o.link != n.link || n.text.compare(0, o.text.size(), o.text) != 0) return false;
  suffix->spans.clear();
  if (n.text.size() > o.text.size()) suffix->spans.push_back({n.text.substr(o.text.size()), n.style, n.link});
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

std::vector<Line> InlineRenderer::LayOut(size_t* caret_row, int* caret_col, size_t* cut_rows) const {
  std::vector<Line> rows;
  *cut_rows = 0;
  *caret_row = 0;
  *caret_col = 0;
  std::vector<int> starts;
  for (size_t i = 0; i < live_.size(); ++i) {
    auto wrapped = Wrap(live_[i], width_, &starts);
    if (i == caret_.line) {
      size_t k = 0;
      while (k + 1 < starts.size() && starts[k + 1] <= caret_.column) ++k;
      *caret_row = rows.size() + k;
      *caret_col = std::clamp(caret_.column - starts[k], 0, width_ - 1);
    }
    for (auto& row : wrapped) rows.push_back(std::move(row));
  }
  // Taller than the screen: the bottom (editor, footer) stays; the top of a
  // long streaming block waits for its commit to reach the scrollback.
  if (rows.size() > static_cast<size_t>(height_)) {
    size_t cut = rows.size() - static_cast<size_t>(height_);
    rows.erase(rows.begin(), rows.begin() + static_cast<std::ptrdiff_t>(cut));
    *caret_row = *caret_row >= cut ? *caret_row - cut : 0;
    *cut_rows = cut;
  }
  return rows;
}

void InlineRenderer::CommitInPlace() {
  // After a cut the top row on screen is not the region's first line.
  if (redraw_all_ || drawn_cut_ > 0) return;
  size_t k = 0;
  // Only lines that are one row as the terminal wraps them (so that a
  // selection still copies them as the terminal's own lines), and never past
  // the cursor (it stays inside the live region).
  while (k < pending_commits_.size() && k < drawn_rows_.size() && k < cursor_row_) {
    const Line& line = pending_commits_[k];
    if (line.Width() > width_) break;
    auto wrapped = Wrap(line, width_);
    if (wrapped.size() != 1 || !(wrapped[0] == drawn_rows_[k])) break;
    ++k;
  }
  if (k == 0) return;
  auto n = static_cast<std::ptrdiff_t>(k);
  pending_commits_.erase(pending_commits_.begin(), pending_commits_.begin() + n);
  drawn_rows_.erase(drawn_rows_.begin(), drawn_rows_.begin() + n);
  cursor_row_ -= k;
  caret_row_drawn_ = caret_row_drawn_ >= k ? caret_row_drawn_ - k : 0;
  stats_.lines_committed += k;
  stats_.committed_in_place += k;
}

std::string InlineRenderer::Frame() {
  if (pending_commits_.empty() && !live_dirty_ && !redraw_all_) return "";
  auto started = std::chrono::steady_clock::now();

  size_t caret_row = 0;
  int caret_col = 0;
  size_t cut = 0;
  std::vector<Line> rows = LayOut(&caret_row, &caret_col, &cut);
  CommitInPlace();
  bool caret_same = cursor_at_caret_ == caret_.visible && caret_row == caret_row_drawn_ && caret_col == caret_col_drawn_;
  if (!redraw_all_ && pending_commits_.empty() && caret_same && rows == drawn_rows_) {
    live_dirty_ = false;  // drawn as it is
    drawn_cut_ = cut;
    return "";
  }

  std::string out;
  if (sync_) out += kSyncBegin;
  size_t cur = cursor_row_;        // the cursor's row in the live region
  size_t existing = drawn_rows_.size();  // live rows that exist on screen
  // Vertical moves inside the rows that exist; below them, newlines create
  // rows (and scroll when at the bottom of the screen).
  auto go_row = [&](size_t k) {
    if (k < cur) CursorUp(cur - k, &out);
    size_t down_to = std::min(k, existing > 0 ? existing - 1 : 0);
    if (k > cur && down_to > cur) {
      CursorDown(down_to - cur, &out);
      cur = down_to;
    }
    for (; cur < k; ++cur) out += "\r\n";
    cur = k;
  };
  auto move_to = [&](size_t k) {  // row k, column 1
    out += '\r';
    go_row(k);
  };
  // Commits land where the live region was, so every live row moves.
  bool all = redraw_all_ || !pending_commits_.empty();
  // A frame that changes rows in place returns to the caret by restoring the
  // cursor saved at its start, which needs no hiding of the cursor either.
  bool structural = all || rows.size() != drawn_rows_.size();
  bool restore = !structural && caret_.visible && caret_same;
  if (!sync_ && !restore && cursor_visible_) {
    out += kHideCursor;
    cursor_visible_ = false;
  }
  if (restore) out += "\x1b" "7";
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
    // Rows added or removed just above an unchanged tail (the editor and
    // footer under a stream): shift the tail with insert / delete line.
    size_t same_tail = 0;
    while (same_tail < rows.size() && same_tail < drawn_rows_.size() &&
           rows[rows.size() - 1 - same_tail] == drawn_rows_[drawn_rows_.size() - 1 - same_tail]) {
      ++same_tail;
    }
    if (same_tail > 0 && rows.size() > drawn_rows_.size()) {
      size_t m = rows.size() - drawn_rows_.size();
      size_t at = drawn_rows_.size() - same_tail;
      // Room below first (scrolls when the region is at the screen's bottom).
      go_row(existing - 1);
      out.append(m, '\n');
      cur += m;
      existing += m;
      go_row(at);
      out += "\x1b[" + std::to_string(m) + "L";
      drawn_rows_.insert(drawn_rows_.begin() + static_cast<std::ptrdiff_t>(at), m, Line{});
    } else if (same_tail > 0 && rows.size() < drawn_rows_.size()) {
      size_t m = drawn_rows_.size() - rows.size();
      size_t at = drawn_rows_.size() - same_tail - m;
      go_row(at);
      out += "\x1b[" + std::to_string(m) + "M";
      auto first = drawn_rows_.begin() + static_cast<std::ptrdiff_t>(at);
      drawn_rows_.erase(first, first + static_cast<std::ptrdiff_t>(m));
      existing -= m;
    }
    // Only the rows that changed; a row that grew gets its new end only.
    for (size_t k = 0; k < rows.size(); ++k) {
      if (k < drawn_rows_.size() && drawn_rows_[k] == rows[k]) continue;
      Line suffix;
      if (k < drawn_rows_.size() && Extends(drawn_rows_[k], rows[k], &suffix)) {
        go_row(k);
        out += "\x1b[" + std::to_string(drawn_rows_[k].Width() + 1) + "G";
        AppendEncoded(suffix, &out);
      } else {
        move_to(k);
        if (k < drawn_rows_.size() && !drawn_rows_[k].spans.empty()) out += kEraseLine;
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

  if (restore) {
    out += "\x1b" "8";
    cur = caret_row;
  } else if (caret_.visible && !rows.empty()) {
    size_t target = std::min(caret_row, rows.size() - 1);
    if (target < cur) CursorUp(cur - target, &out);
    if (target > cur) CursorDown(target - cur, &out);
    cur = target;
    out += "\x1b[" + std::to_string(caret_col + 1) + "G";
  }
  bool show = caret_.visible && !rows.empty();
  if (show != cursor_visible_) {
    out += show ? kShowCursor : kHideCursor;
    cursor_visible_ = show;
  }
  cursor_at_caret_ = show;
  caret_row_drawn_ = caret_row;
  caret_col_drawn_ = caret_col;
  cursor_row_ = cur;
  if (sync_) out += kSyncEnd;

  drawn_rows_ = std::move(rows);
  drawn_cut_ = cut;
  live_dirty_ = false;
  redraw_all_ = false;
  ++stats_.frames;
  stats_.bytes += out.size();
  stats_.max_frame_bytes = std::max<uint64_t>(stats_.max_frame_bytes, out.size());
  auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - started).count();
  stats_.render_ns += static_cast<uint64_t>(ns);
  int bucket = 0;
  for (uint64_t us = static_cast<uint64_t>(ns) / 1000; us > 1 && bucket + 1 < RenderStats::kTimeBuckets; us >>= 1) ++bucket;
  ++stats_.time_buckets[bucket];
  return out;
}

uint64_t RenderStats::FrameTimeQuantileUs(double q) const {
  if (frames == 0) return 0;
  auto rank = static_cast<uint64_t>(q * static_cast<double>(frames));
  uint64_t seen = 0;
  for (int i = 0; i < kTimeBuckets; ++i) {
    seen += time_buckets[i];
    if (seen > rank || seen == frames) return uint64_t{2} << i;
  }
  return uint64_t{2} << (kTimeBuckets - 1);
}

std::string RenderStats::Summary() const {
  return "frames " + std::to_string(frames) + ", bytes " + std::to_string(bytes) + " (max " +
         std::to_string(max_frame_bytes) + "/frame), rows redrawn " + std::to_string(rows_written) +
         ", full redraws " + std::to_string(full_redraws) + ", lines committed " +
         std::to_string(lines_committed) + " (" + std::to_string(committed_in_place) +
         " in place), frame time p50 <" + std::to_string(FrameTimeQuantileUs(0.5)) + " us, p99 <" +
         std::to_string(FrameTimeQuantileUs(0.99)) + " us";
}

std::string InlineRenderer::Finish() {
  std::string frame = Frame();
  std::string out;
  size_t bottom = drawn_rows_.empty() ? 0 : drawn_rows_.size() - 1;
  out += "\r";
  CursorDown(bottom - std::min(cursor_row_, bottom), &out);
  if (!drawn_rows_.empty()) out += "\r\n";
  out += kShowCursor;
  cursor_visible_ = true;
  cursor_at_caret_ = false;
  cursor_row_ = 0;
  drawn_rows_.clear();
  redraw_all_ = true;
  stats_.bytes += out.size();
  return frame + out;
}

}  // namespace sepp::front::tui
