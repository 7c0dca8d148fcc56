#include "ext/front_matter.h"

#include <cstdint>
#include <cstring>

#include "base/strings.h"

namespace sepp::ext {
namespace {

using Kind = FrontMatterValue::Kind;

struct Line {
  std::string_view text;  // without the '\n' (and a trailing '\r')
  int number = 0;
};

size_t Indent(std::string_view s) {
  size_t i = 0;
  while (i < s.size() && s[i] == ' ') ++i;
  return i;
}

bool Blank(std::string_view s) {
  std::string_view t = Trim(s);
  return t.empty() || t.front() == '#';
}

bool IsKeyChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '-' || c == '.';
}

class Parser {
 public:
  Parser(std::vector<Line> lines, const std::string& file) : lines_(std::move(lines)), file_(file) {}

  Result<std::vector<std::pair<std::string, FrontMatterValue>>> Run() {
    std::vector<std::pair<std::string, FrontMatterValue>> out;
    while (i_ < lines_.size()) {
      const Line& l = lines_[i_];
      if (Blank(l.text)) {
        ++i_;
        continue;
      }
      if (auto st = CheckTabs(l); !st.ok()) return st.error();
      if (Indent(l.text) != 0)
        return Fail(l, "this line is indented but belongs to no key: indent only the lines "
                       "that continue the key above");
      std::string key;
      std::string_view rest;
      if (auto st = SplitKey(l, l.text, &key, &rest); !st.ok()) return st.error();
      for (const auto& [k, v] : out)
        if (k == key)
          return Fail(l, "the key \"" + key + "\" appears twice (first on line " +
                             std::to_string(v.line) + "): keep one");
      ++i_;
      auto value = Value(l, rest);
      if (!value.ok()) return value.error();
      value->line = l.number;
      out.emplace_back(std::move(key), std::move(*value));
    }
    return out;
  }

 private:
  Error Fail(const Line& l, const std::string& what) const {
    return Error::Make(file_ + ":" + std::to_string(l.number) + ": " + what, "parse");
  }

  Status CheckTabs(const Line& l) const {
    size_t n = 0;
    while (n < l.text.size() && (l.text[n] == ' ' || l.text[n] == '\t')) {
      if (l.text[n] == '\t')
        return Fail(l, "a tab in the indentation: YAML indents with spaces only");
      ++n;
    }
    return Ok();
  }

  // "key: rest" -> key, rest (trimmed).
  Status SplitKey(const Line& l, std::string_view s, std::string* key, std::string_view* rest) const {
    s = Trim(s);
    size_t k = 0;
    if (!s.empty() && (s[0] == '"' || s[0] == '\'')) {
      size_t close = s.find(s[0], 1);
      if (close == std::string_view::npos) return Fail(l, "the quoted key is not closed");
      *key = std::string(s.substr(1, close - 1));
      k = close + 1;
    } else {
      while (k < s.size() && IsKeyChar(s[k])) ++k;
      *key = std::string(s.substr(0, k));
    }
    if (key->empty() || k >= s.size() || s[k] != ':' ||
        (k + 1 < s.size() && s[k + 1] != ' '))
      return Fail(l, "expected \"key: value\" (a name of letters, digits, '-', '_' or '.', "
                     "then a colon and a space)");
    *rest = Trim(s.substr(k + 1));
    return Ok();
  }

