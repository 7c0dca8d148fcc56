// The terminal's answers to the start-up query are taken out of the input:
// DEC 2026 is used only when the terminal says it has the mode, keys typed
// meanwhile pass through, and answers cut across reads are put together.
#include "front/tui/terminal_replies.h"

#include <gtest/gtest.h>

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
  EXPECT_EQ(TerminalReplies::Query(), "\x1b[?2026$p\x1b]11;?\x1b\\\x1b[c");
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
