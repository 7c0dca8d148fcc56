// VisibleControls and EscapeJsonControls: every sequence that could drive a
// terminal comes out inert, and ordinary text (UTF-8 included) unchanged.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <unistd.h>

#include <random>

#include "base/json.h"
#include "base/log.h"
#include "base/terminal_text.h"

namespace sepp {
namespace {

// True if text holds a byte or character a terminal could act on, or bytes
// that are not UTF-8.
bool HasControl(std::string_view text) {
  for (size_t i = 0; i < text.size();) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    if (c < 0x80) {
      if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7F) return true;
      ++i;
      continue;
    }
    size_t len = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 ? 2 : 0;
    if (len == 0 || i + len > text.size()) return true;
    uint32_t cp = c & (len == 2 ? 0x1F : len == 3 ? 0x0F : 0x07);
    for (size_t k = 1; k < len; ++k) {
      unsigned char d = static_cast<unsigned char>(text[i + k]);
      if ((d & 0xC0) != 0x80) return true;
      cp = (cp << 6) | (d & 0x3F);
    }
    if ((cp >= 0x80 && cp <= 0x9F) || (cp >= 0x202A && cp <= 0x202E) ||
        (cp >= 0x2066 && cp <= 0x2069) || cp == 0x200E || cp == 0x200F || cp == 0x061C)
      return true;
    i += len;
  }
  return false;
}

TEST(VisibleControls, AttackSequencesBecomeVisibleText) {
  EXPECT_EQ(VisibleControls("\x1b]52;c;SGVsbG8=\x07"), "^[]52;c;SGVsbG8=^G");  // OSC 52 clipboard
  EXPECT_EQ(VisibleControls("\x1b]0;owned\x1b\\"), "^[]0;owned^[\\");         // window title
  EXPECT_EQ(VisibleControls("\x1b[2J\x1b[H"), "^[[2J^[[H");                   // clear screen
  EXPECT_EQ(VisibleControls("ok\rfake"), "ok^Mfake");                        // overwrite the line
  EXPECT_EQ(VisibleControls("a\bb\x7f"), "a^Hb^?");
  EXPECT_EQ(VisibleControls("\xC2\x9B" "31m"), "\\u009b31m");                 // C1 CSI, UTF-8
  EXPECT_EQ(VisibleControls("\x9B" "31m"), "\\x9b31m");                       // C1 CSI, raw byte
  EXPECT_EQ(VisibleControls("\xE2\x80\xAE" "txt"), "\\u202etxt");             // right-to-left override
  EXPECT_EQ(VisibleControls("\xC0\xAF\xED\xA0\x80"), "\\xc0\\xaf\\xed\\xa0\\x80");  // overlong, surrogate
}

TEST(VisibleControls, OrdinaryTextIsUnchanged) {
  const std::string text = "line 1\n\tindented, caf\xC3\xA9, \xE2\x82\xAC 5, \xF0\x9F\x98\x80 ~!";
  EXPECT_EQ(VisibleControls(text), text);
}

TEST(VisibleControls, NoInputLeavesAControlBehind) {
  std::mt19937 rng(4);
  for (int i = 0; i < 20000; ++i) {
    std::string s;
    for (int n = std::uniform_int_distribution<int>(0, 16)(rng); n > 0; --n)
      s += static_cast<char>(std::uniform_int_distribution<int>(0, 255)(rng));
    std::string v = VisibleControls(s);
    ASSERT_FALSE(HasControl(v)) << Json(s).dump(-1, ' ', true, Json::error_handler_t::replace);
  }
}

TEST(EscapeJsonControls, TheSameValueWithNoRawControls) {
  Json value = {{"text", "a\x1b[2J \xC2\x9B \x7f \xE2\x80\xAE b\xC3\xA9"}, {"n", 1}};
  std::string json = EscapeJsonControls(DumpJson(value));
  EXPECT_FALSE(HasControl(json)) << json;
  EXPECT_NE(json.find("\\u009b"), std::string::npos);
  EXPECT_NE(json.find("\\u007f"), std::string::npos);
  auto back = ParseJson(json);
  ASSERT_TRUE(back.ok()) << json;
  EXPECT_EQ(*back, value);
}

// The logger writes to stderr: what it quotes (a provider's error, a
// session file's line) is redacted and shown, never obeyed.
TEST(VisibleControls, TheLoggerShowsControlsItQuotes) {
  int p[2];
  ASSERT_EQ(pipe(p), 0);
  int saved = dup(2);
  dup2(p[1], 2);
  log::Error("provider said \x1b]52;c;eA==\x07 and \xC2\x9B" "2J");
  dup2(saved, 2);
  close(saved);
  close(p[1]);
  char buf[512];
  ssize_t n = read(p[0], buf, sizeof buf);
  close(p[0]);
  ASSERT_GT(n, 0);
  EXPECT_EQ(std::string(buf, n), "sepp: error: provider said ^[]52;c;eA==^G and \\u009b2J\n");
}

}  // namespace
}  // namespace sepp
