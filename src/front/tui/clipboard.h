// Copying to the system clipboard from a terminal: OSC 52 ("ESC ] 52 ; c ;
// base64 BEL"), which works over ssh; inside tmux it is wrapped in tmux's
// passthrough (DCS tmux; ... ST, every ESC doubled) so it reaches the outer
// terminal (tmux needs `allow-passthrough on`, or its own set-clipboard).
// And what /copy can copy: fenced code blocks of an answer.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace sepp::front::tui {

// The bytes that put text on the clipboard.
std::string Osc52(std::string_view text, bool inside_tmux);

// The contents of the fenced code blocks (``` or ~~~) of Markdown text, in
// order, without the fences; an unclosed last fence runs to the end.
std::vector<std::string> CodeBlocks(std::string_view markdown);

}  // namespace sepp::front::tui
