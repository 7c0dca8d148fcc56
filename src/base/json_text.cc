#include "base/json_text.h"

#include <charconv>
#include <cmath>

#include "base/strings.h"

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

namespace sepp {
namespace {

constexpr int kMaxDepth = 256;

class TextParser {
 public:
  explicit TextParser(std::string_view text) : p_(text.data()), end_(text.data() + text.size()) {}

  bool Document(Json* out) {
    if (!Value(*out)) return false;
    Space();
    return p_ == end_;
  }

 private:
  void Space() {
    while (p_ < end_ && (*p_ == ' ' || *p_ == '\n' || *p_ == '\r' || *p_ == '\t')) ++p_;
  }

  bool Value(Json& out) {
    Space();
    if (p_ == end_) return false;
    switch (*p_) {
      case '{': return Object(out);
      case '[': return Array(out);
      case '"': {
        std::string s;
        if (!String(s)) return false;
        out = std::move(s);
        return true;
      }
      case 't': return Literal("true", Json(true), out);
      case 'f': return Literal("false", Json(false), out);
      case 'n': return Literal("null", Json(nullptr), out);
      default: return Number(out);
    }
  }

  bool Literal(std::string_view word, Json value, Json& out) {
    if (static_cast<size_t>(end_ - p_) < word.size() || std::string_view(p_, word.size()) != word)
      return false;
    p_ += word.size();
    out = std::move(value);
    return true;
  }

  bool Object(Json& out) {
    if (++depth_ > kMaxDepth) return false;
    ++p_;
    out = Json::object();
    auto& members = out.get_ref<Json::object_t&>();
    Space();
    if (p_ < end_ && *p_ == '}') {
      ++p_;
      --depth_;
      return true;
    }
    for (;;) {
      Space();
      if (p_ == end_ || *p_ != '"') return false;
      std::string key;
      if (!String(key)) return false;
      Space();
      if (p_ == end_ || *p_ != ':') return false;
      ++p_;
      Json value;
      if (!Value(value)) return false;
      members[std::move(key)] = std::move(value);  // a repeated key: the last wins, as in nlohmann
      Space();
      if (p_ == end_) return false;
      if (*p_ == ',') {
        ++p_;
        continue;
      }
      if (*p_ != '}') return false;
      ++p_;
      --depth_;
      return true;
    }
  }

  bool Array(Json& out) {
    if (++depth_ > kMaxDepth) return false;
    ++p_;
    out = Json::array();
    auto& items = out.get_ref<Json::array_t&>();
    Space();
    if (p_ < end_ && *p_ == ']') {
      ++p_;
      --depth_;
      return true;
    }
    for (;;) {
      items.emplace_back();
      if (!Value(items.back())) return false;
      Space();
      if (p_ == end_) return false;
      if (*p_ == ',') {
        ++p_;
        continue;
      }
      if (*p_ != ']') return false;
      ++p_;
      --depth_;
      return true;
    }
  }

  static int Hex(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  }
  // The 4 hex digits of a \u escape (p_ after the 'u').
  bool Hex4(uint32_t* cp) {
    if (end_ - p_ < 4) return false;
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) {
      int h = Hex(p_[i]);
      if (h < 0) return false;
      v = v * 16 + static_cast<uint32_t>(h);
    }
    p_ += 4;
    *cp = v;
    return true;
  }

  bool Escape(std::string& out) {  // p_ after the backslash
    if (p_ == end_) return false;
    char c = *p_++;
    switch (c) {
      case '"': out += '"'; return true;
      case '\\': out += '\\'; return true;
      case '/': out += '/'; return true;
      case 'b': out += '\b'; return true;
      case 'f': out += '\f'; return true;
      case 'n': out += '\n'; return true;
      case 'r': out += '\r'; return true;
      case 't': out += '\t'; return true;
      case 'u': break;
      default: return false;
    }
    uint32_t cp;
    if (!Hex4(&cp)) return false;
    if (cp >= 0xDC00 && cp <= 0xDFFF) return false;  // a low surrogate alone
    if (cp >= 0xD800 && cp <= 0xDBFF) {
      uint32_t low;
      if (end_ - p_ < 2 || p_[0] != '\\' || p_[1] != 'u') return false;
      p_ += 2;
      if (!Hex4(&low) || low < 0xDC00 || low > 0xDFFF) return false;
      cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
    }
    AppendUtf8(static_cast<char32_t>(cp), &out);
    return true;
  }

  bool String(std::string& out) {  // p_ at the opening quote
    ++p_;
    const char* run = p_;
    const std::string_view all(p_, static_cast<size_t>(end_ - p_));
    for (;;) {
      if (p_ == end_) return false;
      unsigned char c = static_cast<unsigned char>(*p_);
      if (c == '"') {
        out.append(run, p_);
        ++p_;
        return true;
      }
      if (c < 0x20) return false;  // control characters must be escaped
      if (c == '\\') {
        out.append(run, p_);
        ++p_;
        if (!Escape(out)) return false;
        run = p_;
        continue;
      }
      if (c >= 0x80) {
        size_t n = Utf8SequenceLength(all, static_cast<size_t>(p_ - all.data()));
        if (n == 0) return false;
        p_ += n;
        continue;
      }
      ++p_;
    }
  }

  bool Number(Json& out) {
    const char* start = p_;
    auto digit = [&] { return p_ < end_ && *p_ >= '0' && *p_ <= '9'; };
    bool negative = p_ < end_ && *p_ == '-';
    if (negative) ++p_;
    if (!digit()) return false;
    if (*p_ == '0') {
      ++p_;
      if (digit()) return false;  // no leading zeros
    } else {
      while (digit()) ++p_;
    }
    bool is_float = false;
    if (p_ < end_ && *p_ == '.') {
      is_float = true;
      ++p_;
      if (!digit()) return false;
      while (digit()) ++p_;
    }
    if (p_ < end_ && (*p_ == 'e' || *p_ == 'E')) {
      is_float = true;
      ++p_;
      if (p_ < end_ && (*p_ == '+' || *p_ == '-')) ++p_;
      if (!digit()) return false;
      while (digit()) ++p_;
    }
    if (is_float) {
      double d;
      auto r = std::from_chars(start, p_, d);
      if (r.ec != std::errc() || r.ptr != p_ || !std::isfinite(d)) return false;
      out = d;
    } else if (negative) {
      int64_t v;
      auto r = std::from_chars(start, p_, v);
      if (r.ec != std::errc() || r.ptr != p_) return false;  // out of range: nlohmann's float
      out = v;
    } else {
      uint64_t v;
      auto r = std::from_chars(start, p_, v);
      if (r.ec != std::errc() || r.ptr != p_) return false;
      out = v;
    }
    return true;
  }

  const char* p_;
  const char* end_;
  int depth_ = 0;
};

}  // namespace

bool ParseJsonText(std::string_view text, Json* out) { return TextParser(text).Document(out); }

}  // namespace sepp
