#include "tools/truncate.h"

#include <gtest/gtest.h>

#include "base/strings.h"
#include "tool_test_util.h"

namespace sepp::tools {
namespace {

std::string Lines(int n, const std::string& prefix = "line") {
  std::string s;
  for (int i = 1; i <= n; ++i) s += prefix + std::to_string(i) + "\n";
  return s;
}

TEST(CountLines, CountsUnterminatedLastLine) {
  EXPECT_EQ(CountLines(""), 0u);
  EXPECT_EQ(CountLines("a"), 1u);
  EXPECT_EQ(CountLines("a\n"), 1u);
  EXPECT_EQ(CountLines("a\nb"), 2u);
  EXPECT_EQ(CountLines("\n\n"), 2u);
}

TEST(TruncateHead, SmallTextIsKept) {
  Truncation t = TruncateHead("a\nb\n");
  EXPECT_FALSE(t.truncated);
  EXPECT_EQ(t.text, "a\nb\n");
  EXPECT_EQ(t.total_lines, 2u);
}

TEST(TruncateHead, CutsByLines) {
  Truncation t = TruncateHead(Lines(10), {.max_lines = 3, .max_bytes = 1000});
  EXPECT_TRUE(t.truncated);
  EXPECT_EQ(t.text, "line1\nline2\nline3\n");
  EXPECT_EQ(t.head_lines, 3u);
  EXPECT_EQ(t.omitted_lines, 7u);
  EXPECT_EQ(t.total_lines, 10u);
}

TEST(TruncateHead, CutsByBytesAtLineBoundary) {
  Truncation t = TruncateHead(Lines(10), {.max_lines = 100, .max_bytes = 14});
  EXPECT_EQ(t.text, "line1\nline2\n");
  EXPECT_EQ(t.omitted_bytes, Lines(10).size() - 12);
}

TEST(TruncateHead, OneHugeLineIsCutUtf8Safe) {
  std::string s;
  for (int i = 0; i < 100; ++i) s += "é";  // 2 bytes each
  Truncation t = TruncateHead(s, {.max_lines = 10, .max_bytes = 11});
  EXPECT_TRUE(t.truncated);
  EXPECT_EQ(t.text.size(), 10u);
  EXPECT_TRUE(IsValidUtf8(t.text));
}

TEST(TruncateHeadTail, KeepsBothEndsWithMarker) {
  Truncation t = TruncateHeadTail(Lines(100), {.max_lines = 10, .max_bytes = 100000});
  EXPECT_TRUE(t.truncated);
  EXPECT_EQ(t.head_lines, 5u);
  EXPECT_EQ(t.tail_lines, 5u);
  EXPECT_EQ(t.omitted_lines, 90u);
  EXPECT_EQ(t.text.substr(0, 12), "line1\nline2\n");
  EXPECT_NE(t.text.find("[... 90 lines"), std::string::npos);
  EXPECT_TRUE(EndsWith(t.text, "line99\nline100\n"));
  EXPECT_EQ(t.text.find("line6\n"), std::string::npos);
}

TEST(TruncateHeadTail, UnterminatedLastLineKept) {
  std::string s = Lines(50) + "last";
  Truncation t = TruncateHeadTail(s, {.max_lines = 4, .max_bytes = 100000});
  EXPECT_TRUE(EndsWith(t.text, "omitted ...]\nline50\nlast")) << t.text;
}

TEST(TruncateHeadTail, HugeSingleLineKeepsUtf8SafeEnds) {
  std::string s(1000, 'x');
  s += "€";
  s = "€" + s;
  Truncation t = TruncateHeadTail(s, {.max_lines = 10, .max_bytes = 101});
  EXPECT_TRUE(t.truncated);
  EXPECT_TRUE(IsValidUtf8(t.text));
  EXPECT_TRUE(StartsWith(t.text, "€"));
  EXPECT_TRUE(EndsWith(t.text, "€"));
  EXPECT_LT(t.text.size(), 200u);
}

TEST(CutLine, AddsCountOfCutBytes) {
  EXPECT_EQ(CutLine("short", 10), "short");
  EXPECT_EQ(CutLine("abcdefghij", 4), "abcd… [6 more bytes]");
  std::string cut = CutLine("ééé", 3);
  EXPECT_TRUE(StartsWith(cut, "é…"));
}

TEST(LimitResult, CutsAndMarks) {
  ToolResult r;
  r.text = Lines(3000);
  LimitResult(r);
  EXPECT_TRUE(r.truncated);
  EXPECT_NE(r.text.find("[Output truncated: showing 2000 of 3000 lines"), std::string::npos);
  ToolResult small;
  small.text = "ok";
  LimitResult(small);
  EXPECT_FALSE(small.truncated);
  EXPECT_EQ(small.text, "ok");
}

TEST(OutputCollector, SmallOutputStaysInMemory) {
  testing::TempDir dir;
  OutputCollector c({}, dir.path() / "out.log");
  c.Append("hello ");
  c.Append("world\n");
  Truncation t = c.Finish();
  EXPECT_FALSE(t.truncated);
  EXPECT_EQ(t.text, "hello world\n");
  EXPECT_FALSE(c.spilled());
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "out.log"));
}

TEST(OutputCollector, LargeOutputSpillsWholeStreamAndKeepsEnds) {
  testing::TempDir dir;
  OutputCollector c({.max_lines = 20, .max_bytes = 1000}, dir.path() / "sub" / "out.log");
  std::string all;
  for (int i = 1; i <= 5000; ++i) {
    std::string chunk = "row " + std::to_string(i) + "\n";
    all += chunk;
    c.Append(chunk);
  }
  Truncation t = c.Finish();
  ASSERT_TRUE(c.spilled()) << c.spill_error();
  EXPECT_EQ(dir.Read("sub/out.log"), all);
  EXPECT_TRUE(t.truncated);
  EXPECT_EQ(t.total_lines, 5000u);
  EXPECT_EQ(t.total_bytes, all.size());
  EXPECT_TRUE(StartsWith(t.text, "row 1\nrow 2\n"));
  EXPECT_TRUE(EndsWith(t.text, "row 4999\nrow 5000\n"));
  EXPECT_EQ(t.head_lines + t.tail_lines, 20u);
  EXPECT_EQ(t.omitted_lines, 4980u);
}

TEST(OutputCollector, ReportsSpillFailure) {
  OutputCollector c({.max_lines = 2, .max_bytes = 100}, "/proc/definitely/not/here.log");
  for (int i = 0; i < 10; ++i) c.Append("x\n");
  Truncation t = c.Finish();
  EXPECT_TRUE(t.truncated);
  EXPECT_FALSE(c.spilled());
  EXPECT_FALSE(c.spill_error().empty());
}

}  // namespace
}  // namespace sepp::tools
