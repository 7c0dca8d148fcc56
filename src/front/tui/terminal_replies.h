// TerminalReplies: what the terminal says about itself, taken out of its
// input. At start the TUI asks (Query()): DECRQM for synchronized output
// (CSI ? 2026 $ p), the background colour (OSC 11), the terminal's name and
// version (XTVERSION, CSI > q, answered "DCS > | name ST" by xterm, kitty,
// WezTerm, foot, ghostty, iTerm2, VTE, tmux...; ignored by the others) and
// then DA1 (CSI c), which every terminal answers, so DA1's answer marks the
// end of the replies. Until it arrives, Filter()
// removes the answers from the input bytes (keys typed meanwhile pass
// through) and records them; nothing waits for them, so a terminal that
// answers late or never costs no start-up time: frames simply go without
// DEC 2026 until it said yes.
#pragma once
#include <string>
#include <string_view>

namespace sepp::front::tui {

class TerminalReplies {
 public:
  // The bytes to write to the terminal to ask.
  static std::string Query();

  // Input bytes with the replies removed.
  std::string Filter(std::string_view bytes);

  bool synchronized_output() const { return sync_; }
  // The terminal told its background colour; light: its luminance is high.
  bool background_known() const { return background_known_; }
  bool light_background() const { return light_; }
  // What XTVERSION answered ("XTerm(390)", "tmux 3.4"): printable ASCII,
  // at most kMaxVersion bytes; "" when it did not answer (or not sanely).
  const std::string& terminal_version() const { return version_; }
  static constexpr size_t kMaxVersion = 100;
  bool done() const { return done_; }  // DA1 answered: no more replies expected

 private:
  std::string held_;  // the start of a reply cut across reads
  bool sync_ = false;
  bool done_ = false;
  bool background_known_ = false;
  bool light_ = false;
  std::string version_;
};

}  // namespace sepp::front::tui
