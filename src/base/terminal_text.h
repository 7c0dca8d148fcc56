// Text from a model or a tool never drives the user's terminal.
//
// An escape sequence in a model's answer or a command's output could set
// the clipboard (OSC 52), retitle the window, clear the screen, move the
// cursor to overwrite what sepp printed, or hide text (bidi overrides).
// Wherever such text reaches a terminal, its control characters are shown,
// not obeyed:
//
//   C0 controls and DEL   ^[ ^G ^M ^H ... ^?   (\n and \t stay as they are)
//   C1 controls U+0080..U+009F, bidi controls   \u009b \u202e ...
//   bytes that are not UTF-8                    \xff
#pragma once
#include <string>
#include <string_view>

namespace sepp {

// text with every control character rendered visibly as above.
std::string VisibleControls(std::string_view text);

// Serialised JSON with DEL, the C1 controls and the bidi controls written as
// \uXXXX escapes (the same JSON value: they can only occur inside strings;
// the C0 controls are escaped by every JSON writer already).
std::string EscapeJsonControls(std::string_view json);

}  // namespace sepp
