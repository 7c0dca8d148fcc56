#include "front/tui/text.h"

#include <utf8proc.h>

#include "base/strings.h"

namespace sepp::front::tui {
namespace {

constexpr char32_t kReplacement = 0xFFFD;

// One code point of text at *pos (advanced); invalid UTF-8 yields -1 and
// advances one byte.
int32_t Decode(std::string_view text, size_t* pos) {
  utf8proc_int32_t cp = -1;
  auto n = utf8proc_iterate(reinterpret_cast<const utf8proc_uint8_t*>(text.data() + *pos),
                            static_cast<utf8proc_ssize_t>(text.size() - *pos), &cp);
  if (n <= 0) {
    *pos += 1;
    return -1;
  }
  *pos += static_cast<size_t>(n);
  return cp;
}

bool IsRegionalIndicator(int32_t cp) { return cp >= 0x1F1E6 && cp <= 0x1F1FF; }

}  // namespace

size_t NextGraphemeLength(std::string_view text) {
  if (text.empty()) return 0;
  size_t pos = 0;
  int32_t prev = Decode(text, &pos);
  if (prev < 0) return pos;
  utf8proc_int32_t state = 0;
  while (pos < text.size()) {
    size_t next_pos = pos;
    int32_t cp = Decode(text, &next_pos);
    if (cp < 0 || utf8proc_grapheme_break_stateful(prev, cp, &state)) break;
    prev = cp;
    pos = next_pos;
  }
  return pos;
}

int GraphemeWidth(std::string_view cluster) {
  size_t pos = 0;
  int32_t first = Decode(cluster, &pos);
  if (first < 0) return 1;
  int width = utf8proc_charwidth(first);
  bool pair_of_flags = false;
  while (pos < cluster.size()) {
    int32_t cp = Decode(cluster, &pos);
    // VS16 asks for the emoji (wide) presentation; two regional indicators
    // are one flag. Terminals draw both two columns wide.
    if (cp == 0xFE0F) width = 2;
    if (IsRegionalIndicator(first) && IsRegionalIndicator(cp)) pair_of_flags = true;
  }
  if (pair_of_flags) width = 2;
  return width < 0 ? 0 : width;
}

int DisplayWidth(std::string_view text) {
  int width = 0;
  ForEachGrapheme(text, [&](std::string_view g) { width += GraphemeWidth(g); });
  return width;
}

std::string Sanitize(std::string_view raw, int start_column) {
  std::string out;
  out.reserve(raw.size());
  // The column is needed only at tabs; measure lazily from the last tab.
  int column = start_column;
  size_t measured = 0;
  size_t pos = 0;
  while (pos < raw.size()) {
    unsigned char byte = static_cast<unsigned char>(raw[pos]);
    if (byte >= 0x20 && byte < 0x7F) {  // the common case: printable ASCII
      out.push_back(static_cast<char>(byte));
      ++pos;
      continue;
    }
    int32_t cp = Decode(raw, &pos);
    if (cp == '\t') {
      column += DisplayWidth(std::string_view(out).substr(measured));
      int spaces = 8 - column % 8;
      out.append(static_cast<size_t>(spaces), ' ');
      column += spaces;
      measured = out.size();
    } else if (cp >= 0 && cp < 0x20) {
      AppendUtf8(0x2400 + static_cast<char32_t>(cp), &out);  // control pictures
    } else if (cp == 0x7F) {
      AppendUtf8(0x2421, &out);
    } else if (cp < 0 || (cp >= 0x80 && cp < 0xA0)) {
      AppendUtf8(kReplacement, &out);
    } else {
      AppendUtf8(static_cast<char32_t>(cp), &out);
    }
  }
  return out;
}

std::vector<Line> LinesFromText(std::string_view raw, Style style) {
  std::vector<Line> lines;
  while (true) {
    size_t nl = raw.find('\n');
    std::string_view piece = raw.substr(0, nl);
    if (!piece.empty() && piece.back() == '\r') piece.remove_suffix(1);
    Line line;
    if (!piece.empty()) line.spans.push_back({Sanitize(piece), style});
    lines.push_back(std::move(line));
    if (nl == std::string_view::npos) break;
    raw.remove_prefix(nl + 1);
  }
  return lines;
}

Line& Line::Add(std::string_view text, Style style) {
  std::string clean = Sanitize(text, Width());
  if (clean.empty()) return *this;
  if (!spans.empty() && spans.back().style == style && spans.back().link.empty()) {
    spans.back().text += clean;
  } else {
    spans.push_back({std::move(clean), style});
  }
  return *this;
}

int Line::Width() const {
  int width = 0;
  for (const auto& s : spans) width += DisplayWidth(s.text);
  return width;
}

std::string Line::PlainText() const {
  std::string text;
  for (const auto& s : spans) text += s.text;
  return text;
}

std::vector<Line> Wrap(const Line& line, int width, std::vector<int>* row_starts) {
  if (width < 1) width = 1;
  struct Cell {
    std::string_view text;
    int width;
    size_t span;
  };
  std::vector<Cell> cells;
  for (size_t s = 0; s < line.spans.size(); ++s) {
    ForEachGrapheme(line.spans[s].text, [&](std::string_view g) {
      cells.push_back({g, GraphemeWidth(g), s});
    });
  }
  std::vector<Line> rows;
  if (row_starts) row_starts->clear();
  int column = 0;  // of cells[begin] in the logical line
  size_t consumed = 0;
  auto emit = [&](size_t begin, size_t end) {
    for (; consumed < begin; ++consumed) column += cells[consumed].width;
    if (row_starts) row_starts->push_back(column);
    Line row;
    for (size_t i = begin; i < end; ++i) {
      const Style& style = line.spans[cells[i].span].style;
      if (row.spans.empty() || cells[i].span != cells[i - 1].span) {
        row.spans.push_back({std::string(cells[i].text), style, line.spans[cells[i].span].link});
      } else {
        row.spans.back().text += cells[i].text;
      }
    }
    rows.push_back(std::move(row));
  };
  size_t start = 0;
  while (start < cells.size()) {
    int used = 0;
    size_t end = start;
    while (end < cells.size() && used + cells[end].width <= width) used += cells[end++].width;
    if (end == cells.size()) {
      emit(start, end);
      break;
    }
    if (end == start) end = start + 1;  // a wide cluster on a one-column screen
    // Break after the last space that fits; the space itself is dropped.
    size_t space = end;
    while (space > start && cells[space].text != " ") --space;
    if (space > start && cells[space].text == " ") {
      emit(start, space);
      start = space + 1;
    } else {
      emit(start, end);
      start = end;
    }
  }
  if (rows.empty()) {
    rows.emplace_back();
    if (row_starts) row_starts->push_back(0);
  }
  return rows;
}

std::string SafeLinkTarget(std::string_view url) {
  constexpr size_t kMaxLink = 2000;
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : url) {
    if (c > 0x20 && c < 0x7F) {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
  }
  return out.size() > kMaxLink ? std::string() : out;
}

namespace {

// The SGR parameters that set st from the default rendition ("" for plain).
std::string SgrParameters(const Style& st) {
  std::string sgr;
  auto add = [&](uint32_t code) {
    if (!sgr.empty()) sgr += ';';
    sgr += std::to_string(code);
  };
  if (st.bold) add(1);
  if (st.dim) add(2);
  if (st.italic) add(3);
  if (st.underline) add(4);
  if (st.inverse) add(7);
  if (st.strike) add(9);
  if (st.fg >= 1 && st.fg <= 8) add(30 + st.fg - 1);
  if (st.fg >= 9 && st.fg <= 16) add(90 + st.fg - 9);
  if (st.fg & kColor256) {
    add(38), add(5), add(st.fg & 0xFF);
  }
  if (st.fg & kColorRgb) {
    add(38), add(2), add((st.fg >> 16) & 0xFF), add((st.fg >> 8) & 0xFF), add(st.fg & 0xFF);
  }
  return sgr;
}

}  // namespace

// The rendition changes only between spans of different styles, and one
// sequence does it (a reset and the new style together: "CSI 0;1m", not
// "CSI 0m CSI 1m"); a link stays open across the spans that share it. A
// streamed Markdown answer is mostly short styled runs, where these
// sequences were a fifth of the bytes written.
void AppendEncoded(const Line& line, std::string* out) {
  Style current;                 // the rendition the terminal has
  const std::string* link = nullptr;  // the open OSC 8 target
  for (const auto& span : line.spans) {
    if (span.text.empty()) continue;
    if (link != nullptr && *link != span.link) {
      *out += "\x1b]8;;\x1b\\";
      link = nullptr;
    }
    if (link == nullptr && !span.link.empty()) {
      *out += "\x1b]8;;" + span.link + "\x1b\\";
      link = &span.link;
    }
    if (!(span.style == current)) {
      if (span.style.IsPlain()) *out += "\x1b[m";
      else *out += (current.IsPlain() ? "\x1b[" : "\x1b[0;") + SgrParameters(span.style) + "m";
      current = span.style;
    }
    *out += span.text;
  }
  if (!current.IsPlain()) *out += "\x1b[m";
  if (link != nullptr) *out += "\x1b]8;;\x1b\\";
}

std::string CompactCount(int64_t n) {
  auto scaled = [](int64_t v, int64_t unit, const char* suffix) {
    int64_t tenth = v % unit / (unit / 10);
    return std::to_string(v / unit) + (tenth ? "." + std::to_string(tenth) : "") + suffix;
  };
  if (n < 0) return "-" + CompactCount(-n);
  if (n < 1000) return std::to_string(n);
  if (n < 1000000) return scaled(n, 1000, "k");
  return scaled(n, 1000000, "M");
}

}  // namespace sepp::front::tui
