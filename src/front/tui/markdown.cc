#include "front/tui/markdown.h"

#include <cmark-gfm-core-extensions.h>
#include <cmark-gfm-extension_api.h>
#include <cmark-gfm.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <mutex>

namespace sepp::front::tui {
namespace {

// Deeper than this, a block or inline subtree is shown as its plain text:
// hostile nesting costs neither stack nor width.
constexpr int kMaxDepth = 24;
constexpr int kMaxTableColumns = 64;
constexpr int kMinColumnWidth = 3;
constexpr int kMaxRuleWidth = 80;

struct ParserDeleter {
  void operator()(cmark_parser* p) const { cmark_parser_free(p); }
};
struct NodeDeleter {
  void operator()(cmark_node* n) const { cmark_node_free(n); }
};
using Document = std::unique_ptr<cmark_node, NodeDeleter>;

Document Parse(std::string_view source) {
  static std::once_flag registered;
  std::call_once(registered, [] { cmark_gfm_core_extensions_ensure_registered(); });
  std::unique_ptr<cmark_parser, ParserDeleter> parser(cmark_parser_new(CMARK_OPT_DEFAULT));
  for (const char* name : {"table", "strikethrough", "autolink", "tasklist"}) {
    if (cmark_syntax_extension* ext = cmark_find_syntax_extension(name)) {
      cmark_parser_attach_syntax_extension(parser.get(), ext);
    }
  }
  cmark_parser_feed(parser.get(), source.data(), source.size());
  return Document(cmark_parser_finish(parser.get()));
}

bool Is(cmark_node* node, const char* type_string) {
  const char* t = cmark_node_get_type_string(node);
  return t && std::strcmp(t, type_string) == 0;
}

std::string_view Literal(cmark_node* node) {
  const char* s = cmark_node_get_literal(node);
  return s ? std::string_view(s) : std::string_view();
}

// over on top of base: its colour if it has one, its attributes added.
Style Overlay(Style base, const Style& over) {
  if (over.fg) base.fg = over.fg;
  base.bold |= over.bold;
  base.dim |= over.dim;
  base.italic |= over.italic;
  base.inverse |= over.inverse;
  base.underline |= over.underline;
  base.strike |= over.strike;
  return base;
}

// The text of a subtree without markup, iteratively (no recursion).
std::string PlainText(cmark_node* root) {
  std::string text;
  cmark_iter* it = cmark_iter_new(root);
  cmark_event_type ev;
  while ((ev = cmark_iter_next(it)) != CMARK_EVENT_DONE) {
    if (ev != CMARK_EVENT_ENTER) continue;
    cmark_node* n = cmark_iter_get_node(it);
    switch (cmark_node_get_type(n)) {
      case CMARK_NODE_TEXT:
      case CMARK_NODE_CODE:
      case CMARK_NODE_HTML_INLINE:
      case CMARK_NODE_CODE_BLOCK:
      case CMARK_NODE_HTML_BLOCK: text += Literal(n); break;
      case CMARK_NODE_SOFTBREAK:
      case CMARK_NODE_LINEBREAK: text += ' '; break;
      default: break;
    }
  }
  cmark_iter_free(it);
  return text;
}

void AppendLine(std::vector<Line>* out, Line line) { out->push_back(std::move(line)); }

// Prepends prefix to line.
Line Prefixed(const Line& prefix, Line line) {
  Line out = prefix;
  for (auto& s : line.spans) out.spans.push_back(std::move(s));
  return out;
}

class Renderer {
 public:
  Renderer(std::string_view source, int width, const Theme& theme) : width_(std::max(width, 1)), t_(theme) {
    size_t start = 0;
    while (start <= source.size()) {
      size_t nl = source.find('\n', start);
      if (nl == std::string_view::npos) nl = source.size();
      std::string_view line = source.substr(start, nl - start);
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      source_lines_.push_back(line);
      start = nl + 1;
    }
  }

  // The blocks under parent, separated by empty lines when loose.
  void Blocks(cmark_node* parent, bool tight, int depth, std::vector<Line>* out) {
    bool first = true;
    for (cmark_node* n = cmark_node_first_child(parent); n; n = cmark_node_next(n)) {
      std::vector<Line> lines;
      Block(n, depth, &lines);
      if (lines.empty()) continue;
      if (!first && !tight) out->emplace_back();
      first = false;
      for (auto& l : lines) out->push_back(std::move(l));
    }
  }

