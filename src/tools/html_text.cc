#include "tools/html_text.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <set>
#include <vector>

#include "base/strings.h"

namespace sepp::tools {

namespace {

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

void AppendUtf8(std::string& out, uint32_t cp) {
  if (cp == 0 || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) cp = 0xFFFD;
  sepp::AppendUtf8(static_cast<char32_t>(cp), &out);
}

// Elements dropped with everything inside them.
bool Skipped(const std::string& tag) {
  static const std::set<std::string> k = {"script", "style",  "noscript", "template", "svg",
                                          "head",   "nav",    "footer",   "aside",    "form",
                                          "iframe", "canvas", "button",   "select"};
  return k.count(tag) > 0;
}

bool Block(const std::string& tag) {
  static const std::set<std::string> k = {
      "p",      "div",   "section", "article", "main",   "header", "ul",         "ol",
      "table",  "tr",    "br",      "hr",      "h1",     "h2",     "h3",         "h4",
      "h5",     "h6",    "li",      "pre",     "blockquote", "dl", "dt",         "dd",
      "figure", "figcaption", "details", "summary", "address", "body", "html"};
  return k.count(tag) > 0;
}

struct Tag {
  std::string name;  // lower case, without '/'
  bool closing = false;
  bool self_closing = false;
  std::string href;  // for <a>
};

// Parses the tag starting at html[i] == '<'; returns the index after it.
size_t ReadTag(std::string_view html, size_t i, Tag* tag) {
  size_t j = i + 1;
  if (j < html.size() && html[j] == '/') {
    tag->closing = true;
    ++j;
  }
  size_t name_start = j;
  while (j < html.size() && (std::isalnum(static_cast<unsigned char>(html[j])) || html[j] == '-'))
    ++j;
  tag->name = Lower(html.substr(name_start, j - name_start));
  // Attributes, minding quotes so a '>' inside one does not end the tag.
  std::string attrs;
  char quote = 0;
  for (; j < html.size(); ++j) {
    char c = html[j];
    if (quote) {
      if (c == quote) quote = 0;
    } else if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '>') {
      break;
    }
    attrs += c;
  }
  if (!attrs.empty() && attrs.back() == '/') tag->self_closing = true;
  if (tag->name == "a") {
    std::string lower = Lower(attrs);
    size_t h = lower.find("href");
    if (h != std::string::npos) {
      size_t k = h + 4;
      while (k < attrs.size() && std::isspace(static_cast<unsigned char>(attrs[k]))) ++k;
      if (k < attrs.size() && attrs[k] == '=') {
        ++k;
        while (k < attrs.size() && std::isspace(static_cast<unsigned char>(attrs[k]))) ++k;
        char q = k < attrs.size() ? attrs[k] : 0;
        size_t end;
        if (q == '"' || q == '\'') {
          end = attrs.find(q, k + 1);
          tag->href = attrs.substr(k + 1, (end == std::string::npos ? attrs.size() : end) - k - 1);
        } else {
          end = k;
          while (end < attrs.size() && !std::isspace(static_cast<unsigned char>(attrs[end]))) ++end;
          tag->href = attrs.substr(k, end - k);
        }
        tag->href = DecodeEntities(tag->href);
      }
    }
  }
  return j < html.size() ? j + 1 : html.size();
}

// The part of the page to read: the first <main> or <article>, else all.
std::string_view ContentPart(std::string_view html, const std::string& lower) {
  for (const char* name : {"main", "article"}) {
    std::string open = std::string("<") + name;
    size_t start = lower.find(open);
    while (start != std::string::npos) {
      char after = start + open.size() < lower.size() ? lower[start + open.size()] : 0;
      if (after == '>' || std::isspace(static_cast<unsigned char>(after))) break;
      start = lower.find(open, start + 1);
    }
    if (start == std::string::npos) continue;
    size_t end = lower.find(std::string("</") + name, start);
    return html.substr(start, end == std::string::npos ? std::string_view::npos : end - start);
  }
  return html;
}

class Writer {
 public:
  void Text(std::string_view t) {
    if (pre_depth_ > 0) {
      out_ += t;
      return;
    }
    for (char c : t) {
      if (std::isspace(static_cast<unsigned char>(c))) {
        pending_space_ = true;
        continue;
      }
      if (pending_space_ && !out_.empty() && out_.back() != '\n' && out_.back() != ' ') out_ += ' ';
      pending_space_ = false;
      if (at_line_start_) {
        out_ += prefix_;
        at_line_start_ = false;
      }
      out_ += c;
    }
  }
  // An inline marker (**, `, [): after the space before it, if any.
  void Inline(std::string_view t) {
    if (pending_space_ && pre_depth_ == 0 && !out_.empty() && out_.back() != '\n' && out_.back() != ' ')
      out_ += ' ';
    pending_space_ = false;
    Raw(t);
  }
  void Raw(std::string_view t) {
    if (at_line_start_ && pre_depth_ == 0) {
      out_ += prefix_;
      at_line_start_ = false;
    }
    out_ += t;
  }
  void Newline() {
    pending_space_ = false;
    while (!out_.empty() && out_.back() == ' ') out_.pop_back();
    if (!out_.empty() && out_.back() != '\n') out_ += '\n';
    at_line_start_ = true;
  }
  void BlankLine() {
    Newline();
    if (out_.size() >= 2 && out_.compare(out_.size() - 2, 2, "\n\n") == 0) return;
    if (!out_.empty()) out_ += '\n';
  }
  void EnterPre() { ++pre_depth_; }
  void LeavePre() { pre_depth_ = std::max(0, pre_depth_ - 1); }
  bool in_pre() const { return pre_depth_ > 0; }
  void SetPrefix(std::string p) { prefix_ = std::move(p); }
  std::string Finish() {
    while (!out_.empty() && (out_.back() == '\n' || out_.back() == ' ')) out_.pop_back();
    size_t start = out_.find_first_not_of('\n');
    return start == std::string::npos ? "" : out_.substr(start);
  }

