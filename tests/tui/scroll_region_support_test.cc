// Which terminals get the scroll region: those known to keep what it
// scrolls off (by the variables they set), inside multiplexers the
// multiplexer's own rule, and nothing else.
#include "front/tui/scroll_region_support.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

namespace sepp::front::tui {
namespace {

bool With(std::map<std::string, std::string> env) {
  return ScrollRegionKeepsScrollback([&](const char* name) -> const char* {
    auto it = env.find(name);
    return it == env.end() ? nullptr : it->second.c_str();
  });
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

}  // namespace
}  // namespace sepp::front::tui
