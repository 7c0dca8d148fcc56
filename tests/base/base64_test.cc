#include "base/base64.h"

#include <gtest/gtest.h>

namespace sepp {
namespace {

TEST(Base64, RoundTripsEveryLengthAndByte) {
  std::string all;
  for (int i = 0; i < 256; ++i) all += static_cast<char>(i);
  for (size_t n = 0; n <= all.size(); ++n) {
    std::string in = all.substr(0, n);
    auto back = Base64Decode(Base64Encode(in));
    ASSERT_TRUE(back.has_value()) << n;
    EXPECT_EQ(*back, in) << n;
  }
}

TEST(Base64, KnownVectors) {  // RFC 4648 section 10
  EXPECT_EQ(Base64Encode(""), "");
  EXPECT_EQ(Base64Encode("f"), "Zg==");
  EXPECT_EQ(Base64Encode("fo"), "Zm8=");
  EXPECT_EQ(Base64Encode("foo"), "Zm9v");
  EXPECT_EQ(Base64Encode("foobar"), "Zm9vYmFy");
  EXPECT_EQ(Base64Decode("Zm9vYg==").value_or("?"), "foob");
}

TEST(Base64, RefusesWhatIsNotCanonical) {
  for (const char* bad : {"Zg", "Zg=", "Z===", "Zh==", "Zm9=", "Zm 9", "Zm9v\n", "hello world",
                          "Zg==Zg==", "====", "Zm-v", "Zm_v"})
    EXPECT_FALSE(Base64Decode(bad).has_value()) << bad;
}

}  // namespace
}  // namespace sepp
