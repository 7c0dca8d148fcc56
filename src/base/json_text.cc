#include "base/json_text.h"

#include <charconv>

namespace sepp {
namespace {

// The length of the well-formed UTF-8 sequence that starts at s[i] (a byte
// >= 0x80), or 0: what nlohmann's decoder accepts (no overlong forms, no
// surrogates, nothing above U+10FFFF).
size_t Utf8SequenceLength(std::string_view s, size_t i) {
  auto at = [&](size_t k) { return i + k < s.size() ? static_cast<unsigned char>(s[i + k]) : 0; };
  auto cont = [&](size_t k) { return (at(k) & 0xC0) == 0x80; };
  unsigned char c = at(0);
  if (c >= 0xC2 && c <= 0xDF) return cont(1) ? 2 : 0;
  if (c >= 0xE0 && c <= 0xEF) {
    if (!cont(1) || !cont(2)) return 0;
    if (c == 0xE0 && at(1) < 0xA0) return 0;  // overlong
    if (c == 0xED && at(1) > 0x9F) return 0;  // a surrogate
    return 3;
  }
  if (c >= 0xF0 && c <= 0xF4) {
    if (!cont(1) || !cont(2) || !cont(3)) return 0;
    if (c == 0xF0 && at(1) < 0x90) return 0;  // overlong
    if (c == 0xF4 && at(1) > 0x8F) return 0;  // above U+10FFFF
    return 4;
  }
  return 0;
}

// nlohmann's own serializer (DumpJson calls back into this file).
std::string NlohmannDump(const Json& j) { return j.dump(-1, ' ', false, Json::error_handler_t::replace); }

void AppendEscape(std::string& out, unsigned char c) {
  switch (c) {
    case '"': out += "\\\""; return;
    case '\\': out += "\\\\"; return;
    case '\b': out += "\\b"; return;
    case '\t': out += "\\t"; return;
    case '\n': out += "\\n"; return;
    case '\f': out += "\\f"; return;
    case '\r': out += "\\r"; return;
    default: {
      static constexpr char kHex[] = "0123456789abcdef";
      char u[6] = {'\\', 'u', '0', '0', kHex[c >> 4], kHex[c & 15]};
      out.append(u, 6);
    }
  }
}

}  // namespace

void AppendJsonString(std::string& out, std::string_view s) {
  const size_t start = out.size();
  out.reserve(start + s.size() + 2);
  out += '"';
  size_t run = 0;  // where the bytes not yet copied start
  for (size_t i = 0; i < s.size();) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {
      ++i;
      continue;
    }
    if (c >= 0x80) {
      size_t n = Utf8SequenceLength(s, i);
      if (n == 0) {
        // Invalid UTF-8: nlohmann's replacement rules, exactly.
        out.resize(start);
        out += NlohmannDump(Json(std::string(s)));
        return;
      }
      i += n;
      continue;
    }
    out.append(s.data() + run, i - run);
    AppendEscape(out, c);
    run = ++i;
  }
  out.append(s.data() + run, s.size() - run);
  out += '"';
}

void AppendJsonInt(std::string& out, int64_t v) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, r.ptr);
}

void AppendJson(std::string& out, const Json& j) {
  switch (j.type()) {
    case Json::value_t::null: out += "null"; return;
    case Json::value_t::boolean: out += j.get<bool>() ? "true" : "false"; return;
    case Json::value_t::string: AppendJsonString(out, j.get_ref<const std::string&>()); return;
    case Json::value_t::number_integer: AppendJsonInt(out, j.get<int64_t>()); return;
    case Json::value_t::number_unsigned: {
      char buf[24];
      auto r = std::to_chars(buf, buf + sizeof buf, j.get<uint64_t>());
      out.append(buf, r.ptr);
      return;
    }
    case Json::value_t::object: {
      out += '{';
      bool first = true;
      for (const auto& [key, value] : j.get_ref<const Json::object_t&>()) {
        if (!first) out += ',';
        first = false;
        AppendJsonString(out, key);
        out += ':';
        AppendJson(out, value);
      }
      out += '}';
      return;
    }
    case Json::value_t::array: {
      out += '[';
      bool first = true;
      for (const Json& value : j.get_ref<const Json::array_t&>()) {
        if (!first) out += ',';
        first = false;
        AppendJson(out, value);
      }
      out += ']';
      return;
    }
    default:  // floating point (nlohmann's own formatting), binary, discarded
      out += NlohmannDump(j);
      return;
  }
}

}  // namespace sepp
