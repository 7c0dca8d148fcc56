#include "base/terminal_text.h"

#include <cstdio>

namespace sepp {
namespace {

// Code points a terminal may act on besides C0 and DEL: C1 controls, and the
// bidi embeddings, overrides and isolates that reorder what the user reads.
bool IsHiddenControl(char32_t cp) {
  return (cp >= 0x80 && cp <= 0x9F) || cp == 0x061C || cp == 0x200E || cp == 0x200F ||
         (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069);
}

// Decodes one UTF-8 character at text[i]; returns its length, 0 when the
// bytes there are not valid UTF-8 (overlong, surrogate, cut short).
size_t DecodeUtf8(std::string_view text, size_t i, char32_t* cp) {
  unsigned char c = static_cast<unsigned char>(text[i]);
  size_t len = c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 0;
  if (len == 0 || i + len > text.size()) return 0;
  char32_t v = len == 1 ? c : len == 2 ? (c & 0x1F) : len == 3 ? (c & 0x0F) : (c & 0x07);
  for (size_t k = 1; k < len; ++k) {
    unsigned char d = static_cast<unsigned char>(text[i + k]);
    if ((d & 0xC0) != 0x80) return 0;
    v = (v << 6) | (d & 0x3F);
  }
  static constexpr char32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
  if (v < kMin[len] || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)) return 0;
  *cp = v;
  return len;
}

std::string Hex(const char* format, unsigned value) {
  char buf[16];
  std::snprintf(buf, sizeof buf, format, value);
  return buf;
}

}  // namespace

std::string VisibleControls(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    if (c == '\n' || c == '\t' || (c >= 0x20 && c < 0x7F)) {
      out += static_cast<char>(c);
      ++i;
      continue;
    }
    if (c < 0x20 || c == 0x7F) {
      out += '^';
      out += static_cast<char>(c ^ 0x40);  // ESC -> '[', DEL -> '?'
      ++i;
      continue;
    }
    char32_t cp = 0;
    size_t len = DecodeUtf8(text, i, &cp);
    if (len == 0) {
      out += Hex("\\x%02x", c);
      ++i;
    } else if (IsHiddenControl(cp)) {
      out += Hex("\\u%04x", static_cast<unsigned>(cp));
      i += len;
    } else {
      out.append(text, i, len);
      i += len;
    }
  }
  return out;
}

std::string EscapeJsonControls(std::string_view json) {
  std::string out;
  out.reserve(json.size());
  for (size_t i = 0; i < json.size();) {
    unsigned char c = static_cast<unsigned char>(json[i]);
    if (c == 0x7F) {
      out += "\\u007f";
      ++i;
      continue;
    }
    char32_t cp = 0;
    size_t len = c < 0x80 ? 0 : DecodeUtf8(json, i, &cp);
    if (len > 0 && IsHiddenControl(cp)) {
      out += Hex("\\u%04x", static_cast<unsigned>(cp));
      i += len;
    } else {
      size_t n = len > 0 ? len : 1;
      out.append(json, i, n);
      i += n;
    }
  }
  return out;
}

}  // namespace sepp
