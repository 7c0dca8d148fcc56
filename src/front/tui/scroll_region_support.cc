#include "front/tui/scroll_region_support.h"

#include <string>
#include <string_view>

namespace sepp::front::tui {

namespace {

// The terminal's name in an XTVERSION answer, lower case: the text before
// its version ("XTerm(390)", "WezTerm 20240203-110809", "tmux 3.4").
std::string NameOf(std::string_view version) {
  std::string name;
  for (char c : version) {
    if (c == ' ' || c == '(' || c == '/') break;
    name += (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
  }
  return name;
}

}  // namespace

bool ScrollRegionKeepsScrollback(const std::function<const char*(const char*)>& getenv,
                                 std::string_view terminal_version) {
  auto set = [&](const char* name) {
    const char* v = getenv(name);
    return v != nullptr && *v != '\0';
  };
  // A multiplexer decides, not the terminal around it (whose variables the
  // shell inside may still have): tmux keeps the lines in its history;
  // GNU screen and zellij (until 0.44, which cannot be told apart) drop them.
  if (set("TMUX")) return true;
  if (set("STY") || set("ZELLIJ")) return false;
  // The terminal's own answer (a multiplexer answers for itself).
  std::string name = NameOf(terminal_version);
  for (const char* keeps : {"xterm", "vte", "kitty", "wezterm", "foot", "alacritty", "ghostty", "iterm2", "tmux"})
    if (name == keeps) return true;
  if (name == "screen" || name == "zellij") return false;
  // Over ssh the terminal's own variables do not arrive: not known.
  if (set("XTERM_VERSION") || set("VTE_VERSION") || set("KITTY_WINDOW_ID")) return true;
  const char* term = getenv("TERM");
  return term != nullptr && std::string_view(term) == "xterm-kitty";
}

}  // namespace sepp::front::tui
