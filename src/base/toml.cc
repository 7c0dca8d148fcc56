#include "base/toml.h"

#include <cctype>

namespace sepp {
namespace {

// Sepp's TOML files (settings, policies) need neither nested arrays nor
// multi-line strings at the start of a line, so every line starting with
// '[' must open a table header with a key.
Status CheckHeaders(std::string_view text, const std::string& source) {
  size_t line_no = 1, start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    size_t i = line.find_first_not_of(" \t");
    if (i != std::string_view::npos && line[i] == '[') {
      ++i;
      if (i < line.size() && line[i] == '[') ++i;
      while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
      unsigned char ch = i < line.size() ? static_cast<unsigned char>(line[i]) : 0;
      if (!(std::isalnum(ch) || ch == '_' || ch == '-' || ch == '"' || ch == '\''))
        return Error::Make(source + ":" + std::to_string(line_no) +
                           ": malformed table header (expected [name])");
    }
    start = end + 1;
    ++line_no;
  }
  return Ok();
}

}  // namespace

Result<toml::table> ParseToml(std::string_view text, const std::string& source) {
  if (auto s = CheckHeaders(text, source); !s.ok()) return s.error();
  try {
    return toml::parse(text, source);
  } catch (const toml::parse_error& e) {
    return Error::Make(source + ":" + std::to_string(e.source().begin.line) + ": " +
                       std::string(e.description()));
  } catch (const std::exception& e) {
    return Error::Make(source + ": " + e.what());
  }
}

}  // namespace sepp
