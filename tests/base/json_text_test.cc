// base/json_text: the text writers must write exactly what nlohmann's own
// dump writes (DumpJson's bytes are what recordings, session files and the
// protocol tests compare), for any value, including hostile strings.
#include "base/json_text.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <random>

namespace sepp {
namespace {

std::string Nlohmann(const Json& j) { return j.dump(-1, ' ', false, Json::error_handler_t::replace); }

std::string Written(const Json& j) {
  std::string out = "prefix";
  AppendJson(out, j);
  return out.substr(6);
}

TEST(JsonText, StringsEscapeAsNlohmannDoes) {
  for (std::string s : {std::string(""), std::string("plain"), std::string("q\"b\\s/"),
                        std::string("\b\t\n\f\r\x01\x1f\x7f"), std::string("nul\0in", 6),
                        std::string("caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80"),
                        std::string("bad \xFF byte"), std::string("cut \xE2\x82"),
                        std::string("overlong \xC0\xAF \xE0\x80\xAF"), std::string("surrogate \xED\xA0\x80"),
                        std::string("too high \xF4\x90\x80\x80"), std::string("\xF5\x80\x80\x80"),
                        std::string("\x80 lone continuation")}) {
    std::string out;
    AppendJsonString(out, s);
    EXPECT_EQ(out, Nlohmann(Json(s))) << s;
  }
}

// Random bytes, biased towards the ones that need care: every string
// nlohmann can be given must come out the same.
TEST(JsonText, RandomStringsMatchNlohmann) {
  std::mt19937 rng(12345);
  const unsigned char interesting[] = {0x00, 0x08, 0x09, 0x0a, 0x1f, 0x20, '"', '\\', 0x7f, 0x80,
                                       0xbf, 0xc0, 0xc1, 0xc2, 0xdf, 0xe0, 0xed, 0xef, 0xf0, 0xf4,
                                       0xf5, 0xff, 0x9f, 0xa0, 0x8f, 0x90};
  for (int n = 0; n < 20000; ++n) {
    std::string s;
    int len = static_cast<int>(rng() % 12);
    for (int i = 0; i < len; ++i) {
      unsigned r = rng();
      s += static_cast<char>(r % 3 == 0 ? interesting[(r >> 8) % sizeof interesting]
                             : r % 3 == 1 ? 'a' + (r >> 8) % 26
                                          : (r >> 8) & 0xff);
    }
    std::string out;
    AppendJsonString(out, s);
    ASSERT_EQ(out, Nlohmann(Json(s))) << testing::PrintToString(s);
  }
}

TEST(JsonText, ValuesOfEveryKindMatchNlohmann) {
  Json j = {{"z", 1},
            {"a", {{"nested", Json::array({1, -2, 3.5, nullptr, true, false, "s"})}}},
            {"big", 18446744073709551615ULL},
            {"min", INT64_MIN},
            {"float", 0.1},
            {"exp", 1e300},
            {"empty_object", Json::object()},
            {"empty_array", Json::array()},
            {"key \"quoted\"\n", "v"},
            {"caf\xC3\xA9", "\xFF"}};
  EXPECT_EQ(Written(j), Nlohmann(j));
  EXPECT_EQ(DumpJson(j), Nlohmann(j));
  EXPECT_EQ(Written(Json()), "null");
  EXPECT_EQ(Written(Json(-0.0)), Nlohmann(Json(-0.0)));
}

TEST(JsonText, RandomTreesMatchNlohmann) {
  std::mt19937 rng(7);
  std::function<Json(int)> make = [&](int depth) -> Json {
    unsigned r = rng() % (depth > 3 ? 6 : 8);
    switch (r) {
      case 0: return nullptr;
      case 1: return rng() % 2 == 0;
      case 2: return static_cast<int64_t>(rng()) - (1LL << 31);
      case 3: return static_cast<double>(rng()) / 7.0;
      case 4: {
        std::string s;
        for (int i = rng() % 6; i > 0; --i) s += static_cast<char>(rng() & 0xff);
        return s;
      }
      case 5: return static_cast<uint64_t>(rng()) << 33;
      case 6: {
        Json a = Json::array();
        for (int i = rng() % 4; i > 0; --i) a.push_back(make(depth + 1));
        return a;
      }
      default: {
        Json o = Json::object();
        for (int i = rng() % 4; i > 0; --i) o[std::string(1, static_cast<char>('a' + rng() % 5))] = make(depth + 1);
        return o;
      }
    }
  };
  for (int n = 0; n < 3000; ++n) {
    Json j = make(0);
    ASSERT_EQ(Written(j), Nlohmann(j));
  }
}

TEST(JsonText, ObjectWriterWritesMembersInTheOrderGiven) {
  std::string out;
  JsonObjectText o(out);
  o.Bool("a", true).Int("b", -7).Raw("c", "[1]").Str("d", "x\"y").Value("e", Json::object());
  o.Key("f") += "null";
  o.Close();
  EXPECT_EQ(out, R"({"a":true,"b":-7,"c":[1],"d":"x\"y","e":{},"f":null})");
  EXPECT_EQ(out, Nlohmann(*ParseJson(out)));
}

}  // namespace
}  // namespace sepp

