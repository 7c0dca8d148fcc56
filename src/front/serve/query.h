// The outside input of a request besides its body: the query string of the
// target and numeric headers (Last-Event-ID). Strict: a malformed escape, a
// control character, a repeated key or an out-of-range number is an error
// that says which parameter and why, never a silently guessed value.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "base/result.h"

namespace sepp::front::serve {

constexpr size_t kMaxQueryParams = 32;
constexpr size_t kMaxQueryValue = 4096;

using Query = std::map<std::string, std::string>;

// "/path?a=1&b=x%20y+z" -> {a:1, b:"x y z"}; a target without '?' has none.
Result<Query> ParseQuery(std::string_view target);

// A non-negative decimal of at most 18 digits (fits int64 with room).
Result<int64_t> ParseCount(std::string_view text, std::string_view what);

// "true"/"false"/"1"/"0"; absent = fallback.
Result<bool> QueryBool(const Query& q, const std::string& key, bool fallback);

// One path segment of an id (server id, session id): 1-128 of
// [A-Za-z0-9._:-], so ids are safe in logs, file names and SSE fields.
bool IsValidId(std::string_view id);

}  // namespace sepp::front::serve
