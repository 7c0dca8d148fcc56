// The JSON-RPC 2.0 framing of `sepp --acp`: classification, one error per bad
// line, hostile and mutated input, bounded lines, and a writer that a peer
// who stops reading cannot block.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <random>
#include <thread>
#include <vector>
#include <unistd.h>

#include "base/fd.h"
#include "front/acp/jsonrpc.h"
#include "front/acp/line_reader.h"
#include "front/acp/outbox.h"

namespace sepp::front::jsonrpc {
namespace {

TEST(JsonRpcParse, ClassifiesRequestsNotificationsAndResponses) {
  auto r = ParseMessage(R"({"jsonrpc":"2.0","id":7,"method":"session/new","params":{"cwd":"/"}})");
  ASSERT_TRUE(r.message);
  EXPECT_EQ(r.message->kind, Message::Kind::kRequest);
  EXPECT_EQ(r.message->id, 7);
  EXPECT_EQ(r.message->method, "session/new");
  EXPECT_EQ(r.message->params["cwd"], "/");

  auto n = ParseMessage(R"({"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s"}})");
  ASSERT_TRUE(n.message);
  EXPECT_EQ(n.message->kind, Message::Kind::kNotification);

  auto ok = ParseMessage(R"({"jsonrpc":"2.0","id":"a","result":{"outcome":{"outcome":"cancelled"}}})");
  ASSERT_TRUE(ok.message);
  EXPECT_EQ(ok.message->kind, Message::Kind::kResponse);
  EXPECT_EQ(ok.message->id, "a");
  EXPECT_EQ(ok.message->result["outcome"]["outcome"], "cancelled");

  auto err = ParseMessage(R"({"jsonrpc":"2.0","id":3,"error":{"code":-32603,"message":"x"}})");
  ASSERT_TRUE(err.message);
  EXPECT_EQ(err.message->error["code"], -32603);
}

struct BadLine {
  const char* line;
  int code;
  Json id;
  const char* says;
};

TEST(JsonRpcParse, EveryBadLineGetsOneErrorThatSaysWhatIsWrong) {
  const BadLine cases[] = {
      {"not json", kParseError, nullptr, "not JSON"},
      {"{\"jsonrpc\":\"2.0\",\"id\":1,", kParseError, nullptr, "not JSON"},
      {"[]", kInvalidRequest, nullptr, "batches"},
      {"42", kInvalidRequest, nullptr, "must be an object"},
      {R"({"id":1,"method":"initialize"})", kInvalidRequest, 1, "\"2.0\""},
      {R"({"jsonrpc":"1.0","id":"x","method":"a"})", kInvalidRequest, "x", "\"2.0\""},
      {R"({"jsonrpc":"2.0","id":{"a":1},"method":"a"})", kInvalidRequest, nullptr, "\"id\""},
      {R"({"jsonrpc":"2.0","id":1.5,"method":"a"})", kInvalidRequest, nullptr, "\"id\""},
      {R"({"jsonrpc":"2.0","id":2,"method":5})", kInvalidRequest, 2, "\"method\""},
      {R"({"jsonrpc":"2.0","id":2,"method":""})", kInvalidRequest, 2, "\"method\""},
      {R"({"jsonrpc":"2.0","id":3,"method":"a","params":"s"})", kInvalidParams, 3, "\"params\""},
      {R"({"jsonrpc":"2.0","id":4})", kInvalidRequest, 4, "neither"},
      {R"({"jsonrpc":"2.0","id":5,"result":1,"error":{}})", kInvalidRequest, 5, "not both"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.line);
    auto p = ParseMessage(c.line);
    EXPECT_FALSE(p.message);
    ASSERT_TRUE(p.error_response.is_object());
    EXPECT_EQ(p.error_response["jsonrpc"], "2.0");
    EXPECT_EQ(p.error_response["id"], c.id);
    EXPECT_EQ(p.error_response["error"]["code"], c.code);
    EXPECT_NE(p.error_response["error"]["message"].get<std::string>().find(c.says),
              std::string::npos)
        << p.error_response.dump();
  }
}

TEST(JsonRpcParse, AResponseWithoutIdIsIgnoredNotAnswered) {
  auto p = ParseMessage(R"({"jsonrpc":"2.0","result":{}})");
  EXPECT_FALSE(p.message);
  EXPECT_TRUE(p.error_response.is_null());
}

// Mutations of real ACP traffic (bytes flipped, cut, duplicated, inserted):
// every line either parses as a message or yields exactly one error reply,
// never both, never an exception, never a crash.
TEST(JsonRpcParse, MutatedLinesNeverThrowAndGetAtMostOneAnswer) {
  const std::string seeds[] = {
      R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{"fs":{"readTextFile":true}}}})",
      R"({"jsonrpc":"2.0","id":"r-1","method":"session/prompt","params":{"sessionId":"abc","prompt":[{"type":"text","text":"h\u00e9llo \ud83d\ude00"}]}})",
      R"({"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"abc"}})",
      R"({"jsonrpc":"2.0","id":12,"result":{"outcome":{"outcome":"selected","optionId":"allow-once"}}})",
  };
  const char alphabet[] = "{}[]\":,\\0123456789e-+.truefalsnl \x00\xff\xc3\xa9\n";
  std::mt19937 rng(20261201);
  int parsed = 0, errors = 0;
  for (int i = 0; i < 20000; ++i) {
    std::string s = seeds[rng() % std::size(seeds)];
    int edits = 1 + rng() % 4;
    for (int k = 0; k < edits && !s.empty(); ++k) {
      size_t at = rng() % s.size();
      switch (rng() % 4) {
        case 0: s[at] = alphabet[rng() % (sizeof alphabet - 1)]; break;
        case 1: s.erase(at, 1 + rng() % 8); break;
        case 2: s.insert(at, 1, alphabet[rng() % (sizeof alphabet - 1)]); break;
        case 3: s = s.substr(0, at); break;
      }
    }
    Parsed p;
    ASSERT_NO_THROW(p = ParseMessage(s)) << s;
    EXPECT_FALSE(p.message && !p.error_response.is_null()) << s;
    if (p.message) ++parsed;
    if (!p.error_response.is_null()) {
      ++errors;
      ASSERT_TRUE(p.error_response["error"]["code"].is_number_integer()) << s;
      // The reply itself must be serialisable whatever bytes the line held.
      ASSERT_NO_THROW((void)DumpJson(p.error_response));
    }
  }
  // Both outcomes occur, so the mutator exercised both paths.
  EXPECT_GT(parsed, 100);
  EXPECT_GT(errors, 1000);
}

