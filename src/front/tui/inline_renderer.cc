#include "front/tui/inline_renderer.h"

#include <algorithm>
#include <chrono>
#include <climits>

namespace sepp::front::tui {
namespace {

constexpr const char* kSyncBegin = "\x1b[?2026h";
constexpr const char* kSyncEnd = "\x1b[?2026l";
constexpr const char* kHideCursor = "\x1b[?25l";
constexpr const char* kShowCursor = "\x1b[?25h";
constexpr const char* kEraseToEnd = "\x1b[K";
constexpr const char* kEraseBelow = "\x1b[J";  // cursor to the end of the screen only
// The longest frame taken as one write the terminal reads whole: far below
// what a pty carries in one go (4 KB and more) and what terminals read at
// once; a streaming frame is 10 to 300 bytes.
constexpr size_t kWholeFrameBytes = 1024;

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
  // Where the rows are now is the terminal's business (some reflow): only
  // that the live region's top is on the screen is sure.
  bottom_min_ = 0;
  cursor_col_ = -1;
  saved_known_ = false;
}

std::string InlineRenderer::ReleaseScrollRegion() {
  // Whatever is written next (the viewer's alternate screen saves the
  // cursor too) may change the saved cursor.
  saved_known_ = false;
  if (region_bottom_ == 0) return "";
  region_bottom_ = 0;
  // DECSTBM homes the cursor: saved and restored around it.
  std::string out = "\x1b" "7" "\x1b[r" "\x1b" "8";
  stats_.bytes += out.size();
  return out;
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
  // selection still copies them as the terminal's own lines), and only the
  // rows above the caret's (the editor and what is below it stay).
  size_t above_caret = drawn_caret_visible_ ? caret_row_drawn_ : static_cast<size_t>(std::max(cursor_row_, 0L));
  while (k < pending_commits_.size() && k < drawn_rows_.size() && k < above_caret) {
    const Line& line = pending_commits_[k];
    if (line.Width() > width_ || Wrap(line, width_).size() != 1) break;
    ++k;
  }
  return k;
}

std::string InlineRenderer::Frame() {
  if (pending_commits_.empty() && !live_dirty_ && !redraw_all_) return "";
  auto started = std::chrono::steady_clock::now();

  size_t caret_row_u = 0;
  int caret_col = 0;
  size_t cut = 0;
  std::vector<Line> rows = LayOut(&caret_row_u, &caret_col, &cut);
  const long caret_row = static_cast<long>(caret_row_u);
  bool caret_same = cursor_at_caret_ == caret_.visible && caret_row_u == caret_row_drawn_ && caret_col == caret_col_drawn_;
  if (!redraw_all_ && pending_commits_.empty() && caret_same && rows == drawn_rows_) {
    live_dirty_ = false;  // drawn as it is
    drawn_cut_ = cut;
    caret_row_drawn_ = caret_row_u;
    caret_col_drawn_ = caret_col;
    return "";
  }

  const long height = height_;
  std::string out;
  long cur = cursor_row_;  // the cursor's row in the live region (-1: just above)
  int col = cursor_col_;   // its column, -1 unknown
  long existing = static_cast<long>(drawn_rows_.size());  // live rows that exist on screen
  // The saved cursor (ESC 7) as the frame goes: the live row whose screen
  // position it holds, in the frame's current numbering of the rows. Rows
  // inserted or deleted at or above it renumber it with the rows (it keeps
  // its screen position); a scroll moves the screen under it.
  bool slot = saved_known_;
  long slot_row = saved_row_;
  int slot_col = saved_col_;
  // One line feed that makes a row below the region: the screen scrolls
  // under the saved cursor only when the region's bottom is surely the
  // screen's last row; when that is not known, neither is the slot.
  auto new_row_below = [&]() {
    if (bottom_min_ >= height_) ++slot_row;
    else slot = false;
    bottom_min_ = std::min(bottom_min_ + 1, static_cast<long>(height_));
  };

  // Screen rows are known only with the region at the screen's bottom.
  auto screen_row = [&](long k) { return height - existing + 1 + k; };
  auto region_bottom_index = [&]() {
    return region_bottom_ == 0 ? LONG_MAX : region_bottom_ - (height - existing + 1);
  };
  // Vertical moves inside the rows that exist; below them, newlines create
  // rows (and scroll when at the bottom of the screen).
  auto go_row = [&](long k) {
    if (k < cur) {
      CursorUp(static_cast<size_t>(cur - k), &out);
      cur = k;
      return;
    }
    if (k == cur) return;
    long bottom = region_bottom_index();
    if (cur <= bottom && k > bottom) {
      // Down out of a scroll region: a line feed would scroll it and CSI B
      // stops at its bottom.
      out += "\x1b[" + std::to_string(screen_row(k)) + "H";
      cur = k;
      col = 0;
      return;
    }
    long down_to = std::min(k, existing - 1);
    if (down_to > cur) {
      // A line feed is one byte and keeps the column; it cannot scroll here
      // (the rows below exist).
      if (down_to - cur <= 3) out.append(static_cast<size_t>(down_to - cur), '\n');
      else CursorDown(static_cast<size_t>(down_to - cur), &out);
      cur = down_to;
    }
    for (; cur < k; ++cur) {
      out += "\r\n";
      col = 0;
      ++existing;
      new_row_below();
    }
  };
  auto go_column = [&](int c) {
    if (col == c) return;
    if (c == 0) out += '\r';
    else out += "\x1b[" + std::to_string(c + 1) + "G";
    col = c;
  };
  auto wrote = [&](int end_col) {
    col = end_col < width_ ? end_col : -1;  // at the last column: a wrap is pending
  };
  // Turns the drawn row k into line, writing only its changed tail.
  auto rewrite = [&](long k, const Line& line) {
    RowDiff d = DiffRows(drawn_rows_[static_cast<size_t>(k)], line);
    go_row(k);
    go_column(d.column);
    if (d.old_longer) out += kEraseToEnd;
    AppendEncoded(d.rest, &out);
    wrote(d.column + d.rest.Width());
    ++stats_.rows_written;
  };

  // What the frame does, decided before anything is written.
  // Commits that are the live region's top rows, or nearly (the stream's
  // last bytes came with its newline): those rows become history where they
  // stand, with their changed tails written; the region below keeps its place.
  size_t in_place = CommittableInPlace();
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
  // Rows added or removed just above an unchanged tail (the editor and
  // footer under a stream), counted on the rows left after the commits.
  size_t left = drawn_rows_.size() - in_place;
  size_t same_tail = 0;
  while (!all && same_tail < rows.size() && same_tail < left &&
         rows[rows.size() - 1 - same_tail] == drawn_rows_[drawn_rows_.size() - 1 - same_tail]) {
    ++same_tail;
  }
  bool grow = !all && same_tail > 0 && rows.size() > left;
  // A scroll region already set over the rows above a tail that is still
  // there stays: rows of the stream that match rows of the tail (an empty
  // line above the editor) do not make a new one.
  if (grow && region_bottom_ != 0) {
    size_t region_tail = static_cast<size_t>(height_ - region_bottom_);
    if (region_tail <= same_tail) same_tail = region_tail;
  }
  // A stream growing above the tail, with the tail at the screen's bottom:
  // a scroll region over the rows above the tail scrolls them by line feeds
  // (their top row going into the scrollback, as any scroll of the screen
  // would), and the tail never moves.
  // Commits above the whole region go the same way: each is written at the
  // bottom of a scroll region over the rows above the live region.
  bool region_usable = scroll_region_ok_ && !all && AtScreenBottom();
  bool grow_fits = grow && region_usable && static_cast<long>(same_tail) + 2 <= height;
  int commit_region = 0, region = 0;
  // Only when the rest of the frame keeps to the region too.
  if (insert_commits && region_usable && left >= 1 && static_cast<long>(left) + 2 <= height &&
      (grow ? grow_fits : rows.size() == left))
    commit_region = height_ - static_cast<int>(left);
  if (grow_fits && (!insert_commits || commit_region != 0)) region = height_ - static_cast<int>(same_tail);
  // A region left set stays for frames that only rewrite rows or scroll a
  // region; anything else (a full redraw, rows created at the bottom,
  // inserted, deleted) needs the whole screen to scroll.
  bool keep_region = scroll_region_ok_ && !all && (!insert_commits || commit_region != 0) && (grow ? region != 0 : rows.size() == left);
  bool structural = all || in_place > 0 || above > 0 || rows.size() != drawn_rows_.size();
  // Whether the frame writes anywhere but the caret's row (a key typed
  // there is written where the cursor is and needs no way back).
  bool leaves_caret_row = structural;
  for (long k = 0; !leaves_caret_row && k < static_cast<long>(rows.size()); ++k) {
    if (k != caret_row && !(rows[static_cast<size_t>(k)] == drawn_rows_[static_cast<size_t>(k)])) leaves_caret_row = true;
  }

  auto save_here = [&]() {
    slot = col >= 0;
    slot_row = cur;
    slot_col = col;
  };
  auto set_region = [&](int bottom) {
    if (region_bottom_ == bottom) return;
    // DECSTBM homes the cursor: saved and restored around it.
    out += "\x1b" "7" "\x1b[1;" + std::to_string(bottom) + "r" "\x1b" "8";
    region_bottom_ = bottom;
    save_here();
  };
  if (region_bottom_ != 0 && !keep_region) {
    out += "\x1b" "7" "\x1b[r" "\x1b" "8";
    region_bottom_ = 0;
    save_here();
  }
  // Leaving the caret for rows elsewhere: the cursor is saved there first
  // (unless it already is), so that the way back is a restore (ESC 8).
  bool at_saved = slot && slot_row == cur && slot_col == col;
  if (cursor_at_caret_ && caret_.visible && !all && leaves_caret_row && col >= 0 && !at_saved) {
    out += "\x1b" "7";
    save_here();
  }
  for (size_t k = 0; k < in_place; ++k) {
    Line row = Wrap(pending_commits_[k], width_)[0];
    if (!(row == drawn_rows_[k])) rewrite(static_cast<long>(k), row);
  }
  if (in_place > 0) {
    // The committed rows leave the region; the cursor may stay on them
    // (row -1 and up are the ones just above the region).
    auto n = static_cast<std::ptrdiff_t>(in_place);
    pending_commits_.erase(pending_commits_.begin(), pending_commits_.begin() + n);
    drawn_rows_.erase(drawn_rows_.begin(), drawn_rows_.begin() + n);
    cur -= static_cast<long>(in_place);
    slot_row -= static_cast<long>(in_place);
    existing -= static_cast<long>(in_place);
    stats_.lines_committed += in_place;
    stats_.committed_in_place += in_place;
  }
  if (insert_commits && commit_region != 0) {
    // At the bottom of the region over the history (the row above the live
    // region), each line feed scrolls the history up and opens the row for
    // the next commit; the live region does not move.
    set_region(commit_region);
    go_row(-1);
    if (slot_row < 0) slot = false;  // in the rows that scroll
    for (const auto& line : pending_commits_) {
      out += "\r\n";
      AppendEncoded(line, &out);
    }
    col = -1;
    stats_.region_scrolls += above;
    stats_.lines_committed += above;
    pending_commits_.clear();
  } else if (insert_commits) {
    long m = static_cast<long>(above);
    // New rows at the region's top (a stream's first row under the commits)
    // are made with the same room and the same insert.
    long also = grow && left == same_tail ? static_cast<long>(rows.size() - left) : 0;
    go_row(existing - 1);
    out.append(static_cast<size_t>(m + also), '\n');  // room at the bottom (scrolls when there)
    for (long i = 0; i < m + also; ++i) new_row_below();
    cur += m + also;
    existing += m + also;
    go_row(0);
    LineOp(static_cast<size_t>(m + also), 'L', &out);
    if (also > 0) {
      drawn_rows_.insert(drawn_rows_.begin(), static_cast<size_t>(also), Line{});
      grow = false;
    }
    col = -1;
    for (long i = 0; i < m; ++i) {
      go_row(i);
      go_column(0);
      AppendEncoded(pending_commits_[static_cast<size_t>(i)], &out);
      col = -1;
    }
    go_row(m);
    cur -= m;
    slot_row -= m;
    existing -= m;
    stats_.lines_committed += static_cast<uint64_t>(m);
    pending_commits_.clear();
  }
  // Other commits land where the live region was, so every live row moves.
  if (all) {
    go_row(0);
    go_column(0);
    out += kEraseBelow;
    slot = false;
    ++stats_.full_redraws;
    long top_min = std::max(bottom_min_ - existing + 1, 1L);
    for (const auto& line : pending_commits_) {
      AppendEncoded(line, &out);
      out += "\r\n";
    }
    stats_.lines_committed += pending_commits_.size();
    long committed = static_cast<long>(pending_commits_.size());
    pending_commits_.clear();
    for (size_t k = 0; k < rows.size(); ++k) {
      if (k > 0) out += "\r\n";
      AppendEncoded(rows[k], &out);
    }
    stats_.rows_written += rows.size();
    cur = rows.empty() ? 0 : static_cast<long>(rows.size()) - 1;
    existing = static_cast<long>(rows.size());
    col = -1;
    bottom_min_ = rows.empty() ? 0 : std::min(top_min + committed + existing - 1, height);
  } else {
    if (grow) {
      long m = static_cast<long>(rows.size() - left);
      long at = static_cast<long>(left - same_tail);
      // The rows above the new ones first: the stream's last row gets its
      // end where the cursor is, before the rows move.
      for (long k = 0; k < at; ++k) {
        if (!(drawn_rows_[static_cast<size_t>(k)] == rows[static_cast<size_t>(k)])) {
          rewrite(k, rows[static_cast<size_t>(k)]);
          drawn_rows_[static_cast<size_t>(k)] = rows[static_cast<size_t>(k)];
        }
      }
      if (region != 0) {
        set_region(region);
        // At the region's bottom (the row above the tail), line feeds
        // scroll the rows above the tail up and open m rows there.
        go_row(at - 1);
        out += "\r\n";
        if (m > 1) out.append(static_cast<size_t>(m - 1), '\n');
        col = 0;
        cur = at + m - 1;
        slot_row += m;  // the region scrolled under it, or the tail took the new rows' numbers
        stats_.region_scrolls += static_cast<uint64_t>(m);
      } else {
        // Room below first (scrolls when the region is at the screen's bottom).
        go_row(existing - 1);
        out.append(static_cast<size_t>(m), '\n');
        for (long i = 0; i < m; ++i) new_row_below();
        cur += m;
        go_row(at);
        LineOp(static_cast<size_t>(m), 'L', &out);
        col = -1;
      }
      existing += m;
      drawn_rows_.insert(drawn_rows_.begin() + at, static_cast<size_t>(m), Line{});
    } else if (same_tail > 0 && rows.size() < drawn_rows_.size()) {
      long m = static_cast<long>(drawn_rows_.size() - rows.size());
      long at = static_cast<long>(drawn_rows_.size() - same_tail) - m;
      go_row(at);
      LineOp(static_cast<size_t>(m), 'M', &out);
      col = -1;
      auto first = drawn_rows_.begin() + at;
      drawn_rows_.erase(first, first + m);
      existing -= m;
      bottom_min_ = std::max(bottom_min_ - m, 0L);
    }
    // Only the rows that changed; a row that grew gets its new end only.
    for (size_t k = 0; k < rows.size(); ++k) {
      if (k < drawn_rows_.size() && drawn_rows_[k] == rows[k]) continue;
      if (k < drawn_rows_.size()) {
        rewrite(static_cast<long>(k), rows[k]);
      } else {
        go_row(static_cast<long>(k));
        go_column(0);
        AppendEncoded(rows[k], &out);
        wrote(rows[k].Width());
        ++stats_.rows_written;
      }
    }
    if (drawn_rows_.size() > rows.size()) {
      // The region shrank: clear the rows it left (they exist on screen, so
      // moving down to them never scrolls).
      go_row(static_cast<long>(rows.size()));
      go_column(0);
      out += kEraseBelow;
      bottom_min_ = std::max(bottom_min_ - static_cast<long>(drawn_rows_.size() - rows.size()), 0L);
      existing = static_cast<long>(rows.size());
    }
  }

  // Every frame ends with the cursor at the caret (an IME's window opens
  // there), by restoring it when it was saved there and is still there.
  if (caret_.visible && !rows.empty()) {
    long target = std::min(caret_row, static_cast<long>(rows.size()) - 1);
    if (!(cur == target && col == caret_col)) {
      if (slot && slot_row == target && slot_col == caret_col) {
        out += "\x1b" "8";
        cur = target;
        col = caret_col;
      } else {
        go_row(target);
        go_column(caret_col);
      }
    }
  }
  // A frame of a few hundred bytes is written with one write(2) and taken
  // by the terminal in one read, which it parses whole before it draws
  // again: neither the cursor on its way nor rows half moved can show, so
  // it goes without hiding the cursor and without the synchronized-output
  // brackets (16 bytes a frame, as much as a streaming frame's moves). A
  // full redraw and anything longer is bracketed where the terminal has DEC
  // 2026, with the cursor parked at the caret inside the brackets, and
  // hides the cursor while it moves where not.
  bool whole = !all && out.size() <= kWholeFrameBytes;
  if (!sync_ && !whole && cursor_visible_) {
    out.insert(0, kHideCursor);
    cursor_visible_ = false;
  }
  bool show = caret_.visible && !rows.empty();
  if (show != cursor_visible_) {
    out += show ? kShowCursor : kHideCursor;
    cursor_visible_ = show;
  }
  cursor_at_caret_ = show;
  drawn_caret_visible_ = show;
  caret_row_drawn_ = caret_row_u;
  caret_col_drawn_ = caret_col;
  cursor_row_ = cur;
  cursor_col_ = col;
  saved_known_ = slot;
  saved_row_ = slot_row;
  saved_col_ = slot_col;
  if (sync_ && !whole) out = kSyncBegin + out + kSyncEnd;

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
  std::string out = ReleaseScrollRegion();
  stats_.bytes -= out.size();  // counted with the rest below
  long bottom = drawn_rows_.empty() ? 0 : static_cast<long>(drawn_rows_.size()) - 1;
  out += "\r";
  if (bottom > cursor_row_) CursorDown(static_cast<size_t>(bottom - cursor_row_), &out);
  if (!drawn_rows_.empty()) out += "\r\n";
  out += kShowCursor;
  cursor_visible_ = true;
  cursor_at_caret_ = false;
  saved_known_ = false;
  cursor_row_ = 0;
  cursor_col_ = -1;
  drawn_rows_.clear();
  redraw_all_ = true;
  bottom_min_ = 0;
  stats_.bytes += out.size();
  return frame + out;
}

}  // namespace sepp::front::tui
