#include "front/tui/key_decoder.h"

#include <utf8proc.h>

namespace sepp::front::tui {
namespace {

constexpr std::string_view kPasteEnd = "\x1b[201~";
// Longer "escape sequences" are hostile or broken input: drop them.
constexpr size_t kMaxSequence = 64;

InputEvent KeyEvent(Key key, uint8_t mods = 0, char32_t cp = 0) {
  InputEvent e;
  e.key = key;
  e.mods = mods;
  e.codepoint = cp;
  return e;
}

// A key number as kitty and modifyOtherKeys send it.
InputEvent FromKeyCode(long code, uint8_t mods) {
  switch (code) {
    case 13: return KeyEvent(Key::kEnter, mods);
    case 9: return KeyEvent(Key::kTab, mods);
    case 127:
    case 8: return KeyEvent(Key::kBackspace, mods);
    case 27: return KeyEvent(Key::kEscape, mods);
    default: return KeyEvent(Key::kChar, mods, static_cast<char32_t>(code));
  }
}

// xterm's modifier parameter: 1 + bits (shift 1, alt 2, ctrl 4, super 8...).
uint8_t Mods(long param) { return param > 1 ? static_cast<uint8_t>((param - 1) & 7) : 0; }

}  // namespace

const char* KeyName(Key key) {
  switch (key) {
    case Key::kChar: return "Char";
    case Key::kEnter: return "Enter";
    case Key::kTab: return "Tab";
    case Key::kBackspace: return "Backspace";
    case Key::kEscape: return "Esc";
    case Key::kUp: return "Up";
    case Key::kDown: return "Down";
    case Key::kLeft: return "Left";
    case Key::kRight: return "Right";
    case Key::kHome: return "Home";
    case Key::kEnd: return "End";
    case Key::kInsert: return "Insert";
    case Key::kDelete: return "Delete";
    case Key::kPageUp: return "PageUp";
    case Key::kPageDown: return "PageDown";
  }
  return "?";
}

std::string Describe(const InputEvent& e) {
  if (e.type == InputEvent::Type::kPaste) return "paste(" + std::to_string(e.text.size()) + " bytes)";
  std::string s;
  if (e.mods & kCtrl) s += "Ctrl+";
  if (e.mods & kAlt) s += "Alt+";
  if (e.mods & kShift) s += "Shift+";
  if (e.key != Key::kChar) return s + KeyName(e.key);
  utf8proc_uint8_t buf[4];
  auto n = utf8proc_encode_char(static_cast<utf8proc_int32_t>(e.codepoint), buf);
  return s + std::string(reinterpret_cast<const char*>(buf), static_cast<size_t>(n));
}

std::vector<InputEvent> KeyDecoder::Feed(std::string_view bytes) {
  buffer_.append(bytes);
  std::vector<InputEvent> out;
  size_t pos = 0;
  while (pos < buffer_.size()) {
    size_t n = DecodeOne(pos, false, &out);
    if (n == 0) break;
    pos += n;
  }
  buffer_.erase(0, pos);
  return out;
}

std::vector<InputEvent> KeyDecoder::Flush() {
  std::vector<InputEvent> out;
  size_t pos = 0;
  while (pos < buffer_.size()) pos += DecodeOne(pos, true, &out);
  buffer_.clear();
  return out;
}

// A terminal's reply that arrives late (an OSC 11 colour answer after DA1's,
// from a slow terminal or through tmux) must not be typed into the editor:
// ESC ] digit ... (OSC) and ESC P followed by a reply's first byte (DCS:
// DECRQSS, XTVERSION, XTGETTCAP) up to BEL or ST are dropped whole. No key
// sends them; Alt+] or Alt+P followed by other text is still those keys,
// because only a terminated string is dropped (an unterminated one waits for
// more, up to a bound, and is then keys).
size_t KeyDecoder::SkipTerminalString(size_t pos, bool final) const {
  const size_t avail = buffer_.size() - pos;
  if (avail < 3) return final ? kNotAString : (avail == 2 && (buffer_[pos + 1] == ']' || buffer_[pos + 1] == 'P') ? 0 : kNotAString);
  const char kind = buffer_[pos + 1], first = buffer_[pos + 2];
  const bool osc = kind == ']' && first >= '0' && first <= '9';
  const bool dcs = kind == 'P' && ((first >= '0' && first <= '9') || first == '>' || first == '+' || first == '!');
  if (!osc && !dcs) return kNotAString;
  constexpr size_t kMaxString = 4096;
  for (size_t i = pos + 2; i < buffer_.size() && i - pos < kMaxString; ++i) {
    if (buffer_[i] == '\a') return i + 1 - pos;
    if (buffer_[i] == 0x1b) {
      if (i + 1 == buffer_.size()) return final ? kNotAString : 0;
      return buffer_[i + 1] == '\\' ? i + 2 - pos : kNotAString;
    }
  }
  return final || avail >= kMaxString ? kNotAString : 0;
}

size_t KeyDecoder::DecodeOne(size_t pos, bool final, std::vector<InputEvent>* out) {
  const size_t avail = buffer_.size() - pos;
  if (in_paste_) {
    size_t end = buffer_.find(kPasteEnd, pos);
    size_t take = end != std::string::npos ? end - pos
                  : final                  ? avail
                  // Hold back what may be the start of the end marker.
                  : (avail > kPasteEnd.size() ? avail - kPasteEnd.size() : 0);
    if (paste_.size() < kMaxPaste) paste_.append(buffer_, pos, std::min(take, kMaxPaste - paste_.size()));
    if (end == std::string::npos && !final) return take;
    InputEvent e;
    e.type = InputEvent::Type::kPaste;
    e.text = std::move(paste_);
    paste_.clear();
    in_paste_ = false;
    out->push_back(std::move(e));
    return take + (end != std::string::npos ? kPasteEnd.size() : 0);
  }

  unsigned char b = static_cast<unsigned char>(buffer_[pos]);
  if (b == 0x1b) {
    if (avail == 1) {
      if (!final) return 0;
      out->push_back(KeyEvent(Key::kEscape));
      return 1;
    }
    char next = buffer_[pos + 1];
    if (next == '[') return DecodeCsi(pos, final, out);
    if (size_t n = SkipTerminalString(pos, final); n != kNotAString) return n;
    if (next == 'O') {  // SS3: cursor keys in application mode
      if (avail < 3) {
        if (!final) return 0;
        out->push_back(KeyEvent(Key::kChar, kAlt, 'O'));
        return 2;
      }
      switch (buffer_[pos + 2]) {
        case 'A': out->push_back(KeyEvent(Key::kUp)); break;
        case 'B': out->push_back(KeyEvent(Key::kDown)); break;
        case 'C': out->push_back(KeyEvent(Key::kRight)); break;
        case 'D': out->push_back(KeyEvent(Key::kLeft)); break;
        case 'H': out->push_back(KeyEvent(Key::kHome)); break;
        case 'F': out->push_back(KeyEvent(Key::kEnd)); break;
        case 'M': out->push_back(KeyEvent(Key::kEnter)); break;
        default: break;  // F1-F4 and keypad keys: not used
      }
      return 3;
    }
    if (next == 0x1b) {  // Esc Esc: the first is a key of its own
      out->push_back(KeyEvent(Key::kEscape));
      return 1;
    }
    // Esc + key: the legacy encoding of Alt+key.
    std::vector<InputEvent> inner;
    size_t n = DecodeOne(pos + 1, final, &inner);
    if (n == 0) return 0;
    for (size_t i = 0; i < inner.size(); ++i) {
      if (i == 0 && inner[i].type == InputEvent::Type::kKey) inner[i].mods |= kAlt;
      out->push_back(std::move(inner[i]));
    }
    return 1 + n;
  }
  if (b == '\r') return out->push_back(KeyEvent(Key::kEnter)), 1;
  if (b == '\n') return out->push_back(KeyEvent(Key::kChar, kCtrl, 'j')), 1;
  if (b == '\t') return out->push_back(KeyEvent(Key::kTab)), 1;
  if (b == 0x7f || b == 0x08) return out->push_back(KeyEvent(Key::kBackspace)), 1;
  if (b == 0) return out->push_back(KeyEvent(Key::kChar, kCtrl, ' ')), 1;
  if (b < 0x1b) return out->push_back(KeyEvent(Key::kChar, kCtrl, 'a' + (b - 1))), 1;
  if (b < 0x20) return out->push_back(KeyEvent(Key::kChar, kCtrl, "\\]^_"[b - 0x1c])), 1;

  // UTF-8 text, one code point per event.
  size_t len = b < 0x80 ? 1 : (b >> 5) == 6 ? 2 : (b >> 4) == 14 ? 3 : (b >> 3) == 30 ? 4 : 1;
  if (avail < len && !final) return 0;
  utf8proc_int32_t cp = -1;
  auto n = utf8proc_iterate(reinterpret_cast<const utf8proc_uint8_t*>(buffer_.data() + pos),
                            static_cast<utf8proc_ssize_t>(std::min(len, avail)), &cp);
  if (n <= 0) {
    out->push_back(KeyEvent(Key::kChar, 0, 0xFFFD));
    return 1;
  }
  out->push_back(KeyEvent(Key::kChar, 0, static_cast<char32_t>(cp)));
  return static_cast<size_t>(n);
}

size_t KeyDecoder::DecodeCsi(size_t pos, bool final, std::vector<InputEvent>* out) {
  size_t i = pos + 2;
  while (i < buffer_.size() && static_cast<unsigned char>(buffer_[i]) >= 0x20 &&
         static_cast<unsigned char>(buffer_[i]) < 0x40) {
    ++i;
  }
  if (i >= buffer_.size()) {
    if (i - pos > kMaxSequence) return i - pos;  // drop the junk
    if (!final) return 0;
    out->push_back(KeyEvent(Key::kChar, kAlt, '['));
    return 2;
  }
  const size_t used = i + 1 - pos;
  const char fin = buffer_[i];
  std::string_view params(buffer_.data() + pos + 2, i - pos - 2);
  if (used > kMaxSequence) return used;

  // Fields split by ';'; of each field's ':' subfields only the first counts,
  // except the event type kitty puts after the modifiers (3 = release).
  std::vector<long> p;
  int event_type = 1;
  size_t field = 0;
  for (size_t start = 0; start <= params.size();) {
    size_t semi = params.find(';', start);
    std::string_view f = params.substr(start, semi == std::string_view::npos ? std::string_view::npos : semi - start);
    size_t colon = f.find(':');
    long v = 0;
    for (char c : f.substr(0, colon)) {
      if (c >= '0' && c <= '9' && v < 10000000) v = v * 10 + (c - '0');
    }
    if (field == 1 && colon != std::string_view::npos && colon + 1 < f.size()) event_type = f[colon + 1] - '0';
    p.push_back(v);
    ++field;
    if (semi == std::string_view::npos) break;
    start = semi + 1;
  }
  auto param = [&](size_t k, long def) { return k < p.size() && p[k] > 0 ? p[k] : def; };
  bool private_params = !params.empty() && (params[0] == '?' || params[0] == '>' || params[0] == '<' || params[0] == '=');
  if (private_params) return used;  // replies to queries: not keys

  uint8_t mods = Mods(param(1, 1));
  switch (fin) {
    case 'u':  // kitty keyboard protocol
      if (event_type != 3) out->push_back(FromKeyCode(param(0, 0), mods));
      return used;
    case '~':
      switch (param(0, 0)) {
        case 27: out->push_back(FromKeyCode(param(2, 0), mods)); break;  // modifyOtherKeys
        case 200: in_paste_ = true; break;
        case 1: case 7: out->push_back(KeyEvent(Key::kHome, mods)); break;
        case 4: case 8: out->push_back(KeyEvent(Key::kEnd, mods)); break;
        case 2: out->push_back(KeyEvent(Key::kInsert, mods)); break;
        case 3: out->push_back(KeyEvent(Key::kDelete, mods)); break;
        case 5: out->push_back(KeyEvent(Key::kPageUp, mods)); break;
        case 6: out->push_back(KeyEvent(Key::kPageDown, mods)); break;
        default: break;  // function keys, a stray paste end: not used
      }
      return used;
    case 'A': out->push_back(KeyEvent(Key::kUp, mods)); return used;
    case 'B': out->push_back(KeyEvent(Key::kDown, mods)); return used;
    case 'C': out->push_back(KeyEvent(Key::kRight, mods)); return used;
    case 'D': out->push_back(KeyEvent(Key::kLeft, mods)); return used;
    case 'H': out->push_back(KeyEvent(Key::kHome, mods)); return used;
    case 'F': out->push_back(KeyEvent(Key::kEnd, mods)); return used;
    case 'Z': out->push_back(KeyEvent(Key::kTab, kShift)); return used;
    default: return used;  // focus reports, unknown keys
  }
}

}  // namespace sepp::front::tui
