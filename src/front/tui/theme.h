// Theme: the styles the terminal UI draws with, by role. Two are built in
// (dark and light); a user theme (ext/themes, pi's JSON format) overrides
// the colours of the roles it names and keeps the rest from its base.
#pragma once
#include <string>

#include "front/tui/text.h"

namespace sepp::ext::themes {
struct ThemeFile;
}

namespace sepp::front::tui {

struct Theme {
  std::string name;
  // The conversation.
  Style user, thinking, muted, success, error, running, accent, warning;
  // Markdown.
  Style heading, strong, emphasis, strike, link, link_url, code, code_fence, quote, quote_border, rule,
      bullet, table_border, table_header;
  // Code: highlighter tokens and diff lines.
  Style syn_comment, syn_keyword, syn_function, syn_string, syn_number, syn_type, syn_operator;
  Style diff_added, diff_removed, diff_hunk;

  static const Theme& Dark();
  static const Theme& Light();
  // Theme::Dark() or Light() by name; nullptr for other names.
  static const Theme* BuiltIn(const std::string& name);
  // base with the colours that file sets (pi's token names, docs/tui.md).
  static Theme FromFile(const ext::themes::ThemeFile& file, const Theme& base);
};

}  // namespace sepp::front::tui
