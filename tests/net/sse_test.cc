#include "net/sse.h"

#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace sepp::net {
namespace {

struct Collected {
  std::vector<SseEvent> events;
  bool mid_event = false;
};

// Feeds `stream` in the given pieces and finishes.
Collected Parse(const std::vector<std::string>& pieces) {
  Collected out;
  SseParser parser([&](const SseEvent& e) { out.events.push_back(e); });
  for (const auto& p : pieces) parser.Feed(p);
  out.mid_event = parser.Finish();
  return out;
}

Collected ParseWhole(const std::string& s) { return Parse({s}); }

bool Same(const std::vector<SseEvent>& a, const std::vector<SseEvent>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].event != b[i].event || a[i].data != b[i].data || a[i].id != b[i].id) return false;
  }
  return true;
}

// A stream shaped like the Anthropic Messages API's, with every line ending
// style, comments, ids and a retry.
const char* kRealStream =
    ": keep-alive comment\r\n"
    "event: message_start\n"
    "data: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\"}}\n"
    "\n"
    "event: content_block_delta\r\n"
    "data: {\"type\":\"content_block_delta\",\"delta\":{\"text\":\"Hel\"}}\r\n"
    "\r\n"
    "id: 7\r"
    "event: ping\r"
    "data: {\"type\": \"ping\"}\r"
    "\r"
    "retry: 1500\n"
    "data: line one\n"
    "data: line two\n"
    "data\n"
    "\n"
    "data: [DONE]\n\n";

TEST(SseParser, ParsesFieldsCommentsAndAllLineEndings) {
  auto r = ParseWhole(kRealStream);
  ASSERT_EQ(r.events.size(), 5u);
  EXPECT_EQ(r.events[0].event, "message_start");
  EXPECT_EQ(r.events[0].data, "{\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\"}}");
  EXPECT_EQ(r.events[0].id, "");
  EXPECT_EQ(r.events[1].event, "content_block_delta");
  EXPECT_EQ(r.events[2].event, "ping");
  EXPECT_EQ(r.events[2].id, "7");
  EXPECT_EQ(r.events[3].event, "message");
  EXPECT_EQ(r.events[3].data, "line one\nline two\n");
  EXPECT_EQ(r.events[3].id, "7") << "the last event id persists";
  EXPECT_EQ(r.events[4].data, "[DONE]");
  EXPECT_FALSE(r.mid_event);
}

TEST(SseParser, RetryIsRecordedOnlyWhenAllDigits) {
  SseParser p([](const SseEvent&) {});
  p.Feed("retry: 1500\n\n");
  EXPECT_EQ(p.retry_ms(), 1500);
  p.Feed("retry: 15x\n\nretry:\n\n");
  EXPECT_EQ(p.retry_ms(), 1500);
}

TEST(SseParser, EveryTwoWaySplitGivesTheSameEvents) {
  std::string s = kRealStream;
  auto whole = ParseWhole(s).events;
  for (size_t i = 0; i <= s.size(); ++i) {
    auto r = Parse({s.substr(0, i), s.substr(i)});
    ASSERT_TRUE(Same(whole, r.events)) << "split at " << i;
  }
}

TEST(SseParser, RandomSplitsGiveTheSameEvents) {
  std::string s;
  for (int i = 0; i < 20; ++i) s += kRealStream;
  auto whole = ParseWhole(s).events;
  ASSERT_EQ(whole.size(), 100u);
  std::mt19937 rng(42);
  for (int round = 0; round < 300; ++round) {
    std::vector<std::string> pieces;
    size_t pos = 0;
    while (pos < s.size()) {
      size_t n = std::uniform_int_distribution<size_t>(0, 40)(rng);
      pieces.push_back(s.substr(pos, n));
      pos += n;
    }
    ASSERT_TRUE(Same(whole, Parse(pieces).events)) << "round " << round;
  }
}

TEST(SseParser, ByteAtATime) {
  std::string s = kRealStream;
  std::vector<std::string> pieces;
  for (char c : s) pieces.emplace_back(1, c);
  EXPECT_TRUE(Same(ParseWhole(s).events, Parse(pieces).events));
}

TEST(SseParser, CrThenLfInNextChunkIsOneLineEnd) {
  auto r = Parse({"data: a\r", "\n", "\r", "\ndata: b\r", "\r"});
  ASSERT_EQ(r.events.size(), 2u);
  EXPECT_EQ(r.events[0].data, "a");
  EXPECT_EQ(r.events[1].data, "b");
}

TEST(SseParser, FieldsWithoutSpaceOrValue) {
  auto r = ParseWhole("data:x\ndata:  two spaces\nevent\ndata\n\n");
  ASSERT_EQ(r.events.size(), 1u);
  EXPECT_EQ(r.events[0].data, "x\n two spaces\n");
  EXPECT_EQ(r.events[0].event, "message") << "an empty event field means the default";
}

TEST(SseParser, EventWithoutDataIsNotDispatched) {
  auto r = ParseWhole("event: ping\n\nid: 3\n\ndata: z\n\n");
  ASSERT_EQ(r.events.size(), 1u);
  EXPECT_EQ(r.events[0].event, "message") << "event type resets after an empty line";
  EXPECT_EQ(r.events[0].id, "3");
}

TEST(SseParser, UnknownFieldsAndCommentsAreIgnored) {
  auto r = ParseWhole(":c\nfoo: bar\nDATA: no\ndata: yes\n: more\n\n");
  ASSERT_EQ(r.events.size(), 1u);
  EXPECT_EQ(r.events[0].data, "yes");
}

