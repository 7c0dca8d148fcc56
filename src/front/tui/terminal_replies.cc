#include "front/tui/terminal_replies.h"

namespace sepp::front::tui {
namespace {

constexpr size_t kMaxReply = 64;  // longer is not a reply we asked for

// The length of a private-mode reply "ESC [ ? params [$] final" at the
// start of s; 0 when s does not start one; npos when s ends inside one.
size_t ReplyLength(std::string_view s) {
  if (s.size() < 3 || s.compare(0, 3, "\x1b[?") != 0) {
    return std::string_view("\x1b[?").starts_with(s) ? std::string_view::npos : 0;
  }
  for (size_t i = 3; i < s.size() && i < kMaxReply; ++i) {
    char c = s[i];
    if ((c >= '0' && c <= '9') || c == ';' || c == '$') continue;
    return (c == 'y' || c == 'c') ? i + 1 : 0;
  }
  return s.size() < kMaxReply ? std::string_view::npos : 0;
}

}  // namespace

std::string TerminalReplies::Query() { return "\x1b[?2026$p\x1b[c"; }

std::string TerminalReplies::Filter(std::string_view bytes) {
  if (done_ && held_.empty()) return std::string(bytes);
  std::string in = held_ + std::string(bytes);
  held_.clear();
  std::string out;
  size_t pos = 0;
  while (pos < in.size()) {
    size_t esc = in.find('\x1b', pos);
    if (esc == std::string::npos || done_) {
      out.append(in, pos, std::string::npos);
      break;
    }
    out.append(in, pos, esc - pos);
    std::string_view rest = std::string_view(in).substr(esc);
    size_t n = ReplyLength(rest);
    if (n == std::string_view::npos) {
      // Cut across reads; a lone ESC or "ESC [" is left to the key decoder
      // (it may be the Esc key), only "ESC [ ?..." waits for the rest.
      if (rest.size() >= 3) held_ = std::string(rest);
      else out.append(rest);
      break;
    }
    if (n == 0) {
      out.push_back('\x1b');
      pos = esc + 1;
      continue;
    }
    std::string_view reply = rest.substr(0, n);
    if (reply.back() == 'c') {
      done_ = true;
    } else if (reply.starts_with("\x1b[?2026;") && reply.ends_with("$y")) {
      // 1 set, 2 reset, 3 permanently set: the terminal has the mode; 0 (not
      // recognised) and 4 (permanently reset) mean it does not.
      char state = reply.size() >= 11 ? reply[8] : '0';
      sync_ = state == '1' || state == '2' || state == '3';
    } else {
      out.append(reply);  // someone else's reply: the key decoder's business
    }
    pos = esc + n;
  }
  return out;
}

}  // namespace sepp::front::tui