namespace sepp {
namespace {

// Random bytes from the test's alphabet may cut a UTF-8 sequence: such a
// string is valid JSON only after DumpJson's replacement.
std::string SanitizeForTest(const std::string& s) { return Json::parse(DumpJson(Json(s))).get<std::string>(); }

// Same type at every node, same values (nlohmann's == treats 1 and 1u alike).
bool Identical(const Json& a, const Json& b) {
  if (a.type() != b.type()) return false;
  if (a.is_object()) {
    if (a.size() != b.size()) return false;
    for (auto ia = a.begin(), ib = b.begin(); ia != a.end(); ++ia, ++ib)
      if (ia.key() != ib.key() || !Identical(ia.value(), ib.value())) return false;
    return true;
  }
  if (a.is_array()) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i)
      if (!Identical(a[i], b[i])) return false;
    return true;
  }
  if (a.is_number_float()) return std::signbit(a.get<double>()) == std::signbit(b.get<double>()) && a == b;
  return a == b;
}

// What ParseJsonText accepts, nlohmann accepts with the identical tree.
int fast_took = 0, fast_left = 0;
void ExpectAgrees(const std::string& text) {
  Json fast;
  bool took = ParseJsonText(text, &fast);
  ++(took ? fast_took : fast_left);
  Json slow;
  bool valid = true;
  try {
    slow = Json::parse(text);
  } catch (const Json::exception&) {
    valid = false;
  }
  if (took) {
    ASSERT_TRUE(valid) << "accepted what nlohmann rejects: " << testing::PrintToString(text);
    ASSERT_TRUE(Identical(fast, slow)) << testing::PrintToString(text) << " -> " << fast.dump() << " vs " << slow.dump();
  }
  // ParseJson gives nlohmann's answer either way.
  auto r = ParseJson(text);
  ASSERT_EQ(r.ok(), valid) << testing::PrintToString(text);
  if (valid) ASSERT_TRUE(Identical(*r, slow)) << testing::PrintToString(text);
}

TEST(JsonTextParse, ReadsWhatNlohmannReads) {
  for (const char* t : {"{}", "[]", "0", "-0", "1", "-1", "18446744073709551615", "-9223372036854775808",
                        "1.5", "-0.0", "1e2", "1E-2", "2.5e+3", "true", "false", "null", " \t\n\r[1 , 2]\n",
                        R"("a\"b\\c\/d\b\f\n\r\t\u0041\u00e9\u20ac\ud83d\ude00\u0000")",
                        R"({"a":1,"a":2})", R"({"k":{"n":[{"x":[]}]}})", "\"caf\xC3\xA9\""}) {
    SCOPED_TRACE(t);
    Json j;
    EXPECT_TRUE(ParseJsonText(t, &j));
    ExpectAgrees(t);
  }
  Json j;
  ASSERT_TRUE(ParseJsonText(R"({"a":1,"a":2})", &j));
  EXPECT_EQ(j["a"], 2);
  ASSERT_TRUE(ParseJsonText("5", &j));
  EXPECT_TRUE(j.is_number_unsigned());
  ASSERT_TRUE(ParseJsonText("-5", &j));
  EXPECT_TRUE(j.is_number_integer() && !j.is_number_unsigned());
}

