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
#include <string>
#include <string_view>

namespace sepp::sqlite {

enum class FtsJoin { kAll, kAny };

// "" when the query has no token at all (the caller says so to the model).
std::string FtsMatchQuery(std::string_view query, FtsJoin join = FtsJoin::kAll);

}  // namespace sepp::sqlite
