// The tool worker's framing and message checks, with hostile input: what a
// compromised or broken worker could send must end the connection with a
// clear error, never crash or confuse sepp.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <fstream>

#include "sandbox/defaults.h"
#include "tools/worker_protocol.h"
#include "worker_fixture.h"

namespace sepp::tools {
namespace {

using testing::WorkerTest;

struct Pair {
  Pair() { EXPECT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fd), 0); }
  ~Pair() {
    close(fd[0]);
    if (fd[1] >= 0) close(fd[1]);
  }
  void Raw(const std::string& bytes) {
    ASSERT_EQ(write(fd[1], bytes.data(), bytes.size()), static_cast<ssize_t>(bytes.size()));
  }
  void CloseWriter() {
    close(fd[1]);
    fd[1] = -1;
  }
  int fd[2] = {-1, -1};
};

std::string Header(uint32_t n) {
  return {static_cast<char>(n >> 24), static_cast<char>(n >> 16), static_cast<char>(n >> 8),
          static_cast<char>(n)};
}

TEST(WorkerProtocol, FramesRoundTrip) {
  Pair p;
  Json m = {{"type", "result"}, {"id", 7}, {"text", std::string("bad \xff utf8 \0 nul", 15)}};
  ASSERT_TRUE(WriteFrame(p.fd[1], m).ok());
  auto got = ReadFrame(p.fd[0]);
  ASSERT_TRUE(got.ok()) << got.error().message;
  EXPECT_EQ((*got)["id"], 7);
  p.CloseWriter();
  EXPECT_EQ(ReadFrame(p.fd[0]).error().kind, "eof");
}

TEST(WorkerProtocol, HostileFramesAreRefused) {
  struct Case {
    std::string bytes, why;
  };
  for (const Case& c : std::vector<Case>{
           {Header(0xffffffffu), "over the limit"},
           {Header(kMaxFrameBytes + 1), "over the limit"},
           {Header(10) + "short", "inside a frame"},
           {std::string("\0\0", 2), "frame header"},
           {Header(5) + "hello", "not JSON"},
           {Header(7) + "[1,2,3]", "not a JSON object"},
           {Header(3) + "\"x\"", "not a JSON object"},
       }) {
    Pair p;
    p.Raw(c.bytes);
    p.CloseWriter();
    auto got = ReadFrame(p.fd[0]);
    ASSERT_FALSE(got.ok()) << c.why;
    EXPECT_NE(got.error().message.find(c.why), std::string::npos) << got.error().message;
    EXPECT_NE(got.error().kind, "eof") << c.why;
  }
}

TEST(WorkerProtocol, RepliesAreCheckedFieldByField) {
  EXPECT_TRUE(ParseWorkerReply({{"type", "result"}, {"id", 1}, {"text", "ok"}}).ok());
  EXPECT_TRUE(ParseWorkerReply({{"type", "output"}, {"id", 1}, {"text", "x"}}).ok());
  for (const Json& bad : {Json{{"id", 1}},
                          Json{{"type", 5}, {"id", 1}},
                          Json{{"type", "shell"}, {"id", 1}},
                          Json{{"type", "result"}},
                          Json{{"type", "result"}, {"id", "1"}},
                          Json{{"type", "result"}, {"id", 1.5}},
                          Json{{"type", "result"}, {"id", 1}, {"text", 5}},
                          Json{{"type", "result"}, {"id", 1}, {"is_error", "yes"}},
                          Json{{"type", "result"}, {"id", 1}, {"truncated", 1}},
                          Json{{"type", "result"}, {"id", 1}, {"details", "x"}},
                          Json{{"type", "result"}, {"id", 1}, {"denials", "x"}},
                          Json{{"type", "result"}, {"id", 1}, {"denials", {"words only"}}},
                          Json{{"type", "result"}, {"id", 1}, {"denials", {{{"kind", "read"}}}}},
                          Json{{"type", "result"}, {"id", 1},
                               {"denials", {{{"kind", 1}, {"text", "t"}}}}},
                          Json{{"type", "result"}, {"id", 1},
                               {"denials", {{{"kind", "read"}, {"text", "t"}, {"target", 2}}}}}}) {
    auto r = ParseWorkerReply(bad);
    EXPECT_FALSE(r.ok()) << bad.dump();
    if (!r.ok()) EXPECT_NE(r.error().message.find("worker frame"), std::string::npos);
  }
}

// Denials cross the protocol typed, as the tool made them; an unknown kind
// (a newer worker) reads as "other" with its words kept.
TEST(WorkerProtocol, DenialsCrossTyped) {
  auto r = ParseWorkerReply({{"type", "result"},
                             {"id", 3},
                             {"text", "refused"},
                             {"denials", {{{"kind", "secret"}, {"target", "/h/.ssh/k"}, {"text", "no"}},
                                          {{"kind", "from-the-future"}, {"text", "odd"}}}}});
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->denials.size(), 2u);
  EXPECT_EQ(r->denials[0].kind, sandbox::DenialKind::kSecret);
  EXPECT_EQ(r->denials[0].target, "/h/.ssh/k");
  EXPECT_EQ(r->denials[0].text, "no");
  EXPECT_EQ(r->denials[1].kind, sandbox::DenialKind::kOther);
  EXPECT_EQ(r->denials[1].text, "odd");
}

TEST(WorkerProtocol, PolicyRoundTrips) {
  sandbox::Policy p = sandbox::DefaultToolPolicy("/tmp/ws");
  p.env_set["A"] = "b";
  p.allow_domains = {"example.com"};
  p.net = sandbox::NetMode::kProxy;
  p.limits.max_memory_bytes = 123;
  EXPECT_TRUE(PolicyFromJson(PolicyToJson(p)) == p);
}

// A "worker" that answers with a frame of the wrong shape: the call fails
// with a message that says so, sepp goes on, and the next session works.
TEST_F(WorkerTest, AWorkerBreakingTheProtocolFailsTheCallNotSepp) {
  std::filesystem::path fake = root_ / "fake-worker.sh";
  Put(fake, "#!/bin/sh\nprintf '\\000\\000\\000\\041{\"type\":\"result\",\"id\":1,\"text\":5}'\n"
            "exec cat >/dev/null\n");
  std::filesystem::permissions(fake, std::filesystem::perms::owner_all);
  worker_ = std::make_unique<ToolWorker>(policy_, ws_, fake, false);
  ToolResult r = Use("read", {{"path", "x"}});
  EXPECT_TRUE(r.is_error);
  EXPECT_NE(r.text.find("broke the protocol"), std::string::npos) << r.text;
  worker_ = std::make_unique<ToolWorker>(policy_, ws_, SEPP_BINARY_DIR "/sepp", false);
  EXPECT_FALSE(Use("ls", {{"path", "."}}).is_error);
}

}  // namespace
}  // namespace sepp::tools
