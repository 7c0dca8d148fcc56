#include "sqlite/fts_query.h"

#include <algorithm>
#include <vector>

#include "sqlite/sqlite_db.h"

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

std::vector<std::string> FtsTerms(std::string_view query) {
  std::vector<std::string> terms;
  while (!query.empty() && IsSpace(query.front())) query.remove_prefix(1);
  while (!query.empty() && IsSpace(query.back())) query.remove_suffix(1);
  if (query.size() >= 2 && query.front() == '"' && query.back() == '"') {
    std::string_view inner = query.substr(1, query.size() - 2);
    if (inner.find('"') == std::string_view::npos && HasWordChar(inner)) return {Quote(inner)};
  }
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
  return terms;
}

std::string JoinFtsTerms(const std::vector<std::string>& terms, FtsJoin join) {
  std::string out;
  for (const auto& t : terms) {
    if (!out.empty()) out += join == FtsJoin::kAll ? " AND " : " OR ";
    out += t;
  }
  return out;
}

std::string FtsMatchQuery(std::string_view query, FtsJoin join) {
  return JoinFtsTerms(FtsTerms(query), join);
}

namespace {

struct TermRows {
  std::string term;
  int64_t rows;  // at most `common`
};

Result<std::vector<TermRows>> CountRows(SqliteDb& db, const std::string& fts_table,
                                        const std::vector<std::string>& terms, int64_t common) {
  std::vector<TermRows> out;
  std::string sql = "SELECT count(*) FROM (SELECT rowid FROM " + fts_table + " WHERE " +
                    fts_table + " MATCH ?1 LIMIT ?2)";
  auto q = SqliteStmt::Prepare(db, sql.c_str());
  if (!q.ok()) return q.error();
  for (const auto& t : terms) {
    q->Bind(1, t).Bind(2, common);
    auto row = q->Step();
    if (!row.ok()) return row.error();
    int64_t n = *row ? q->Int(0) : 0;
    q->Reset();
    out.push_back({t, n});
  }
  return out;
}

}  // namespace

Result<std::vector<std::string>> RareFtsTerms(SqliteDb& db, const std::string& fts_table,
                                              const std::vector<std::string>& terms,
                                              int64_t common) {
  auto counts = CountRows(db, fts_table, terms, common);
  if (!counts.ok()) return counts.error();
  std::vector<std::string> rare;
  for (const auto& c : *counts)
    if (c.rows < common) rare.push_back(c.term);
  return rare;
}

Result<std::vector<std::string>> RarestFtsTerms(SqliteDb& db, const std::string& fts_table,
                                                const std::vector<std::string>& terms,
                                                int64_t budget, int64_t common) {
  auto counts = CountRows(db, fts_table, terms, common);
  if (!counts.ok()) return counts.error();
  std::stable_sort(counts->begin(), counts->end(),
                   [](const TermRows& a, const TermRows& b) { return a.rows < b.rows; });
  std::vector<std::string> out;
  int64_t total = 0;
  for (const auto& c : *counts) {
    if (c.rows >= common || (!out.empty() && total + c.rows > budget)) break;
    out.push_back(c.term);
    total += c.rows;
  }
  return out;
}

}  // namespace sepp::sqlite