  // The value after "key:" on line l, consuming any continuation lines.
  Result<FrontMatterValue> Value(const Line& l, std::string_view rest) {
    FrontMatterValue v;
    if (rest.empty()) return Nested();
    if (rest[0] == '|' || rest[0] == '>') {
      std::string_view mods = rest.substr(1);
      bool keep_trailing = mods.find('+') != std::string_view::npos;
      bool strip = mods.find('-') != std::string_view::npos;
      size_t extra = mods.find_first_not_of("+-0123456789");
      if (extra != std::string_view::npos && !Blank(mods.substr(extra)))
        return Fail(l, "unexpected text after the block scalar marker '" + std::string(1, rest[0]) +
                           "'");
      v.scalar = Block(rest[0] == '|', keep_trailing, strip);
      return v;
    }
    if (rest[0] == '{') return Skip(Kind::kNested);
    if (rest[0] == '[') {
      v.kind = Kind::kList;
      if (rest.back() != ']')
        return Fail(l, "the list opened with '[' is not closed on this line (write it on one "
                       "line, or as \"- item\" lines below the key)");
      std::string_view inner = rest.substr(1, rest.size() - 2);
      if (inner.find('[') != std::string_view::npos || inner.find('{') != std::string_view::npos) {
        v.kind = Kind::kNested;  // a list of lists or maps: deeper than the subset
        return v;
      }
      if (Trim(inner).empty()) return v;
      for (const std::string& item : Split(inner, ',')) {
        auto s = Scalar(l, Trim(item));
        if (!s.ok()) return s.error();
        v.list.push_back(std::move(*s));
      }
      return v;
    }
    auto s = Scalar(l, rest);
    if (!s.ok()) return s.error();
    v.scalar = std::move(*s);
    if (rest[0] != '"' && rest[0] != '\'') {
      // A plain scalar goes on over more-indented lines, folded by spaces.
      while (i_ < lines_.size() && !Blank(lines_[i_].text) && Indent(lines_[i_].text) > 0) {
        if (auto st = CheckTabs(lines_[i_]); !st.ok()) return st.error();
        v.scalar += " " + std::string(Trim(lines_[i_].text));
        ++i_;
      }
    }
    return v;
  }

  // One line's scalar: quoted or plain (a " #" starts a comment).
  Result<std::string> Scalar(const Line& l, std::string_view s) const {
    if (s.empty()) return std::string();
    if (s[0] == '\'') {
      std::string out;
      for (size_t i = 1; i < s.size(); ++i) {
        if (s[i] == '\'') {
          if (i + 1 < s.size() && s[i + 1] == '\'') {
            out += '\'';
            ++i;
            continue;
          }
          if (!Blank(s.substr(i + 1))) return Fail(l, "text after the closing quote");
          return out;
        }
        out += s[i];
      }
      return Fail(l, "the single-quoted string is not closed on this line");
    }
    if (s[0] == '"') {
      std::string out;
      for (size_t i = 1; i < s.size(); ++i) {
        char c = s[i];
        if (c == '"') {
          if (!Blank(s.substr(i + 1))) return Fail(l, "text after the closing quote");
          return out;
        }
        if (c != '\\') {
          out += c;
          continue;
        }
        if (++i >= s.size()) break;
        switch (s[i]) {
          case 'n': out += '\n'; break;
          case 't': out += '\t'; break;
          case '"': out += '"'; break;
          case '\\': out += '\\'; break;
          case '/': out += '/'; break;
          case 'u': {
            if (i + 4 >= s.size()) return Fail(l, "\\u needs four hex digits");
            char32_t cp = 0;
            for (int k = 1; k <= 4; ++k) {
              char h = s[i + k];
              int d = (h >= '0' && h <= '9') ? h - '0'
                      : (h >= 'a' && h <= 'f') ? h - 'a' + 10
                      : (h >= 'A' && h <= 'F') ? h - 'A' + 10 : -1;
              if (d < 0) return Fail(l, "\\u needs four hex digits");
              cp = cp * 16 + static_cast<char32_t>(d);
            }
            if (cp >= 0xD800 && cp <= 0xDFFF) cp = 0xFFFD;
            AppendUtf8(cp, &out);
            i += 4;
            break;
          }
          default:
            return Fail(l, std::string("unknown escape \\") + s[i] +
                               " in a double-quoted string (use \\\\ for a backslash)");
        }
      }
      return Fail(l, "the double-quoted string is not closed on this line");
    }
    size_t hash = s.find(" #");
    return std::string(Trim(hash == std::string_view::npos ? s : s.substr(0, hash)));
  }

