#include "sqlite/fts_query.h"

#include <vector>

namespace sepp::sqlite {
namespace {

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

// One quoted FTS5 string; quotes inside are doubled, NULs dropped (SQLite
// would end the string there).
std::string Quote(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '\0') continue;
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

bool HasWordChar(std::string_view s) {
  for (unsigned char c : s)
    if (c >= 0x80 || (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z')) return true;
  return false;
}

}  // namespace

std::string FtsMatchQuery(std::string_view query, FtsJoin join) {
  while (!query.empty() && IsSpace(query.front())) query.remove_prefix(1);
  while (!query.empty() && IsSpace(query.back())) query.remove_suffix(1);
  if (query.size() >= 2 && query.front() == '"' && query.back() == '"') {
    std::string_view inner = query.substr(1, query.size() - 2);
    if (inner.find('"') == std::string_view::npos && HasWordChar(inner)) return Quote(inner);
  }
  std::vector<std::string> terms;
  size_t i = 0;
  while (i < query.size()) {
    while (i < query.size() && IsSpace(query[i])) ++i;
    size_t start = i;
    while (i < query.size() && !IsSpace(query[i])) ++i;
    std::string_view tok = query.substr(start, i - start);
    bool prefix = false;
    while (!tok.empty() && tok.back() == '*') {
      tok.remove_suffix(1);
      prefix = true;
    }
    // Quotes around a token are the model's, not part of the word.
    while (!tok.empty() && tok.front() == '"') tok.remove_prefix(1);
    while (!tok.empty() && tok.back() == '"') tok.remove_suffix(1);
    if (!HasWordChar(tok)) continue;  // "-", "()", "*": nothing to look for
    terms.push_back(Quote(tok) + (prefix ? "*" : ""));
  }
  std::string out;
  for (const auto& t : terms) {
    if (!out.empty()) out += join == FtsJoin::kAll ? " AND " : " OR ";
    out += t;
  }
  return out;
}

}  // namespace sepp::sqlite
