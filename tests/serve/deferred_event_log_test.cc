// The event log opened off the first response's path: a call that comes
// before the open finished waits for it (never fails, never races), gets
// the real log's answers after, and every call gets the open's error when
// it failed. And end to end: a fresh $SEPP_HOME answers /v1/health, and the
// first request that needs the store (made at once) succeeds.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <future>
#include <thread>

#include "front/serve/deferred_event_log.h"
#include "serve/serve_child.h"

namespace sepp::front::serve {
namespace {

namespace fs = std::filesystem;

class Dir {
 public:
  Dir() {
    char tmpl[] = "/tmp/sepp-deferred-log-XXXXXX";
    path_ = mkdtemp(tmpl);
  }
  ~Dir() { fs::remove_all(path_); }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

TEST(DeferredEventLog, ACallBeforeTheOpenWaitsForItAndThenWorks) {
  Dir dir;
  std::promise<void> release;
  std::shared_future<void> go = release.get_future().share();
  std::atomic<bool> opened{false};
  DeferredEventLog log("sqlite", [&]() -> Result<std::unique_ptr<session::EventLog>> {
    go.wait();  // the open is slow (a fresh home's fsyncs)
    auto l = session::EventLog::Open(dir.path());
    opened = true;
    return l;
  });
  EXPECT_EQ(log.kind(), "sqlite");  // known without waiting
  auto append = std::async(std::launch::async, [&] { return log.Append("s", 1, 10, R"({"n":1})"); });
  auto read = std::async(std::launch::async, [&] { return log.LastSeq("s"); });
  EXPECT_EQ(append.wait_for(std::chrono::milliseconds(0)), std::future_status::timeout);
  release.set_value();
  ASSERT_TRUE(append.get().ok());
  EXPECT_TRUE(opened);
  auto last = read.get();
  ASSERT_TRUE(last.ok());
  EXPECT_TRUE(*last == 0 || *last == 1);  // before or after the append, never an error
  auto next = log.AppendNext("s", 11, R"({"n":2})");
  ASSERT_TRUE(next.ok());
  EXPECT_EQ(*next, 2);
  auto events = log.Read("s", 0, 10);
  ASSERT_TRUE(events.ok());
  ASSERT_EQ(events->size(), 2u);
  EXPECT_EQ((*events)[1].data, R"({"n":2})");
  ASSERT_TRUE(log.AddSession("x", {{"a", 1}}).ok());
  EXPECT_EQ(log.Sessions()->size(), 1u);
  // A reader waiting on the stream is woken by an append through this log.
  auto waiter = std::async(std::launch::async,
                           [&] { return log.WaitForAppend("s", 2, std::chrono::milliseconds(60000)); });
  ASSERT_TRUE(log.Append("s", 3, 12, "{}").ok());
  EXPECT_TRUE(waiter.get());
  EXPECT_FALSE(log.location().empty());
}

TEST(DeferredEventLog, AFailedOpenIsEveryCallsError) {
  DeferredEventLog log("sqlite", []() -> Result<std::unique_ptr<session::EventLog>> {
    return Error::Make("cannot create /nowhere/sessions.db: Permission denied");
  });
  EXPECT_FALSE(log.Ready().ok());
  auto st = log.Append("s", 1, 1, "{}");
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message.find("Permission denied"), std::string::npos);
  EXPECT_FALSE(log.Read("s", 0, 1).ok());
  EXPECT_FALSE(log.Sessions().ok());
  EXPECT_FALSE(log.AddSession("x", Json::object()).ok());
}

TEST(DeferredEventLog, AFreshHomeIsHealthyAtOnceAndItsFirstStoreRequestSucceeds) {
  Dir dir;
  fs::create_directories(dir.path() / "home");
  fs::create_directories(dir.path() / "project");
  std::map<std::string, std::string> env = {{"HOME", (dir.path() / "home").string()},
                                            {"SEPP_HOME", (dir.path() / "home" / "fresh").string()},
                                            {"ANTHROPIC_API_KEY", "test-key-not-secret"}};
  servetest::ServeChild server((dir.path() / "project").string(), env, {"--no-token"});
  // Both at once, as the server's first requests: the store is being made.
  auto sessions = std::async(std::launch::async, [&] { return servetest::Fetch("GET", server.url("/v1/sessions")); });
  auto health = servetest::Fetch("GET", server.url("/v1/health"));
  EXPECT_EQ(health.head.status, 200);
  EXPECT_EQ(health.body, R"({"status":"ok"})");
  auto listed = sessions.get();
  EXPECT_EQ(listed.head.status, 200) << listed.body;
  auto create = servetest::Fetch("POST", server.url("/v1/sessions/first"), {{"Content-Type", "application/json"}},
                                 R"({"agent":"sepp"})");
  EXPECT_EQ(create.head.status, 200) << create.body;
  EXPECT_TRUE(fs::exists(dir.path() / "home" / "fresh" / "sessions" / "sessions.db"));
  EXPECT_EQ(server.Stop(), 0);
}

TEST(DeferredEventLog, AStoreThatCannotBeOpenedStopsTheServer) {
  Dir dir;
  fs::create_directories(dir.path() / "home");
  fs::create_directories(dir.path() / "project");
  // SEPP_HOME is a file: nothing can be created under it.
  { std::ofstream(dir.path() / "home" / "not-a-folder") << "x"; }
  std::map<std::string, std::string> env = {{"HOME", (dir.path() / "home").string()},
                                            {"SEPP_HOME", (dir.path() / "home" / "not-a-folder").string()},
                                            {"ANTHROPIC_API_KEY", "test-key-not-secret"}};
  // Runs to its end by itself: it listened, then stopped on the store's error.
  servetest::ServeChild server((dir.path() / "project").string(), env, {"--no-token"});
  EXPECT_EQ(server.Stop(60), 1);
  EXPECT_FALSE(server.stderr_text().empty());
}

}  // namespace
}  // namespace sepp::front::serve
