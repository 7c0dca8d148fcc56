#include "net/http_wire.h"

#include <random>
#include <vector>

#include <gtest/gtest.h>

namespace sepp::net {
namespace {

TEST(HttpWire, FindsHeadEndWithCrlfOrLf) {
  EXPECT_EQ(FindHeadEnd("GET / HTTP/1.1\r\nA: b\r\n\r\nbody"), 24u);
  EXPECT_EQ(FindHeadEnd("GET / HTTP/1.1\nA: b\n\nbody"), 21u);
  EXPECT_EQ(FindHeadEnd("GET / HTTP/1.1\r\nA: b\r\n"), std::string::npos);
  std::string s = "HTTP/1.1 200 OK\r\nX: y\r\n\r\n";
  // Rescanning from any earlier point finds the same end.
  for (size_t from = 0; from <= s.size(); ++from) EXPECT_EQ(FindHeadEnd(s, from), s.size()) << from;
}

TEST(HttpWire, ParsesHeadAndTrimsValues) {
  auto h = ParseHead("HTTP/1.1 200 OK\r\nContent-Type:  text/plain \r\nX-Empty:\r\n\r\n");
  ASSERT_TRUE(h.ok()) << h.error().message;
  EXPECT_EQ(h->start_line, "HTTP/1.1 200 OK");
  ASSERT_EQ(h->headers.size(), 2u);
  EXPECT_EQ(h->headers[0].second, "text/plain");
  EXPECT_EQ(FindHeader(h->headers, "content-type"), "text/plain");
  EXPECT_EQ(FindHeader(h->headers, "missing"), "");
}

TEST(HttpWire, RejectsHostileHeads) {
  EXPECT_FALSE(ParseHead("GET / HTTP/1.1\r\n folded: x\r\n\r\n").ok());
  EXPECT_FALSE(ParseHead("GET / HTTP/1.1\r\nNo colon here\r\n\r\n").ok());
  EXPECT_FALSE(ParseHead("GET / HTTP/1.1\r\nBad Name: x\r\n\r\n").ok());
  EXPECT_FALSE(ParseHead("GET / HTTP/1.1\r\n: novalue\r\n\r\n").ok());
  EXPECT_FALSE(ParseHead(std::string("GET / HTTP/1.1\r\nX: a\0b\r\n\r\n", 26)).ok());
  EXPECT_FALSE(ParseHead("\r\n\r\n").ok());
  EXPECT_FALSE(ParseHead("GET / HTTP/1.1\r\nX: " + std::string(9000, 'a') + "\r\n\r\n").ok());
}

TEST(HttpWire, RequestHeadFramingIsUnambiguous) {
  auto ok = ParseRequestHead("POST /x HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\n\r\n");
  ASSERT_TRUE(ok.ok()) << ok.error().message;
  EXPECT_EQ(ok->line.method, "POST");
  EXPECT_EQ(ok->line.target, "/x");
  EXPECT_EQ(FindHeader(ok->headers, "host"), "h");
  for (const char* bad : {
           "POST / HTTP/1.1\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\n",
           "POST / HTTP/1.1\r\nContent-Length: 3\r\nContent-Length: 3\r\n\r\n",
           "POST / HTTP/1.1\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n",
           "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\ntransfer-encoding: identity\r\n\r\n",
           "POST / HTTP/1.1\r\nContent-Length: -1\r\n\r\n",
           "POST / HTTP/1.1\r\nContent-Length: 0x10\r\n\r\n",
           "POST / HTTP/1.1\r\nContent-Length:\r\n\r\n",
           "GET  / HTTP/1.1\r\n\r\n",
           "GET / HTTP/2.0\r\n\r\n",
           "G(T / HTTP/1.1\r\n\r\n",
       }) {
    EXPECT_FALSE(ParseRequestHead(bad).ok()) << bad;
  }
}

// Random heads built from HTTP's own punctuation never crash the parser, and
// an accepted one has exactly the framing headers it promises.
TEST(HttpWire, RandomRequestHeadsNeverCrash) {
  std::mt19937 rng(9);
  const char* pieces[] = {"GET", "CONNECT", " ", "/", "h:1", "HTTP/1.1", "HTTP/1.0", "\r\n", "\n", ":",
                          "Content-Length", "Transfer-Encoding", "chunked", "12", "\t", "\x01", "Host", "x"};
  for (int round = 0; round < 5000; ++round) {
    std::string s = round % 2 ? "" : "POST / HTTP/1.1\r\n";
    int n = rng() % 24;
    for (int i = 0; i < n; ++i) s += pieces[rng() % (sizeof pieces / sizeof *pieces)];
    auto r = ParseRequestHead(s);
    if (!r.ok()) continue;
    int lengths = 0, codings = 0;
    for (const auto& [k, v] : r->headers) {
      lengths += k == "Content-Length";
      codings += k == "Transfer-Encoding";
    }
    EXPECT_LE(lengths + codings, 1) << s;
  }
}

TEST(HttpWire, StatusAndRequestLines) {
  auto s = ParseStatusLine("HTTP/1.1 429 Too Many Requests");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->status, 429);
  EXPECT_EQ(s->reason, "Too Many Requests");
  EXPECT_TRUE(ParseStatusLine("HTTP/1.0 200").ok());
  EXPECT_FALSE(ParseStatusLine("HTTP/2 200 OK").ok());
  EXPECT_FALSE(ParseStatusLine("HTTP/1.1 2x0 OK").ok());
  EXPECT_FALSE(ParseStatusLine("ICY 200 OK").ok());

