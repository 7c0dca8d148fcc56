#include "front/tui/terminal_replies.h"

namespace sepp::front::tui {
namespace {

constexpr size_t kMaxReply = 64;  // longer is not a reply we asked for

// The length of an OSC 11 reply "ESC ] 11 ; rgb:... (BEL | ESC \)" at the
// start of s; 0 when s does not start one; npos when s ends inside one.
size_t OscLength(std::string_view s) {
  constexpr std::string_view kStart = "\x1b]11;";
  if (s.size() < kStart.size()) return kStart.starts_with(s) ? std::string_view::npos : 0;
  if (!s.starts_with(kStart)) return 0;
  for (size_t i = kStart.size(); i < s.size() && i < kMaxReply; ++i) {
    if (s[i] == '\x07') return i + 1;
    if (s[i] == '\x1b') {
      if (i + 1 == s.size()) return std::string_view::npos;
      return s[i + 1] == '\\' ? i + 2 : 0;
    }
    if (static_cast<unsigned char>(s[i]) < 0x20) return 0;
  }
  return s.size() < kMaxReply ? std::string_view::npos : 0;
}

// "rgb:RRRR/GGGG/BBBB" (1 to 4 hex digits each) to a relative luminance in
// 0..1; -1 when it is not that.
double Luminance(std::string_view spec) {
  if (!spec.starts_with("rgb:")) return -1;
  spec.remove_prefix(4);
  double c[3];
  for (int k = 0; k < 3; ++k) {
    size_t end = spec.find('/');
    std::string_view part = spec.substr(0, end);
    if (part.empty() || part.size() > 4) return -1;
    unsigned value = 0;
    for (char ch : part) {
      int d = (ch >= '0' && ch <= '9') ? ch - '0' : (ch >= 'a' && ch <= 'f') ? ch - 'a' + 10 : (ch >= 'A' && ch <= 'F') ? ch - 'A' + 10 : -1;
      if (d < 0) return -1;
      value = value * 16 + static_cast<unsigned>(d);
    }
    c[k] = value / static_cast<double>((1u << (4 * part.size())) - 1);
    if (k < 2 && end == std::string_view::npos) return -1;
    spec.remove_prefix(end == std::string_view::npos ? spec.size() : end + 1);
  }
  return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
}

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

// The length of an XTVERSION reply "ESC P > | text ESC \\" at the start of
// s, through its terminator (or up to an ESC that cuts it short); 0 when s
// does not start one, or nothing ends it within kMaxString bytes (then it
// is not taken for a reply); npos when s ends inside one. *text: its text,
// when it was terminated and is printable ASCII of at most kMaxVersion
// bytes (a reply with controls or other bytes inside is taken out of the
// input but names nothing).
size_t VersionLength(std::string_view s, std::string* text) {
  constexpr std::string_view kStart = "\x1bP>|";
  constexpr size_t kMaxString = 512;
  if (s.size() < kStart.size()) return kStart.starts_with(s) ? std::string_view::npos : 0;
  if (!s.starts_with(kStart)) return 0;
  // As a terminal parses it: ST ends the string, any other ESC cuts it
  // short (and begins what follows).
  size_t esc = s.find('\x1b', kStart.size());
  if (esc == std::string_view::npos || esc + 1 == s.size())
    return s.size() < kMaxString ? std::string_view::npos : 0;
  if (esc + 2 > kMaxString) return 0;
  bool terminated = s[esc + 1] == '\\';
  std::string_view body = s.substr(kStart.size(), esc - kStart.size());
  bool sane = terminated && body.size() <= TerminalReplies::kMaxVersion;
  for (char c : body) sane = sane && c >= 0x20 && c <= 0x7e;
  text->assign(sane ? body : std::string_view());
  return terminated ? esc + 2 : esc;
}

}  // namespace

std::string TerminalReplies::Query() { return "\x1b[?2026$p\x1b]11;?\x1b\\\x1b[>q\x1b[c"; }

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
    std::string version;
    size_t xtversion = VersionLength(rest, &version);
    if (xtversion == std::string_view::npos && rest.size() >= 3) {
      held_ = std::string(rest);  // cut across reads (ESC and ESC P may be keys: not held)
      break;
    }
    if (xtversion != 0 && xtversion != std::string_view::npos) {
      if (!version.empty()) version_ = version;
      pos = esc + xtversion;
      continue;
    }
    size_t osc = OscLength(rest);
    if (osc != 0 && osc != std::string_view::npos) {
      std::string_view body = rest.substr(5, osc - 5);  // after "ESC ] 11 ;"
      body.remove_suffix(body.ends_with("\x07") ? 1 : 2);
      double lum = Luminance(body);
      if (lum >= 0) {
        background_known_ = true;
        light_ = lum > 0.5;
      }
      pos = esc + osc;
      continue;
    }
    size_t n = ReplyLength(rest);
    if (osc == std::string_view::npos && n == 0) n = std::string_view::npos;
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