 private:
  void Block(cmark_node* n, int depth, std::vector<Line>* out) {
    if (depth > kMaxDepth) {
      AppendLine(out, Line{}.Add(PlainText(n)));
      return;
    }
    switch (cmark_node_get_type(n)) {
      case CMARK_NODE_PARAGRAPH: Inlines(n, Style{}, depth, out); return;
      case CMARK_NODE_HEADING: {
        Style st = t_.heading;
        if (cmark_node_get_heading_level(n) == 1) st.underline = true;
        Inlines(n, st, depth, out);
        return;
      }
      case CMARK_NODE_CODE_BLOCK: CodeBlock(n, out); return;
      case CMARK_NODE_THEMATIC_BREAK: {
        std::string rule;
        for (int i = 0; i < std::min(width_, kMaxRuleWidth); ++i) rule += "\u2500";
        AppendLine(out, Line{}.Add(rule, t_.rule));
        return;
      }
      case CMARK_NODE_BLOCK_QUOTE: {
        std::vector<Line> inner;
        Blocks(n, false, depth + 1, &inner);
        Line bar = Line{}.Add("\u2502 ", t_.quote_border);
        for (auto& l : inner) {
          for (auto& s : l.spans) s.style = Overlay(s.style, t_.quote);
          out->push_back(Prefixed(bar, std::move(l)));
        }
        return;
      }
      case CMARK_NODE_LIST: List(n, depth, out); return;
      case CMARK_NODE_HTML_BLOCK: {
        std::string_view html = Literal(n);
        while (!html.empty() && html.back() == '\n') html.remove_suffix(1);
        for (auto& l : LinesFromText(html, t_.muted)) out->push_back(std::move(l));
        return;
      }
      default: break;
    }
    if (Is(n, "table")) {
      Table(n, out);
      return;
    }
    // Anything else (footnote definitions, extension blocks): its children,
    // or its text.
    if (cmark_node_first_child(n)) Blocks(n, false, depth + 1, out);
    else if (!Literal(n).empty()) AppendLine(out, Line{}.Add(Literal(n)));
  }

  void CodeBlock(cmark_node* n, std::vector<Line>* out) {
    int length = 0, offset = 0;
    char fence = 0;
    bool fenced = cmark_node_get_fenced(n, &length, &offset, &fence) != 0;
    const char* info_c = cmark_node_get_fence_info(n);
    std::string info = info_c ? info_c : "";
    std::string_view code = Literal(n);
    if (!code.empty() && code.back() == '\n') code.remove_suffix(1);
    std::string language = CanonicalLanguage(info);
    std::string marks(static_cast<size_t>(std::clamp(length, 3, 16)), fence == '~' ? '~' : '`');
    if (fenced) AppendLine(out, Line{}.Add(marks + info, t_.code_fence));
    HighlightState state;
    if (!code.empty() || !fenced) {
      size_t start = 0;
      while (start <= code.size()) {
        size_t nl = code.find('\n', start);
        if (nl == std::string_view::npos) nl = code.size();
        Line line;
        if (!fenced) line.Add("    ");
        HighlightLine(language, code.substr(start, nl - start), t_, &state, &line);
        out->push_back(std::move(line));
        start = nl + 1;
      }
    }
    if (fenced) AppendLine(out, Line{}.Add(marks, t_.code_fence));
  }

