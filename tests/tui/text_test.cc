// The cell/line model: widths of grapheme clusters, the sanitizer that keeps
// outside text from driving the terminal, and wrapping to screen rows.
#include "front/tui/text.h"

#include <gtest/gtest.h>

#include <random>

namespace sepp::front::tui {
namespace {

TEST(TuiText, WidthsCountGraphemeClustersNotBytes) {
  EXPECT_EQ(DisplayWidth("hello"), 5);
  EXPECT_EQ(DisplayWidth("h\u00e9llo"), 5);          // precomposed é
  EXPECT_EQ(DisplayWidth("he\u0301llo"), 5);         // e + combining acute
  EXPECT_EQ(DisplayWidth("\u4e2d\u6587"), 4);        // CJK: two columns each
  EXPECT_EQ(DisplayWidth("\U0001F600"), 2);          // emoji
  EXPECT_EQ(DisplayWidth("\u2764\ufe0f"), 2);        // heart + VS16
  EXPECT_EQ(DisplayWidth("\U0001F1E9\U0001F1EA"), 2);  // a flag: two regional indicators
  // A family: four emoji joined by ZWJ are one cluster of two columns.
  EXPECT_EQ(DisplayWidth("\U0001F468\u200d\U0001F469\u200d\U0001F467\u200d\U0001F466"), 2);
  EXPECT_EQ(NextGraphemeLength("e\u0301x"), 3u);
}

TEST(TuiText, ControlCharactersBecomeVisibleStandIns) {
  // ESC [ 2 J would clear the screen; it must arrive as text.
  std::string clean = Sanitize("a\x1b[2Jb\x07\x7f");
  EXPECT_EQ(clean, "a\u241b[2Jb\u2407\u2421");
  EXPECT_EQ(clean.find('\x1b'), std::string::npos);
  // C1 controls (CSI as U+009B) and invalid UTF-8 become U+FFFD.
  EXPECT_EQ(Sanitize("x\u009b2Jy"), "x\ufffd2Jy");
  EXPECT_EQ(Sanitize("x\x9b" "2J\xff\xc0y"), "x\ufffd2J\ufffd\ufffdy");
  // A tab goes to the next multiple of 8, counted in columns.
  EXPECT_EQ(Sanitize("ab\tc"), "ab      c");
  EXPECT_EQ(Sanitize("\u4e2d\tc"), "\u4e2d      c");
  EXPECT_EQ(Sanitize("\tc", 3), "     c");
  // CR LF is a newline; a lone CR is shown.
  auto lines = LinesFromText("one\r\ntwo\rthree\n");
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0].PlainText(), "one");
  EXPECT_EQ(lines[1].PlainText(), "two\u240dthree");
  EXPECT_EQ(lines[2].PlainText(), "");
}

TEST(TuiText, HostileBytesNeverLeaveAControlInTheOutput) {
  std::mt19937 rng(7);
  for (int round = 0; round < 2000; ++round) {
    std::string raw(static_cast<size_t>(rng() % 64), '\0');
    for (auto& c : raw) c = static_cast<char>(rng() % 256);
    for (const auto& line : LinesFromText(raw)) {
      std::string out;
      for (const auto& row : Wrap(line, 1 + static_cast<int>(rng() % 20))) AppendEncoded(row, &out);
      for (unsigned char c : out) ASSERT_TRUE(c >= 0x20 && c != 0x7f) << "round " << round;
      // What is written is valid UTF-8 (the sanitizer re-encodes it).
      ASSERT_EQ(Sanitize(out), out) << "round " << round;
    }
  }
}

TEST(TuiText, WrapBreaksAtSpacesWithoutPadding) {
  Line line;
  line.Add("the quick brown fox jumps");
  auto rows = Wrap(line, 10);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].PlainText(), "the quick");
  EXPECT_EQ(rows[1].PlainText(), "brown fox");
  EXPECT_EQ(rows[2].PlainText(), "jumps");
  // A word longer than the width is cut between clusters.
  Line word;
  word.Add("abcdefghij");
  rows = Wrap(word, 4);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[2].PlainText(), "ij");
  // A wide cluster that does not fit moves to the next row.
  Line wide;
  wide.Add("abc\u4e2d");
  rows = Wrap(wide, 4);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].PlainText(), "abc");
  EXPECT_EQ(rows[1].PlainText(), "\u4e2d");
  // A combining mark stays with its base across the break.
  Line accent;
  accent.Add("abce\u0301f");
  rows = Wrap(accent, 4);
  EXPECT_EQ(rows[0].PlainText(), "abce\u0301");
  EXPECT_EQ(Wrap(Line{}, 5).size(), 1u);
}

TEST(TuiText, WrapKeepsStylesAndEveryRowFits) {
  Line line;
  line.Add("bold words ", Style{.bold = true}).Add("then plain text that runs on");
  for (int width = 1; width <= 30; ++width) {
    std::string joined;
    for (const auto& row : Wrap(line, width)) {
      EXPECT_LE(row.Width(), width);
      joined += row.PlainText();
    }
    // Only break spaces are dropped.
    std::string expected;
    for (char c : line.PlainText()) if (c != ' ') expected += c;
    std::string got;
    for (char c : joined) if (c != ' ') got += c;
    EXPECT_EQ(got, expected) << width;
  }
  auto rows = Wrap(line, 8);
  EXPECT_TRUE(rows[0].spans[0].style.bold);
  std::string out;
  AppendEncoded(rows[0], &out);
  EXPECT_EQ(out, "\x1b[1mbold\x1b[m");
}

// SGR only where the style changes, one sequence for a reset and a new style,
// and a link open across the spans it covers; the row ends in the default
// rendition with no link open (the next write starts from a known state).
TEST(TuiText, EncodingChangesTheRenditionOnlyBetweenStyles) {
  Style dim, bold;
  dim.dim = true;
  bold.bold = true;
  Line line;
  line.spans = {{"a", Style{}, ""}, {"b", dim, "https://x.test/"}, {"c", bold, "https://x.test/"},
                {"d", bold, ""}, {"e", Style{}, ""}};
  std::string out;
  AppendEncoded(line, &out);
  EXPECT_EQ(out, "a\x1b]8;;https://x.test/\x1b\\\x1b[2mb\x1b[0;1mc\x1b]8;;\x1b\\d\x1b[me");
  out.clear();
  line.spans = {{"x", bold, "https://x.test/"}};
  AppendEncoded(line, &out);
  EXPECT_EQ(out, "\x1b]8;;https://x.test/\x1b\\\x1b[1mx\x1b[m\x1b]8;;\x1b\\");
}

}  // namespace
}  // namespace sepp::front::tui
