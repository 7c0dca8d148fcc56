#include <gtest/gtest.h>

#include <random>

#include "base/toml.h"

namespace sepp {
namespace {

TEST(Toml, ParsesAndReportsLineOfErrors) {
  auto ok = ParseToml("[session]\nstore = \"sqlite\"\n", "s.toml");
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ((*ok)["session"]["store"].value<std::string>(), "sqlite");
  auto bad = ParseToml("[session]\nstore = \n", "s.toml");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message.rfind("s.toml:2: ", 0), 0u) << bad.error().message;
}

TEST(Toml, HeadersThatWouldTripTomlplusplusAreRefused) {
  for (const char* text : {"[[[", "[", "[]", "  [[ ]]\n", "[a]\n[[[x]]]"}) {
    auto r = ParseToml(text, "h.toml");
    ASSERT_FALSE(r.ok()) << text;
    EXPECT_NE(r.error().message.find("h.toml:"), std::string::npos);
  }
}

// Random TOML-ish text must give a table or an error, never a crash (this
// build keeps toml++'s assertions on).
TEST(Toml, HostileInputNeverCrashes) {
  const std::string alphabet = "[]{}=\"'.,#\n \t\\abc123-_:+eE\x01\xff";
  std::mt19937 rng(42);
  int parsed = 0, rejected = 0;
  for (int i = 0; i < 20000; ++i) {
    std::string text;
    size_t n = rng() % 40;
    for (size_t k = 0; k < n; ++k) text += alphabet[rng() % alphabet.size()];
    auto r = ParseToml(text, "fuzz.toml");
    if (r.ok()) {
      ++parsed;
    } else {
      // Errors say where: "fuzz.toml:LINE: ...".
      EXPECT_EQ(r.error().message.rfind("fuzz.toml:", 0), 0u) << r.error().message;
      ++rejected;
    }
  }
  EXPECT_GT(parsed, 0);
  EXPECT_GT(rejected, 0);
}

}  // namespace
}  // namespace sepp