  void List(cmark_node* n, int depth, std::vector<Line>* out) {
    bool ordered = cmark_node_get_list_type(n) == CMARK_ORDERED_LIST;
    bool tight = cmark_node_get_list_tight(n) != 0;
    int number = cmark_node_get_list_start(n);
    const char* delim = cmark_node_get_list_delim(n) == CMARK_PAREN_DELIM ? ")" : ".";
    static constexpr const char* kBullets[] = {"\u2022 ", "\u25e6 ", "\u25aa "};
    bool first = true;
    for (cmark_node* item = cmark_node_first_child(n); item; item = cmark_node_next(item)) {
      std::string marker = ordered ? std::to_string(number++) + delim + " " : kBullets[list_depth_ % 3];
      if (Is(item, "tasklist")) {
        marker += cmark_gfm_extensions_get_tasklist_item_checked(item) ? "\u2611 " : "\u2610 ";
      }
      ++list_depth_;
      std::vector<Line> inner;
      Blocks(item, tight, depth + 1, &inner);
      --list_depth_;
      if (!first && !tight) out->emplace_back();
      first = false;
      if (inner.empty()) inner.emplace_back();
      Line head = Line{}.Add(marker, t_.bullet);
      Line indent = Line{}.Add(std::string(static_cast<size_t>(DisplayWidth(marker)), ' '));
      for (size_t i = 0; i < inner.size(); ++i) {
        // An empty line inside a loose item stays empty (no padding).
        if (i > 0 && inner[i].spans.empty()) out->emplace_back();
        else out->push_back(Prefixed(i == 0 ? head : indent, std::move(inner[i])));
      }
    }
  }

  // Inline content of a block as lines (soft and hard breaks start a new
  // one: the model's own line structure is kept).
  void Inlines(cmark_node* block, Style base, int depth, std::vector<Line>* out) {
    std::vector<Line> lines(1);
    InlineChildren(block, base, "", depth, &lines);
    for (auto& l : lines) out->push_back(std::move(l));
  }

  void InlineChildren(cmark_node* parent, Style st, const std::string& link, int depth, std::vector<Line>* lines) {
    for (cmark_node* n = cmark_node_first_child(parent); n; n = cmark_node_next(n)) Inline(n, st, link, depth, lines);
  }

  void Add(std::vector<Line>* lines, std::string_view text, Style st, const std::string& link) {
    Line& line = lines->back();
    if (link.empty()) {
      line.Add(text, st);
      return;
    }
    std::string clean = Sanitize(text, line.Width());
    if (!clean.empty()) line.spans.push_back({std::move(clean), st, link});
  }

  void Inline(cmark_node* n, Style st, const std::string& link, int depth, std::vector<Line>* lines) {
    if (depth > kMaxDepth) {
      Add(lines, PlainText(n), st, link);
      return;
    }
    switch (cmark_node_get_type(n)) {
      case CMARK_NODE_TEXT: Add(lines, Literal(n), st, link); return;
      case CMARK_NODE_CODE: Add(lines, Literal(n), Overlay(st, t_.code), link); return;
      case CMARK_NODE_HTML_INLINE: Add(lines, Literal(n), Overlay(st, t_.muted), link); return;
      case CMARK_NODE_SOFTBREAK:
      case CMARK_NODE_LINEBREAK: lines->emplace_back(); return;
      case CMARK_NODE_EMPH: InlineChildren(n, Overlay(st, t_.emphasis), link, depth + 1, lines); return;
      case CMARK_NODE_STRONG: InlineChildren(n, Overlay(st, t_.strong), link, depth + 1, lines); return;
      case CMARK_NODE_LINK: {
        const char* url_c = cmark_node_get_url(n);
        std::string url = url_c ? url_c : "";
        std::string target = SafeLinkTarget(url);
        InlineChildren(n, Overlay(st, t_.link), target, depth + 1, lines);
        // The target after the text, unless the text is the target (an
        // autolink): it shows where the link goes and copies with it.
        std::string text = PlainText(n);
        if (!url.empty() && text != url && "mailto:" + text != url) {
          Add(lines, " (" + url + ")", Overlay(st, t_.link_url), "");
        }
        return;
      }
      case CMARK_NODE_IMAGE: {
        const char* url_c = cmark_node_get_url(n);
        std::string url = url_c ? url_c : "";
        Add(lines, "[image: " + PlainText(n) + "]", Overlay(st, t_.link), SafeLinkTarget(url));
        if (!url.empty()) Add(lines, " (" + url + ")", Overlay(st, t_.link_url), "");
        return;
      }
      case CMARK_NODE_FOOTNOTE_REFERENCE: Add(lines, "[^" + std::string(Literal(n)) + "]", st, link); return;
      default: break;
    }
    if (Is(n, "strikethrough")) {
      InlineChildren(n, Overlay(st, t_.strike), link, depth + 1, lines);
      return;
    }
    if (cmark_node_first_child(n)) InlineChildren(n, st, link, depth + 1, lines);
    else Add(lines, Literal(n), st, link);
  }

