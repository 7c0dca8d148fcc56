// KeyDecoder: terminal input bytes to key, text and paste events, for every
// encoding a terminal may send: the kitty keyboard protocol (CSI u),
// xterm's modifyOtherKeys (CSI 27;m;k~), legacy bytes and escape sequences,
// and bracketed paste. Sequences cut across reads are kept until the rest
// arrives. A lone Esc cannot be told from the start of a sequence by bytes
// alone: Feed() holds it, and the caller calls Flush() when no more input
// came within a short wait (the input loop's poll timeout).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace sepp::front::tui {

enum class Key {
  kChar,  // a character: codepoint (Ctrl+letter is kChar with kCtrl)
  kEnter,
  kTab,
  kBackspace,
  kEscape,
  kUp,
  kDown,
  kLeft,
  kRight,
  kHome,
  kEnd,
  kInsert,
  kDelete,
  kPageUp,
  kPageDown,
};

enum Mod : uint8_t { kShift = 1, kAlt = 2, kCtrl = 4 };

struct InputEvent {
  enum class Type { kKey, kPaste };
  Type type = Type::kKey;
  Key key = Key::kChar;
  uint8_t mods = 0;
  char32_t codepoint = 0;  // kChar
  std::string text;        // kPaste: the pasted bytes, as sent
  bool operator==(const InputEvent&) const = default;
};

const char* KeyName(Key key);
// "Shift+Enter", "Ctrl+c", "Alt+x", "Esc", "paste(12 bytes)": for tests and logs.
std::string Describe(const InputEvent& e);

class KeyDecoder {
 public:
  std::vector<InputEvent> Feed(std::string_view bytes);
  // Whatever is held as incomplete, decoded as it stands (a lone Esc becomes
  // Esc; a cut-off sequence becomes its bytes as keys).
  std::vector<InputEvent> Flush();
  // Input is held waiting for more (the caller should Flush() after a wait).
  bool pending() const { return !buffer_.empty(); }

  // A paste larger than this keeps its first kMaxPaste bytes: a stuck paste
  // (no end marker) cannot grow memory without bound.
  static constexpr size_t kMaxPaste = 16 << 20;

 private:
  // Decodes one event at buffer_[pos]; returns bytes used, or 0 when the
  // buffer holds only the start of a sequence.
  size_t DecodeOne(size_t pos, bool final, std::vector<InputEvent>* out);
  size_t DecodeCsi(size_t pos, bool final, std::vector<InputEvent>* out);
  // The length of a terminal reply string (OSC or DCS) at pos, to drop; 0 to
  // wait for more bytes; kNotAString when the bytes are keys.
  static constexpr size_t kNotAString = static_cast<size_t>(-1);
  size_t SkipTerminalString(size_t pos, bool final) const;

  std::string buffer_;
  bool in_paste_ = false;
  std::string paste_;
};

}  // namespace sepp::front::tui
