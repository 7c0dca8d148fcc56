// JSON text written and read without nlohmann's per-character loops.
//
// Writing: byte for byte what DumpJson writes for the same tree, for the hot
// paths that would otherwise build a tree only to dump it (a protocol event
// per streamed delta, a request body per model call).
//
// nlohmann writes an object's members in key order (std::map): a writer of
// an object gives its members in that order (std::string's <, bytewise), and
// the tests that compare with DumpJson hold it to that.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

#include "base/json.h"

namespace sepp {

// s as a JSON string, quoted and escaped as DumpJson does (no \u escapes
// but for control characters; invalid UTF-8 becomes U+FFFD as DumpJson's).
void AppendJsonString(std::string& out, std::string_view s);
// Any value: DumpJson(j) appended without a temporary.
void AppendJson(std::string& out, const Json& j);
void AppendJsonInt(std::string& out, int64_t v);

// Reading: the tree nlohmann's parse builds from text (the same types, values
// and duplicate-key rule), for the text it can be sure of: well-formed JSON
// nested at most 256 deep, numbers in range. False for anything else (also
// for valid JSON it leaves to nlohmann: a byte order mark, a number that
// overflows), and *out is then unspecified: ParseJson falls back to nlohmann
// there, which decides and words the error.
bool ParseJsonText(std::string_view text, Json* out);

// One object's members, written in the order given (which must be key
// order). Keys are written as given: callers pass plain ASCII names.
class JsonObjectText {
 public:
  explicit JsonObjectText(std::string& out) : out_(out) { out_ += '{'; }
  JsonObjectText(const JsonObjectText&) = delete;
  JsonObjectText& operator=(const JsonObjectText&) = delete;

  // The key and its colon; the caller writes the value.
  std::string& Key(std::string_view key) {
    if (!first_) out_ += ',';
    first_ = false;
    out_ += '"';
    out_ += key;
    out_ += "\":";
    return out_;
  }
  JsonObjectText& Str(std::string_view key, std::string_view value) {
    AppendJsonString(Key(key), value);
    return *this;
  }
  JsonObjectText& Int(std::string_view key, int64_t value) {
    AppendJsonInt(Key(key), value);
    return *this;
  }
  JsonObjectText& Bool(std::string_view key, bool value) {
    Key(key) += value ? "true" : "false";
    return *this;
  }
  JsonObjectText& Value(std::string_view key, const Json& value) {
    AppendJson(Key(key), value);
    return *this;
  }
  // A value that is JSON text already.
  JsonObjectText& Raw(std::string_view key, std::string_view text) {
    Key(key) += text;
    return *this;
  }
  void Close() { out_ += '}'; }

 private:
  std::string& out_;
  bool first_ = true;
};

}  // namespace sepp
