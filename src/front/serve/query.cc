#include "front/serve/query.h"

namespace sepp::front::serve {
namespace {

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

Result<std::string> Decode(std::string_view in, std::string_view part) {
  std::string out;
  for (size_t i = 0; i < in.size(); ++i) {
    char c = in[i];
    if (c == '+') {
      out += ' ';
    } else if (c == '%') {
      int hi = i + 2 < in.size() ? HexValue(in[i + 1]) : -1;
      int lo = i + 2 < in.size() ? HexValue(in[i + 2]) : -1;
      if (hi < 0 || lo < 0)
        return Error::Make("the query's " + std::string(part) +
                               " has a malformed %-escape (write %XX with two hex digits)",
                           "invalid_request");
      out += static_cast<char>(hi * 16 + lo);
      i += 2;
    } else {
      out += c;
    }
  }
  for (unsigned char c : out)
    if (c < 0x20 || c == 0x7f)
      return Error::Make("the query's " + std::string(part) + " holds a control character",
                         "invalid_request");
  return out;
}

}  // namespace

Result<Query> ParseQuery(std::string_view target) {
  size_t q = target.find('?');
  if (q == std::string_view::npos) return Query{};
  std::string_view query = target.substr(q + 1);
  Query out;
  size_t start = 0;
  while (start <= query.size()) {
    size_t amp = query.find('&', start);
    std::string_view pair =
        query.substr(start, amp == std::string_view::npos ? std::string_view::npos : amp - start);
    start = amp == std::string_view::npos ? query.size() + 1 : amp + 1;
    if (pair.empty()) continue;
    size_t eq = pair.find('=');
    auto key = Decode(pair.substr(0, eq), "parameter name");
    if (!key.ok()) return key.error();
    if (key->empty()) return Error::Make("the query has a parameter without a name", "invalid_request");
    auto value = Decode(eq == std::string_view::npos ? std::string_view() : pair.substr(eq + 1),
                        "value of \"" + *key + "\"");
    if (!value.ok()) return value.error();
    if (key->size() > 64 || value->size() > kMaxQueryValue)
      return Error::Make("the query parameter \"" + key->substr(0, 64) + "\" is too long",
                         "invalid_request");
    if (out.count(*key))
      return Error::Make("the query parameter \"" + *key + "\" is given twice; give it once",
                         "invalid_request");
    if (out.size() == kMaxQueryParams)
      return Error::Make("the query has more than " + std::to_string(kMaxQueryParams) +
                             " parameters",
                         "invalid_request");
    out.emplace(std::move(*key), std::move(*value));
  }
  return out;
}

Result<int64_t> ParseCount(std::string_view text, std::string_view what) {
  if (text.empty() || text.size() > 18)
    return Error::Make(std::string(what) + " must be a non-negative integer of at most 18 digits, got \"" +
                           std::string(text.substr(0, 40)) + "\"",
                       "invalid_request");
  int64_t v = 0;
  for (char c : text) {
    if (c < '0' || c > '9')
      return Error::Make(std::string(what) + " must be a non-negative integer, got \"" +
                             std::string(text.substr(0, 40)) + "\"",
                         "invalid_request");
    v = v * 10 + (c - '0');
  }
  return v;
}

Result<bool> QueryBool(const Query& q, const std::string& key, bool fallback) {
  auto it = q.find(key);
  if (it == q.end()) return fallback;
  if (it->second == "true" || it->second == "1" || it->second.empty()) return true;
  if (it->second == "false" || it->second == "0") return false;
  return Error::Make("the query parameter \"" + key + "\" must be true or false, got \"" +
                         it->second.substr(0, 40) + "\"",
                     "invalid_request");
}

bool IsValidId(std::string_view id) {
  if (id.empty() || id.size() > 128) return false;
  for (char c : id) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '.' || c == '_' || c == ':' || c == '-';
    if (!ok) return false;
  }
  return id != "." && id != "..";
}

}  // namespace sepp::front::serve
