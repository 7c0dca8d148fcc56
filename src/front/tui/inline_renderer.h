// InlineRenderer: draws the UI on the terminal's main screen so that the
// conversation lives in the terminal's own scrollback (native selection,
// copy, tmux copy mode keep working).
//
// Two kinds of content:
// - committed lines (finished blocks): written once, as logical lines the
//   terminal wraps itself (a selection copies them without breaks), and
//   never touched again;
// - the live region (streaming block, running tools, editor, footer): wrapped
//   here to the width and redrawn each frame by row diff, so a frame costs
//   what changed in the live region, not the length of the session.
//
// A frame never clears the screen or the scrollback (no CSI 2J / 3J); it
// moves to the rows that changed, writes, and ends with the hardware cursor
// at the caret (an input method's window opens there). Frames longer than
// one short write, and full redraws, are wrapped in synchronized output
// (DEC 2026) when the terminal said it has it (set_synchronized_output,
// from the DECRQM answer), the caret reached inside the brackets; otherwise
// the cursor is hidden while such a frame moves it.
//
// What keeps a streamed answer cheap: a committed line that is already on
// screen as the live region's top row (the finished line of the stream) is
// not written again, the live region below it is shifted with insert/delete
// line (CSI L / CSI M) instead of being redrawn, a row that only grew gets
// its new end only, and the way back to the caret is a restore of the
// cursor saved there (ESC 7 once, ESC 8 each frame) while its screen
// position holds.
//
// The renderer only produces bytes; writing them is the caller's job, which
// keeps it testable against an emulator.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "front/tui/text.h"

namespace sepp::front::tui {

// Where the hardware cursor goes: a logical live line and a column in it.
struct Caret {
  size_t line = 0;
  int column = 0;
  bool visible = false;
};

// What drawing cost, for a debug view and the benchmarks.
struct RenderStats {
  static constexpr int kTimeBuckets = 24;
  uint64_t frames = 0;
  uint64_t bytes = 0;
  uint64_t max_frame_bytes = 0;
  uint64_t rows_written = 0;       // live rows redrawn
  uint64_t lines_committed = 0;    // lines sent to the scrollback
  uint64_t committed_in_place = 0; // of those, already on screen (not rewritten)
  uint64_t full_redraws = 0;       // every live row redrawn (resize, commit)
  uint64_t region_scrolls = 0;     // rows made by scrolling a scroll region
  uint64_t render_ns = 0;          // time spent in Frame()
  // Frames by time spent: bucket i counts frames of [2^i, 2^(i+1)) microseconds
  // (bucket 0 also the faster ones).
  uint64_t time_buckets[kTimeBuckets] = {};

  // The upper bound, in microseconds, of the bucket holding the q-th
  // quantile of frame times (q in 0..1); 0 without frames.
  uint64_t FrameTimeQuantileUs(double q) const;
  // One line for a debug view or a log: frames, bytes, p50/p99 and so on.
  std::string Summary() const;
};

class InlineRenderer {
 public:
  InlineRenderer(int width, int height);

  // Lines to write above the live region at the next frame, once.
  void Commit(std::vector<Line> lines);
  // The live region as logical lines (wrapped at frame time).
  void SetLive(std::vector<Line> lines, Caret caret = {});
  // The terminal's new size: the live region is redrawn at the next frame.
  void Resize(int width, int height);
  // Whether the terminal has synchronized output (DEC mode 2026).
  void set_synchronized_output(bool on) { sync_ = on; }
  bool synchronized_output() const { return sync_; }
  // Whether lines scrolled off the top of a scroll region that starts at
  // the screen's first row go into the terminal's scrollback (xterm, VTE,
  // kitty, tmux, libvterm do; see scroll_region_support.h). Then a stream
  // that grows above the editor and footer, once the region reaches the
  // screen's bottom, is scrolled with a scroll region (DECSTBM) over the
  // rows above them: a line feed instead of making room at the bottom and
  // inserting a line, and the rows below never move.
  void set_scroll_region(bool on) { scroll_region_ok_ = on; }
  // The bytes that take a scroll region left set by the last frame off
  // again ("" when none is): for anything else that is about to write to
  // the terminal (the viewer's alternate screen, another program).
  std::string ReleaseScrollRegion();

  // The bytes of one frame; "" when nothing changed.
  std::string Frame();
  // Leaves the terminal below the live region with the cursor shown (quit):
  // the live region stays on screen as the last thing drawn.
  std::string Finish();

  const RenderStats& stats() const { return stats_; }
  int width() const { return width_; }

 private:
  // The live rows at this width (cut to the screen's height), and the
  // caret's row and column among them.
  std::vector<Line> LayOut(size_t* caret_row, int* caret_col, size_t* cut_rows) const;
  // How many pending commits can become history where the live region's
  // top rows stand (one row each, above the cursor).
  size_t CommittableInPlace() const;
  // Whether the live region's last row is surely the screen's last row:
  // only then are the rows' screen positions known (a scroll region needs
  // them). Known from a lower bound of that row, which each frame keeps.
  bool AtScreenBottom() const { return bottom_min_ >= height_; }

  int width_;
  int height_;
  bool sync_ = false;
  bool cursor_visible_ = true;    // as the terminal has it
  bool cursor_at_caret_ = false;  // the cursor is where the last frame parked it
  bool drawn_caret_visible_ = false;  // the last frame had a caret (at caret_row_drawn_)
  size_t caret_row_drawn_ = 0;
  int caret_col_drawn_ = 0;
  // What the terminal's saved cursor (ESC 7) holds: the screen position of
  // the live row saved_row_ (in the last frame's rows) and column
  // saved_col_; false: not known. A frame that returns to the caret by
  // restoring it (ESC 8, 2 bytes) needs no move back down and no column.
  bool saved_known_ = false;
  long saved_row_ = 0;
  int saved_col_ = 0;
  std::vector<Line> pending_commits_;
  std::vector<Line> live_;
  Caret caret_;
  bool live_dirty_ = true;
  bool redraw_all_ = true;        // the rows on screen are not known
  std::vector<Line> drawn_rows_;  // the live rows as they are on screen
  size_t drawn_cut_ = 0;          // rows of the region above the screen
  // The cursor's row inside the live region; -1: the row just above it
  // (the last line committed where it stood).
  long cursor_row_ = 0;
  int cursor_col_ = -1;           // its column; -1: not known
  bool scroll_region_ok_ = false;
  int region_bottom_ = 0;         // the scroll region set: rows 1..this; 0: none
  // A lower bound of the screen row (1-based) of the live region's last
  // drawn row; the screen's height or more: it is the last row.
  long bottom_min_ = 0;
  RenderStats stats_;
};

}  // namespace sepp::front::tui
