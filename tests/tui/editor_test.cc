// The prompt editor: Emacs keys, newline keys from every encoding, grapheme-
// wise movement, the kill ring, paste, and the caret it hands the renderer.
#include "front/tui/editor.h"

#include <gtest/gtest.h>

#include "tui/vterm_screen.h"

namespace sepp::front::tui {
namespace {

// Types bytes as a terminal would send them; returns the last action.
Editor::Action Type(Editor* ed, std::string_view bytes) {
  KeyDecoder d;
  auto events = d.Feed(bytes);
  auto rest = d.Flush();
  events.insert(events.end(), rest.begin(), rest.end());
  Editor::Action last = Editor::Action::kNone;
  for (const auto& e : events) last = ed->Handle(e);
  return last;
}

TEST(TuiEditor, EnterSubmitsAndTheNewlineKeysInsertNewlines) {
  Editor ed;
  EXPECT_EQ(Type(&ed, "one"), Editor::Action::kNone);
  // kitty Shift+Enter, modifyOtherKeys Shift+Enter, Ctrl+J.
  Type(&ed, "\x1b[13;2utwo\x1b[27;2;13~three\nfour");
  EXPECT_EQ(ed.text(), "one\ntwo\nthree\nfour");
  EXPECT_EQ(Type(&ed, "\r"), Editor::Action::kSubmit);
  EXPECT_EQ(Type(&ed, "\x1b\r"), Editor::Action::kAltEnter);
  EXPECT_EQ(Type(&ed, "\x1b[13;3u"), Editor::Action::kAltEnter);
  EXPECT_EQ(ed.Take(), "one\ntwo\nthree\nfour");
  EXPECT_TRUE(ed.empty());
  EXPECT_EQ(Type(&ed, "\x04"), Editor::Action::kEof) << "Ctrl+D on an empty editor";
  EXPECT_EQ(Type(&ed, "\x03"), Editor::Action::kInterrupt);
  EXPECT_EQ(Type(&ed, "\x1b"), Editor::Action::kEscape);
}

TEST(TuiEditor, EmacsKeysMoveAndKill) {
  Editor ed;
  Type(&ed, "hello brave world");
  Type(&ed, "\x01");  // Ctrl+A
  EXPECT_EQ(ed.cursor(), 0u);
  Type(&ed, "\x1b" "f\x1b" "f");  // Alt+F twice: after "brave"
  EXPECT_EQ(ed.cursor(), 11u);
  Type(&ed, "\x0b");  // Ctrl+K: kill to the end
  EXPECT_EQ(ed.text(), "hello brave");
  Type(&ed, "\x17");  // Ctrl+W: kill the word before
  EXPECT_EQ(ed.text(), "hello ");
  Type(&ed, "\x19");  // Ctrl+Y yanks it back
  EXPECT_EQ(ed.text(), "hello brave");
  Type(&ed, "\x15");  // Ctrl+U
  EXPECT_EQ(ed.text(), "");
  Type(&ed, "ab\x02\x02X\x05Y\x08");  // Ctrl+B twice, X, Ctrl+E, Y, Backspace
  EXPECT_EQ(ed.text(), "Xab");
  Type(&ed, "\x01\x04");  // Ctrl+A, Ctrl+D deletes forward
  EXPECT_EQ(ed.text(), "ab");
}

TEST(TuiEditor, MovesByGraphemeAndKeepsTheColumnAcrossLines) {
  Editor ed;
  Type(&ed, "e\u0301\U0001F468\u200d\U0001F469x");  // é (combining), a ZWJ pair, x
  Type(&ed, "\x7f");
  EXPECT_EQ(ed.text(), "e\u0301\U0001F468\u200d\U0001F469");
  Type(&ed, "\x7f");  // removes the whole ZWJ cluster
  EXPECT_EQ(ed.text(), "e\u0301");
  Type(&ed, "\x1b[D");
  EXPECT_EQ(ed.cursor(), 0u) << "one Left crosses the combined é";
  ed.SetText("abcdef\nxy\n\u4e2d\u6587\u5b57");
  Type(&ed, "\x1b[A\x1b[A");  // Up twice from the end (column 6)
  EXPECT_EQ(ed.cursor(), 6u);
  Type(&ed, "\x1b[D\x1b[D\x1b[D\x1b[B");  // column 3, then down: "xy" is shorter
  EXPECT_EQ(ed.cursor(), 9u);
  Type(&ed, "\x1b[B");  // column 2 of "中文字" is after 中
  EXPECT_EQ(ed.cursor(), 13u);
}

TEST(TuiEditor, APasteIsTextEvenWithEnterAndControlsInside) {
  Editor ed;
  EXPECT_EQ(Type(&ed, "\x1b[200~line 1\r\nline 2\rline 3\x03\x1b[201~"), Editor::Action::kNone);
  EXPECT_EQ(ed.text(), "line 1\nline 2\nline 3\x03");
  // Rendered, the control is visible, not sent.
  Caret caret;
  auto lines = ed.Render(0, &caret);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[2].PlainText(), "  line 3\u2403");
}

TEST(TuiEditor, TheHardwareCursorSitsAtTheCaret) {
  Editor ed;
  ed.SetText("first\n\u4e2d\tx");  // a tab as pasted (the Tab key completes)
  Type(&ed, "\x1b[D");  // before x
  Caret caret;
  auto lines = ed.Render(1, &caret);
  EXPECT_EQ(caret.line, 2u);
  EXPECT_EQ(caret.column, 8);  // "  " + 中 (2) + tab to column 8
  testing::VtermScreen term(10, 40);
  InlineRenderer r(40, 10);
  std::vector<Line> live = {Line{}.Add("streaming")};
  for (auto& l : lines) live.push_back(std::move(l));
  r.SetLive(std::move(live), caret);
  term.Feed(r.Frame());
  EXPECT_EQ(term.Row(1), "> first");
  EXPECT_EQ(term.Row(2), "  \u4e2d    x");
  EXPECT_EQ(term.Cursor().row, 2);
  EXPECT_EQ(term.Cursor().col, 8);
}

}  // namespace
}  // namespace sepp::front::tui
