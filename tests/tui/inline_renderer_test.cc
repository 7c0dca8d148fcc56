// The inline renderer against a terminal emulator (libvterm): finished blocks
// reach the scrollback once, the live region is redrawn by row diff, and no
// frame ever clears the screen or the scrollback, through long replays and
// resizes.
#include "front/tui/inline_renderer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <map>

#include "tui/vterm_screen.h"

namespace sepp::front::tui {
namespace {

using testing::VtermScreen;

Line Text(std::string_view s, Style st = {}) {
  Line l;
  l.Add(s, st);
  return l;
}

// The live region a chat view has: a streaming block, the editor, a footer.
std::vector<Line> Live(std::string_view streaming, std::string_view editor, std::string_view footer) {
  std::vector<Line> live;
  if (!streaming.empty()) {
    for (auto& l : LinesFromText(streaming)) live.push_back(std::move(l));
  }
  live.push_back(Text(std::string("> ") + std::string(editor)));
  live.push_back(Text(footer, Style{.dim = true}));
  return live;
}

bool ClearsScreenOrScrollback(const std::string& bytes) {
  return bytes.find("\x1b[2J") != std::string::npos || bytes.find("\x1b[3J") != std::string::npos;
}

// Whether bytes hold a DECSTBM ("CSI top ; bottom r" or "CSI r").
bool SetsAScrollRegion(const std::string& bytes) {
  for (size_t at = bytes.find("\x1b["); at != std::string::npos; at = bytes.find("\x1b[", at + 1)) {
    size_t i = at + 2;
    while (i < bytes.size() && (std::isdigit(static_cast<unsigned char>(bytes[i])) || bytes[i] == ';')) ++i;
    if (i < bytes.size() && bytes[i] == 'r') return true;
  }
  return false;
}

// How often each line starting with prefix occurs in the transcript.
std::map<std::string, int> CountLines(const std::vector<std::string>& transcript, std::string_view prefix) {
  std::map<std::string, int> counts;
  for (const auto& row : transcript) {
    if (row.rfind(prefix, 0) == 0) ++counts[row];
  }
  return counts;
}

TEST(TuiInlineRenderer, FinishedBlocksReachTheScrollbackOnceAcrossALongReplay) {
  VtermScreen term(24, 80);
  InlineRenderer r(80, 24);
  const int kMessages = 2000;
  for (int i = 0; i < kMessages; ++i) {
    std::string text = "message " + std::to_string(i);
    // Streams in three deltas, then is committed.
    for (size_t cut : {3ul, 7ul, text.size()}) {
      r.SetLive(Live("streaming " + text.substr(0, cut), "", "~/p  model  " + std::to_string(i)),
                Caret{.line = 1, .column = 2, .visible = true});
      term.Feed(r.Frame());
    }
    r.Commit({Text(text)});
    r.SetLive(Live("", "", "~/p  model  " + std::to_string(i)), Caret{.line = 0, .column = 2, .visible = true});
    term.Feed(r.Frame());
  }
  auto transcript = term.Transcript();
  auto counts = CountLines(transcript, "message ");
  ASSERT_EQ(counts.size(), static_cast<size_t>(kMessages));
  for (const auto& [line, n] : counts) EXPECT_EQ(n, 1) << line;
  // In order, and nothing of the streaming rows was left behind.
  int expect = 0;
  for (const auto& row : transcript) {
    EXPECT_EQ(row.find("streaming"), std::string::npos) << row;
    if (row.rfind("message ", 0) == 0) {
      EXPECT_EQ(row, "message " + std::to_string(expect++));
    }
  }
  // The live region sits right below the last message.
  auto screen = term.ScreenRows();
  auto last = std::find(screen.begin(), screen.end(), "message " + std::to_string(kMessages - 1));
  ASSERT_NE(last, screen.end());
  EXPECT_EQ(*(last + 1), ">");
  EXPECT_EQ(*(last + 2), "~/p  model  1999");
  EXPECT_FALSE(ClearsScreenOrScrollback(term.written()));
  EXPECT_EQ(r.stats().lines_committed, static_cast<uint64_t>(kMessages));
}

TEST(TuiInlineRenderer, AFrameRewritesOnlyTheRowsThatChanged) {
  VtermScreen term(24, 80);
  InlineRenderer r(80, 24);
  r.set_synchronized_output(true);  // the terminal said so (TerminalReplies)
  r.Commit({Text("history that is never rewritten")});
  r.SetLive(Live("a streaming answer\nsecond line", "draft", "footer 1"), Caret{.line = 2, .column = 7, .visible = true});
  term.Feed(r.Frame());
  EXPECT_EQ(r.Frame(), "") << "nothing changed: nothing to write";

  uint64_t before = r.stats().rows_written;
  r.SetLive(Live("a streaming answer\nsecond line", "draft", "footer 2"), Caret{.line = 2, .column = 7, .visible = true});
  std::string frame = r.Frame();
  term.Feed(frame);
  EXPECT_EQ(r.stats().rows_written - before, 1u);
  EXPECT_EQ(frame.find("streaming"), std::string::npos);
  EXPECT_EQ(frame.find("history"), std::string::npos);
  EXPECT_EQ(frame.find("\x1b[?2026h"), std::string::npos) << "one row's tail is one short write: no brackets";
  EXPECT_EQ(frame.rfind("\x1b" "7", 0), 0u) << "the cursor is saved at the caret";
  EXPECT_EQ(frame.substr(frame.size() - 2), "\x1b" "8") << "and restored there";
  auto rows = term.ScreenRows();
  EXPECT_EQ(rows[0], "history that is never rewritten");
  EXPECT_EQ(rows[1], "a streaming answer");
  EXPECT_EQ(rows[2], "second line");
  EXPECT_EQ(rows[3], "> draft");
  EXPECT_EQ(rows[4], "footer 2");
  // The hardware cursor is parked at the caret (row of the editor, column 7).
  EXPECT_EQ(term.Cursor().row, 3);
  EXPECT_EQ(term.Cursor().col, 7);

  // The region shrinks (the stream's second line goes): the row is deleted
  // (CSI M), the rows below move up, nothing is rewritten; a frame this
  // short is one write the terminal parses whole: no brackets either.
  before = r.stats().rows_written;
  r.SetLive(Live("a streaming answer", "draft", "footer 2"), Caret{.line = 1, .column = 7, .visible = true});
  frame = r.Frame();
  term.Feed(frame);
  EXPECT_EQ(frame.find("streaming"), std::string::npos);
  EXPECT_EQ(r.stats().rows_written - before, 0u);
  EXPECT_NE(frame.find("\x1b[M"), std::string::npos) << "one line deleted (CSI M, the count 1 is the default)";
  EXPECT_EQ(frame.find("\x1b[?2026h"), std::string::npos);
  rows = term.ScreenRows();
  EXPECT_EQ(rows[0], "history that is never rewritten");
  EXPECT_EQ(rows[1], "a streaming answer");
  EXPECT_EQ(rows[2], "> draft");
  EXPECT_EQ(rows[3], "footer 2");
  EXPECT_EQ(rows[4], "");
  EXPECT_EQ(term.Cursor().row, 2);
  r.SetLive(Live("", "", "footer 3"), Caret{.line = 0, .column = 2, .visible = true});
  term.Feed(r.Frame());
  rows = term.ScreenRows();
  EXPECT_EQ(rows[1], ">");
  EXPECT_EQ(rows[2], "footer 3");
  EXPECT_EQ(rows[3], "");
  // A full redraw (a new width) is synchronized output where the terminal
  // has it, with the cursor parked at the caret inside the brackets.
  r.Resize(79, 24);
  r.SetLive(Live("", "", "footer 4"), Caret{.line = 0, .column = 2, .visible = true});
  frame = r.Frame();
  term.Feed(frame);
  EXPECT_EQ(frame.rfind("\x1b[?2026h", 0), 0u) << ::testing::PrintToString(frame);
  EXPECT_EQ(frame.substr(frame.size() - 8), "\x1b[?2026l");
  EXPECT_EQ(term.Cursor().row, 1);
  EXPECT_EQ(term.Cursor().col, 2);
  // A frame longer than one whole write (a tall block appearing at once)
  // is bracketed too.
  std::string tall;
  for (int i = 0; i < 15; ++i) tall += (i ? "\n" : "") + std::string("a row of the answer that is long enough to count, and then some more words ") + std::to_string(i);
  r.SetLive(Live(tall, "", "footer 4"), Caret{.line = 15, .column = 2, .visible = true});
  frame = r.Frame();
  term.Feed(frame);
  EXPECT_GT(frame.size(), 1024u);
  EXPECT_EQ(frame.rfind("\x1b[?2026h", 0), 0u);
  EXPECT_EQ(frame.substr(frame.size() - 8), "\x1b[?2026l");
  EXPECT_EQ(term.Row(16), ">");
  EXPECT_EQ(term.Row(17), "footer 4");
  EXPECT_EQ(term.Cursor().row, 16);
  EXPECT_EQ(term.Cursor().col, 2);
}

TEST(TuiInlineRenderer, TheCaretFollowsWrappedEditorRows) {
  VtermScreen term(10, 20);
  InlineRenderer r(20, 10);
  // 30 letters wrap at 20 columns; the caret at column 25 is on the second
  // row, column 5.
  std::string word(30, 'x');
  r.SetLive({Text(word), Text("footer")}, Caret{.line = 0, .column = 25, .visible = true});
  term.Feed(r.Frame());
  EXPECT_EQ(term.Row(0), std::string(20, 'x'));
  EXPECT_EQ(term.Row(1), std::string(10, 'x'));
  EXPECT_EQ(term.Row(2), "footer");
  EXPECT_EQ(term.Cursor().row, 1);
  EXPECT_EQ(term.Cursor().col, 5);
  // "> " + the word breaks at the space, which is dropped: rows start at
  // columns 0, 2 and 22, so column 25 is row 2, column 3.
  r.SetLive({Text("> " + word), Text("footer")}, Caret{.line = 0, .column = 25, .visible = true});
  term.Feed(r.Frame());
  EXPECT_EQ(term.Row(0), ">");
  EXPECT_EQ(term.Row(1), std::string(20, 'x'));
  EXPECT_EQ(term.Row(2), std::string(10, 'x'));
  EXPECT_EQ(term.Row(3), "footer");
  EXPECT_EQ(term.Cursor().row, 2);
  EXPECT_EQ(term.Cursor().col, 3);
}

TEST(TuiInlineRenderer, HostileTextIsShownNotObeyed) {
  VtermScreen term(10, 40);
  InlineRenderer r(40, 10);
  r.Commit(LinesFromText("keep me"));
  r.Commit(LinesFromText("evil\x1b[2J\x1b[3J\x1b[1;1Hgone\x1b]52;c;aGk=\x07"));
  r.SetLive(LinesFromText("live \x1b[H\x1b[2Kx\x9b" "2J"), Caret{});
  std::string frame = r.Frame();
  term.Feed(frame);
  EXPECT_FALSE(ClearsScreenOrScrollback(frame));
  EXPECT_EQ(frame.find("\x1b]"), std::string::npos);
  EXPECT_EQ(term.Row(0), "keep me");
  EXPECT_EQ(term.Row(1), "evil\u241b[2J\u241b[3J\u241b[1;1Hgone\u241b]52;c;aGk=\u2407");
  EXPECT_EQ(term.Row(2), "live \u241b[H\u241b[2Kx\ufffd2J");
}

TEST(TuiInlineRenderer, ALongCommittedLineIsWrappedByTheTerminalNotPadded) {
  VtermScreen term(10, 30);
  InlineRenderer r(30, 10);
  std::string longline;
  for (int i = 0; i < 12; ++i) longline += "word" + std::to_string(i) + " ";
  longline.pop_back();
  r.Commit({Text(longline), Text("after")});
  r.SetLive({Text("footer")}, Caret{});
  std::string frame = r.Frame();
  term.Feed(frame);
  // Written once, as one logical line: no row breaks or spaces inserted.
  EXPECT_NE(frame.find(longline + "\r\n"), std::string::npos);
  auto trimmed = [](std::string s) {
    while (!s.empty() && s.back() == ' ') s.pop_back();
    return s;
  };
  EXPECT_EQ(term.Row(0), trimmed(longline.substr(0, 30)));
  EXPECT_EQ(term.Row(1), trimmed(longline.substr(30, 30)));
  EXPECT_EQ(term.Row(2), longline.substr(60));
  EXPECT_EQ(term.Row(3), "after");
  EXPECT_EQ(term.Row(4), "footer");
}

// With a scroll region or without.
TEST(TuiInlineRenderer, AStreamTallerThanTheScreenKeepsTheFooterAndCommitsWhole) {
  for (int variant = 0; variant < 2; ++variant) {
    bool region = variant & 1;
    SCOPED_TRACE(region ? "scroll region" : "no scroll region");
    VtermScreen term(12, 40);
    InlineRenderer r(40, 12);
    r.set_scroll_region(region);
    std::string block;
    for (int i = 0; i < 50; ++i) {
      block += "line " + std::to_string(i) + "\n";
      r.SetLive(Live(block, "", "footer"),
                Caret{.line = static_cast<size_t>(i + 2), .column = 2, .visible = true});
      term.Feed(r.Frame());
      // The footer is the region's last row; once the region fills the
      // screen, the screen's last row.
      auto rows = term.ScreenRows();
      size_t footer = std::min<size_t>(static_cast<size_t>(i) + 3, 11);
      ASSERT_EQ(rows[footer], "footer") << i;
      ASSERT_EQ(rows[footer - 1], ">") << i;
    }
    block.pop_back();
    r.Commit(LinesFromText(block));
    r.SetLive(Live("", "", "footer"), Caret{.line = 0, .column = 2, .visible = true});
    term.Feed(r.Frame());
    auto counts = CountLines(term.Transcript(), "line ");
    // The lines that were on screen while streaming were pushed to the
    // scrollback by its growth (as in any terminal); the committed block then
    // holds every line once more, in order, directly above the live region.
    auto transcript = term.Transcript();
    ASSERT_GE(transcript.size(), 52u);
    for (int i = 0; i < 50; ++i) {
      EXPECT_EQ(transcript[transcript.size() - 52 + static_cast<size_t>(i)], "line " + std::to_string(i));
    }
    EXPECT_EQ(counts.size(), 50u);
    EXPECT_FALSE(ClearsScreenOrScrollback(term.written()));
    EXPECT_EQ(term.Cursor().row, 10);
    EXPECT_EQ(term.Cursor().col, 2);
  }
}

// A stream under which the editor and footer stay, on a terminal that keeps
// what a scroll region scrolls off: once the live region reaches the
// screen's bottom, each new row is a line feed at the bottom of a region
// over the rows above the editor; the editor and footer are never written
// again, nothing is inserted, and the scrollback gets every line once, in
// order, after the shell's lines that were on the screen before.
TEST(TuiInlineRenderer, AScrollRegionScrollsTheStreamAndTheRowsBelowNeverMove) {
  VtermScreen term(10, 40);
  for (int i = 0; i < 4; ++i) term.Feed("$ shell " + std::to_string(i) + "\r\n");
  InlineRenderer r(40, 10);
  r.set_scroll_region(true);
  auto live = [](std::string_view streaming) {
    auto l = Live(streaming, "", "footer");
    return l;
  };
  auto caret = [](size_t line) { return Caret{.line = line, .column = 2, .visible = true}; };
  r.SetLive(live(""), caret(0));
  term.Feed(r.Frame());
  std::string streamed;
  size_t first_region_frame = 0;
  std::string after;  // the bytes once the region is in use
  for (int i = 0; i < 30; ++i) {
    for (const std::string& piece : {std::string("row "), std::to_string(i) + " of", std::string(" it\n")}) {
      streamed += piece;
      // Finished lines are committed; the unfinished one is live.
      size_t nl = streamed.rfind('\n');
      if (nl != std::string::npos) {
        r.Commit(LinesFromText(streamed.substr(0, nl)));
        streamed.erase(0, nl + 1);
      }
      r.SetLive(live(streamed), caret(streamed.empty() ? 0 : 1));
      std::string frame = r.Frame();
      term.Feed(frame);
      if (first_region_frame == 0 && frame.find("\x1b[1;8r") != std::string::npos) first_region_frame = i + 1;
      if (first_region_frame != 0) after += frame;
      auto rows = term.ScreenRows();
      auto footer = std::find(rows.begin(), rows.end(), "footer");
      ASSERT_NE(footer, rows.end()) << i;
      ASSERT_EQ(std::count(rows.begin(), rows.end(), "footer"), 1) << i;
      ASSERT_EQ(*(footer - 1), ">") << i;
    }
  }
  // Not before the live region is surely at the screen's bottom (it started
  // below the shell's lines, at an unknown row).
  ASSERT_GT(first_region_frame, 1u);
  EXPECT_EQ(after.find("footer"), std::string::npos) << "the footer was written again";
  EXPECT_EQ(after.find("\x1b[L"), std::string::npos) << "rows were inserted";
  EXPECT_EQ(after.find("\x1b[?25l"), std::string::npos) << "no frame had to hide the cursor";
  EXPECT_GE(r.stats().region_scrolls, 20u);
  auto t = term.Transcript();
  std::vector<std::string> expect;
  for (int i = 0; i < 4; ++i) expect.push_back("$ shell " + std::to_string(i));
  for (int i = 0; i < 30; ++i) expect.push_back("row " + std::to_string(i) + " of it");
  expect.push_back(">");
  expect.push_back("footer");
  EXPECT_EQ(t, expect);
  EXPECT_FALSE(ClearsScreenOrScrollback(term.written()));
  // The cursor is at the caret after every frame (checked for each frame
  // in TuiCaret.*), and goes where the caret goes.
  EXPECT_EQ(term.Cursor().row, 8);
  EXPECT_EQ(term.Cursor().col, 2);
  r.SetLive(Live("", "x", "footer"), Caret{.line = 0, .column = 3, .visible = true});
  term.Feed(r.Frame());
  EXPECT_EQ(term.Cursor().row, 8);
  EXPECT_EQ(term.Cursor().col, 3);
  // Leaving takes the region off (the cursor saved around it), and a line
  // feed at the bottom scrolls the whole screen again.
  std::string bye = r.Finish();
  EXPECT_NE(bye.find("\x1b" "7" "\x1b[r" "\x1b" "8"), std::string::npos);
  term.Feed(bye);
  term.Feed("$ after\r\n");
  t = term.Transcript();
  ASSERT_GE(t.size(), 3u);
  EXPECT_EQ(t[t.size() - 2], "footer");
  EXPECT_EQ(t.back(), "$ after");
}

// A redraw of the whole region (here a new width, on a terminal that kept
// its scroll region over the resize) takes the region off before it writes:
// a line feed at the region's bottom would scroll the rows above the tail
// instead of reaching it.
TEST(TuiInlineRenderer, AFullRedrawTakesTheScrollRegionOffFirst) {
  VtermScreen term(10, 40);
  InlineRenderer r(40, 10);
  r.set_scroll_region(true);
  for (int i = 0; i < 20; ++i) {
    r.Commit({Text("row " + std::to_string(i))});
    r.SetLive(Live("row " + std::to_string(i + 1) + " so far", "", "footer"),
              Caret{.line = 1, .column = 2, .visible = true});
    term.Feed(r.Frame());
  }
  ASSERT_GT(r.stats().region_scrolls, 0u);
  r.Resize(39, 10);  // the terminal's margins are left as they were
  r.SetLive(Live("row 20 so far, and more", "", "footer 2"),
            Caret{.line = 1, .column = 2, .visible = true});
  std::string frame = r.Frame();
  term.Feed(frame);
  EXPECT_LT(frame.find("\x1b[r"), frame.find("\x1b[J")) << ::testing::PrintToString(frame);
  auto rows = term.ScreenRows();
  EXPECT_EQ(rows[9], "footer 2");
  EXPECT_EQ(rows[8], ">");
  EXPECT_EQ(rows[7], "row 20 so far, and more");
  EXPECT_EQ(rows[6], "row 19");
  auto counts = CountLines(term.Transcript(), "row ");
  for (const auto& [line, n] : counts) EXPECT_EQ(n, 1) << line;
}

// The same stream where the terminal is not known to keep the lines: no
// scroll region, ever; rows are made at the bottom and inserted.
TEST(TuiInlineRenderer, WithoutAScrollRegionTheStreamInsertsRows) {
  VtermScreen term(10, 40);
  InlineRenderer r(40, 10);
  std::string written;
  for (int i = 0; i < 30; ++i) {
    r.Commit({Text("row " + std::to_string(i))});
    r.SetLive(Live("row " + std::to_string(i + 1) + " so far", "", "footer"),
              Caret{.line = 1, .column = 2, .visible = true});
    std::string frame = r.Frame();
    written += frame;
    term.Feed(frame);
  }
  EXPECT_FALSE(SetsAScrollRegion(written));
  EXPECT_EQ(r.stats().region_scrolls, 0u);
  EXPECT_NE(written.find("\x1b[L"), std::string::npos);
  auto t = term.Transcript();
  ASSERT_EQ(t.size(), 33u);
  for (int i = 0; i < 30; ++i) EXPECT_EQ(t[static_cast<size_t>(i)], "row " + std::to_string(i));
  EXPECT_EQ(t[30], "row 30 so far");
}

TEST(TuiInlineRenderer, ResizesNeitherEraseNorDuplicateHistory) {
  VtermScreen term(30, 100);
  InlineRenderer r(100, 30);
  int committed = 0;
  for (int round = 0; round < 50; ++round) {
    int cols = 40 + (round * 37) % 61;  // 40..100
    int rows = 12 + (round * 7) % 19;   // 12..30
    term.Resize(rows, cols);
    r.Resize(cols, rows);
    for (int k = 0; k < 5; ++k) {
      r.SetLive(Live("partial " + std::to_string(k), "typing", "footer " + std::to_string(round)),
                Caret{.line = 1, .column = 8, .visible = true});
      term.Feed(r.Frame());
    }
    r.Commit({Text("msg " + std::to_string(committed++))});
    r.SetLive(Live("", "typing", "footer " + std::to_string(round)), Caret{.line = 0, .column = 8, .visible = true});
    term.Feed(r.Frame());
    auto screen = term.ScreenRows();
    auto last = std::find(screen.begin(), screen.end(), "msg " + std::to_string(committed - 1));
    ASSERT_NE(last, screen.end()) << "round " << round;
    ASSERT_EQ(*(last + 1), "> typing") << "round " << round;
    ASSERT_EQ(*(last + 2), "footer " + std::to_string(round)) << "round " << round;
  }
  auto counts = CountLines(term.Transcript(), "msg ");
  ASSERT_EQ(counts.size(), 50u);
  for (const auto& [line, n] : counts) EXPECT_EQ(n, 1) << line;
  EXPECT_FALSE(ClearsScreenOrScrollback(term.written()));
}

TEST(TuiInlineRenderer, CommitsAboveTheRegionAreInsertedNotRedrawn) {
  VtermScreen term(8, 40);
  InlineRenderer r(40, 8);
  // Fill the screen so that the insert has to scroll.
  for (int i = 0; i < 6; ++i) r.Commit({Text("old " + std::to_string(i))});
  r.SetLive({Text("> edit"), Text("footer")}, Caret{.line = 0, .column = 3, .visible = true});
  term.Feed(r.Frame());
  r.Commit({Text("new 1"), Text("new 2"), Text("new 3")});
  std::string frame = r.Frame();
  term.Feed(frame);
  EXPECT_NE(frame.find("\x1b[3L"), std::string::npos) << ::testing::PrintToString(frame);
  EXPECT_EQ(frame.find("\x1b[J"), std::string::npos) << "the region is not redrawn";
  EXPECT_EQ(frame.find("footer"), std::string::npos);
  auto t = term.Transcript();
  std::vector<std::string> expect = {"old 0", "old 1", "old 2", "old 3", "old 4", "old 5",
                                     "new 1", "new 2", "new 3", "> edit", "footer"};
  EXPECT_EQ(t, expect);
  EXPECT_EQ(term.Cursor().row, 6);
  EXPECT_EQ(term.Cursor().col, 3);
}

TEST(TuiInlineRenderer, FinishLeavesTheCursorBelowTheLiveRegion) {
  VtermScreen term(10, 40);
  InlineRenderer r(40, 10);
  r.SetLive({Text("a"), Text("> edit"), Text("footer")}, Caret{.line = 1, .column = 3, .visible = true});
  term.Feed(r.Frame());
  std::string bye = r.Finish();
  term.Feed(bye);
  EXPECT_EQ(term.Cursor().row, 3);
  EXPECT_EQ(term.Cursor().col, 0);
  EXPECT_NE(bye.find("\x1b[?25h"), std::string::npos);
  EXPECT_EQ(term.Row(2), "footer");
}

}  // namespace
}  // namespace sepp::front::tui
