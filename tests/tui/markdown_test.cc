// Markdown in the terminal UI, drawn into libvterm: every element as the
// screen shows it (text and attributes), tables at odd widths and with wide
// characters, links as OSC 8, streaming that commits each finished block
// once, and hostile Markdown (deep nesting, huge tables, controls, escape
// injection through link targets) that cannot break the screen.
#include "front/tui/markdown.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "front/tui/chat_view.h"
#include "front/tui/inline_renderer.h"
#include "tui/vterm_screen.h"

namespace sepp::front::tui {
namespace {

using testing::VtermScreen;

// source rendered at the screen's width, committed, and drawn.
struct Drawn {
  VtermScreen term;
  std::vector<std::string> rows;  // the transcript
  explicit Drawn(std::string_view source, int cols = 80, int rows_n = 40) : term(rows_n, cols) {
    InlineRenderer r(cols, rows_n);
    r.Commit(RenderMarkdown(source, cols, Theme::Dark()));
    term.Feed(r.Frame());
    rows = term.Transcript();
  }
  // The screen row holding text, or -1.
  int RowOf(std::string_view text) const {
    auto screen = term.ScreenRows();
    for (size_t i = 0; i < screen.size(); ++i) {
      if (screen[i].find(text) != std::string::npos) return static_cast<int>(i);
    }
    return -1;
  }
  // The cell at the first occurrence of text (byte column == cell column for ASCII rows).
  VTermScreenCell CellAt(std::string_view text) const {
    int row = RowOf(text);
    EXPECT_GE(row, 0) << text;
    auto col = static_cast<int>(term.Row(row).find(text));
    return term.Cell(row, col);
  }
};

bool ClearsScreen(const std::string& bytes) {
  return bytes.find("\x1b[2J") != std::string::npos || bytes.find("\x1b[3J") != std::string::npos;
}

TEST(TuiMarkdown, HeadingsLoseTheirMarksAndAreBold) {
  Drawn d("# Title\n\nsome text\n\n### Third level\n");
  EXPECT_EQ(d.rows, (std::vector<std::string>{"Title", "", "some text", "", "Third level"}));
  EXPECT_TRUE(d.CellAt("Title").attrs.bold);
  EXPECT_TRUE(d.CellAt("Title").attrs.underline) << "level 1 is underlined";
  EXPECT_TRUE(d.CellAt("Third").attrs.bold);
  EXPECT_FALSE(d.CellAt("some").attrs.bold);
}

TEST(TuiMarkdown, EmphasisStrongStrikeAndInlineCode) {
  Drawn d("plain *slanted* **heavy** ~~gone~~ `code()` end\n");
  EXPECT_EQ(d.rows, (std::vector<std::string>{"plain slanted heavy gone code() end"}));
  EXPECT_FALSE(d.CellAt("plain").attrs.italic);
  EXPECT_TRUE(d.CellAt("slanted").attrs.italic);
  EXPECT_TRUE(d.CellAt("heavy").attrs.bold);
  EXPECT_TRUE(d.CellAt("gone").attrs.strike);
  VTermScreenCell code = d.CellAt("code()");
  EXPECT_FALSE(VTERM_COLOR_IS_DEFAULT_FG(&code.fg)) << "inline code is coloured";
  VTermScreenCell end = d.CellAt("end");
  EXPECT_TRUE(VTERM_COLOR_IS_DEFAULT_FG(&end.fg));
}

TEST(TuiMarkdown, FencedCodeKeepsItsFencesAndIsHighlighted) {
  Drawn d("```python\ndef answer():\n    return \"42\"  # why\n```\n");
  EXPECT_EQ(d.rows, (std::vector<std::string>{"```python", "def answer():", "    return \"42\"  # why", "```"}));
  VTermScreenCell def = d.CellAt("def");
  VTermScreenCell name = d.CellAt("answer");
  VTermScreenCell str = d.CellAt("\"42\"");
  EXPECT_FALSE(VTERM_COLOR_IS_DEFAULT_FG(&def.fg)) << "keyword";
  EXPECT_FALSE(VTERM_COLOR_IS_DEFAULT_FG(&str.fg)) << "string";
  EXPECT_FALSE(vterm_color_is_equal(&def.fg, &str.fg));
  EXPECT_FALSE(vterm_color_is_equal(&def.fg, &name.fg));
  EXPECT_TRUE(d.CellAt("# why").attrs.italic) << "comment";
}

TEST(TuiMarkdown, ListsNestedOrderedAndTasks) {
  Drawn d("- apples\n- pears\n  - green\n  - red\n\n3. three\n4. four\n\n- [x] done\n- [ ] todo\n");
  EXPECT_EQ(d.rows, (std::vector<std::string>{"\u2022 apples", "\u2022 pears", "  \u25e6 green", "  \u25e6 red", "",
                                              "3. three", "4. four", "", "\u2022 \u2611 done", "\u2022 \u2610 todo"}));
}

TEST(TuiMarkdown, QuotesHaveABarAndItalics) {
  Drawn d("> quoted words\n> more\n>\n> > inner\n");
  EXPECT_EQ(d.rows, (std::vector<std::string>{"\u2502 quoted words", "\u2502 more", "\u2502", "\u2502 \u2502 inner"}));
  EXPECT_TRUE(d.CellAt("quoted").attrs.italic);
}

TEST(TuiMarkdown, RuleAndHtml) {
  Drawn d("above\n\n---\n\n<div>raw</div>\n", 20);
  EXPECT_EQ(d.rows[2], std::string(20 * 0, ' ') + [] {
    std::string r;
    for (int i = 0; i < 20; ++i) r += "\u2500";
    return r;
  }());
  EXPECT_EQ(d.rows[4], "<div>raw</div>");
}

TEST(TuiMarkdown, TablesHaveBordersAlignmentAndFitTheWidth) {
  const char* table = "| name | n |\n|:-----|--:|\n| apple | 1 |\n| kiwi | 22 |\n";
  Drawn d(table);
  EXPECT_EQ(d.rows, (std::vector<std::string>{
                        "\u250c\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u252c\u2500\u2500\u2500\u2500\u2500\u2510",
                        "\u2502 name  \u2502   n \u2502",
                        "\u251c\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u253c\u2500\u2500\u2500\u2500\u2500\u2524",
                        "\u2502 apple \u2502   1 \u2502",
                        "\u2502 kiwi  \u2502  22 \u2502",
                        "\u2514\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2534\u2500\u2500\u2500\u2500\u2500\u2518"}));
  EXPECT_TRUE(d.CellAt("name").attrs.bold) << "header row";
}

TEST(TuiMarkdown, TableCellsWrapAtOddWidthsWithWideCharacters) {
  std::string table = "| 名前 | description |\n|---|---|\n| 東京都 | a long description that has to wrap |\n";
  for (int width : {17, 23, 31, 47}) {
    Drawn d(table, width);
    for (const auto& row : d.rows) {
      EXPECT_LE(DisplayWidth(row), width) << width << ": " << row;
      if (row.find("\u2502") != std::string::npos) {
        EXPECT_EQ(DisplayWidth(row), DisplayWidth(d.rows[0])) << width << ": rows of one width: " << row;
      }
    }
    // Every character of the cells is there once, however they wrapped.
    std::u32string chars;
    for (const auto& row : d.rows) {
      for (size_t i = 0; i < row.size();) {
        size_t n = NextGraphemeLength(std::string_view(row).substr(i));
        std::string g = row.substr(i, n);
        i += n;
        if (g == " " || g.find_first_of("\xe2") == 0) continue;  // padding and box drawing (U+25xx)
        chars += static_cast<char32_t>(g.size() == 1 ? g[0] : (g[0] << 16) | (g[1] << 8) | g[2]);
      }
    }
    std::u32string expected;
    for (std::string g : {"名", "前", "東", "京", "都"}) expected += static_cast<char32_t>((g[0] << 16) | (g[1] << 8) | g[2]);
    for (char c : std::string("descriptionalongdescriptionthathastowrap")) expected += static_cast<char32_t>(c);
    std::sort(chars.begin(), chars.end());
    std::sort(expected.begin(), expected.end());
    EXPECT_EQ(chars, expected) << width;
  }
}

TEST(TuiMarkdown, ATableTooNarrowForAGridShowsItsMarkdown) {
  std::string table = "| a | b | c | d |\n|---|---|---|---|\n| 1 | 2 | 3 | 4 |\n";
  Drawn d(table, 12);
  // Written as the logical lines of the source (the terminal wraps them).
  EXPECT_NE(d.term.written().find("| a | b | c | d |\r\n|---|---|---|---|\r\n| 1 | 2 | 3 | 4 |"), std::string::npos);
  EXPECT_EQ(d.term.written().find("\u2502"), std::string::npos) << "no grid";
}

TEST(TuiMarkdown, LinksAreOsc8WithTheTargetShown) {
  VtermScreen term(10, 80);
  InlineRenderer r(80, 10);
  r.Commit(RenderMarkdown("see [the docs](https://example.com/a?b=c) and <https://x.org>\n", 80, Theme::Dark()));
  std::string bytes = r.Frame();
  term.Feed(bytes);
  EXPECT_EQ(term.Transcript()[0], "see the docs (https://example.com/a?b=c) and https://x.org");
  EXPECT_NE(bytes.find("\x1b]8;;https://example.com/a?b=c\x1b\\"), std::string::npos);
  EXPECT_NE(bytes.find("\x1b]8;;https://x.org\x1b\\"), std::string::npos);
  EXPECT_NE(bytes.find("\x1b]8;;\x1b\\"), std::string::npos) << "the link is closed";
}

TEST(TuiMarkdown, PlainTextHasNoPaddingOrInsertedBreaks) {
  std::string para(150, 'x');
  for (size_t i = 7; i < para.size(); i += 8) para[i] = ' ';
  VtermScreen term(10, 40);
  InlineRenderer r(40, 10);
  r.Commit(RenderMarkdown("- " + para + "\n", 40, Theme::Dark()));
  std::string bytes = r.Frame();
  term.Feed(bytes);
  // One logical line: the terminal wraps it, a selection copies it whole.
  EXPECT_NE(bytes.find(para), std::string::npos);
  for (const auto& row : term.Transcript()) EXPECT_EQ(row.find("  x"), std::string::npos) << row;
}

// What a chat view draws for an answer streamed in pieces of n bytes.
struct Streamed {
  VtermScreen term;
  InlineRenderer renderer;
  ChatView view{&renderer};
  Editor editor;
  Streamed(int cols, int rows) : term(rows, cols), renderer(cols, rows) { view.SetFooter({"/p", "m"}); }
  void Send(const agent::Event& e) {
    view.OnEvent(e);
    view.Refresh(editor);
    term.Feed(renderer.Frame());
  }
  void Stream(std::string_view answer, size_t piece) {
    agent::Event delta(agent::EventType::kMessageDelta);
    for (size_t i = 0; i < answer.size(); i += piece) {
      delta.text = std::string(answer.substr(i, piece));
      Send(delta);
    }
    Send(agent::Event(agent::EventType::kTurnFinished));
  }
};

const char* kDocument =
    "# Plan\n\nFirst a paragraph with **bold** words\nthat goes on for a second line.\n\n"
    "- one item\n- two items\n\n```rust\nfn main() {\n    let x = 1; // note\n}\n```\n\n"
    "| k | v |\n|---|---|\n| a | 1 |\n\n> a quote\n\nThe end.";

TEST(TuiMarkdown, AStreamLooksLikeTheWholeDocumentWhateverThePieces) {
  std::vector<std::string> whole;
  {
    Drawn d(kDocument, 60);
    whole = d.rows;
  }
  for (size_t piece : {1ul, 3ul, 7ul, 64ul, 4096ul}) {
    Streamed s(60, 40);
    s.Stream(kDocument, piece);
    auto t = s.term.Transcript();
    // The live region (editor, footer) follows; the answer and one empty line first.
    ASSERT_GE(t.size(), whole.size()) << piece;
    for (size_t i = 0; i < whole.size(); ++i) EXPECT_EQ(t[i], whole[i]) << "piece " << piece << " row " << i;
    EXPECT_FALSE(ClearsScreen(s.term.written()));
  }
}

// Generated documents (a fixed seed) of every block kind, streamed in pieces
// of 1 to 13 bytes: the scrollback is the whole document's rendering.
TEST(TuiMarkdown, GeneratedDocumentsStreamLikeTheWhole) {
  uint32_t seed = 12345;
  auto next = [&](uint32_t n) {
    seed = seed * 1103515245u + 12345u;
    return (seed >> 16) % n;
  };
  const char* words[] = {"alpha", "beta", "**bold**", "`code`", "gamma", "*it*", "[l](http://x.y)", "δέλτα", "東京"};
  auto sentence = [&] {
    std::string s;
    for (uint32_t i = 0, n = 2 + next(6); i < n; ++i) s += (i ? " " : "") + std::string(words[next(9)]);
    return s;
  };
  for (int doc = 0; doc < 60; ++doc) {
    std::string md;
    for (uint32_t b = 0, n = 3 + next(6); b < n; ++b) {
      switch (next(8)) {
        case 0: md += std::string(1 + next(3), '#') + " " + sentence() + "\n"; break;
        case 1:
          for (uint32_t l = 0, k = 1 + next(3); l < k; ++l) md += sentence() + "\n";
          break;
        case 2:
          for (uint32_t l = 0, k = 1 + next(4); l < k; ++l) md += std::string(next(2) * 2, ' ') + "- " + sentence() + "\n";
          break;
        case 3:
          md += "```" + std::string(next(2) ? "python" : "go") + "\n";
          for (uint32_t l = 0, k = next(4); l < k; ++l) md += "x = \"" + sentence() + "\"  # c\n";
          md += "```\n";
          break;
        case 4:
          md += "| a | b |\n|---|--:|\n";
          for (uint32_t l = 0, k = 1 + next(3); l < k; ++l) md += "| " + sentence() + " | " + std::to_string(next(999)) + " |\n";
          break;
        case 5: md += "> " + sentence() + "\n> " + sentence() + "\n"; break;
        case 6: md += "---\n"; break;
        default: md += "1. " + sentence() + "\n2. " + sentence() + "\n"; break;
      }
      md += "\n";
    }
    std::vector<std::string> whole;
    {
      Drawn d(md, 70, 60);
      whole = d.rows;
    }
    size_t piece = 1 + static_cast<size_t>(doc % 13);
    Streamed s(70, 60);
    s.Stream(md, piece);
    auto t = s.term.Transcript();
    ASSERT_GE(t.size(), whole.size()) << md;
    for (size_t i = 0; i < whole.size(); ++i) ASSERT_EQ(t[i], whole[i]) << "doc " << doc << " row " << i << "\n" << md;
  }
}

TEST(TuiMarkdown, FinishedBlocksAreWrittenOnce) {
  // Each line carries a unique word; streamed a byte at a time, each word
  // reaches the terminal exactly once: the live line grows by its new end
  // and is committed where it stands, never redrawn.
  std::string answer;
  for (int i = 0; i < 40; ++i) answer += "row w" + std::to_string(1000 + i) + "x of the answer\n";
  answer += "\n```go\n";
  for (int i = 0; i < 20; ++i) answer += "x := c" + std::to_string(2000 + i) + "z\n";
  answer += "```\n";
  Streamed s(100, 30);
  s.Stream(answer, 1);
  // The text written, without escape sequences and line breaks: a line
  // drawn again (whole, or from before its unique word) would show its word
  // twice.
  std::string w;
  const std::string& bytes = s.term.written();
  for (size_t i = 0; i < bytes.size(); ++i) {
    if (bytes[i] == '\x1b') {
      size_t j = i + 1;
      if (j < bytes.size() && bytes[j] == '[') {
        ++j;
        while (j < bytes.size() && !(bytes[j] >= '@' && bytes[j] <= '~')) ++j;
      }
      i = j;  // a two-byte escape (ESC 7, ESC M) or the CSI's final byte
      continue;
    }
    if (bytes[i] != '\r' && bytes[i] != '\n') w += bytes[i];
  }
  for (int i = 0; i < 40; ++i) {
    std::string word = "w" + std::to_string(1000 + i) + "x of the answer";
    size_t first = w.find(word);
    ASSERT_NE(first, std::string::npos) << word;
    EXPECT_EQ(w.find(word, first + 1), std::string::npos) << "a whole line was rewritten: " << word;
    auto t = s.term.Transcript();
    EXPECT_EQ(std::count(t.begin(), t.end(), "row w" + std::to_string(1000 + i) + "x of the answer"), 1);
  }
  EXPECT_GT(s.renderer.stats().committed_in_place, 50u);
}

// Widths and heights change while the stream fills the screen, with and
// without a scroll region (which a resize takes off until the region is
// known to be at the screen's bottom again: a screen of rows later).
TEST(TuiMarkdown, ResizeDuringAStreamKeepsEveryLineOnce) {
  std::string answer;
  for (int i = 0; i < 120; ++i) answer += "streamed line q" + std::to_string(100 + i) + " with words\n";
  for (bool region : {false, true}) {
    Streamed s(80, 20);
    s.renderer.set_scroll_region(region);
    agent::Event delta(agent::EventType::kMessageDelta);
    for (size_t i = 0, n = 0; i < answer.size(); i += 5, ++n) {
      if (n % 150 == 149) {
        int cols = n % 300 == 299 ? 80 : 53;
        int rows = n % 450 == 449 ? 14 : 20;
        s.term.Resize(rows, cols);
        s.renderer.Resize(cols, rows);
      }
      delta.text = answer.substr(i, 5);
      s.Send(delta);
    }
    s.Send(agent::Event(agent::EventType::kTurnFinished));
    std::string all;
    for (const auto& row : s.term.Transcript()) all += row + "\n";
    for (int i = 0; i < 120; ++i) {
      std::string line = "streamed line q" + std::to_string(100 + i) + " with words";
      size_t first = all.find(line);
      EXPECT_NE(first, std::string::npos) << line << (region ? " (scroll region)" : "");
      EXPECT_EQ(all.find(line, first + 1), std::string::npos) << "twice: " << line << (region ? " (scroll region)" : "");
    }
    EXPECT_FALSE(ClearsScreen(s.term.written()));
    if (region) EXPECT_GT(s.renderer.stats().region_scrolls, 10u) << "the region was used between the resizes";
  }
}

TEST(TuiMarkdown, ThinkingStreamsLiveAndFoldsWhenDone) {
  Streamed s(80, 20);
  agent::Event think(agent::EventType::kThinkingDelta);
  think.text = "first I consider\nthen I decide";
  s.Send(think);
  auto screen = s.term.ScreenRows();
  EXPECT_NE(std::find(screen.begin(), screen.end(), "  then I decide"), screen.end()) << "live while it streams";
  agent::Event delta(agent::EventType::kMessageDelta);
  delta.text = "the answer\n";
  s.Send(delta);
  s.Send(agent::Event(agent::EventType::kTurnFinished));
  auto t = s.term.Transcript();
  EXPECT_EQ(t[0], "\u25b8 thought for 2 lines (/view thinking expands it)");
  EXPECT_EQ(std::find(t.begin(), t.end(), "  then I decide"), t.end()) << "folded";
  EXPECT_NE(std::find(t.begin(), t.end(), "the answer"), t.end());
}

// Hostile input: nothing reaches the terminal as a control sequence, the
// layout stays within the width, and nesting costs neither stack nor time.
TEST(TuiMarkdown, HostileMarkdownCannotBreakTheScreen) {
  std::vector<std::string> inputs = {
      std::string(20000, '>') + " deep",
      std::string(20000, '[') + "x" + std::string(20000, ']'),
      [] {
        std::string s;
        for (int i = 0; i < 5000; ++i) s += "*a **b ";
        return s;
      }(),
      [] {
        std::string s;
        for (int i = 0; i < 3000; ++i) s += std::string(static_cast<size_t>(i % 40), ' ') + "- item\n";
        return s;
      }(),
      [] {
        std::string head = "|", rule = "|", row = "|";
        for (int i = 0; i < 300; ++i) head += " h" + std::to_string(i) + " |", rule += "---|", row += " c |";
        std::string s = head + "\n" + rule + "\n";
        for (int i = 0; i < 200; ++i) s += row + "\n";
        return s;
      }(),
      "text \x1b[2J\x1b[3J\x1b]0;title\x07 \x9b" "31m\r\x08 after\n",
      "[click](http://a&#27;]0;pwned&#7;&#27;[2J) [x](<http://b\x1b]52;c;AAAA\x07>) ![i](http://c&#27;\\)\n",
      "```\n\x1b[2J in code\n```\n",
      "| a\x1b[2J | b |\n|---|---|\n| \x1b]8;;http://evil\x1b\\ | c |\n",
  };
  for (const auto& input : inputs) {
    VtermScreen term(24, 60);
    InlineRenderer r(60, 24);
    auto lines = RenderMarkdown(input, 60, Theme::Dark());
    r.Commit(std::move(lines));
    std::string bytes = r.Frame();
    term.Feed(bytes);
    EXPECT_FALSE(ClearsScreen(bytes)) << input.substr(0, 40);
    // Every ESC the renderer writes starts a sequence of its own: SGR, cursor
    // moves, erase line/below, sync, cursor show/hide, or OSC 8 whose target
    // is printable ASCII.
    for (size_t at = bytes.find('\x1b'); at != std::string::npos; at = bytes.find('\x1b', at + 1)) {
      std::string_view seq = std::string_view(bytes).substr(at);
      if (seq.starts_with("\x1b]")) {
        ASSERT_TRUE(seq.starts_with("\x1b]8;;")) << "only OSC 8";
        size_t end = seq.find("\x1b\\");
        ASSERT_NE(end, std::string::npos);
        for (char c : seq.substr(5, end - 5)) ASSERT_TRUE(c > 0x20 && c < 0x7F) << "target byte " << int(c);
        at += end + 1;
        continue;
      }
      ASSERT_TRUE(seq.starts_with("\x1b[")) << "a bare ESC";
      size_t i = 2;
      while (i < seq.size() && ((seq[i] >= '0' && seq[i] <= '9') || seq[i] == ';' || seq[i] == '?')) ++i;
      ASSERT_LT(i, seq.size());
      ASSERT_NE(std::string("mGKJABCDhl").find(seq[i]), std::string::npos) << "unexpected CSI " << seq.substr(0, i + 1);
      EXPECT_FALSE(seq.substr(0, i + 1) == "\x1b[2J" || seq.substr(0, i + 1) == "\x1b[3J");
    }
    EXPECT_EQ(bytes.find('\x07'), std::string::npos) << "no BEL";
    EXPECT_EQ(bytes.find("\xc2\x9b"), std::string::npos) << "no C1 CSI";
  }
}

TEST(TuiMarkdown, TheHighlighterCarriesBlockCommentsAndStringsAcrossLines) {
  const Theme& t = Theme::Dark();
  HighlightState st;
  Line a, b, c;
  HighlightLine("c", "int x; /* starts", t, &st, &a);
  HighlightLine("c", "still comment */ return 0;", t, &st, &b);
  EXPECT_TRUE(st.open.empty());
  ASSERT_GE(b.spans.size(), 2u);
  EXPECT_EQ(b.spans[0].text, "still comment */");
  EXPECT_EQ(b.spans[0].style, t.syn_comment);
  HighlightState py;
  HighlightLine("python", "s = \"\"\"doc", t, &py, &c);
  EXPECT_EQ(py.open, "\"\"\"");
  Line d;
  HighlightLine("python", "end\"\"\" if x else None", t, &py, &d);
  EXPECT_EQ(d.spans[0].style, t.syn_string);
  EXPECT_EQ(CanonicalLanguage("C++"), "c");
  EXPECT_EQ(CanonicalLanguage("tsx"), "javascript");
  EXPECT_EQ(CanonicalLanguage("sh title=x"), "shell");
  EXPECT_EQ(CanonicalLanguage("brainfuck"), "");
  for (const char* lang : {"rust", "go", "javascript", "shell", "json", "yaml", "java"}) {
    Line l;
    HighlightState s;
    HighlightLine(lang, "if true \"s\" 42 // c # c", t, &s, &l);
    EXPECT_EQ(l.PlainText(), "if true \"s\" 42 // c # c") << lang << ": text kept";
    EXPECT_GT(l.spans.size(), 1u) << lang << ": something coloured";
  }
  Line diff;
  HighlightState ds;
  HighlightLine("diff", "+added", t, &ds, &diff);
  EXPECT_EQ(diff.spans[0].style, t.diff_added);
}

}  // namespace
}  // namespace sepp::front::tui