std::vector<Line> ReadAllLines(const std::string& input, size_t max_line) {
  auto pipe = MakePipe();
  EXPECT_TRUE(pipe.ok());
  std::thread writer([&, fd = pipe->second.release()] {
    (void)WriteAll(fd, input);
    close(fd);
  });
  LineReader reader(pipe->first.get(), max_line);
  std::vector<Line> lines;
  while (auto l = reader.Next()) lines.push_back(*l);
  writer.join();
  return lines;
}

TEST(LineReader, SplitsLinesStripsCrAndKeepsAnUnterminatedLastLine) {
  auto lines = ReadAllLines("one\r\ntwo\n\nthree", 100);
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(lines[0].text, "one");
  EXPECT_EQ(lines[1].text, "two");
  EXPECT_EQ(lines[2].text, "");
  EXPECT_EQ(lines[3].text, "three");
}

TEST(LineReader, AnOverlongLineIsSkippedOnceAndTheNextLineIsIntact) {
  std::string huge(1 << 20, 'x');  // far past the limit, across many reads
  auto lines = ReadAllLines("a\n" + huge + "\nb\n" + huge, 1000);
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(lines[0].text, "a");
  EXPECT_TRUE(lines[1].too_long);
  EXPECT_TRUE(lines[1].text.empty());
  EXPECT_EQ(lines[2].text, "b");
  EXPECT_FALSE(lines[2].too_long);
  EXPECT_TRUE(lines[3].too_long);  // cut off by EOF, still reported
}

