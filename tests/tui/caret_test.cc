// The hardware cursor rests at the editor's caret whenever the terminal is
// idle: after every frame, while an answer streams above the editor, with
// and without DEC 2026 and a scroll region, with nothing typed and with
// text typed (and the caret moved) during the stream. An input method opens
// its composition window where the terminal's cursor is, so this is what
// puts it at the caret: the text it commits lands where its window was.
#include <gtest/gtest.h>

#include <random>

#include "front/tui/chat_view.h"
#include "front/tui/key_decoder.h"
#include "tui/vterm_screen.h"

namespace sepp::front::tui {
namespace {

using agent::Event;
using agent::EventType;

Event Delta(std::string text) {
  Event e(EventType::kMessageDelta);
  e.text = std::move(text);
  return e;
}

// Markdown that commits, wraps, inserts and scrolls rows: headings,
// emphasis, a link, code, a table, and a paragraph longer than the width.
std::string Answer() {
  std::string answer;
  for (int i = 0; i < 12; ++i) {
    answer += "## Part " + std::to_string(i) + "\n\nSome **bold** and `code` with a [link](https://example.com/" +
              std::to_string(i) + "), then a sentence long enough to wrap at the width of this small terminal " +
              "twice over, with words.\n\n```c\nint f(int x) { return x + " + std::to_string(i) +
              "; }\n```\n\n| a | b |\n|---|---|\n| 1 | " + std::to_string(i) + " |\n\n";
  }
  return answer;
}

struct Ui {
  static constexpr int kRows = 16, kCols = 60;
  testing::VtermScreen term{kRows, kCols};
  InlineRenderer renderer{kCols, kRows};
  ChatView view{&renderer};
  Editor editor;
  KeyDecoder keys;
  Ui(bool sync, bool region) {
    renderer.set_synchronized_output(sync);
    renderer.set_scroll_region(region);
    view.SetFooter({"/work/project", "fake-model"});
  }
  void Frame() {
    view.Refresh(editor);
    term.Feed(renderer.Frame());
  }
  void Type(std::string_view bytes) {
    for (const auto& e : keys.Feed(bytes)) editor.Handle(e);
  }
  // The screen row of the footer: the last row that shows it.
  int FooterRow() const {
    for (int r = kRows - 1; r >= 0; --r)
      if (term.Row(r).starts_with("/work/project")) return r;
    return -1;
  }
};

// Where the caret is on the screen, found from what the screen shows: the
// editor's rows are the ones right above the footer, one per line of its
// text ("> " then "  "), and the caret is after the text before it.
VTermPos CaretOnScreen(const Ui& ui) {
  std::string before = ui.editor.text().substr(0, ui.editor.cursor());
  size_t lines_after = 0;
  for (size_t i = ui.editor.cursor(); i < ui.editor.text().size(); ++i) lines_after += ui.editor.text()[i] == '\n';
  size_t line_start = before.rfind('\n');
  std::string on_line = line_start == std::string::npos ? before : before.substr(line_start + 1);
  int row = ui.FooterRow() - 1 - static_cast<int>(lines_after);
  return VTermPos{row, 2 + DisplayWidth(on_line)};
}

void ExpectCursorAtCaret(const Ui& ui, const std::string& what) {
  VTermPos caret = CaretOnScreen(ui);
  ASSERT_GE(ui.FooterRow(), 1) << what;
  VTermPos cursor = ui.term.Cursor();
  ASSERT_EQ(cursor.row, caret.row) << what << "\n" << Join(ui.term.ScreenRows(), "\n");
  ASSERT_EQ(cursor.col, caret.col) << what << "\n" << Join(ui.term.ScreenRows(), "\n");
}

TEST(TuiCaret, AfterEveryFrameOfAStreamTheCursorIsAtTheCaret) {
  std::string answer = Answer();
  for (size_t piece : {7ul, 36ul}) {
    for (bool sync : {false, true}) {
      for (bool region : {false, true}) {
        // typing: letters, a second line and caret moves while it streams.
        for (bool typing : {false, true}) {
          std::string what = std::to_string(piece) + "-byte pieces" + (sync ? ", DEC 2026" : "") +
                             (region ? ", scroll region" : "") + (typing ? ", typing" : ", nothing typed");
          Ui ui(sync, region);
          Event started(EventType::kAgentStarted);
          ui.view.OnEvent(started);
          ui.Frame();
          ExpectCursorAtCaret(ui, what + ", start");
          static constexpr std::string_view kTyped[] = {"h", "i", " ", "\xc3\xa9", "\xe6\x97\xa5", "\n",
                                                         "x", "\x1b[D", "y", "\x1b[A", "z", "\x1b[F"};
          size_t typed = 0;
          for (size_t i = 0, n = 0; i < answer.size(); i += piece, ++n) {
            ui.view.OnEvent(Delta(answer.substr(i, piece)));
            ui.Frame();
            ExpectCursorAtCaret(ui, what + ", piece " + std::to_string(n));
            if (typing && n % 9 == 4) {
              ui.Type(kTyped[typed++ % std::size(kTyped)]);
              ui.Frame();
              ExpectCursorAtCaret(ui, what + ", key after piece " + std::to_string(n));
            }
          }
          ui.view.OnEvent(Event(EventType::kTurnFinished));
          ui.Frame();
          ExpectCursorAtCaret(ui, what + ", end");
          if (typing) EXPECT_NE(ui.editor.text().find('\n'), std::string::npos) << what;
          // The scrollback got the answer's last part once.
          auto transcript = ui.term.Transcript();
          EXPECT_EQ(std::count(transcript.begin(), transcript.end(), "Part 11"), 1) << what;
        }
      }
    }
  }
}

// An input method's composition window opens at the terminal's cursor, and
// the text it composes is typed at the caret: into the empty editor, at the
// end of a line, in the
// middle of one after wide characters, on the first line of two, while an
// answer streams above and a tool's output changes a row there. Each time,
// the composed text shows in the cells where the cursor rested.
TEST(TuiCaret, AnInputMethodsWindowOpensWhereItsTextLands) {
  for (bool sync : {false, true}) {
    for (bool region : {false, true}) {
      std::string what = std::string(sync ? "DEC 2026" : "no DEC 2026") + (region ? ", scroll region" : "");
      Ui ui(sync, region);
      Event started(EventType::kAgentStarted);
      ui.view.OnEvent(started);
      Event tool(EventType::kToolStarted);
      tool.call_id = "c1";
      tool.tool = "bash";
      tool.summary = "$ make";
      ui.view.OnEvent(tool);
      ui.Frame();
      // Where the window opens (the cursor, idle), what the input method
      // commits there, and where that text shows.
      auto compose = [&](std::string_view committed, std::string step) {
        VTermPos window = ui.term.Cursor();
        ui.Type(committed);
        ui.Frame();
        VTermScreenCell cell = ui.term.Cell(window.row, window.col);
        std::string shown;
        for (int i = 0; i < VTERM_MAX_CHARS_PER_CELL && cell.chars[i]; ++i) AppendUtf8(cell.chars[i], &shown);
        std::string first = std::string(committed.substr(0, NextGraphemeLength(committed)));
        EXPECT_EQ(shown, first) << what << ", " << step << "\n" << Join(ui.term.ScreenRows(), "\n");
        ExpectCursorAtCaret(ui, what + ", " + step);
      };
      for (int i = 0; i < 40; ++i) {
        ui.view.OnEvent(Delta("streamed words " + std::to_string(i) + (i % 6 == 5 ? "\n\n" : " ")));
        Event out(EventType::kToolOutput);
        out.call_id = "c1";
        out.text = "building " + std::to_string(i) + "\n";
        ui.view.OnEvent(out);
        ui.Frame();
        ExpectCursorAtCaret(ui, what + ", frame " + std::to_string(i));
        if (i == 3) compose("\xe6\x97\xa5\xe6\x9c\xac", "into the empty editor while it streams");  // 日本
        if (i == 10) compose("\xe8\xaa\x9e", "at the end while it streams");  // 語
        if (i == 20) {
          ui.Type("\x1b[D\x1b[D");  // back over 語 and 本
          ui.Frame();
          compose("\xe3\x81\xaf", "between wide characters");  // は
        }
        if (i == 30) {
          ui.Type("\x1b[F\nsecond line\x1b[A\x1b[H");  // a second line; back to the first's start
          ui.Frame();
          compose("\xe3\x81\x82", "at the start of the first of two lines");  // あ
        }
      }
      EXPECT_TRUE(ui.editor.text().starts_with("\xe3\x81\x82\xe6\x97\xa5\xe3\x81\xaf\xe6\x9c\xac\xe8\xaa\x9e\n"))
          << what << ": " << ui.editor.text();
    }
  }
}

// Frames of every shape, drawn at random: live rows added and removed
// above the editor and below, long rows that wrap, commits of one row and
// of several, the caret moving, the region on and off: after every frame
// the cursor is at the caret and the live region shows what it should (a
// saved cursor believed where it is not would put it elsewhere).
TEST(TuiCaret, FramesOfEveryShapeEndAtTheCaret) {
  for (unsigned seed = 1; seed <= 24; ++seed) {
    std::minstd_rand rng(seed);
    auto pick = [&](unsigned n) { return static_cast<size_t>(rng() % n); };
    bool sync = seed % 2, region = seed % 4 >= 2;
    constexpr int kRows = 12, kCols = 30;
    testing::VtermScreen term(kRows, kCols);
    for (int i = 0; i < static_cast<int>(seed % 5); ++i) term.Feed("$ shell line\r\n");
    InlineRenderer r(kCols, kRows);
    r.set_synchronized_output(sync);
    r.set_scroll_region(region);
    std::vector<std::string> above;  // the live rows above the editor
    std::string editor;
    int committed = 0;
    for (int step = 0; step < 300; ++step) {
      std::string what = "seed " + std::to_string(seed) + " step " + std::to_string(step);
      switch (pick(6)) {
        case 0: above.push_back("row" + std::to_string(step) + std::string(pick(3) == 0 ? 40 : pick(8), 'w')); break;
        case 1:
          if (!above.empty()) above.erase(above.begin() + static_cast<long>(pick(static_cast<unsigned>(above.size()))));
          break;
        case 2: {
          std::vector<Line> lines;
          for (size_t n = pick(3) + 1; n > 0; --n) {
            Line l;
            l.Add("commit " + std::to_string(committed++));
            lines.push_back(std::move(l));
          }
          // The stream's first rows become history where they stand, or
          // commits come from elsewhere.
          if (pick(2) == 0 && !above.empty()) above.erase(above.begin());
          r.Commit(std::move(lines));
          break;
        }
        case 3:
          if (!above.empty()) above.back() += std::string(pick(6) + 1, 'x');
          break;
        case 4: editor = std::string(pick(12), 'e'); break;
        default: break;  // a frame that changes nothing, or only the caret
      }
      if (above.size() > 14) above.erase(above.begin(), above.begin() + 4);
      std::vector<Line> live;
      for (const auto& a : above) live.push_back(Line{}.Add(a));
      live.push_back(Line{}.Add("> " + editor));
      live.push_back(Line{}.Add("FOOTER"));
      int caret_col = 2 + static_cast<int>(pick(static_cast<unsigned>(editor.size()) + 1));
      r.SetLive(std::move(live), Caret{.line = above.size(), .column = caret_col, .visible = true});
      term.Feed(r.Frame());
      int footer = -1;
      for (int row = 0; row < kRows; ++row)
        if (term.Row(row) == "FOOTER") footer = row;
      ASSERT_GE(footer, 1) << what << "\n" << Join(term.ScreenRows(), "\n");
      ASSERT_EQ(term.Row(footer - 1), editor.empty() ? ">" : "> " + editor) << what;  // rows read back trimmed
      // The last row above the editor, as wrapped at the width.
      if (!above.empty()) {
        std::string last = above.back();
        std::string tail = last.substr(last.size() - (last.size() % kCols == 0 ? kCols : last.size() % kCols));
        if (footer >= 2) ASSERT_EQ(term.Row(footer - 2), tail) << what << "\n" << Join(term.ScreenRows(), "\n");
      }
      ASSERT_EQ(term.Cursor().row, footer - 1) << what << "\n" << Join(term.ScreenRows(), "\n");
      ASSERT_EQ(term.Cursor().col, caret_col) << what;
    }
    EXPECT_FALSE(term.written().find("\x1b[2J") != std::string::npos) << seed;
  }
}

}  // namespace
}  // namespace sepp::front::tui
