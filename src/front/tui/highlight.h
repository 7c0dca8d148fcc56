// A small syntax highlighter for fenced code in answers: keywords, strings,
// comments, numbers and types of the common languages (C/C++, Python,
// JS/TS, Rust, Go, Java, shell, JSON, YAML/TOML, diff). Line at a time with
// the state (an open block comment or multi-line string) carried to the next
// line, so that a streamed code block is coloured as its lines arrive and
// never re-coloured. Approximate by design: it colours, it does not parse.
#pragma once
#include <string>
#include <string_view>

#include "front/tui/text.h"
#include "front/tui/theme.h"

namespace sepp::front::tui {

struct HighlightState {
  std::string open;  // the delimiter that closes what the last line left open
};

// The language a fence's info string names ("c++", "py", "tsx", "sh" ...),
// normalised; "" when it is none the highlighter knows.
std::string CanonicalLanguage(std::string_view info);

// One line of code (no newline) as styled spans appended to *out.
void HighlightLine(std::string_view language, std::string_view line, const Theme& theme,
                   HighlightState* state, Line* out);

}  // namespace sepp::front::tui