 private:
  std::string out_;
  std::string prefix_;
  bool pending_space_ = false;
  bool at_line_start_ = true;
  int pre_depth_ = 0;
};

}  // namespace

std::string DecodeEntities(std::string_view text) {
  static const std::vector<std::pair<std::string_view, std::string_view>> kNamed = {
      {"amp", "&"},     {"lt", "<"},      {"gt", ">"},      {"quot", "\""},   {"apos", "'"},
      {"nbsp", " "},    {"mdash", "—"},   {"ndash", "–"},   {"hellip", "…"},  {"copy", "©"},
      {"reg", "®"},     {"trade", "™"},   {"laquo", "«"},   {"raquo", "»"},   {"ldquo", "“"},
      {"rdquo", "”"},   {"lsquo", "‘"},   {"rsquo", "’"},   {"middot", "·"},  {"bull", "•"},
      {"times", "×"},   {"euro", "€"},    {"deg", "°"}};
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '&') {
      out += text[i];
      continue;
    }
    size_t semi = text.find(';', i + 1);
    if (semi == std::string_view::npos || semi - i > 12) {
      out += '&';
      continue;
    }
    std::string_view name = text.substr(i + 1, semi - i - 1);
    bool done = false;
    if (name.size() >= 2 && name[0] == '#') {
      bool hex = name[1] == 'x' || name[1] == 'X';
      std::string_view digits = name.substr(hex ? 2 : 1);
      uint32_t cp = 0;
      bool ok = !digits.empty();
      for (char c : digits) {
        int v = std::isdigit(static_cast<unsigned char>(c)) ? c - '0'
                : hex && std::isxdigit(static_cast<unsigned char>(c))
                    ? std::tolower(static_cast<unsigned char>(c)) - 'a' + 10
                    : -1;
        if (v < 0 || cp > 0x10FFFF) {
          ok = false;
          break;
        }
        cp = cp * (hex ? 16 : 10) + static_cast<uint32_t>(v);
      }
      if (ok && cp <= 0x10FFFF) {
        AppendUtf8(out, cp);
        done = true;
      }
    } else {
      for (const auto& [n, v] : kNamed)
        if (n == name) {
          out += v;
          done = true;
          break;
        }
    }
    if (done) {
      i = semi;
    } else {
      out += '&';
    }
  }
  return out;
}