  // A cell's inline content on one line (breaks become spaces).
  Line Cell(cmark_node* cell, Style base) {
    std::vector<Line> lines(1);
    InlineChildren(cell, base, "", 1, &lines);
    Line joined;
    for (size_t i = 0; i < lines.size(); ++i) {
      if (i > 0) joined.Add(" ");
      for (auto& s : lines[i].spans) joined.spans.push_back(std::move(s));
    }
    return joined;
  }

  void RawSource(cmark_node* n, std::vector<Line>* out) {
    int first = cmark_node_get_start_line(n), last = cmark_node_get_end_line(n);
    for (int i = first; i <= last && i >= 1 && static_cast<size_t>(i) <= source_lines_.size(); ++i) {
      out->push_back(Line{}.Add(source_lines_[static_cast<size_t>(i - 1)]));
    }
  }

  void Table(cmark_node* table, std::vector<Line>* out) {
    int columns = cmark_gfm_extensions_get_table_columns(table);
    const uint8_t* align = cmark_gfm_extensions_get_table_alignments(table);
    // Borders: "│ " + cells joined by " │ " + " │".
    int chrome = 3 * columns + 1;
    if (columns < 1 || columns > kMaxTableColumns || width_ < chrome + kMinColumnWidth * columns) {
      RawSource(table, out);  // too narrow for a grid: the Markdown as written
      return;
    }
    struct Row {
      std::vector<Line> cells;
      bool header;
    };
    std::vector<Row> rows;
    std::vector<int> natural(static_cast<size_t>(columns), kMinColumnWidth);
    for (cmark_node* r = cmark_node_first_child(table); r; r = cmark_node_next(r)) {
      Row row{{}, cmark_gfm_extensions_get_table_row_is_header(r) != 0};
      for (cmark_node* c = cmark_node_first_child(r); c && row.cells.size() < static_cast<size_t>(columns);
           c = cmark_node_next(c)) {
        row.cells.push_back(Cell(c, row.header ? t_.table_header : Style{}));
        natural[row.cells.size() - 1] = std::max(natural[row.cells.size() - 1], row.cells.back().Width());
      }
      row.cells.resize(static_cast<size_t>(columns));
      rows.push_back(std::move(row));
    }
    // Fit: the widest column gives up a column until the grid fits.
    std::vector<int> widths = natural;
    int total = chrome;
    for (int w : widths) total += w;
    while (total > width_) {
      auto widest = std::max_element(widths.begin(), widths.end());
      if (*widest <= kMinColumnWidth) break;
      --*widest;
      --total;
    }
    auto rule = [&](const char* left, const char* mid, const char* right) {
      std::string s = left;
      for (int c = 0; c < columns; ++c) {
        for (int i = 0; i < widths[static_cast<size_t>(c)] + 2; ++i) s += "\u2500";
        s += c + 1 < columns ? mid : right;
      }
      return Line{}.Add(s, t_.table_border);
    };
    out->push_back(rule("\u250c", "\u252c", "\u2510"));
    for (size_t r = 0; r < rows.size(); ++r) {
      std::vector<std::vector<Line>> wrapped;
      size_t height = 1;
      for (int c = 0; c < columns; ++c) {
        wrapped.push_back(Wrap(rows[r].cells[static_cast<size_t>(c)], widths[static_cast<size_t>(c)]));
        height = std::max(height, wrapped.back().size());
      }
      for (size_t k = 0; k < height; ++k) {
        Line line = Line{}.Add("\u2502", t_.table_border);
        for (int c = 0; c < columns; ++c) {
          Line cell = k < wrapped[static_cast<size_t>(c)].size() ? wrapped[static_cast<size_t>(c)][k] : Line{};
          int pad = widths[static_cast<size_t>(c)] - cell.Width();
          int left = 0;
          uint8_t a = align ? align[c] : 0;
          if (a == 'r') left = pad;
          if (a == 'c') left = pad / 2;
          line.Add(" " + std::string(static_cast<size_t>(left), ' '));
          for (auto& s : cell.spans) line.spans.push_back(std::move(s));
          line.Add(std::string(static_cast<size_t>(pad - left), ' ') + " ");
          line.Add("\u2502", t_.table_border);
        }
        out->push_back(std::move(line));
      }
      if (rows[r].header) out->push_back(rule("\u251c", "\u253c", "\u2524"));
    }
    out->push_back(rule("\u2514", "\u2534", "\u2518"));
  }

