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
// moves to the top of the live region, writes, and parks the hardware cursor
// at the caret. Frames are wrapped in synchronized output (DEC 2026), which
// terminals without it ignore. The renderer only produces bytes; writing
// them is the caller's job, which keeps it testable against an emulator.
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

struct RenderStats {
  uint64_t frames = 0;
  uint64_t bytes = 0;
  uint64_t rows_written = 0;      // live rows redrawn
  uint64_t lines_committed = 0;   // lines sent to the scrollback
  uint64_t full_redraws = 0;      // every live row redrawn (resize, commit)
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

  // The bytes of one frame; "" when nothing changed.
  std::string Frame();
  // Leaves the terminal below the live region with the cursor shown (quit):
  // the live region stays on screen as the last thing drawn.
  std::string Finish();

  const RenderStats& stats() const { return stats_; }
  int width() const { return width_; }

 private:
  int width_;
  int height_;
  std::vector<Line> pending_commits_;
  std::vector<Line> live_;
  Caret caret_;
  bool live_dirty_ = true;
  bool redraw_all_ = true;        // the rows on screen are not known
  std::vector<Line> drawn_rows_;  // the live rows as they are on screen
  size_t cursor_row_ = 0;         // the cursor's row inside the live region
  RenderStats stats_;
};

}  // namespace sepp::front::tui
