// A terminal in process for the TUI's screen tests: libvterm fed with the
// renderer's bytes; rows of the screen and the lines it pushed into its
// scrollback read back as text.
#pragma once
#include <vterm.h>

#include <string>
#include <string_view>
#include <vector>

#include "base/strings.h"

namespace sepp::front::tui::testing {

class VtermScreen {
 public:
  VtermScreen(int rows, int cols) : rows_(rows), cols_(cols) {
    vt_ = vterm_new(rows, cols);
    vterm_set_utf8(vt_, 1);
    screen_ = vterm_obtain_screen(vt_);
    callbacks_.sb_pushline = &VtermScreen::PushLine;
    callbacks_.sb_popline = nullptr;  // growing never pulls history back
    vterm_screen_set_callbacks(screen_, &callbacks_, this);
    vterm_screen_enable_altscreen(screen_, 1);  // the full-screen viewer
    vterm_screen_reset(screen_, 1);
  }
  ~VtermScreen() { vterm_free(vt_); }
  VtermScreen(const VtermScreen&) = delete;
  VtermScreen& operator=(const VtermScreen&) = delete;

  void Feed(std::string_view bytes) {
    written_ += bytes;
    vterm_input_write(vt_, bytes.data(), bytes.size());
  }
  void Resize(int rows, int cols) {
    rows_ = rows;
    cols_ = cols;
    vterm_set_size(vt_, rows, cols);
  }
  int rows() const { return rows_; }
  int cols() const { return cols_; }

  std::string Row(int row) const {
    std::vector<VTermScreenCell> cells(static_cast<size_t>(cols_));
    for (int col = 0; col < cols_; ++col) {
      vterm_screen_get_cell(screen_, VTermPos{row, col}, &cells[static_cast<size_t>(col)]);
    }
    return CellsText(cells.data(), cols_);
  }
  // A row cell by cell with what each cell shows: its characters, width,
  // attributes and colours (for comparing two screens exactly).
  std::string StyledRow(int row) const {
    std::vector<VTermScreenCell> cells(static_cast<size_t>(cols_));
    for (int col = 0; col < cols_; ++col) {
      vterm_screen_get_cell(screen_, VTermPos{row, col}, &cells[static_cast<size_t>(col)]);
    }
    return CellsStyled(cells.data(), cols_);
  }
  // Scrollback (styled, oldest first) then the screen's styled rows.
  std::vector<std::string> StyledTranscript() const {
    std::vector<std::string> out = styled_scrollback_;
    for (int r = 0; r < rows_; ++r) out.push_back(StyledRow(r));
    return out;
  }
  std::vector<std::string> ScreenRows() const {
    std::vector<std::string> out;
    for (int r = 0; r < rows_; ++r) out.push_back(Row(r));
    return out;
  }
  // Scrollback (oldest first) then the screen, trailing empty rows dropped.
  std::vector<std::string> Transcript() const {
    std::vector<std::string> out = scrollback_;
    for (auto& row : ScreenRows()) out.push_back(row);
    while (!out.empty() && out.back().empty()) out.pop_back();
    return out;
  }
  const std::vector<std::string>& scrollback() const { return scrollback_; }
  const std::string& written() const { return written_; }
  VTermScreenCell Cell(int row, int col) const {
    VTermScreenCell cell;
    vterm_screen_get_cell(screen_, VTermPos{row, col}, &cell);
    return cell;
  }
  VTermPos Cursor() const {
    VTermPos pos;
    vterm_state_get_cursorpos(vterm_obtain_state(vt_), &pos);
    return pos;
  }

 private:
  static std::string CellsText(const VTermScreenCell* cells, int cols) {
    std::string text;
    for (int col = 0; col < cols;) {
      const VTermScreenCell& cell = cells[col];
      if (cell.chars[0] == 0) {
        text += ' ';
      } else {
        for (int i = 0; i < VTERM_MAX_CHARS_PER_CELL && cell.chars[i]; ++i) sepp::AppendUtf8(cell.chars[i], &text);
      }
      col += cell.width > 0 ? cell.width : 1;
    }
    while (!text.empty() && text.back() == ' ') text.pop_back();
    return text;
  }
  static std::string CellsStyled(const VTermScreenCell* cells, int cols) {
    std::string out;
    auto colour = [&](const VTermColor& c) {
      if (VTERM_COLOR_IS_DEFAULT_FG(&c) || VTERM_COLOR_IS_DEFAULT_BG(&c)) out += "d";
      else if (VTERM_COLOR_IS_INDEXED(&c)) out += "i" + std::to_string(c.indexed.idx);
      else out += "r" + std::to_string(c.rgb.red) + "." + std::to_string(c.rgb.green) + "." + std::to_string(c.rgb.blue);
    };
    for (int col = 0; col < cols; ++col) {
      const VTermScreenCell& c = cells[col];
      for (int i = 0; i < VTERM_MAX_CHARS_PER_CELL && c.chars[i]; ++i) sepp::AppendUtf8(c.chars[i], &out);
      out += "{" + std::to_string(c.width) + (c.attrs.bold ? "b" : "") + (c.attrs.italic ? "i" : "") +
             (c.attrs.underline ? "u" + std::to_string(c.attrs.underline) : "") + (c.attrs.reverse ? "r" : "") +
             (c.attrs.strike ? "s" : "") + (c.attrs.blink ? "k" : "") + ":";
      colour(c.fg);
      out += "/";
      colour(c.bg);
      out += "}";
    }
    return out;
  }
  static int PushLine(int cols, const VTermScreenCell* cells, void* user) {
    auto* self = static_cast<VtermScreen*>(user);
    self->scrollback_.push_back(CellsText(cells, cols));
    self->styled_scrollback_.push_back(CellsStyled(cells, cols));
    return 1;
  }

  int rows_;
  int cols_;
  VTerm* vt_ = nullptr;
  VTermScreen* screen_ = nullptr;
  VTermScreenCallbacks callbacks_{};
  std::vector<std::string> scrollback_;
  std::vector<std::string> styled_scrollback_;
  std::string written_;
};

}  // namespace sepp::front::tui::testing
