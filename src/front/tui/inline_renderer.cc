#include "front/tui/inline_renderer.h"

#include <algorithm>
#include <chrono>

namespace sepp::front::tui {
namespace {

constexpr const char* kSyncBegin = "\x1b[?2026h";
constexpr const char* kSyncEnd = "\x1b[?2026l";
constexpr const char* kHideCursor = "\x1b[?25l";
constexpr const char* kShowCursor = "\x1b[?25h";
constexpr const char* kEraseToEnd = "\x1b[K";
constexpr const char* kEraseBelow = "\x1b[J";  // cursor to the end of the screen only

// One row up is reverse index (ESC M, half the bytes of CSI A): it scrolls
// only from the screen's top row, and every live row drawn is on screen, so
// a move up from a live row to the one above never starts there.
void CursorUp(size_t n, std::string* out) {
  if (n == 1) *out += "\x1bM";
  else if (n > 1) *out += "\x1b[" + std::to_string(n) + "A";
}
void CursorDown(size_t n, std::string* out) {
  if (n == 1) *out += "\x1b[B";
  else if (n > 1) *out += "\x1b[" + std::to_string(n) + "B";
}
// Insert or delete n lines (CSI L / CSI M); a count of 1 is the default.
void LineOp(size_t n, char op, std::string* out) {
  *out += "\x1b[";
  if (n > 1) *out += std::to_string(n);
  *out += op;
}

// What now shares with old from the start: its width in columns, now's
// remainder after it (*rest), and whether old has more after it (which then
// needs erasing). A streaming row that grew, or changed only near its end (a
// "**bo" that became bold), costs its changed tail, not the row.
struct RowDiff {
  int column = 0;
  Line rest;
  bool old_longer = false;
};
RowDiff DiffRows(const Line& old, const Line& now) {
  RowDiff d;
  size_t i = 0;
  while (i < old.spans.size() && i < now.spans.size() && old.spans[i] == now.spans[i]) {
    d.column += DisplayWidth(now.spans[i].text);
    ++i;
  }
  size_t split = 0;  // bytes of now.spans[i] that old.spans[i] shares
  if (i < old.spans.size() && i < now.spans.size() && old.spans[i].style == now.spans[i].style &&
      old.spans[i].link == now.spans[i].link) {
    std::string_view o = old.spans[i].text, n = now.spans[i].text;
    while (split < o.size() && split < n.size()) {
      size_t len = NextGraphemeLength(n.substr(split));
      if (o.substr(split, len) != n.substr(split, len) ||
          NextGraphemeLength(o.substr(split)) != len) break;
      split += len;
    }
    d.column += DisplayWidth(n.substr(0, split));
    d.old_longer = split < o.size() || i + 1 < old.spans.size();
  } else {
    d.old_longer = i < old.spans.size();
  }
  if (i < now.spans.size()) {
    const Span& first = now.spans[i];
    if (split < first.text.size()) d.rest.spans.push_back({first.text.substr(split), first.style, first.link});
    for (size_t k = i + 1; k < now.spans.size(); ++k) d.rest.spans.push_back(now.spans[k]);
  }
  return d;
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

size_t InlineRenderer::CommittableInPlace() const {
  // After a cut the top row on screen is not the region's first line.
  if (redraw_all_ || drawn_cut_ > 0) return 0;
  size_t k = 0;
  // Only lines that are one row as the terminal wraps them (so that a
  // selection still copies them as the terminal's own lines), and never up
  // to the cursor's row (it stays inside the live region).
  while (k < pending_commits_.size() && k < drawn_rows_.size() && k < cursor_row_) {
    const Line& line = pending_commits_[k];
    if (line.Width() > width_ || Wrap(line, width_).size() != 1) break;
    ++k;
  }
  return k;
}

std::string InlineRenderer::Frame() {
  if (pending_commits_.empty() && !live_dirty_ && !redraw_all_) return "";
  auto started = std::chrono::steady_clock::now();

  size_t caret_row = 0;
  int caret_col = 0;
  size_t cut = 0;
  std::vector<Line> rows = LayOut(&caret_row, &caret_col, &cut);
  bool caret_same = cursor_at_caret_ == caret_.visible && caret_row == caret_row_drawn_ && caret_col == caret_col_drawn_;
  if (!redraw_all_ && pending_commits_.empty() && caret_same && rows == drawn_rows_) {
    live_dirty_ = false;  // drawn as it is
    drawn_cut_ = cut;
    return "";
  }

  std::string out;
  uint64_t rows_before = stats_.rows_written;
  size_t cur = cursor_row_;        // the cursor's row in the live region
  size_t existing = drawn_rows_.size();  // live rows that exist on screen
  // Vertical moves inside the rows that exist; below them, newlines create
  // rows (and scroll when at the bottom of the screen).
  auto go_row = [&](size_t k) {
    if (k < cur) CursorUp(cur - k, &out);
    size_t down_to = std::min(k, existing > 0 ? existing - 1 : 0);
    if (k > cur && down_to > cur) {
      // A line feed is one byte and keeps the column; it cannot scroll here
      // (the rows below exist).
      if (down_to - cur <= 3) out.append(down_to - cur, '\n');
      else CursorDown(down_to - cur, &out);
      cur = down_to;
    }
    for (; cur < k; ++cur) out += "\r\n";
    cur = k;
  };
  auto move_to = [&](size_t k) {  // row k, column 1
    out += '\r';
    go_row(k);
  };
  // Turns the drawn row k into line, writing only its changed tail.
  auto rewrite = [&](size_t k, const Line& line) {
    RowDiff d = DiffRows(drawn_rows_[k], line);
    go_row(k);
    if (d.column == 0) out += '\r';
    else out += "\x1b[" + std::to_string(d.column + 1) + "G";
    if (d.old_longer) out += kEraseToEnd;
    AppendEncoded(d.rest, &out);
    ++stats_.rows_written;
  };
  // Commits that are the live region's top rows, or nearly (the stream's
  // last bytes came with its newline): those rows become history where they
  // stand, with their changed tails written; the region below keeps its place.
  size_t in_place = CommittableInPlace();
  // A frame that changes rows in place returns to the caret by restoring the
  // cursor saved at its start, which needs no hiding of the cursor either.
  // The other commits, when each is one row and they fit on the screen with
  // the region: inserted above the region (CSI n L), which keeps its rows.
  size_t above = pending_commits_.size() - in_place;
  bool insert_commits = above > 0 && !redraw_all_ && drawn_cut_ == 0 && !drawn_rows_.empty() &&
                        above + drawn_rows_.size() - in_place <= static_cast<size_t>(height_);
  for (size_t k = in_place; insert_commits && k < pending_commits_.size(); ++k) {
    const Line& line = pending_commits_[k];
    insert_commits = line.Width() <= width_ && Wrap(line, width_).size() == 1;
  }
  bool all = redraw_all_ || (above > 0 && !insert_commits);
  bool structural = all || in_place > 0 || above > 0 || rows.size() != drawn_rows_.size();
  bool restore = !structural && caret_.visible && caret_same;
  if (!sync_ && !restore && cursor_visible_) {
    out += kHideCursor;
    cursor_visible_ = false;
  }
  if (restore) out += "\x1b" "7";
  for (size_t k = 0; k < in_place; ++k) {
    Line row = Wrap(pending_commits_[k], width_)[0];
    if (!(row == drawn_rows_[k])) rewrite(k, row);
  }
  if (in_place > 0) {
    // Off the committed rows first: the cursor's row must stay in the region
    // (row in_place exists: in_place is at most the cursor's row).
    if (cur < in_place) go_row(in_place);
    auto n = static_cast<std::ptrdiff_t>(in_place);
    pending_commits_.erase(pending_commits_.begin(), pending_commits_.begin() + n);
    drawn_rows_.erase(drawn_rows_.begin(), drawn_rows_.begin() + n);
    cur -= in_place;
    existing -= in_place;
    stats_.lines_committed += in_place;
    stats_.committed_in_place += in_place;
  }
  if (insert_commits) {
    size_t m = above;
    go_row(existing - 1);
    out.append(m, '\n');  // room at the bottom (scrolls when there)
    cur += m;
    existing += m;
    go_row(0);
    LineOp(m, 'L', &out);
    for (size_t i = 0; i < m; ++i) {
      move_to(i);
      AppendEncoded(pending_commits_[i], &out);
    }
    go_row(m);
    cur -= m;
    existing -= m;
    stats_.lines_committed += m;
    pending_commits_.clear();
  }
  // Other commits land where the live region was, so every live row moves.
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
      LineOp(m, 'L', &out);
      drawn_rows_.insert(drawn_rows_.begin() + static_cast<std::ptrdiff_t>(at), m, Line{});
    } else if (same_tail > 0 && rows.size() < drawn_rows_.size()) {
      size_t m = drawn_rows_.size() - rows.size();
      size_t at = drawn_rows_.size() - same_tail - m;
      go_row(at);
      LineOp(m, 'M', &out);
      auto first = drawn_rows_.begin() + static_cast<std::ptrdiff_t>(at);
      drawn_rows_.erase(first, first + static_cast<std::ptrdiff_t>(m));
      existing -= m;
    }
    // Only the rows that changed; a row that grew gets its new end only.
    for (size_t k = 0; k < rows.size(); ++k) {
      if (k < drawn_rows_.size() && drawn_rows_[k] == rows[k]) continue;
      if (k < drawn_rows_.size()) {
        rewrite(k, rows[k]);
      } else {
        move_to(k);
        AppendEncoded(rows[k], &out);
        ++stats_.rows_written;
      }
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
    // Every live row is on screen now, so a line feed down to the caret's
    // row cannot scroll (one byte a row, against three or four of CSI B).
    if (target > cur && target - cur <= 3) out.append(target - cur, '\n');
    else if (target > cur) CursorDown(target - cur, &out);
    cur = target;
    if (caret_col == 0) out += '\r';
    else out += "\x1b[" + std::to_string(caret_col + 1) + "G";
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
  // One row's tail written with the cursor saved and restored is one short
  // write that leaves the cursor where it was: the terminal parses it whole,
  // so it goes without the synchronized-output brackets (a third of a
  // streaming frame's bytes). Everything else is bracketed when the terminal
  // has DEC 2026.
  bool small = restore && stats_.rows_written - rows_before <= 1;
  if (sync_ && !small) out = kSyncBegin + out + kSyncEnd;

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
