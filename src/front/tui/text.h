// The terminal UI's cell/line model: styled text measured in terminal
// columns, one grapheme cluster at a time (utf8proc), with every control
// character from model or tool text turned into a visible stand-in so that
// no outside text can drive the terminal.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace sepp::front::tui {

// A foreground colour: 0 is the terminal's default, 1..16 the ANSI colours
// 0..15, Ansi256(i) one of the 256-colour palette, Rgb(r, g, b) true colour.
constexpr uint32_t kColor256 = 1u << 24;
constexpr uint32_t kColorRgb = 1u << 25;
constexpr uint32_t Ansi256(uint8_t index) { return kColor256 | index; }
constexpr uint32_t Rgb(uint8_t r, uint8_t g, uint8_t b) {
  return kColorRgb | (uint32_t{r} << 16) | (uint32_t{g} << 8) | b;
}

struct Style {
  uint32_t fg = 0;  // see Ansi256() and Rgb()
  bool bold = false;
  bool dim = false;
  bool italic = false;
  bool inverse = false;
  bool underline = false;
  bool strike = false;
  bool operator==(const Style&) const = default;
  bool IsPlain() const { return *this == Style{}; }
};

// A run of one style. text is sanitized (Sanitize()) and has no newline.
// link: the target of an OSC 8 hyperlink around the run (SafeLinkTarget()).
struct Span {
  std::string text;
  Style style;
  std::string link;
  bool operator==(const Span&) const = default;
};

// A link target that cannot leave its OSC 8 sequence: printable ASCII only,
// every other byte (controls, ESC, BEL, spaces, non-ASCII) percent-encoded;
// "" for targets longer than 2,000 bytes (terminals drop them anyway).
std::string SafeLinkTarget(std::string_view url);

// One logical line (before wrapping) or one screen row (after Wrap()).
struct Line {
  std::vector<Span> spans;
  bool operator==(const Line&) const = default;
  Line& Add(std::string_view text, Style style = {});
  int Width() const;
  std::string PlainText() const;
};

// Terminal columns of one grapheme cluster (0, 1 or 2).
int GraphemeWidth(std::string_view cluster);
// Terminal columns of sanitized text (no tabs or controls inside).
int DisplayWidth(std::string_view text);
// Calls fn(cluster) for each grapheme cluster of valid UTF-8 text.
template <typename Fn>
void ForEachGrapheme(std::string_view text, Fn fn);
// Byte length of the grapheme cluster starting at text[0] (valid UTF-8).
size_t NextGraphemeLength(std::string_view text);

// Outside text (one line, no '\n') made safe and measurable: C0 controls and
// DEL become the Unicode control pictures (ESC -> U+241B), C1 controls and
// invalid UTF-8 bytes become U+FFFD, a tab becomes spaces to the next
// multiple of 8 counted from start_column.
std::string Sanitize(std::string_view raw, int start_column = 0);

// A count as the footer shows it: 950, 12.3k, 200k, 1.5M.
std::string CompactCount(int64_t n);

// Splits outside text on "\n" (a "\r\n" counts as one newline; a lone '\r'
// is shown as U+240D) into sanitized lines of one style.
std::vector<Line> LinesFromText(std::string_view raw, Style style = {});

// Screen rows of at most width columns (width >= 1). Breaks after the last
// space that fits, else between grapheme clusters; a wide cluster that does
// not fit moves to the next row. Rows keep no trailing padding. An empty line
// is one empty row.
// row_starts (optional) gets the column of the logical line where each row
// starts, which maps a caret to its row.
std::vector<Line> Wrap(const Line& line, int width, std::vector<int>* row_starts = nullptr);

// The bytes that draw a row: SGR where the style changes (the row ends in
// the default rendition); OSC 8 around each run of spans with one link.
void AppendEncoded(const Line& line, std::string* out);

template <typename Fn>
void ForEachGrapheme(std::string_view text, Fn fn) {
  while (!text.empty()) {
    size_t n = NextGraphemeLength(text);
    fn(text.substr(0, n));
    text.remove_prefix(n);
  }
}

}  // namespace sepp::front::tui
