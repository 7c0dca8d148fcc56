// Key decoding for every encoding a terminal sends: the kitty keyboard
// protocol, modifyOtherKeys, legacy bytes, bracketed paste, a lone Esc, and
// sequences cut across reads.
#include "front/tui/key_decoder.h"

#include <gtest/gtest.h>

#include <random>

namespace sepp::front::tui {
namespace {

std::vector<std::string> Names(const std::vector<InputEvent>& events) {
  std::vector<std::string> out;
  for (const auto& e : events) out.push_back(Describe(e));
  return out;
}

std::vector<std::string> Decode(std::string_view bytes) {
  KeyDecoder d;
  auto events = d.Feed(bytes);
  auto rest = d.Flush();
  events.insert(events.end(), rest.begin(), rest.end());
  return Names(events);
}

using V = std::vector<std::string>;

TEST(TuiKeyDecoder, NewlineAndSubmitInEveryEncoding) {
  EXPECT_EQ(Decode("\r"), V{"Enter"});
  // kitty (CSI u), modifyOtherKeys (CSI 27;m;k ~), legacy (Esc CR, LF).
  EXPECT_EQ(Decode("\x1b[13;2u"), V{"Shift+Enter"});
  EXPECT_EQ(Decode("\x1b[13;3u"), V{"Alt+Enter"});
  EXPECT_EQ(Decode("\x1b[13u"), V{"Enter"});
  EXPECT_EQ(Decode("\x1b[27;2;13~"), V{"Shift+Enter"});
  EXPECT_EQ(Decode("\x1b[27;3;13~"), V{"Alt+Enter"});
  EXPECT_EQ(Decode("\x1b[27;5;13~"), V{"Ctrl+Enter"});
  EXPECT_EQ(Decode("\x1b\r"), V{"Alt+Enter"});
  EXPECT_EQ(Decode("\n"), V{"Ctrl+j"});
  // kitty's release events (flag 2) are not keys.
  EXPECT_EQ(Decode("\x1b[13;2:3u"), V{});
  EXPECT_EQ(Decode("\x1b[13;2:1u"), V{"Shift+Enter"});
}

TEST(TuiKeyDecoder, ControlAltAndCursorKeys) {
  EXPECT_EQ(Decode("\x03\x04\x01\x05\x0b\x19"), (V{"Ctrl+c", "Ctrl+d", "Ctrl+a", "Ctrl+e", "Ctrl+k", "Ctrl+y"}));
  EXPECT_EQ(Decode("\x1b[99;5u"), V{"Ctrl+c"});  // kitty Ctrl+C
  EXPECT_EQ(Decode("\x1b" "b\x1b" "f"), (V{"Alt+b", "Alt+f"}));
  EXPECT_EQ(Decode("\x7f\x08\t\x1b[Z"), (V{"Backspace", "Backspace", "Tab", "Shift+Tab"}));
  EXPECT_EQ(Decode("\x1b[A\x1b[B\x1b[C\x1b[D\x1bOA\x1b[H\x1b[F"),
            (V{"Up", "Down", "Right", "Left", "Up", "Home", "End"}));
  EXPECT_EQ(Decode("\x1b[1;5C\x1b[1;3D"), (V{"Ctrl+Right", "Alt+Left"}));
  EXPECT_EQ(Decode("\x1b[3~\x1b[5~\x1b[6~\x1b[1~\x1b[4~"), (V{"Delete", "PageUp", "PageDown", "Home", "End"}));
  EXPECT_EQ(Decode("h\u00e9\u4e2d\U0001F600"), (V{"h", "\u00e9", "\u4e2d", "\U0001F600"}));
  // Focus reports and answers to queries are not keys.
  EXPECT_EQ(Decode("\x1b[I\x1b[O\x1b[?2026;2$y\x1b[?1u"), V{});
}

TEST(TuiKeyDecoder, ALoneEscWaitsForFlushAndSequencesSurviveCuts) {
  KeyDecoder d;
  EXPECT_TRUE(d.Feed("\x1b").empty());
  EXPECT_TRUE(d.pending());
  EXPECT_EQ(Names(d.Flush()), V{"Esc"});
  EXPECT_FALSE(d.pending());
  // Esc then, in the next read, the rest of a sequence: one key.
  EXPECT_TRUE(d.Feed("\x1b").empty());
  EXPECT_EQ(Names(d.Feed("[13;2u")), V{"Shift+Enter"});
  EXPECT_EQ(Decode("\x1b\x1b"), (V{"Esc", "Esc"}));
  EXPECT_EQ(Decode("\x1b[27u"), V{"Esc"});  // kitty reports Esc unambiguously

  // Every split point of a mixed stream gives the same events.
  std::string stream = "a\x1b[13;2u\u00e9\x1b[27;3;13~\x1b[200~pasted\r\ntext\x1b[201~\x1b[1;5D\r";
  V whole = Decode(stream);
  ASSERT_EQ(whole, (V{"a", "Shift+Enter", "\u00e9", "Alt+Enter", "paste(12 bytes)", "Ctrl+Left", "Enter"}));
  for (size_t cut = 0; cut <= stream.size(); ++cut) {
    KeyDecoder s;
    auto events = s.Feed(stream.substr(0, cut));
    auto more = s.Feed(stream.substr(cut));
    events.insert(events.end(), more.begin(), more.end());
    EXPECT_EQ(Names(events), whole) << "cut at " << cut;
    EXPECT_FALSE(s.pending()) << "cut at " << cut;
  }
}

// A terminal's reply that comes late (after DA1's, so the start-up filter
// has stopped looking) is dropped whole, in any cut, and never typed; Alt+]
// and Alt+P with text after them are still keys.
TEST(TuiKeyDecoder, ALateTerminalReplyIsNeverTyped) {
  EXPECT_EQ(Decode("a\x1b]11;rgb:1111/1111/1111\x1b\\b"), (V{"a", "b"}));
  EXPECT_EQ(Decode("\x1b]11;rgb:ffff/ffff/ffff\ax"), V{"x"});
  EXPECT_EQ(Decode("\x1bP>|tmux 3.3a\x1b\\"), V{});
  EXPECT_EQ(Decode("\x1bP1$r0m\x1b\\q"), V{"q"});
  std::string stream = "x\x1b]11;rgb:1111/1111/1111\x1b\\y";
  for (size_t cut = 0; cut <= stream.size(); ++cut) {
    KeyDecoder s;
    auto events = s.Feed(stream.substr(0, cut));
    auto more = s.Feed(stream.substr(cut));
    events.insert(events.end(), more.begin(), more.end());
    EXPECT_EQ(Names(events), (V{"x", "y"})) << "cut at " << cut;
  }
  // Keys, not replies: no digit after ESC ], or never terminated.
  EXPECT_EQ(Decode("\x1b]a"), (V{"Alt+]", "a"}));
  EXPECT_EQ(Decode("\x1bPx"), (V{"Alt+P", "x"}));
  EXPECT_EQ(Decode("\x1b]1"), (V{"Alt+]", "1"}));
}

TEST(TuiKeyDecoder, BracketedPasteKeepsItsBytesAndIsNotKeys) {
  KeyDecoder d;
  auto events = d.Feed("\x1b[200~line 1\rline 2\n\x1b[13;2u\x03\x1b[201~x");
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].type, InputEvent::Type::kPaste);
  // Enter, Ctrl+C and escape sequences inside a paste are text, not keys.
  EXPECT_EQ(events[0].text, "line 1\rline 2\n\x1b[13;2u\x03");
  EXPECT_EQ(Describe(events[1]), "x");
  // A paste arriving in many reads, with the end marker cut, is one event.
  KeyDecoder s;
  std::vector<InputEvent> all;
  std::string body(100000, 'p');
  std::string stream = "\x1b[200~" + body + "\x1b[201~";
  for (size_t i = 0; i < stream.size(); i += 4093) {
    auto part = s.Feed(std::string_view(stream).substr(i, 4093));
    all.insert(all.end(), part.begin(), part.end());
  }
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0].text, body);
}

TEST(TuiKeyDecoder, HostileInputNeverCrashesOrHangs) {
  std::mt19937 rng(11);
  const std::string alphabet = "\x1b[;:0123456789~u?<>$yAZOH\r\n\x7f\x03\xc3\xa9\xff";
  for (int round = 0; round < 3000; ++round) {
    KeyDecoder d;
    std::string input;
    size_t len = rng() % 80;
    for (size_t i = 0; i < len; ++i) {
      input.push_back(rng() % 4 ? alphabet[rng() % alphabet.size()] : static_cast<char>(rng() % 256));
    }
    d.Feed(input);
    d.Flush();
    EXPECT_FALSE(d.pending());
  }
  // An endless sequence is dropped, not buffered.
  KeyDecoder d;
  d.Feed("\x1b[" + std::string(1000, '1'));
  EXPECT_FALSE(d.pending());
  EXPECT_EQ(Names(d.Feed("x")), V{"x"});
}

}  // namespace
}  // namespace sepp::front::tui