TEST(SseParser, LeadingBomIsStrippedOnce) {
  auto r = Parse({"\xEF\xBB", "\xBF" "data: a\n\n\xEF\xBB\xBF" "data: b\n\n"});
  ASSERT_EQ(r.events.size(), 1u) << "a second BOM makes an unknown field";
  EXPECT_EQ(r.events[0].data, "a");
}

TEST(SseParser, NoTrailingNewlineDropsTheLastEvent) {
  auto r = ParseWhole("data: one\n\ndata: two");
  ASSERT_EQ(r.events.size(), 1u);
  EXPECT_TRUE(r.mid_event);
  auto r2 = ParseWhole("data: one\n\ndata: two\n");
  ASSERT_EQ(r2.events.size(), 1u);
  EXPECT_TRUE(r2.mid_event);
}

TEST(SseParser, NulBytesSurviveInDataButNotInId) {
  std::string s("id: a\0b\ndata: x\0y\n\n", 20);
  auto r = ParseWhole(s);
  ASSERT_EQ(r.events.size(), 1u);
  EXPECT_EQ(r.events[0].data, std::string("x\0y", 3));
  EXPECT_EQ(r.events[0].id, "");
}

TEST(SseParser, HugeLineInTinyPieces) {
  std::string big(8 << 20, 'a');
  int n = 0;
  SseParser counting([&](const SseEvent& e) {
    ++n;
    EXPECT_EQ(e.data, big);
  });
  counting.Feed("data: ");
  for (size_t i = 0; i < big.size(); i += 1000) counting.Feed(std::string_view(big).substr(i, 1000));
  counting.Feed("\n\n");
  EXPECT_EQ(n, 1);
}

// One event may not take memory without limit: a line or an event's data
// past the cap stops the parser (too_big()) and drops what it held; events
// before it were delivered, nothing after it is.
TEST(SseParser, AnEventLargerThanTheCapStopsTheParser) {
  std::vector<std::string> got;
  SseParser p([&](const SseEvent& e) { got.push_back(e.data); }, 1024);
  p.Feed("data: small\n\n");
  std::string chunk(100, 'a');
  for (int i = 0; i < 20 && !p.too_big(); ++i) p.Feed(i == 0 ? "data: " + chunk : chunk);  // one long line
  EXPECT_TRUE(p.too_big());
  p.Feed("\n\ndata: after\n\n");
  EXPECT_EQ(got, std::vector<std::string>{"small"});

  // Many short data lines of one event count together.
  SseParser lines([&](const SseEvent&) { ADD_FAILURE() << "an oversized event was delivered"; }, 1024);
  for (int i = 0; i < 100 && !lines.too_big(); ++i) lines.Feed("data: " + chunk + "\n");
  EXPECT_TRUE(lines.too_big());
  lines.Feed("\n");

  // Right at the cap is still fine.
  std::string exact;
  SseParser edge([&](const SseEvent& e) { exact = e.data; }, 1024);
  edge.Feed("data:" + std::string(1019, 'b') + "\n\n");
  EXPECT_FALSE(edge.too_big());
  EXPECT_EQ(exact.size(), 1019u);
}

TEST(SseParser, RandomGarbageNeverCrashes) {
  std::mt19937 rng(7);
  const char alphabet[] = "data:event:id:retry: \r\n\0\xff\xef\xbb\xbf:x";
  for (int round = 0; round < 200; ++round) {
    std::string s;
    int len = std::uniform_int_distribution<int>(0, 400)(rng);
    for (int i = 0; i < len; ++i) s += alphabet[rng() % (sizeof(alphabet) - 1)];
    auto whole = ParseWhole(s).events;
    std::vector<std::string> pieces;
    for (size_t i = 0; i < s.size(); i += 3) pieces.push_back(s.substr(i, 3));
    ASSERT_TRUE(Same(whole, Parse(pieces).events));
  }
}

}  // namespace
}  // namespace sepp::net

namespace sepp::net {
namespace {

TEST(FormatSseEvent, RoundTripsThroughTheParser) {
  std::mt19937 rng(11);
  const char alphabet[] = "ab \r\n:{}\"\0x";
  for (int round = 0; round < 500; ++round) {
    SseEvent e;
    int n = rng() % 30;
    for (int i = 0; i < n; ++i) e.data += alphabet[rng() % (sizeof alphabet - 1)];
    e.event = round % 3 == 0 ? "" : "delta";
    e.id = round % 2 ? "" : "id-" + std::to_string(round);
    std::string wire = FormatSseEvent(e);
    std::vector<SseEvent> got;
    SseParser p([&](const SseEvent& x) { got.push_back(x); });
    p.Feed(wire);
    ASSERT_EQ(got.size(), 1u) << wire;
    std::string expected;  // CR and CRLF come back as LF
    for (size_t i = 0; i < e.data.size(); ++i) {
      if (e.data[i] == '\r') {
        expected += '\n';
        if (i + 1 < e.data.size() && e.data[i + 1] == '\n') ++i;
      } else {
        expected += e.data[i];
      }
    }
    EXPECT_EQ(got[0].data, expected);
    EXPECT_EQ(got[0].event, e.event.empty() ? "message" : e.event);
    EXPECT_EQ(got[0].id, e.id);
  }
}

TEST(FormatSseEvent, FieldsCannotInjectLines) {
  SseEvent e{"evil\ndata: injected", "x", "1\r\nevent: other"};
  std::vector<SseEvent> got;
  SseParser p([&](const SseEvent& x) { got.push_back(x); });
  p.Feed(FormatSseEvent(e));
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].data, "x");
  EXPECT_EQ(got[0].event, "evildata: injected");
}

}  // namespace
}  // namespace sepp::net
