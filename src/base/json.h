// JSON for sepp: nlohmann::json, plus a parse that never throws.
#pragma once
#include <string_view>

#include <nlohmann/json.hpp>

#include "base/result.h"

namespace sepp {

using Json = nlohmann::json;

// Parses text as JSON. On failure the error says where and why.
Result<Json> ParseJson(std::string_view text);

// Serialises without throwing on invalid UTF-8 (bad bytes become U+FFFD).
std::string DumpJson(const Json& j, int indent = -1);

}  // namespace sepp
