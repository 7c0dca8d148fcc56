#include "front/tui/theme.h"

#include "ext/themes/theme_file.h"

namespace sepp::front::tui {
namespace {

// ANSI colours as Style::fg values, so that the built-in themes follow the
// terminal's own palette.
constexpr uint32_t kRed = 2, kGreen = 3, kYellow = 4, kBlue = 5, kMagenta = 6, kCyan = 7;
constexpr uint32_t kBright = 8;

Theme MakeDark() {
  Theme t;
  t.name = "dark";
  t.user = {.fg = kBlue, .bold = true};
  t.thinking = {.dim = true, .italic = true};
  t.muted = {.dim = true};
  t.success = {.fg = kGreen, .bold = true};
  t.error = {.fg = kRed, .bold = true};
  t.running = {.fg = kYellow, .bold = true};
  t.accent = {.fg = kCyan};
  t.warning = {.fg = kYellow};
  t.heading = {.fg = kCyan + kBright, .bold = true};
  t.strong = {.bold = true};
  t.emphasis = {.italic = true};
  t.strike = {.dim = true, .strike = true};
  t.link = {.fg = kBlue + kBright, .underline = true};
  t.link_url = {.dim = true};
  t.code = {.fg = kYellow + kBright};
  t.code_fence = {.dim = true};
  t.quote = {.italic = true};
  t.quote_border = {.fg = kMagenta, .dim = true};
  t.rule = {.dim = true};
  t.bullet = {.fg = kCyan};
  t.table_border = {.dim = true};
  t.table_header = {.bold = true};
  t.syn_comment = {.dim = true, .italic = true};
  t.syn_keyword = {.fg = kMagenta + kBright};
  t.syn_function = {.fg = kBlue + kBright};
  t.syn_string = {.fg = kGreen + kBright};
  t.syn_number = {.fg = kYellow + kBright};
  t.syn_type = {.fg = kCyan + kBright};
  t.syn_operator = {};
  t.diff_added = {.fg = kGreen};
  t.diff_removed = {.fg = kRed};
  t.diff_hunk = {.fg = kCyan};
  return t;
}

// The bright ANSI colours are pale on a light background: the normal ones.
Theme MakeLight() {
  Theme t = MakeDark();
  t.name = "light";
  t.heading = {.fg = kBlue, .bold = true};
  t.link = {.fg = kBlue, .underline = true};
  t.code = {.fg = kMagenta};
  t.syn_keyword = {.fg = kMagenta};
  t.syn_function = {.fg = kBlue};
  t.syn_string = {.fg = kGreen};
  t.syn_number = {.fg = kRed};
  t.syn_type = {.fg = kCyan};
  t.running = {.fg = kMagenta, .bold = true};
  t.warning = {.fg = kMagenta};
  return t;
}

uint32_t ToFg(const ext::themes::ThemeColor& c) {
  using Kind = ext::themes::ThemeColor::Kind;
  switch (c.kind) {
    case Kind::kDefault: return 0;
    case Kind::kIndex: return c.index < 16 ? c.index + 1u : Ansi256(static_cast<uint8_t>(c.index));
    case Kind::kRgb: return Rgb(c.r, c.g, c.b);
  }
  return 0;
}

}  // namespace

const Theme& Theme::Dark() {
  static const Theme theme = MakeDark();
  return theme;
}

const Theme& Theme::Light() {
  static const Theme theme = MakeLight();
  return theme;
}

const Theme* Theme::BuiltIn(const std::string& name) {
  if (name == "dark") return &Dark();
  if (name == "light") return &Light();
  return nullptr;
}

Theme Theme::FromFile(const ext::themes::ThemeFile& file, const Theme& base) {
  Theme t = base;
  t.name = file.name;
  // pi's token names; a token sets the colour, the role keeps its attributes.
  const std::pair<const char*, Style Theme::*> kTokens[] = {
      {"userMessageText", &Theme::user},   {"thinkingText", &Theme::thinking},
      {"muted", &Theme::muted},            {"success", &Theme::success},
      {"error", &Theme::error},            {"warning", &Theme::warning},
      {"accent", &Theme::accent},          {"accent", &Theme::running},
      {"mdHeading", &Theme::heading},      {"mdLink", &Theme::link},
      {"mdLinkUrl", &Theme::link_url},     {"mdCode", &Theme::code},
      {"mdCodeBlockBorder", &Theme::code_fence}, {"mdQuote", &Theme::quote},
      {"mdQuoteBorder", &Theme::quote_border},   {"mdHr", &Theme::rule},
      {"mdListBullet", &Theme::bullet},    {"border", &Theme::table_border},
      {"syntaxComment", &Theme::syn_comment},    {"syntaxKeyword", &Theme::syn_keyword},
      {"syntaxFunction", &Theme::syn_function},  {"syntaxString", &Theme::syn_string},
      {"syntaxNumber", &Theme::syn_number},      {"syntaxType", &Theme::syn_type},
      {"syntaxOperator", &Theme::syn_operator},  {"toolDiffAdded", &Theme::diff_added},
      {"toolDiffRemoved", &Theme::diff_removed}, {"toolDiffContext", &Theme::diff_hunk},
  };
  for (const auto& [token, member] : kTokens) {
    auto it = file.colors.find(token);
    if (it == file.colors.end()) continue;
    Style& st = t.*member;
    st.fg = ToFg(it->second);
    // A theme that colours a role chose its contrast; dimming would undo it.
    if (st.fg != 0) st.dim = false;
  }
  return t;
}

}  // namespace sepp::front::tui
