// Turns what a model types as a search query into an FTS5 MATCH expression
// that can neither fail to parse nor mean more than words to look for.
//
// FTS5 has its own query language (AND/OR/NOT/NEAR, column filters "col:",
// "^", parentheses, "+"): a model's query passed through unchanged errors
// out on a stray quote or colon, and could name columns. Here every
// whitespace-separated token becomes one double-quoted string (an FTS5
// phrase: inside quotes everything but '"' is literal, and '"' is doubled),
// so punctuation inside a token ("foo.bar", "a:b") means adjacent words; a
// trailing '*' stays a prefix search; a query wrapped in double quotes as a
// whole is one phrase. Tokens are joined by AND (all must occur: the
// sidecar, after pi-context) or OR (any may: memory, where BM25 ranks
// natural-language questions).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace sepp::sqlite {

enum class FtsJoin { kAll, kAny };

// "" when the query has no token at all (the caller says so to the model).
std::string FtsMatchQuery(std::string_view query, FtsJoin join = FtsJoin::kAll);

// The quoted terms FtsMatchQuery joins (a phrase query is one term).
std::vector<std::string> FtsTerms(std::string_view query);
std::string JoinFtsTerms(const std::vector<std::string>& terms, FtsJoin join);

class SqliteDb;

// BM25 must score every row a query matches: a term that occurs in tens of
// thousands of rows ("the", or a word every log line has) costs that many
// scores while adding almost nothing to the ranking (its IDF is near 0).
// This returns the terms of query that match fewer than `common` rows of
// the FTS5 table (each probe reads at most `common` row ids), so callers
// can leave the common ones out. The counts are over the whole table, not
// one scope: they choose terms, they never show a row.
Result<std::vector<std::string>> RareFtsTerms(SqliteDb& db, const std::string& fts_table,
                                              const std::vector<std::string>& terms,
                                              int64_t common = 1000);

// Rarest first, the rare terms (as RareFtsTerms) while the rows they match
// add up to at most `budget` (the rarest is always kept): an OR of five
// terms that each match 900 rows would still make BM25 score 4,500. Empty
// when every term is common.
Result<std::vector<std::string>> RarestFtsTerms(SqliteDb& db, const std::string& fts_table,
                                                const std::vector<std::string>& terms,
                                                int64_t budget = 1000, int64_t common = 1000);

}  // namespace sepp::sqlite