  auto r = ParseRequestLine("POST /v1/messages?beta=1 HTTP/1.1");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->method, "POST");
  EXPECT_EQ(r->target, "/v1/messages?beta=1");
  for (const char* bad : {"GET", "GET /", "GET  / HTTP/1.1", "G(T / HTTP/1.1", "GET / HTTP/3.0", "GET / HTTP/1.1 x",
                          "GET /\x01 HTTP/1.1", " GET / HTTP/1.1"}) {
    EXPECT_FALSE(ParseRequestLine(bad).ok()) << bad;
  }
}

TEST(ChunkedDecoder, DecodesAnySplit) {
  std::string wire = "5\r\nhello\r\n1;ext=1\r\n \r\nA\r\n0123456789\r\n0\r\nTrailer: x\r\n\r\nNEXT";
  for (size_t cut = 0; cut <= wire.size(); ++cut) {
    ChunkedDecoder d;
    std::string out;
    auto a = d.Feed(std::string_view(wire).substr(0, cut), &out);
    ASSERT_TRUE(a.ok());
    size_t used = *a;
    if (!d.done()) {
      auto b = d.Feed(std::string_view(wire).substr(cut), &out);
      ASSERT_TRUE(b.ok());
      used = cut + *b;
    }
    EXPECT_TRUE(d.done());
    EXPECT_EQ(out, "hello 0123456789");
    EXPECT_EQ(wire.substr(used), "NEXT") << cut;
  }
}

TEST(ChunkedDecoder, RejectsHostileInput) {
  for (std::string bad : std::vector<std::string>{"zz\r\n", "-1\r\n", "ffffffffffffffffff\r\n", "5\r\nhelloXX", "\r\n",
                          std::string(9000, '1')}) {
    ChunkedDecoder d;
    std::string out;
    EXPECT_FALSE(d.Feed(bad, &out).ok()) << bad.substr(0, 20);
  }
}

TEST(ChunkedDecoder, RandomBytesNeverCrash) {
  std::mt19937 rng(3);
  const char alphabet[] = "0123456789abcdefABCDEF;\r\n xz";
  for (int round = 0; round < 2000; ++round) {
    std::string s;
    int n = rng() % 64;
    for (int i = 0; i < n; ++i) s += alphabet[rng() % (sizeof alphabet - 1)];
    ChunkedDecoder d;
    std::string out;
    auto r = d.Feed(s, &out);
    if (r.ok()) EXPECT_LE(*r, s.size());
  }
}

}  // namespace
}  // namespace sepp::net
