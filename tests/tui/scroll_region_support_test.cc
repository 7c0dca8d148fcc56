// Which terminals get the scroll region: those known to keep what it
// scrolls off (by the variables they set), inside multiplexers the
// multiplexer's own rule, and nothing else.
#include "front/tui/scroll_region_support.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

namespace sepp::front::tui {
namespace {

bool With(std::map<std::string, std::string> env, std::string_view xtversion = {}) {
  return ScrollRegionKeepsScrollback(
      [&](const char* name) -> const char* {
        auto it = env.find(name);
        return it == env.end() ? nullptr : it->second.c_str();
      },
      xtversion);
}

TEST(TuiScrollRegionSupport, OnlyTerminalsKnownToKeepTheLines) {
  EXPECT_TRUE(With({{"XTERM_VERSION", "XTerm(390)"}, {"TERM", "xterm-256color"}}));
  EXPECT_TRUE(With({{"VTE_VERSION", "7600"}, {"TERM", "xterm-256color"}}));
  EXPECT_TRUE(With({{"KITTY_WINDOW_ID", "1"}}));
  EXPECT_TRUE(With({{"TERM", "xterm-kitty"}}));
  EXPECT_TRUE(With({{"TMUX", "/tmp/tmux-1000/default,1,0"}, {"TERM", "tmux-256color"}}));
  // tmux decides for the terminal around it, whatever that is.
  EXPECT_TRUE(With({{"TMUX", "/tmp/t,1,0"}, {"WT_SESSION", "x"}}));
  // Not known, or known to drop them: no region.
  EXPECT_FALSE(With({}));
  EXPECT_FALSE(With({{"TERM", "xterm-256color"}}));  // ssh, or an unknown terminal
  EXPECT_FALSE(With({{"WT_SESSION", "x"}, {"TERM", "xterm-256color"}}));
  EXPECT_FALSE(With({{"TERM_PROGRAM", "vscode"}, {"TERM", "xterm-256color"}}));
  EXPECT_FALSE(With({{"TERM", "linux"}}));
  // A multiplexer without the scrollback rule inside a terminal that has it.
  EXPECT_FALSE(With({{"STY", "1234.pts-0"}, {"VTE_VERSION", "7600"}}));
  EXPECT_FALSE(With({{"ZELLIJ", "0"}, {"XTERM_VERSION", "XTerm(390)"}}));
  EXPECT_FALSE(With({{"XTERM_VERSION", ""}}));  // set but empty
}

// The terminal's XTVERSION answer, which arrives over ssh too: the
// terminals that keep the lines get the region with no variable set.
TEST(TuiScrollRegionSupport, XtversionNamesTheTerminalsThatKeepTheLines) {
  for (const char* v : {"XTerm(390)", "WezTerm 20240203-110809-5046fc22", "foot(1.16.2)", "alacritty 0.13.2",
                        "ghostty 1.0.1", "iTerm2 3.5.4", "kitty(0.35.2)", "VTE(7600)", "tmux 3.4", "wezterm 1"}) {
    EXPECT_TRUE(With({{"TERM", "xterm-256color"}}, v)) << v;
    EXPECT_TRUE(With({}, v)) << v;
  }
  // Unknown terminals, a multiplexer that drops them, names that only start
  // like a known one: no region (unless the environment names one).
  for (const char* v : {"Konsole 23.08", "screen 4.09", "zellij 0.40", "mintty 3.6", "xtermish 1", "kittyx(1)",
                        "", "(390)", "foo bar"}) {
    EXPECT_FALSE(With({{"TERM", "xterm-256color"}}, v)) << v;
  }
  EXPECT_TRUE(With({{"XTERM_VERSION", "XTerm(390)"}}, "Konsole 23.08")) << "the environment still counts";
  EXPECT_FALSE(With({{"XTERM_VERSION", "XTerm(390)"}}, "screen 4.09")) << "screen answering for itself";
  // The multiplexer's variables decide before any answer.
  EXPECT_FALSE(With({{"STY", "1234.pts-0"}}, "WezTerm 20240203"));
  EXPECT_FALSE(With({{"ZELLIJ", "0"}}, "XTerm(390)"));
  EXPECT_TRUE(With({{"TMUX", "/tmp/t,1,0"}}, "Konsole 23.08"));
}

}  // namespace
}  // namespace sepp::front::tui