HtmlText HtmlToMarkdown(std::string_view html) {
  HtmlText result;
  std::string lower = Lower(html);
  if (size_t t = lower.find("<title"); t != std::string::npos) {
    size_t start = lower.find('>', t);
    size_t end = lower.find("</title", t);
    if (start != std::string::npos && end != std::string::npos && start < end) {
      std::string raw = DecodeEntities(html.substr(start + 1, end - start - 1));
      Writer w;
      w.Text(raw);
      result.title = w.Finish();
    }
  }
  std::string_view body = ContentPart(html, lower);
  Writer w;
  std::string skipping;     // the element being dropped whole
  std::vector<std::string> lists;  // "ul" / "ol" nesting
  std::vector<int> counters;
  std::string link_href;
  int quote_depth = 0;
  bool first_cell = true;
  for (size_t i = 0; i < body.size();) {
    if (body[i] != '<') {
      size_t next = body.find('<', i);
      if (next == std::string_view::npos) next = body.size();
      if (skipping.empty()) w.Text(DecodeEntities(body.substr(i, next - i)));
      i = next;
      continue;
    }
    if (body.compare(i, 4, "<!--") == 0) {
      size_t end = body.find("-->", i + 4);
      i = end == std::string_view::npos ? body.size() : end + 3;
      continue;
    }
    if (i + 1 < body.size() && (body[i + 1] == '!' || body[i + 1] == '?')) {
      size_t end = body.find('>', i);
      i = end == std::string_view::npos ? body.size() : end + 1;
      continue;
    }
    if (i + 1 >= body.size() || !(std::isalpha(static_cast<unsigned char>(body[i + 1])) || body[i + 1] == '/')) {
      if (skipping.empty()) w.Text("<");
      ++i;
      continue;
    }
    Tag tag;
    i = ReadTag(body, i, &tag);
    const std::string& n = tag.name;
    if (!skipping.empty()) {
      if (tag.closing && n == skipping) skipping.clear();
      continue;
    }
    if (!tag.closing && Skipped(n)) {
      if (!tag.self_closing) skipping = n;
      continue;
    }
    if (n.size() == 2 && n[0] == 'h' && n[1] >= '1' && n[1] <= '6') {
      w.BlankLine();
      if (!tag.closing) w.Raw(std::string(static_cast<size_t>(n[1] - '0'), '#') + " ");
      continue;
    }
    if (n == "pre") {
      if (!tag.closing) {
        w.BlankLine();
        w.Raw("```\n");
        w.EnterPre();
      } else {
        w.LeavePre();
        w.Newline();
        w.Raw("```");
        w.BlankLine();
      }
      continue;
    }
    if (n == "code" && !w.in_pre()) {
      w.Inline("`");
      continue;
    }
    if ((n == "strong" || n == "b") && !w.in_pre()) {
      w.Inline("**");
      continue;
    }
    if ((n == "em" || n == "i") && !w.in_pre()) {
      w.Inline("*");
      continue;
    }
    if (n == "a") {
      if (!tag.closing) {
        link_href = tag.href;
        if (!link_href.empty() && link_href.rfind("javascript:", 0) != 0) w.Inline("[");
        else link_href.clear();
      } else if (!link_href.empty()) {
        w.Raw("](" + link_href + ")");
        link_href.clear();
      }
      continue;
    }
    if (n == "ul" || n == "ol") {
      if (!tag.closing) {
        lists.push_back(n);
        counters.push_back(0);
      } else if (!lists.empty()) {
        lists.pop_back();
        counters.pop_back();
      }
      w.Newline();
      if (lists.empty()) w.BlankLine();
      continue;
    }
    if (n == "li") {
      w.Newline();
      if (!tag.closing) {
        std::string indent((lists.empty() ? 0 : lists.size() - 1) * 2, ' ');
        if (!lists.empty() && lists.back() == "ol") w.Raw(indent + std::to_string(++counters.back()) + ". ");
        else w.Raw(indent + "- ");
      }
      continue;
    }
    if (n == "blockquote") {
      quote_depth = std::max(0, quote_depth + (tag.closing ? -1 : 1));
      w.BlankLine();
      w.SetPrefix(std::string(static_cast<size_t>(quote_depth), '>') + (quote_depth ? " " : ""));
      continue;
    }
    if (n == "tr") {
      w.Newline();
      first_cell = true;
      continue;
    }
    if ((n == "td" || n == "th") && !tag.closing) {
      w.Raw(first_cell ? "| " : " | ");
      first_cell = false;
      continue;
    }
    if (n == "br") {
      w.Newline();
      continue;
    }
    if (n == "hr") {
      w.BlankLine();
      w.Raw("---");
      w.BlankLine();
      continue;
    }
    if (n == "img" && !tag.closing) continue;
    if (Block(n)) w.BlankLine();
  }
  result.markdown = w.Finish();
  return result;
}

}  // namespace sepp::tools
