#include "front/tui/scroll_region_support.h"

#include <string_view>

namespace sepp::front::tui {

bool ScrollRegionKeepsScrollback(const std::function<const char*(const char*)>& getenv) {
  auto set = [&](const char* name) {
    const char* v = getenv(name);
    return v != nullptr && *v != '\0';
  };
  // A multiplexer decides, not the terminal around it (whose variables the
  // shell inside may still have): tmux keeps the lines in its history;
  // GNU screen and zellij (until 0.44, which cannot be told apart) drop them.
  if (set("TMUX")) return true;
  if (set("STY") || set("ZELLIJ")) return false;
  // Over ssh the terminal's own variables do not arrive: not known.
  if (set("XTERM_VERSION") || set("VTE_VERSION") || set("KITTY_WINDOW_ID")) return true;
  const char* term = getenv("TERM");
  return term != nullptr && std::string_view(term) == "xterm-kitty";
}

}  // namespace sepp::front::tui
