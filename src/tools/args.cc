#include "tools/args.h"

namespace sepp::tools {
namespace {

const Json* Find(const Json& args, std::string_view name) {
  if (!args.is_object()) return nullptr;
  auto it = args.find(std::string(name));
  if (it == args.end() || it->is_null()) return nullptr;
  return &*it;
}

Error WrongType(std::string_view name, std::string_view expected, const Json& got) {
  return Error::Make("Invalid argument \"" + std::string(name) + "\": expected " +
                         std::string(expected) + ", got " + JsonTypeName(got) + ".",
                     "invalid_args");
}

}  // namespace

std::string JsonTypeName(const Json& value) {
  switch (value.type()) {
    case Json::value_t::null: return "null";
    case Json::value_t::boolean: return "boolean";
    case Json::value_t::string: return "string";
    case Json::value_t::number_integer:
    case Json::value_t::number_unsigned: return "integer";
    case Json::value_t::number_float: return "number";
    case Json::value_t::array: return "array";
    case Json::value_t::object: return "object";
    default: return "unknown";
  }
}

Status CheckArgsObject(const Json& args) {
  if (args.is_object() || args.is_null()) return Ok();
  return Error::Make("Invalid arguments: expected a JSON object, got " + JsonTypeName(args) + ".",
                     "invalid_args");
}

Result<std::string> RequiredString(const Json& args, std::string_view name) {
  const Json* v = Find(args, name);
  if (!v)
    return Error::Make("Missing required argument \"" + std::string(name) + "\" (string).",
                       "invalid_args");
  if (!v->is_string()) return WrongType(name, "a string", *v);
  return v->get<std::string>();
}

Result<std::optional<std::string>> OptionalString(const Json& args, std::string_view name) {
  const Json* v = Find(args, name);
  if (!v) return std::optional<std::string>();
  if (!v->is_string()) return WrongType(name, "a string", *v);
  return std::optional<std::string>(v->get<std::string>());
}

Result<std::optional<int64_t>> OptionalInt(const Json& args, std::string_view name, int64_t min,
                                           int64_t max) {
  const Json* v = Find(args, name);
  if (!v) return std::optional<int64_t>();
  int64_t n = 0;
  if (v->is_number_unsigned()) {
    uint64_t u = v->get<uint64_t>();
    n = u > static_cast<uint64_t>(INT64_MAX) ? INT64_MAX : static_cast<int64_t>(u);
  } else if (v->is_number_integer()) {
    n = v->get<int64_t>();
  } else if (v->is_number_float()) {
    double d = v->get<double>();
    if (!(d == static_cast<double>(static_cast<int64_t>(d))) || d > 9e18 || d < -9e18)
      return WrongType(name, "an integer", *v);
    n = static_cast<int64_t>(d);
  } else {
    return WrongType(name, "an integer", *v);
  }
  if (n < min || n > max) {
    std::string range = max == INT64_MAX ? "it must be at least " + std::to_string(min)
                                         : "it must be between " + std::to_string(min) + " and " +
                                               std::to_string(max);
    return Error::Make("Invalid argument \"" + std::string(name) + "\": " + std::to_string(n) +
                           " is out of range; " + range + ".",
                       "invalid_args");
  }
  return std::optional<int64_t>(n);
}

Result<std::optional<bool>> OptionalBool(const Json& args, std::string_view name) {
  const Json* v = Find(args, name);
  if (!v) return std::optional<bool>();
  if (!v->is_boolean()) return WrongType(name, "a boolean", *v);
  return std::optional<bool>(v->get<bool>());
}

namespace {

Status CheckPath(std::string_view name, const std::string& path) {
  if (path.empty())
    return Error::Make("Invalid argument \"" + std::string(name) + "\": the path is empty.",
                       "invalid_args");
  if (path.size() > 4096)
    return Error::Make("Invalid argument \"" + std::string(name) + "\": the path is " +
                           std::to_string(path.size()) + " bytes long; paths are at most 4096.",
                       "invalid_args");
  if (path.find('\0') != std::string::npos)
    return Error::Make("Invalid argument \"" + std::string(name) + "\": the path contains a NUL byte.",
                       "invalid_args");
  return Ok();
}

}  // namespace

Result<std::string> RequiredPath(const Json& args, std::string_view name) {
  auto s = RequiredString(args, name);
  if (!s) return s;
  if (auto st = CheckPath(name, *s); !st) return st.error();
  return s;
}

Result<std::optional<std::string>> OptionalPath(const Json& args, std::string_view name) {
  auto s = OptionalString(args, name);
  if (!s || !*s) return s;
  if (auto st = CheckPath(name, **s); !st) return st.error();
  return s;
}

std::string SummaryLine(std::string_view verb, std::string_view arg) {
  if (arg.empty()) return std::string(verb);
  return std::string(verb) + " " + std::string(arg);
}

ToolResult ErrorResult(std::string text) {
  ToolResult r;
  r.text = std::move(text);
  r.is_error = true;
  return r;
}

std::string StringOr(const Json& args, std::string_view name, std::string_view fallback) {
  const Json* v = Find(args, name);
  if (v && v->is_string()) return v->get<std::string>();
  return std::string(fallback);
}

}  // namespace sepp::tools