  // The lines below "key:" with nothing after the colon: a list, a map,
  // deeper nesting (kept as kNested), or nothing (an empty scalar).
  Result<FrontMatterValue> Nested() {
    size_t j = i_;
    while (j < lines_.size() && Blank(lines_[j].text)) ++j;
    if (j >= lines_.size() || Indent(lines_[j].text) == 0) {
      // "key:" alone, or a list at the key's own indentation ("- a" at
      // column 0, which YAML allows for a list under a key).
      if (j < lines_.size() && StartsWith(lines_[j].text, "- ")) return List(0);
      if (j < lines_.size() && lines_[j].text == "-") return List(0);
      return FrontMatterValue{};
    }
    size_t indent = Indent(lines_[j].text);
    std::string_view first = lines_[j].text.substr(indent);
    if (StartsWith(first, "- ") || first == "-") return List(indent);
    FrontMatterValue v;
    v.kind = Kind::kMap;
    while (i_ < lines_.size()) {
      const Line& l = lines_[i_];
      if (Blank(l.text)) {
        ++i_;
        continue;
      }
      if (auto st = CheckTabs(l); !st.ok()) return st.error();
      size_t in = Indent(l.text);
      if (in == 0) break;
      if (in != indent) return Skip(Kind::kNested);
      std::string key;
      std::string_view rest;
      if (auto st = SplitKey(l, l.text, &key, &rest); !st.ok()) return st.error();
      ++i_;
      if (rest.empty() || rest[0] == '|' || rest[0] == '>' || rest[0] == '[' || rest[0] == '{')
        return Skip(Kind::kNested);
      auto s = Scalar(l, rest);
      if (!s.ok()) return s.error();
      v.map.emplace_back(std::move(key), std::move(*s));
    }
    return v;
  }

  Result<FrontMatterValue> List(size_t indent) {
    FrontMatterValue v;
    v.kind = Kind::kList;
    while (i_ < lines_.size()) {
      const Line& l = lines_[i_];
      if (Blank(l.text)) {
        ++i_;
        continue;
      }
      if (auto st = CheckTabs(l); !st.ok()) return st.error();
      size_t in = Indent(l.text);
      std::string_view item = l.text.substr(in);
      if (in < indent || (in == indent && !StartsWith(item, "-"))) break;
      if (in > indent || !(StartsWith(item, "- ") || item == "-")) return Skip(Kind::kNested);
      std::string_view value = Trim(item.substr(1));
      ++i_;
      if (value.empty() || value[0] == '[' || value[0] == '{' || value[0] == '|' ||
          value[0] == '>' || value.find(": ") != std::string_view::npos || EndsWith(value, ":"))
        return Skip(Kind::kNested);
      auto s = Scalar(l, value);
      if (!s.ok()) return s.error();
      v.list.push_back(std::move(*s));
    }
    return v;
  }

  // Deeper structure than the subset: skip every line that belongs to the
  // current key (indented, or a column-0 list item) in one pass.
  FrontMatterValue Skip(Kind kind) {
    while (i_ < lines_.size() &&
           (Blank(lines_[i_].text) || Indent(lines_[i_].text) > 0 ||
            StartsWith(lines_[i_].text, "-")))
      ++i_;
    FrontMatterValue v;
    v.kind = kind;
    return v;
  }

  std::string Block(bool literal, bool keep_trailing, bool strip) {
    std::vector<std::string_view> body;
    size_t indent = std::string_view::npos;
    while (i_ < lines_.size()) {
      std::string_view t = lines_[i_].text;
      if (Trim(t).empty()) {
        body.push_back({});
        ++i_;
        continue;
      }
      size_t in = Indent(t);
      if (in == 0) break;
      if (indent == std::string_view::npos) indent = in;
      if (in < indent) break;
      body.push_back(t.substr(indent));
      ++i_;
    }
    // Blank lines after the block belong to the next key, not to it.
    size_t trailing = 0;
    while (!body.empty() && body.back().empty()) {
      body.pop_back();
      ++trailing;
    }
    std::string out;
    // Literal keeps the lines; folded joins them by spaces, and a blank
    // line stands for one line break.
    for (size_t k = 0; k < body.size(); ++k) {
      if (literal) {
        if (k > 0) out += "\n";
      } else if (body[k].empty()) {
        out += "\n";
      } else if (k > 0 && !body[k - 1].empty()) {
        out += " ";
      }
      out += body[k];
    }
    if (!strip && !body.empty()) out += "\n";
    if (keep_trailing) out.append(trailing, '\n');
    return out;
  }

