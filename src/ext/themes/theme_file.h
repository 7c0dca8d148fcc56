// Theme files: JSON in pi's format, data only (nothing in them runs).
//
//   {"name": "nord", "vars": {"frost": "#88c0d0"},
//    "colors": {"accent": "frost", "mdHeading": "#ebcb8b", "muted": 244, "text": ""}}
//
// A colour is "#rrggbb", a 256-colour index (0..255), the name of an entry
// of "vars", or "" (the terminal's default). Which tokens mean what is the
// front end's business (front/tui/theme.cc); unknown tokens are kept, so
// pi's own theme files load.
#pragma once
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace sepp::ext::themes {

struct ThemeColor {
  enum class Kind { kDefault, kIndex, kRgb };
  Kind kind = Kind::kDefault;
  uint8_t index = 0;
  uint8_t r = 0, g = 0, b = 0;
  bool operator==(const ThemeColor&) const = default;
};

struct ThemeFile {
  std::string name;
  std::filesystem::path path;  // "" for text not read from a file
  std::map<std::string, ThemeColor> colors;
};

// Parses a theme file's text; origin names it in errors. An error says which
// file, where (line and column for JSON syntax, the token for a bad value)
// and what is accepted.
Result<ThemeFile> ParseThemeFile(std::string_view text, const std::string& origin);

// The theme called name in dir: dir/<name>.json. Errors name the file.
Result<ThemeFile> LoadTheme(const std::filesystem::path& dir, const std::string& name);

// The names of the *.json files in dir (sorted); none when dir is missing.
std::vector<std::string> ListThemes(const std::filesystem::path& dir);

}  // namespace sepp::ext::themes
