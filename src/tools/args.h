// Typed access to a tool call's arguments.
//
// The model sends arguments as a JSON object. Every accessor either returns
// the value or an Error whose message names the argument and the expected
// type, ready to be handed back to the model as an is_error result. Integer
// arguments accept integral JSON numbers (3 and 3.0) and nothing else.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "base/json.h"
#include "base/result.h"
#include "tools/tool.h"

namespace sepp::tools {

// Ok when args is a JSON object (null counts as an empty object).
Status CheckArgsObject(const Json& args);

Result<std::string> RequiredString(const Json& args, std::string_view name);
Result<std::optional<std::string>> OptionalString(const Json& args, std::string_view name);
// Range-checked: a value outside [min, max] is an error naming the range.
Result<std::optional<int64_t>> OptionalInt(const Json& args, std::string_view name, int64_t min,
                                           int64_t max);
Result<std::optional<bool>> OptionalBool(const Json& args, std::string_view name);

// Path arguments: strings that are not empty, at most 4096 bytes (PATH_MAX,
// and so error messages quoting them stay small) and hold no NUL byte
// (which would silently cut the path short at the system call).
Result<std::string> RequiredPath(const Json& args, std::string_view name);
Result<std::optional<std::string>> OptionalPath(const Json& args, std::string_view name);

// "string", "number", "object", ... for messages.
std::string JsonTypeName(const Json& value);

// An is_error result with text.
ToolResult ErrorResult(std::string text);

// A string argument for Summary(): empty when absent or not a string.
std::string StringOr(const Json& args, std::string_view name, std::string_view fallback = {});

// "verb arg", or just "verb" when arg is empty: for Summary().
std::string SummaryLine(std::string_view verb, std::string_view arg);

}  // namespace sepp::tools
