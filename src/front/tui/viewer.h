// Viewer: one long text (a tool's whole output, a message) full-screen on
// the terminal's alternate screen, so the main screen and its scrollback are
// left exactly as they were: j/k, arrows, Space/b, PgUp/PgDn, g/G scroll;
// '/' searches (Enter finds, n/N the next/previous match); q or Esc leaves.
// It only makes bytes; the loop writes them and sends it the keys while it
// is open.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "front/tui/key_decoder.h"
#include "front/tui/text.h"

namespace sepp::front::tui {

class Viewer {
 public:
  static constexpr char kEnterScreen[] = "\x1b[?1049h";
  static constexpr char kLeaveScreen[] = "\x1b[?1049l";

  void Open(std::string title, std::string_view text, int width, int height);
  bool open() const { return open_; }
  void Resize(int width, int height);
  // A key while open; after q or Esc the viewer is closed (open() false) and
  // the caller writes Close()'s bytes.
  void Handle(const InputEvent& e);
  // The whole screen (alternate screen entered on the first frame).
  std::string Frame();
  // Back to the main screen: the bytes to write.
  std::string Close();

  size_t top() const { return top_; }  // the first row shown (tests)

 private:
  void Rewrap();
  void FindNext(int direction);
  size_t BodyRows() const { return height_ > 1 ? static_cast<size_t>(height_ - 1) : 1; }
  size_t MaxTop() const { return rows_.size() > BodyRows() ? rows_.size() - BodyRows() : 0; }

  bool open_ = false;
  bool entered_ = false;
  std::string title_;
  std::vector<Line> lines_;  // logical lines
  std::vector<Line> rows_;   // wrapped to the width
  std::vector<size_t> row_line_;  // the logical line of each row
  int width_ = 80;
  int height_ = 24;
  size_t top_ = 0;
  bool typing_query_ = false;
  std::string query_;
  std::string status_;
};

}  // namespace sepp::front::tui