  std::vector<Line> lines_;
  const std::string& file_;
  size_t i_ = 0;
};

// Most skill and template files are ASCII: checked eight bytes at a time,
// the full UTF-8 check runs only from the first byte >= 0x80 (start-up
// reads hundreds of these files).
bool IsTextUtf8(std::string_view text) {
  size_t i = 0;
  for (; i + 8 <= text.size(); i += 8) {
    uint64_t w;
    std::memcpy(&w, text.data() + i, 8);
    if (w & 0x8080808080808080ull) break;
  }
  while (i < text.size() && static_cast<unsigned char>(text[i]) < 0x80) ++i;
  return i == text.size() || IsValidUtf8(text.substr(i));
}

bool IsDelimiter(std::string_view line, std::string_view mark) {
  while (!line.empty() && (line.back() == ' ' || line.back() == '\t')) line.remove_suffix(1);
  return line == mark;
}

}  // namespace

const FrontMatterValue* FrontMatter::Find(std::string_view key) const {
  for (const auto& [k, v] : fields)
    if (k == key) return &v;
  return nullptr;
}

std::string FrontMatter::Get(std::string_view key) const {
  const FrontMatterValue* v = Find(key);
  if (!v) return {};
  if (v->kind == FrontMatterValue::Kind::kList) return Join(v->list, " ");
  return v->scalar;
}

Result<FrontMatter> ParseFrontMatter(std::string_view text, const std::string& file) {
  if (text.find('\0') != std::string_view::npos || !IsTextUtf8(text))
    return Error::Make(file + ": not a text file (it holds NUL bytes or is not UTF-8): save it "
                              "as UTF-8 Markdown",
                       "parse");
  if (StartsWith(text, "\xEF\xBB\xBF")) text.remove_prefix(3);
  FrontMatter fm;
  // Split into lines, remembering where each one starts.
  std::vector<Line> lines;
  std::vector<size_t> starts;
  size_t pos = 0;
  int number = 1;
  bool open = false;
  size_t body_start = std::string_view::npos;
  while (pos <= text.size()) {
    size_t nl = text.find('\n', pos);
    std::string_view line = text.substr(pos, nl == std::string_view::npos ? text.npos : nl - pos);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (number == 1) {
      if (!IsDelimiter(line, "---")) break;  // no front matter
      open = true;
    } else if (IsDelimiter(line, "---") || IsDelimiter(line, "...")) {
      body_start = nl == std::string_view::npos ? text.size() : nl + 1;
      fm.body_line = number + 1;
      break;
    } else {
      if (lines.size() >= kMaxFrontMatterLines)
        return Error::Make(file + ":" + std::to_string(number) +
                               ": the front matter is longer than " +
                               std::to_string(kMaxFrontMatterLines) +
                               " lines: is its closing '---' line missing?",
                           "parse");
      lines.push_back({line, number});
    }
    if (nl == std::string_view::npos) break;
    pos = nl + 1;
    ++number;
  }
  if (!open) {
    fm.body = std::string(text);
    return fm;
  }
  if (body_start == std::string_view::npos)
    return Error::Make(file + ":1: the front matter opened here has no closing '---' line: add "
                              "one after the last key",
                       "parse");
  fm.present = true;
  auto fields = Parser(std::move(lines), file).Run();
  if (!fields.ok()) return fields.error();
  fm.fields = std::move(*fields);
  fm.body = std::string(text.substr(body_start));
  return fm;
}

}  // namespace sepp::ext
