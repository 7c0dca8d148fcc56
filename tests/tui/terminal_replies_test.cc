// The terminal's answers to the start-up query are taken out of the input:
// DEC 2026 is used only when the terminal says it has the mode, keys typed
// meanwhile pass through, and answers cut across reads are put together.
#include "front/tui/terminal_replies.h"

#include <gtest/gtest.h>

#include "front/tui/key_decoder.h"

namespace sepp::front::tui {
namespace {

TEST(TuiTerminalReplies, SynchronizedOutputOnlyWhenTheTerminalHasIt) {
  struct Case {
    const char* reply;
    bool sync;
  } cases[] = {{"\x1b[?2026;1$y", true}, {"\x1b[?2026;2$y", true}, {"\x1b[?2026;3$y", true},
               {"\x1b[?2026;0$y", false}, {"\x1b[?2026;4$y", false}, {"", false}};
  for (const auto& c : cases) {
    TerminalReplies r;
    EXPECT_EQ(r.Filter(std::string(c.reply) + "\x1b[?62;22c"), "") << c.reply;
    EXPECT_EQ(r.synchronized_output(), c.sync) << c.reply;
    EXPECT_TRUE(r.done());
  }
  EXPECT_EQ(TerminalReplies::Query(), "\x1b[?2026$p\x1b]11;?\x1b\\\x1b[>q\x1b[c");
}

TEST(TuiTerminalReplies, KeysPassAndRepliesCutAcrossReadsJoin) {
  std::string all = "ab\x1b[A\x1b[?2026;2$yc\x1b\x1b[?1;2cd\x1b[?2026;0$y";
  size_t sync_at = all.find("\x1b[?2026"), da1_at = all.find("\x1b[?1;");
  for (size_t cut = 0; cut <= all.size(); ++cut) {
    // Cut right after an answer's ESC or "ESC [": those bytes may be the Esc
    // key, which must not wait for a next read; the key decoder gets them.
    if (cut == sync_at + 1 || cut == sync_at + 2 || cut == da1_at + 1 || cut == da1_at + 2) continue;
    TerminalReplies r;
    std::string out = r.Filter(all.substr(0, cut));
    out += r.Filter(all.substr(cut));
    // After DA1's answer nothing is taken out any more.
    EXPECT_EQ(out, "ab\x1b[Ac\x1b" "d\x1b[?2026;0$y") << cut;
    EXPECT_TRUE(r.synchronized_output()) << cut;
  }
}

TEST(TuiTerminalReplies, TheBackgroundColourPicksLightOrDark) {
  struct Case {
    std::string reply;
    bool known, light;
  } cases[] = {{"\x1b]11;rgb:ffff/ffff/ffff\x1b\\", true, true},
               {"\x1b]11;rgb:1e1e/1e1e/2e2e\x07", true, false},
               {"\x1b]11;rgb:f/f/e\x07", true, true},
               {"\x1b]11;rgb:zz/00/00\x07", false, false},
               {"\x1b]11;cmyk:0/0/0/0\x07", false, false}};
  for (const auto& c : cases) {
    std::string all = "k" + c.reply + "\x1b[?64c" + "j";
    for (size_t cut = 0; cut <= all.size(); ++cut) {
      if (cut == 2 || cut == 3) continue;  // "ESC" / "ESC ]" alone go to the key decoder
      if (cut == all.size() - 6 || cut == all.size() - 5) continue;  // the same for DA1's
      TerminalReplies r;
      std::string out = r.Filter(all.substr(0, cut));
      out += r.Filter(all.substr(cut));
      EXPECT_EQ(out, "kj") << c.reply << " cut " << cut;
      EXPECT_EQ(r.background_known(), c.known) << c.reply;
      EXPECT_EQ(r.light_background(), c.light) << c.reply;
    }
  }
}

// XTVERSION's answer ("DCS > | text ST") names the terminal, within the
// same round trip as the others (before DA1's): put together when cut
// across reads at any point, with the keys typed around it passing.
TEST(TuiTerminalReplies, XtversionNamesTheTerminal) {
  for (std::string name : {"XTerm(390)", "WezTerm 20240203-110809-5046fc22", "foot(1.16.2)", "alacritty 0.13.2",
                           "ghostty 1.0.1", "iTerm2 3.5.4", "kitty(0.35.2)", "VTE(7600)", "tmux 3.4"}) {
    std::string all = "k\x1bP>|" + name + "\x1b\\\x1b[?2026;2$y\x1b[?62;22cj";
    size_t sync = all.find("\x1b[?2026"), da1 = all.find("\x1b[?62");
    for (size_t cut = 0; cut <= all.size(); ++cut) {
      // "ESC" / "ESC P" / "ESC [" alone may be keys: the key decoder's.
      if (cut == 2 || cut == 3 || cut == sync + 1 || cut == sync + 2 || cut == da1 + 1 || cut == da1 + 2) continue;
      TerminalReplies r;
      std::string out = r.Filter(all.substr(0, cut));
      out += r.Filter(all.substr(cut));
      EXPECT_EQ(out, "kj") << name << " cut " << cut;
      EXPECT_EQ(r.terminal_version(), name) << "cut " << cut;
      EXPECT_TRUE(r.synchronized_output()) << name;
      EXPECT_TRUE(r.done()) << name;
    }
  }
  // No answer (the terminal ignores CSI > q): nothing known, nothing waits.
  TerminalReplies none;
  EXPECT_EQ(none.Filter("\x1b[?62;22cx"), "x");
  EXPECT_EQ(none.terminal_version(), "");
  // After DA1 an answer is no longer taken for one (the key decoder drops it).
  TerminalReplies late;
  std::string out = late.Filter("\x1b[?62c\x1bP>|XTerm(390)\x1b\\");
  EXPECT_EQ(late.terminal_version(), "");
  KeyDecoder keys;
  EXPECT_TRUE(keys.Feed(out).empty()) << "a late answer is not typed";
}

// Hostile or broken answers name nothing and type nothing: one longer than
// a name and version can be, one with a control, a non-ASCII byte or an
// escape inside, one never terminated before DA1 comes.
TEST(TuiTerminalReplies, AHostileXtversionAnswerNamesNothing) {
  std::string too_long = "\x1bP>|" + std::string(TerminalReplies::kMaxVersion + 1, 'x') + "\x1b\\";
  std::string longest = "\x1bP>|" + std::string(TerminalReplies::kMaxVersion, 'x') + "\x1b\\";
  for (std::string reply : {too_long, std::string("\x1bP>|XTerm\x07(390)\x1b\\"),
                            std::string("\x1bP>|XTerm\r\n(390)\x1b\\"), std::string("\x1bP>|k\xc3\xa4tty\x1b\\"),
                            std::string("\x1bP>|WezTerm\x1b]0;pwned\x07 1\x1b\\"), std::string("\x1bP>|\x1b\\")}) {
    TerminalReplies r;
    std::string out = r.Filter(reply + "\x1b[?62;22c");
    EXPECT_EQ(r.terminal_version(), "") << ::testing::PrintToString(reply);
    EXPECT_TRUE(r.done()) << ::testing::PrintToString(reply);
    for (const auto& e : KeyDecoder().Feed(out))
      EXPECT_NE(e.codepoint, U'W') << "no text of the answer is typed: " << ::testing::PrintToString(reply);
  }
  TerminalReplies ok;
  ok.Filter(longest + "\x1b[?62;22c");
  EXPECT_EQ(ok.terminal_version(), std::string(TerminalReplies::kMaxVersion, 'x'));
  // Never terminated: DA1's answer and the keys after it are not swallowed.
  TerminalReplies open;
  std::string out = open.Filter("\x1bP>|" + std::string(300, 'y'));
  out += open.Filter("\x1b[?62;22cz");
  EXPECT_EQ(open.terminal_version(), "");
  EXPECT_NE(out.find('z'), std::string::npos) << ::testing::PrintToString(out);
}

TEST(TuiTerminalReplies, ALoneEscIsNeverHeldBack) {
  TerminalReplies r;
  EXPECT_EQ(r.Filter("\x1b"), "\x1b");
  EXPECT_EQ(r.Filter("\x1b["), "\x1b[");
  EXPECT_EQ(r.Filter("\x1b[?20"), "") << "the start of an answer waits";
  EXPECT_EQ(r.Filter("26;2$y"), "");
  EXPECT_TRUE(r.synchronized_output());
}

}  // namespace
}  // namespace sepp::front::tui
