// Whether the terminal keeps the lines a scroll region pushes off its top.
//
// The inline renderer can scroll a streamed answer with a scroll region
// over the rows above the editor and footer (DECSTBM "CSI 1 ; b r" and line
// feeds at its bottom): a line feed instead of making room at the screen's
// bottom and inserting a line, and the editor and footer never move. That
// is only right where a line scrolled off the top of a region that starts
// at the screen's first row goes into the scrollback, as it does for a
// scroll of the whole screen: xterm, VTE (GNOME Terminal, Tilix, ...),
// kitty since 0.19.3, tmux (its own history), libvterm. Others drop such
// lines, and the conversation would lose them: Windows Terminal, xterm.js
// for some scrolls (VS Code), zellij before 0.44, GNU screen; and for most
// the behaviour is not known. No query asks a terminal this, so it is told
// by the environment the terminal sets for its children and by the name it
// gives to XTVERSION (which also arrives over ssh, where no variable does):
// xterm, VTE, kitty and tmux keep them; WezTerm, foot, Alacritty, ghostty
// and iTerm2 (its "save lines to scrollback when an app status bar is
// present", on by default) are taken to keep them too (by their documented
// scrollback, not tried here: none of them runs on this machine); GNU
// screen and zellij are refused; anything else gets the renderer without
// a scroll region.
#pragma once
#include <functional>
#include <string_view>

namespace sepp::front::tui {

// getenv: looks up an environment variable (nullptr when unset);
// terminal_version: what XTVERSION answered ("" when nothing).
bool ScrollRegionKeepsScrollback(const std::function<const char*(const char*)>& getenv,
                                 std::string_view terminal_version = {});

}  // namespace sepp::front::tui
