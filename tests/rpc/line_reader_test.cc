#include <gtest/gtest.h>

#include "front/rpc/line_reader.h"

namespace sepp::front::rpc {
namespace {

struct Collected {
  std::vector<std::string> lines;
  std::vector<bool> too_long;
  LineReader Reader(size_t max) {
    return LineReader(max, [this](std::string_view l, bool t) {
      lines.emplace_back(l);
      too_long.push_back(t);
    });
  }
};

TEST(LineReader, SplitsOnLfOnlyAndDropsOneCr) {
  Collected c;
  auto r = c.Reader(1000);
  // U+2028 and U+2029 are text, not record ends (pi's framing rule).
  r.Feed("{\"a\":\"x\xE2\x80\xA8y\xE2\x80\xA9z\"}\r\n{\"b\"");
  r.Feed(":1}\n\r\n");
  r.Finish();
  ASSERT_EQ(c.lines.size(), 3u);
  EXPECT_EQ(c.lines[0], "{\"a\":\"x\xE2\x80\xA8y\xE2\x80\xA9z\"}");
  EXPECT_EQ(c.lines[1], "{\"b\":1}");
  EXPECT_EQ(c.lines[2], "");
}

TEST(LineReader, ALastLineWithoutLfCounts) {
  Collected c;
  auto r = c.Reader(1000);
  r.Feed("{\"type\":\"get_state\"}");
  r.Finish();
  ASSERT_EQ(c.lines.size(), 1u);
  EXPECT_EQ(c.lines[0], "{\"type\":\"get_state\"}");
}

TEST(LineReader, AnOverlongLineIsReportedOnceAndNotBuffered) {
  Collected c;
  auto r = c.Reader(64);
  r.Feed("{\"id\":\"7\",\"type\":\"prompt\",\"message\":\"");
  for (int i = 0; i < 1000; ++i) r.Feed(std::string(1000, 'x'));  // 1 MB, never held
  r.Feed("\"}\n{\"id\":\"8\"}\n");
  r.Finish();
  ASSERT_EQ(c.lines.size(), 2u);
  EXPECT_TRUE(c.too_long[0]);
  EXPECT_LE(c.lines[0].size(), 200u);
  EXPECT_EQ(c.lines[0].rfind("{\"id\":\"7\"", 0), 0u);
  EXPECT_FALSE(c.too_long[1]);
  EXPECT_EQ(c.lines[1], "{\"id\":\"8\"}");
}

TEST(LineReader, ByteAtATimeGivesTheSameRecords) {
  std::string input = "{\"id\":1}\r\n\n{\"id\":2}\nxyz";
  Collected whole, bytes;
  auto a = whole.Reader(100);
  a.Feed(input);
  a.Finish();
  auto b = bytes.Reader(100);
  for (char ch : input) b.Feed(std::string_view(&ch, 1));
  b.Finish();
  EXPECT_EQ(whole.lines, bytes.lines);
}

}  // namespace
}  // namespace sepp::front::rpc
