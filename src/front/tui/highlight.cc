#include "front/tui/highlight.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstring>

namespace sepp::front::tui {
namespace {

struct Language {
  const char* name;
  const char* aliases;           // space separated, with spaces around
  const char* keywords;          // space separated, with spaces around
  const char* types;             // idem
  std::array<const char*, 2> line_comments;
  const char* block_open;        // nullptr: none
  const char* block_close;
  const char* quotes;            // string delimiters, one char each
  bool triple_quotes;            // Python's """ and '''
  bool multiline_backtick;       // JS template strings
};

constexpr Language kLanguages[] = {
    {"c", " c h cpp c++ cc cxx hpp hh cuda objc ",
     " if else for while do switch case default break continue return goto sizeof typedef struct union "
     "enum class namespace template typename public private protected virtual override final static "
     "const constexpr consteval constinit inline extern volatile mutable using new delete this throw try "
     "catch noexcept operator friend explicit auto register true false nullptr NULL co_await co_return "
     "co_yield concept requires static_assert decltype alignas alignof #include #define #if #ifdef "
     "#ifndef #endif #else #elif #pragma #undef ",
     " void bool char short int long float double signed unsigned size_t ssize_t int8_t int16_t int32_t "
     "int64_t uint8_t uint16_t uint32_t uint64_t wchar_t char8_t char16_t char32_t std string vector ",
     {"//", nullptr}, "/*", "*/", "\"'", false, false},
    {"python", " python py python3 py3 pyi ",
     " and as assert async await break class continue def del elif else except finally for from global "
     "if import in is lambda nonlocal not or pass raise return try while with yield match case True False "
     "None self ",
     " int float str bytes bool list dict set tuple object type ",
     {"#", nullptr}, nullptr, nullptr, "\"'", true, false},
    {"javascript", " javascript js jsx mjs cjs typescript ts tsx mts node ",
     " break case catch class const continue debugger default delete do else export extends finally for "
     "function if import in instanceof let new return super switch this throw try typeof var void while "
     "with yield async await of static get set true false null undefined interface type enum implements "
     "private public protected readonly declare namespace abstract as from keyof satisfies ",
     " string number boolean any unknown never object symbol bigint Array Promise Map Set Record ",
     {"//", nullptr}, "/*", "*/", "\"'`", false, true},
    {"rust", " rust rs ",
     " as async await break const continue crate dyn else enum extern false fn for if impl in let loop "
     "match mod move mut pub ref return self Self static struct super trait true type unsafe use where "
     "while Some None Ok Err ",
     " i8 i16 i32 i64 i128 isize u8 u16 u32 u64 u128 usize f32 f64 bool char str String Vec Option Result "
     "Box ",
     {"//", nullptr}, "/*", "*/", "\"", false, false},
    {"go", " go golang ",
     " break case chan const continue default defer else fallthrough for func go goto if import interface "
     "map package range return select struct switch type var true false nil iota ",
     " bool byte complex64 complex128 error float32 float64 int int8 int16 int32 int64 rune string uint "
     "uint8 uint16 uint32 uint64 uintptr any ",
     {"//", nullptr}, "/*", "*/", "\"'`", false, true},
    {"java", " java kotlin kt scala cs csharp c# swift ",
     " abstract break case catch class continue default do else enum extends final finally for if "
     "implements import instanceof interface new package private protected public return static super "
     "switch this throw throws try while true false null var val fun let func struct override ",
     " void boolean byte char short int long float double String Object Integer ",
     {"//", nullptr}, "/*", "*/", "\"'", false, false},
    {"shell", " shell sh bash zsh console shellsession fish ksh ",
     " if then else elif fi for while until do done case esac in function return local export readonly "
     "set unset source echo exit cd shift trap eval exec true false ",
     " ", {"#", nullptr}, nullptr, nullptr, "\"'", false, false},
    {"json", " json jsonc json5 ", " true false null ", " ", {"//", nullptr}, "/*", "*/", "\"", false, false},
    {"yaml", " yaml yml toml ini cfg conf ", " true false null yes no on off ", " ", {"#", nullptr}, nullptr,
     nullptr, "\"'", false, false},
    {"diff", " diff patch udiff ", " ", " ", {nullptr, nullptr}, nullptr, nullptr, "", false, false},
};

bool InList(const char* list, std::string_view word) {
  if (word.empty() || word.size() > 40) return false;
  char key[48];
  key[0] = ' ';
  std::memcpy(key + 1, word.data(), word.size());
  key[word.size() + 1] = ' ';
  key[word.size() + 2] = 0;
  return std::strstr(list, key) != nullptr;
}

const Language* Find(std::string_view name) {
  for (const auto& l : kLanguages) {
    if (name == l.name) return &l;
  }
  return nullptr;
}

bool IsIdentStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool IsIdent(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// The end of a string that starts at line[pos] with delimiter close, or npos
// when the line ends first.
size_t StringEnd(std::string_view line, size_t pos, std::string_view close) {
  while (pos < line.size()) {
    if (line[pos] == '\\') {
      pos += 2;
      continue;
    }
    if (line.compare(pos, close.size(), close) == 0) return pos + close.size();
    ++pos;
  }
  return std::string_view::npos;
}

}  // namespace

std::string CanonicalLanguage(std::string_view info) {
  // The first word of the info string, lower case ("```Python title=x").
  size_t end = info.find_first_of(" \t{,");
  std::string word(info.substr(0, end));
  std::transform(word.begin(), word.end(), word.begin(), [](unsigned char c) { return std::tolower(c); });
  if (word.empty()) return "";
  for (const auto& l : kLanguages) {
    if (InList(l.aliases, word)) return l.name;
  }
  return "";
}

void HighlightLine(std::string_view language, std::string_view line, const Theme& theme,
                   HighlightState* state, Line* out) {
  const Language* lang = Find(language);
  if (!lang) {
    out->Add(line);
    return;
  }
  if (std::string_view(lang->name) == "diff") {
    Style st{};
    if (line.starts_with("+++") || line.starts_with("---")) st = theme.strong;
    else if (line.starts_with("+")) st = theme.diff_added;
    else if (line.starts_with("-")) st = theme.diff_removed;
    else if (line.starts_with("@@")) st = theme.diff_hunk;
    out->Add(line, st);
    return;
  }
  size_t pos = 0;
  size_t plain = 0;  // start of the pending unstyled run
  auto flush = [&](size_t upto) {
    if (upto > plain) out->Add(line.substr(plain, upto - plain));
  };
  auto emit = [&](size_t begin, size_t end, Style st) {
    flush(begin);
    out->Add(line.substr(begin, end - begin), st);
    plain = pos = end;
  };
  // What the last line left open: a block comment or a multi-line string.
  if (!state->open.empty()) {
    bool comment = lang->block_close && state->open == lang->block_close;
    size_t end = comment ? line.find(state->open) : StringEnd(line, 0, state->open);
    if (end == std::string_view::npos) {
      emit(0, line.size(), comment ? theme.syn_comment : theme.syn_string);
      return;
    }
    if (comment) end += state->open.size();
    state->open.clear();
    emit(0, end, comment ? theme.syn_comment : theme.syn_string);
  }
  while (pos < line.size()) {
    std::string_view rest = line.substr(pos);
    bool line_comment = false;
    for (const char* lc : lang->line_comments) {
      if (lc && rest.starts_with(lc)) line_comment = true;
    }
    // "#include" is a keyword in C, and "#" starts a comment only at a word
    // boundary in shell ("a#b" is a word).
    if (line_comment && rest[0] == '#' && pos > 0 && !std::isspace(static_cast<unsigned char>(line[pos - 1]))) {
      line_comment = false;
    }
    if (line_comment) {
      emit(pos, line.size(), theme.syn_comment);
      break;
    }
    if (lang->block_open && rest.starts_with(lang->block_open)) {
      size_t end = line.find(lang->block_close, pos + std::strlen(lang->block_open));
      if (end == std::string_view::npos) {
        state->open = lang->block_close;
        emit(pos, line.size(), theme.syn_comment);
        break;
      }
      emit(pos, end + std::strlen(lang->block_close), theme.syn_comment);
      continue;
    }
    char c = line[pos];
    if (std::strchr(lang->quotes, c) && c != 0) {
      std::string close(1, c);
      if (lang->triple_quotes && rest.size() >= 3 && rest[1] == c && rest[2] == c) close.assign(3, c);
      size_t end = StringEnd(line, pos + close.size(), close);
      if (end == std::string_view::npos) {
        if (close.size() == 3 || (c == '`' && lang->multiline_backtick)) state->open = close;
        emit(pos, line.size(), theme.syn_string);
        break;
      }
      emit(pos, end, theme.syn_string);
      continue;
    }
    if (std::isdigit(static_cast<unsigned char>(c)) && (pos == 0 || !IsIdent(line[pos - 1]))) {
      size_t end = pos;
      while (end < line.size() && (IsIdent(line[end]) || line[end] == '.')) ++end;
      emit(pos, end, theme.syn_number);
      continue;
    }
    if (IsIdentStart(c) || (c == '#' && std::string_view(lang->name) == "c")) {
      size_t end = pos + 1;
      while (end < line.size() && IsIdent(line[end])) ++end;
      std::string_view word = line.substr(pos, end - pos);
      if (InList(lang->keywords, word)) {
        emit(pos, end, theme.syn_keyword);
      } else if (InList(lang->types, word)) {
        emit(pos, end, theme.syn_type);
      } else if (end < line.size() && line[end] == '(') {
        emit(pos, end, theme.syn_function);
      } else {
        pos = end;
      }
      continue;
    }
    ++pos;
  }
  flush(line.size());
}

}  // namespace sepp::front::tui
