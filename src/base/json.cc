#include "base/json.h"

#include "base/json_text.h"

namespace sepp {

Result<Json> ParseJson(std::string_view text) {
  // Most text is plain well-formed JSON, which base/json_text reads into the
  // same tree several times faster; the rest (and every error) is nlohmann's.
  if (Json j; ParseJsonText(text, &j)) return j;
  try {
    return Json::parse(text);
  } catch (const Json::exception& e) {
    // Not only parse_error: a number too large for a double ("1e999")
    // throws out_of_range, and outside input must never escape as a throw.
    return Error::Make(std::string("invalid JSON: ") + e.what(), "invalid_json");
  }
}

std::string DumpJson(const Json& j, int indent) {
  if (indent < 0 && !j.is_number_float() && !j.is_binary()) {
    // The same bytes as nlohmann's serializer (base/json_text.h), written
    // without its per-character escaping loop.
    std::string out;
    AppendJson(out, j);
    return out;
  }
  return j.dump(indent, ' ', false, Json::error_handler_t::replace);
}

}  // namespace sepp
