// TOML parsing that is safe on hostile input: toml++ (3.3) behind a guard.
//
// toml++ 3.3 asserts (and in release builds assumes) that a table header's
// '[' is followed by a key, so text like "[[[" is undefined behaviour there.
// ParseToml rejects such lines first, then parses; it never throws. Errors
// read "SOURCE:LINE: what is wrong".
#pragma once
#include <string>
#include <string_view>

#include <toml++/toml.h>

#include "base/result.h"

namespace sepp {

Result<toml::table> ParseToml(std::string_view text, const std::string& source);

}  // namespace sepp