  int width_;
  const Theme& t_;
  std::vector<std::string_view> source_lines_;
  int list_depth_ = 0;
};

// A fence line opening or closing code: up to 3 spaces, then 3+ of ` or ~.
bool FenceLine(std::string_view line, char* ch, size_t* length, size_t* indent) {
  size_t i = 0;
  while (i < line.size() && i < 4 && line[i] == ' ') ++i;
  if (i > 3 || i >= line.size() || (line[i] != '`' && line[i] != '~')) return false;
  size_t j = i;
  while (j < line.size() && line[j] == line[i]) ++j;
  if (j - i < 3) return false;
  *ch = line[i];
  *length = j - i;
  *indent = i;
  return true;
}

}  // namespace

std::vector<Line> RenderMarkdown(std::string_view source, int width, const Theme& theme) {
  Document doc = Parse(source);
  std::vector<Line> out;
  Renderer(source, width, theme).Blocks(doc.get(), false, 0, &out);
  return out;
}

void MarkdownStream::Emit(std::vector<Line> lines, bool block_start, std::vector<Line>* done) {
  if (lines.empty()) return;
  if (block_start && gap_) done->emplace_back();
  gap_ = false;
  committed_any_ = true;
  for (auto& l : lines) done->push_back(std::move(l));
}

// In an open fence: its complete lines, highlighted; the closing fence ends
// it. False when the fence is still open (the rest waits for more text).
bool MarkdownStream::TakeCodeLines(std::vector<Line>* done) {
  size_t nl;
  while ((nl = pending_.find('\n')) != std::string::npos) {
    std::string_view line = std::string_view(pending_).substr(0, nl);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    char ch;
    size_t length, indent;
    bool closes = FenceLine(line, &ch, &length, &indent) && ch == fence_char_ && length >= fence_length_ &&
                  line.find_first_not_of(" \t", indent + length) == std::string_view::npos;
    std::vector<Line> lines(1);
    if (closes) {
      lines[0].Add(std::string(std::min<size_t>(std::max<size_t>(fence_length_, 3), 16), fence_char_), theme_->code_fence);
    } else {
      size_t strip = 0;
      while (strip < fence_indent_ && strip < line.size() && line[strip] == ' ') ++strip;
      HighlightLine(language_, line.substr(strip), *theme_, &highlight_, &lines[0]);
    }
    Emit(std::move(lines), false, done);
    pending_.erase(0, nl + 1);
    if (closes) {
      in_code_ = false;
      gap_ = true;
      return true;
    }
  }
  return false;
}

void MarkdownStream::CommitBlocks(int width, std::vector<Line>* done) {
  while (true) {
    if (in_code_ && !TakeCodeLines(done)) return;
    size_t complete = pending_.rfind('\n');
    if (complete == std::string::npos) return;
    std::string_view text = std::string_view(pending_).substr(0, complete + 1);
    Document doc = Parse(text);
    cmark_node* last = cmark_node_last_child(doc.get());
    if (!last) {
      // Only blank lines (or link definitions): nothing to show.
      if (text.find_first_not_of(" \t\r\n") == std::string_view::npos) pending_.erase(0, complete + 1);
      return;
    }
    // Source lines (1-based) before the last top-level block are final.
    size_t last_start = static_cast<size_t>(std::max(cmark_node_get_start_line(last), 1));
    auto line_offset = [&](size_t line_no) {  // byte offset of a 1-based line
      size_t off = 0;
      for (size_t i = 1; i < line_no && off < pending_.size(); ++i) off = pending_.find('\n', off) + 1;
      return off;
    };
    if (cmark_node_previous(last)) {
      size_t cut = line_offset(last_start);
      Emit(RenderMarkdown(std::string_view(pending_).substr(0, cut), width, *theme_), true, done);
      gap_ = true;
      pending_.erase(0, cut);
      continue;
    }
    int length = 0, offset = 0;
    char fence = 0;
    if (cmark_node_get_type(last) == CMARK_NODE_CODE_BLOCK && cmark_node_get_fenced(last, &length, &offset, &fence)) {
      // Enter the fence: its opening line now, its lines as they complete.
      size_t nl = pending_.find('\n');
      std::string_view open = std::string_view(pending_).substr(0, nl);
      if (!open.empty() && open.back() == '\r') open.remove_suffix(1);
      char ch;
      size_t len, indent;
      if (!FenceLine(open, &ch, &len, &indent)) return;
      fence_char_ = ch;
      fence_length_ = len;
      fence_indent_ = indent;
      std::string info(open.substr(indent + len));
      info.erase(0, info.find_first_not_of(" \t"));
      language_ = CanonicalLanguage(info);
      highlight_ = {};
      Emit({Line{}.Add(std::string(std::min<size_t>(len, 16), ch) + info, theme_->code_fence)}, true, done);
      pending_.erase(0, nl + 1);
      in_code_ = true;
      continue;
    }
    if (cmark_node_get_type(last) == CMARK_NODE_PARAGRAPH) {
      // All but the paragraph's last complete line (which a delimiter row
      // or a setext underline could still change).
      size_t end_line = static_cast<size_t>(cmark_node_get_end_line(last));
      if (end_line > last_start) {
        size_t cut = line_offset(end_line);
        Emit(RenderMarkdown(std::string_view(pending_).substr(0, cut), width, *theme_), true, done);
        pending_.erase(0, cut);
      }
    }
    return;
  }
}

void MarkdownStream::Append(std::string_view text, int width, std::vector<Line>* done) {
  pending_ += text;
  // Only a completed line can finish a block.
  if (text.find('\n') != std::string_view::npos) CommitBlocks(width, done);
}

namespace {

// A word still being streamed is shown once it is whole (a space or the
// line's end follows it): its Markdown or its highlighting can still change
// with its next bytes ("**bo" becoming bold, "retur" a keyword, a link's
// target its text), and a word drawn raw and then again styled costs its
// bytes twice and flickers. Only the last line's last word is held, and at
// most kHeldWord bytes of it (a long URL or token shows as it comes).
constexpr size_t kHeldWord = 32;

std::string_view WithoutPartialWord(std::string_view text) {
  if (text.empty() || text.back() == '\n') return text;
  size_t line = text.find_last_of('\n');
  line = line == std::string_view::npos ? 0 : line + 1;
  size_t space = text.find_last_of(' ');
  size_t keep = space == std::string_view::npos || space < line ? line : space + 1;
  return text.size() - keep > kHeldWord ? text : text.substr(0, keep);
}

}  // namespace

std::vector<Line> MarkdownStream::Live(int width) const {
  std::vector<Line> lines;
  std::string_view shown = WithoutPartialWord(pending_);
  if (in_code_) {
    HighlightState state = highlight_;
    size_t start = 0;
    while (start < shown.size()) {
      size_t nl = shown.find('\n', start);
      if (nl == std::string::npos) nl = shown.size();
      std::string_view line = shown.substr(start, nl - start);
      size_t strip = 0;
      while (strip < fence_indent_ && strip < line.size() && line[strip] == ' ') ++strip;
      Line l;
      HighlightLine(language_, line.substr(strip), *theme_, &state, &l);
      lines.push_back(std::move(l));
      start = nl + 1;
    }
    return lines;
  }
  if (shown.find_first_not_of(" \t\r\n") == std::string::npos) return lines;
  if (gap_) lines.emplace_back();
  for (auto& l : RenderMarkdown(shown, width, *theme_)) lines.push_back(std::move(l));
  return lines;
}

void MarkdownStream::Finish(int width, std::vector<Line>* done) {
  if (in_code_) {
    for (auto& l : Live(width)) done->push_back(std::move(l));
    done->push_back(Line{}.Add(std::string(std::min<size_t>(fence_length_, 16), fence_char_), theme_->code_fence));
  } else if (pending_.find_first_not_of(" \t\r\n") != std::string::npos) {
    Emit(RenderMarkdown(pending_, width, *theme_), true, done);
  }
  pending_.clear();
  in_code_ = false;
  gap_ = false;
  committed_any_ = false;
  highlight_ = {};
}

}  // namespace sepp::front::tui