TEST(Outbox, DeliversLinesInOrder) {
  auto pipe = MakePipe();
  ASSERT_TRUE(pipe.ok());
  {
    Outbox out(pipe->second.get(), 1 << 20);
    for (int i = 0; i < 100; ++i) EXPECT_TRUE(out.Send(Json{{"n", i}}, true));
    out.Close(10000);
  }
  pipe->second.Reset();
  auto all = ReadAll(pipe->first.get());
  ASSERT_TRUE(all.ok());
  std::vector<std::string> got;
  size_t start = 0;
  for (size_t nl; (nl = all->find('\n', start)) != std::string::npos; start = nl + 1)
    got.push_back(all->substr(start, nl - start));
  ASSERT_EQ(got.size(), 100u);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(got[i], Json({{"n", i}}).dump());
}

// Senders write a line themselves when nothing is queued ahead of it, and
// a line the pipe takes only in part is finished by the writer thread:
// from several threads at once, into a small pipe read slowly, every line
// arrives whole and each sender's lines in its order.
TEST(Outbox, LinesFromManySendersStayWholeAndInOrder) {
  auto pipe = MakePipe();
  ASSERT_TRUE(pipe.ok());
  fcntl(pipe->second.get(), F_SETPIPE_SZ, 4096);
  constexpr int kSenders = 4, kLines = 300;
  std::string got;
  std::thread reader([&] {
    char b[1000];  // small reads: the pipe stays full, writes stay partial
    for (;;) {
      ssize_t n = read(pipe->first.get(), b, sizeof b);
      if (n <= 0) return;
      got.append(b, static_cast<size_t>(n));
    }
  });
  {
    Outbox out(pipe->second.get(), 64 << 20);
    std::vector<std::thread> senders;
    for (int t = 0; t < kSenders; ++t)
      senders.emplace_back([&out, t] {
        for (int i = 0; i < kLines; ++i)
          EXPECT_TRUE(out.Send(Json{{"t", t}, {"i", i}, {"pad", std::string(1500 + 97 * (i % 7), 'p')}}));
      });
    for (auto& th : senders) th.join();
    out.Close(30000);
    EXPECT_FALSE(out.broken());
  }
  pipe->second.Reset();
  reader.join();
  std::vector<int> next(kSenders, 0);
  size_t start = 0, lines = 0;
  for (size_t nl; (nl = got.find('\n', start)) != std::string::npos; start = nl + 1, ++lines) {
    auto j = ParseJson(got.substr(start, nl - start));
    ASSERT_TRUE(j.ok()) << "a line was cut or mixed with another: " << got.substr(start, 80);
    int t = (*j)["t"], i = (*j)["i"];
    EXPECT_EQ(i, next[t]) << "sender " << t << " out of order";
    next[t] = i + 1;
  }
  EXPECT_EQ(lines, static_cast<size_t>(kSenders * kLines));
  EXPECT_EQ(start, got.size());
}

// A peer that never reads: Send never blocks, streamed updates past the
// bound are dropped, answers are kept, and Close gives up at its deadline.
TEST(Outbox, APeerThatStopsReadingCannotBlockSendersOrClose) {
  auto pipe = MakePipe();
  ASSERT_TRUE(pipe.ok());
  Outbox out(pipe->second.get(), 256 * 1024);
  std::string chunk(4096, 'u');
  int accepted = 0;
  for (int i = 0; i < 2000; ++i) accepted += out.Send(Json{{"update", chunk}}, true) ? 1 : 0;
  EXPECT_LT(accepted, 2000);
  EXPECT_GT(out.dropped(), 0u);
  EXPECT_TRUE(out.Send(Json{{"id", 1}, {"result", {}}}, false));  // an answer is never dropped
  out.Close(50);  // returns although the pipe is full and nobody reads
  EXPECT_FALSE(out.Send(Json{{"late", true}}, false));
}

TEST(Outbox, APeerThatClosedItsEndMarksTheStreamBroken) {
  auto pipe = MakePipe();
  ASSERT_TRUE(pipe.ok());
  pipe->first.Reset();
  signal(SIGPIPE, SIG_IGN);
  Outbox out(pipe->second.get(), 1 << 20);
  out.Send(Json{{"x", 1}});
  out.Close(10000);
  EXPECT_TRUE(out.broken());
}

}  // namespace
}  // namespace sepp::front::jsonrpc