TEST(JsonTextParse, LeavesTheRestToNlohmann) {
  for (std::string t : std::vector<std::string>{"", " ", "01", "-", "1.", ".5", "1e", "+1", "18446744073709551616", "-9223372036854775809",
                        "1e999", "-1e999", "1e-400", "tru", "nul", "[1,]", "{\"a\":1,}", "{\"a\"}", "{a:1}",
                        "[1 2]", "\"\\x\"", "\"\\u12\"", "\"\\uD800\"", "\"\\uDC00\"", "\"\\uD800\\u0041\"",
                        "\"\x01\"", "\"\xFF\"", "\"\xC0\xAF\"", "\"\xED\xA0\x80\"", "\"unterminated",
                        "\xEF\xBB\xBF{}", "{} x", "//c\n{}", "[" + std::string(300, '[') + std::string(301, ']')}) {
    SCOPED_TRACE(testing::PrintToString(t));
    Json j;
    EXPECT_FALSE(ParseJsonText(t, &j));
    ExpectAgrees(t);
  }
}

// Text from random trees, then the same text cut, with bytes flipped,
// inserted and removed: the fast reader never accepts what nlohmann
// refuses, never reads a different tree, and ParseJson's answer is
// nlohmann's.
TEST(JsonTextParse, MutatedTextAgreesWithNlohmann) {
  std::mt19937 rng(99);
  std::function<Json(int)> make = [&](int depth) -> Json {
    switch (rng() % (depth > 3 ? 6 : 8)) {
      case 0: return nullptr;
      case 1: return rng() % 2 == 0;
      case 2: return static_cast<int64_t>(rng()) - (1LL << 31);
      case 3: return static_cast<double>(rng()) / 7.0 * ((rng() % 2) ? 1e-5 : 1e5);
      case 4: {
        std::string s;
        for (int i = rng() % 6; i > 0; --i) s += "a\"\\\n\x01\xC3\xA9\xF0\x9F\x98\x80/"[rng() % 14];
        return SanitizeForTest(s);
      }
      case 5: return static_cast<uint64_t>(rng()) << 33;
      case 6: {
        Json a = Json::array();
        for (int i = rng() % 4; i > 0; --i) a.push_back(make(depth + 1));
        return a;
      }
      default: {
        Json o = Json::object();
        for (int i = rng() % 4; i > 0; --i) o[std::string(1, static_cast<char>('a' + rng() % 5))] = make(depth + 1);
        return o;
      }
    }
  };
  const char noise[] = "{}[]\",:\\0123456789-+.eEtrufalsn \n\x01\x80\xC3\xFF";
  fast_took = fast_left = 0;
  for (int n = 0; n < 1500; ++n) {
    std::string text = make(0).dump(rng() % 4 == 0 ? 1 : -1, ' ', rng() % 3 == 0, Json::error_handler_t::replace);
    ExpectAgrees(text);
    for (int m = 0; m < 3; ++m) {
      std::string t = text;
      for (int k = 1 + rng() % 3; k > 0 && !t.empty(); --k) {
        size_t at = rng() % t.size();
        switch (rng() % 4) {
          case 0: t[at] = noise[rng() % (sizeof noise - 1)]; break;
          case 1: t.insert(at, 1, noise[rng() % (sizeof noise - 1)]); break;
          case 2: t.erase(at, 1); break;
          default: t.resize(at); break;
        }
      }
      ExpectAgrees(t);
    }
  }
  // Both ways were taken often (a mutation can leave the text valid).
  EXPECT_GT(fast_took, 1500);
  EXPECT_GT(fast_left, 1500);
}

}  // namespace
}  // namespace sepp
