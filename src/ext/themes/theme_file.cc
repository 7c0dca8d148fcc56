#include "ext/themes/theme_file.h"

#include <algorithm>
#include <cctype>
#include <system_error>

#include "base/file.h"
#include "base/json.h"

namespace sepp::ext::themes {
namespace {

constexpr uint64_t kMaxThemeBytes = 256 * 1024;
constexpr int kMaxVarDepth = 8;  // "a" -> "b" -> ... ; a cycle ends here

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

Result<ThemeColor> ParseColor(const Json& value, const Json& vars, const std::string& where, int depth) {
  const std::string accepted = " (use \"#rrggbb\", a 256-colour index 0..255, a name from \"vars\" or \"\")";
  if (value.is_number_integer()) {
    int64_t i = value.get<int64_t>();
    if (i < 0 || i > 255) return Error::Make(where + ": colour index " + std::to_string(i) + " is out of range" + accepted, "bad_theme");
    return ThemeColor{ThemeColor::Kind::kIndex, static_cast<uint8_t>(i)};
  }
  if (!value.is_string()) return Error::Make(where + ": a colour must be a string or a number" + accepted, "bad_theme");
  std::string s = value.get<std::string>();
  if (s.empty()) return ThemeColor{};
  if (s[0] == '#') {
    int d[6];
    bool ok = s.size() == 7;
    for (int k = 0; ok && k < 6; ++k) ok = (d[k] = HexDigit(s[static_cast<size_t>(k) + 1])) >= 0;
    if (!ok) return Error::Make(where + ": \"" + s + "\" is not a #rrggbb colour" + accepted, "bad_theme");
    ThemeColor c{ThemeColor::Kind::kRgb};
    c.r = static_cast<uint8_t>(d[0] * 16 + d[1]);
    c.g = static_cast<uint8_t>(d[2] * 16 + d[3]);
    c.b = static_cast<uint8_t>(d[4] * 16 + d[5]);
    return c;
  }
  if (!vars.is_object() || !vars.contains(s)) {
    return Error::Make(where + ": \"" + s + "\" is neither a colour nor a name in \"vars\"" + accepted, "bad_theme");
  }
  if (depth >= kMaxVarDepth) return Error::Make(where + ": \"vars\" refer to each other in a loop at \"" + s + "\"", "bad_theme");
  return ParseColor(vars[s], vars, where + " -> vars." + s, depth + 1);
}

}  // namespace

Result<ThemeFile> ParseThemeFile(std::string_view text, const std::string& origin) {
  auto json = ParseJson(text);
  if (!json.ok()) {
    // nlohmann's message carries the line and column ("parse error at line 3, column 7: ...").
    return Error::Make("theme " + origin + ": " + json.error().message, "bad_theme");
  }
  const Json& j = *json;
  if (!j.is_object()) return Error::Make("theme " + origin + ": the file must hold a JSON object with \"name\" and \"colors\"", "bad_theme");
  ThemeFile file;
  if (j.contains("name")) {
    if (!j["name"].is_string()) return Error::Make("theme " + origin + ": \"name\" must be a string", "bad_theme");
    file.name = j["name"].get<std::string>();
  }
  Json vars = j.contains("vars") ? j["vars"] : Json::object();
  if (!vars.is_object()) return Error::Make("theme " + origin + ": \"vars\" must be an object of name: colour", "bad_theme");
  if (!j.contains("colors") || !j["colors"].is_object()) {
    return Error::Make("theme " + origin + ": \"colors\" is missing or not an object (token: colour, e.g. \"accent\": \"#88c0d0\")", "bad_theme");
  }
  for (const auto& [token, value] : j["colors"].items()) {
    auto color = ParseColor(value, vars, "theme " + origin + ": colors." + token, 0);
    if (!color.ok()) return color.error();
    file.colors[token] = *color;
  }
  return file;
}

Result<ThemeFile> LoadTheme(const std::filesystem::path& dir, const std::string& name) {
  bool plain = !name.empty() && name.size() <= 100 &&
               std::all_of(name.begin(), name.end(), [](char c) {
                 return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
               }) && name[0] != '.';
  if (!plain) return Error::Make("theme \"" + name + "\": a theme name is letters, digits, '-', '_' and '.' (the file <name>.json in " + dir.string() + ")", "bad_theme");
  std::filesystem::path path = dir / (name + ".json");
  auto text = ReadBoundedFile(path, kMaxThemeBytes, "a theme");
  if (!text.ok()) return Error::Make("theme \"" + name + "\": " + text.error().message, "bad_theme");
  auto file = ParseThemeFile(*text, path.string());
  if (!file.ok()) return file.error();
  file->path = path;
  if (file->name.empty()) file->name = name;
  return file;
}

std::vector<std::string> ListThemes(const std::filesystem::path& dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    if (entry.path().extension() == ".json") names.push_back(entry.path().stem().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace sepp::ext::themes
