// base/json_text: the text writers must write exactly what nlohmann's own
// dump writes (DumpJson's bytes are what recordings, session files and the
// protocol tests compare), for any value, including hostile strings.
#include "base/json_text.h"

#include <gtest/gtest.h>

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
