// The event log on both stores (the same rules), and what only PostgreSQL
// has: migrations applied once and a newer schema refused, two real
// processes appending to one stream at once (gap-free, each one's events in
// its order), another server's appends announced, a server restart in the
// middle of a stream (nothing lost, nothing twice) and a database that goes
// away (clear errors, then it works again).
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <filesystem>
#include <map>
#include <thread>

#include "pg/pg_cluster.h"
#include "session/event_log.h"
#include "session/pg_conn.h"
#include "session/pg_url.h"

namespace sepp::session {
namespace {

namespace fs = std::filesystem;
using pgtest::PgCluster;

std::string NewStream(const char* what) {
  static int n = 0;
  return std::string(what) + "-" + std::to_string(::getpid()) + "-" + std::to_string(++n);
}

// Each test runs on both stores: "sqlite" (a temp folder) and "postgres".
class EventLogRules : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (GetParam() == "postgres" && !PgCluster::MissingBinaries().empty())
      GTEST_SKIP() << PgCluster::MissingBinaries();
    char tmpl[] = "/tmp/sepp-evlog-XXXXXX";
    root_ = ::mkdtemp(tmpl);
  }
  void TearDown() override {
    std::error_code ec;
    if (!root_.empty()) fs::remove_all(root_, ec);
  }
  std::string store() const { return GetParam() == "postgres" ? pgtest::SharedCluster()->socket_url() : "sqlite"; }
  std::unique_ptr<EventLog> Open() {
    auto log = OpenEventLog(store(), root_);
    EXPECT_TRUE(log.ok()) << log.error().message;
    return log.ok() ? std::move(*log) : nullptr;
  }
  fs::path root_;
};

TEST_P(EventLogRules, NumbersAreGapFreeAndUsedOnce) {
  auto log = Open();
  ASSERT_TRUE(log);
  std::string a = NewStream("rules");
  EXPECT_EQ(*log->LastSeq(a), 0);
  ASSERT_TRUE(log->Append(a, 1, 1001, "ev1").ok());
  auto dup = log->Append(a, 1, 1002, "again");
  ASSERT_FALSE(dup.ok());
  EXPECT_EQ(dup.error().kind, "exists");
  auto gap = log->Append(a, 3, 1003, "skips 2");
  ASSERT_FALSE(gap.ok());
  EXPECT_EQ(gap.error().kind, "conflict") << gap.error().message;
  auto next = log->AppendNext(a, 1004, "ev2");
  ASSERT_TRUE(next.ok()) << next.error().message;
  EXPECT_EQ(*next, 2) << "a refused append took no number";
  ASSERT_TRUE(log->Append(a, 3, 1005, "ev3").ok());
  EXPECT_EQ(*log->LastSeq(a), 3);
  auto r = log->Read(a, 1, 10);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->size(), 2u);
  EXPECT_EQ((*r)[0].seq, 2);
  EXPECT_EQ((*r)[0].data, "ev2");
  EXPECT_EQ((*r)[0].time_ms, 1004);
  EXPECT_EQ((*r)[1].data, "ev3");
  EXPECT_EQ(*log->Count(a, 0, 2), 2);
  EXPECT_EQ(*log->LastSeq(NewStream("never")), 0);
}

TEST_P(EventLogRules, SessionRecordsClaimTheirIds) {
  auto log = Open();
  ASSERT_TRUE(log);
  std::string id = NewStream("session");
  ASSERT_TRUE(log->AddSession(id, {{"sessionId", id}, {"ended", false}}).ok());
  auto again = log->AddSession(id, {{"sessionId", id}});
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.error().kind, "exists");
  ASSERT_TRUE(log->UpdateSession(id, {{"sessionId", id}, {"ended", true}}).ok());
  auto all = log->Sessions();
  ASSERT_TRUE(all.ok());
  bool found = false;
  for (const Json& r : *all)
    if (r["sessionId"] == id) found = r["ended"] == true;
  EXPECT_TRUE(found);
}

// Two processes (forked, each with its own connection) append 400 events
// each to one stream at once.
TEST_P(EventLogRules, TwoProcessesAppendGapFreeAndInOrder) {
  std::string stream = NewStream("two-writers");
  constexpr int kEach = 400;
  int go[2];
  ASSERT_EQ(::pipe(go), 0);
  pid_t kids[2];
  for (int k = 0; k < 2; ++k) {
    kids[k] = ::fork();
    ASSERT_GE(kids[k], 0);
    if (kids[k] == 0) {
      ::close(go[1]);
      auto log = OpenEventLog(store(), root_);
      char c;
      (void)!::read(go[0], &c, 1);  // both start together
      if (!log.ok()) ::_exit(2);
      for (int i = 0; i < kEach; ++i)
        if (!(*log)->AppendNext(stream, i, "w" + std::to_string(k) + ":" + std::to_string(i)).ok())
          ::_exit(3);
      ::_exit(0);
    }
  }
  ::close(go[0]);
  ::close(go[1]);  // EOF: go
  for (pid_t kid : kids) {
    int status = 0;
    ::waitpid(kid, &status, 0);
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  }
  auto log = Open();
  ASSERT_TRUE(log);
  auto all = log->Read(stream, 0, 10 * kEach);
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(all->size(), 2u * kEach);
  int last[2] = {-1, -1};
  int interleaved = 0;
  for (size_t i = 0; i < all->size(); ++i) {
    const LoggedEvent& e = (*all)[i];
    EXPECT_EQ(e.seq, static_cast<int64_t>(i + 1)) << "gap-free from 1";
    int who = e.data[1] - '0';
    int n = std::stoi(e.data.substr(3));
    EXPECT_EQ(n, last[who] + 1) << "each writer's events in its order, once";
    if (i > 0 && (*all)[i - 1].data[1] != e.data[1]) ++interleaved;
    last[who] = n;
  }
  EXPECT_EQ(last[0], kEach - 1);
  EXPECT_EQ(last[1], kEach - 1);
  RecordProperty("interleavings", interleaved);
}

INSTANTIATE_TEST_SUITE_P(Stores, EventLogRules, ::testing::Values("sqlite", "postgres"));

class PgEventLog : public ::testing::Test {
 protected:
  void SetUp() override {
    if (std::string m = PgCluster::MissingBinaries(); !m.empty()) GTEST_SKIP() << m;
    // Back up if an earlier test left it stopped.
    ASSERT_TRUE(pgtest::SharedCluster()->Start().ok());
  }
  std::unique_ptr<EventLog> Open(const std::string& url) {
    auto log = OpenEventLog(url, "/nonexistent");
    EXPECT_TRUE(log.ok()) << log.error().message;
    return log.ok() ? std::move(*log) : nullptr;
  }
  std::unique_ptr<PgConn> Sql() {
    auto c = ParsePgUrl(pgtest::SharedCluster()->socket_url());
    auto conn = PgConn::Connect(*c);
    EXPECT_TRUE(conn.ok());
    return conn.ok() ? std::move(*conn) : nullptr;
  }
};

TEST_F(PgEventLog, MigrationsAreAppliedOnceAndANewerSchemaIsRefused) {
  ASSERT_TRUE(Open(pgtest::SharedCluster()->socket_url()));
  ASSERT_TRUE(Open(pgtest::SharedCluster()->tcp_url(true)));  // a second server: nothing applied twice
  auto sql = Sql();
  auto versions = sql->Exec("SELECT version FROM sepp_schema_migrations ORDER BY version");
  ASSERT_TRUE(versions.ok()) << versions.error().message;
  ASSERT_EQ(versions->rows.size(), 3u);
  EXPECT_EQ(versions->rows[0][0], "1");
  EXPECT_EQ(versions->rows[1][0], "2");
  EXPECT_EQ(versions->rows[2][0], "3");
  ASSERT_TRUE(sql->Exec("INSERT INTO sepp_schema_migrations(version) VALUES (99)").ok());
  auto refused = OpenEventLog(pgtest::SharedCluster()->socket_url(), "/nonexistent");
  ASSERT_TRUE(sql->Exec("DELETE FROM sepp_schema_migrations WHERE version = 99").ok());
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().kind, "unsupported");
  EXPECT_NE(refused.error().message.find("newer sepp"), std::string::npos) << refused.error().message;
}

TEST_F(PgEventLog, AnotherServersAppendIsAnnounced) {
  auto a = Open(pgtest::SharedCluster()->tcp_url(true));
  auto b = Open(pgtest::SharedCluster()->socket_url());
  ASSERT_TRUE(a && b);
  std::string stream = NewStream("announced");
  std::atomic<bool> woken{false};
  std::thread waiter([&] {
    // Up to 60 s: woken by the NOTIFY, long before the timeout.
    auto start = std::chrono::steady_clock::now();
    while (!woken && std::chrono::steady_clock::now() - start < std::chrono::seconds(60))
      if (b->WaitForAppend(stream, 0, std::chrono::seconds(60))) woken = true;
  });
  ASSERT_TRUE(a->AppendNext(stream, 1, "x").ok());
  waiter.join();
  EXPECT_TRUE(woken);
  EXPECT_EQ(b->Read(stream, 0, 10)->size(), 1u);
}

// The writer retries as the session hub does: the same number until it is
// stored (or found stored: its first try landed but the answer was lost).
Status AppendUntilStored(EventLog& log, const std::string& stream, int64_t seq,
                         const std::string& data, std::atomic<int>* failures) {
  for (int attempt = 0; attempt < 2000; ++attempt) {
    Status s = log.Append(stream, seq, seq, data);
    if (s.ok() || s.error().kind == "exists") return Ok();
    if (s.error().kind != "unavailable") return s;
    ++*failures;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));  // backoff, not synchronisation
  }
  return Error::Make("never stored");
}

TEST_F(PgEventLog, AServerRestartMidStreamLosesAndDuplicatesNothing) {
  auto log = Open(pgtest::SharedCluster()->socket_url());
  auto other = Open(pgtest::SharedCluster()->tcp_url(true));  // a second server, listening
  ASSERT_TRUE(log && other);
  std::string stream = NewStream("restart");
  constexpr int kEvents = 600;
  std::atomic<int> stored{0}, failures{0};
  std::mutex mu;
  std::condition_variable cv;
  Status writer_status = Ok();
  std::thread writer([&] {
    for (int i = 1; i <= kEvents; ++i) {
      Status s = AppendUntilStored(*log, stream, i, "event " + std::to_string(i), &failures);
      if (!s.ok()) {
        writer_status = s;
        break;
      }
      std::lock_guard lock(mu);
      stored = i;
      cv.notify_all();
    }
  });
  {
    std::unique_lock lock(mu);
    cv.wait(lock, [&] { return stored >= 100; });
  }
  ASSERT_TRUE(pgtest::SharedCluster()->Stop().ok());
  ASSERT_TRUE(pgtest::SharedCluster()->Start().ok());
  writer.join();
  ASSERT_TRUE(writer_status.ok()) << writer_status.error().message;
  auto all = log->Read(stream, 0, 10 * kEvents);
  ASSERT_TRUE(all.ok()) << all.error().message;
  ASSERT_EQ(all->size(), static_cast<size_t>(kEvents));
  for (int i = 0; i < kEvents; ++i) {
    EXPECT_EQ((*all)[i].seq, i + 1);
    EXPECT_EQ((*all)[i].data, "event " + std::to_string(i + 1));
  }
  RecordProperty("failed_appends_during_restart", failures.load());
  // The other server's listener is back too: a new append wakes it.
  std::atomic<bool> woken{false};
  std::thread waiter([&] {
    auto start = std::chrono::steady_clock::now();
    while (!woken && std::chrono::steady_clock::now() - start < std::chrono::seconds(60))
      if (other->WaitForAppend(stream, kEvents, std::chrono::seconds(60)) &&
          *other->LastSeq(stream) > kEvents)
        woken = true;
  });
  // Appended until heard: the listener may still be dialling again.
  for (int i = kEvents + 1; !woken && i < kEvents + 3000; ++i) {
    ASSERT_TRUE(AppendUntilStored(*log, stream, i, "late", &failures).ok());
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  waiter.join();
  EXPECT_TRUE(woken);
}

TEST_F(PgEventLog, ADatabaseThatGoesAwayFailsClearlyAndComesBack) {
  auto log = Open(pgtest::SharedCluster()->tcp_url(true));
  ASSERT_TRUE(log);
  std::string stream = NewStream("away");
  ASSERT_TRUE(log->Append(stream, 1, 1, "before").ok());
  ASSERT_TRUE(pgtest::SharedCluster()->Stop().ok());
  for (int i = 0; i < 3; ++i) {  // every call, not just the first
    auto s = log->Append(stream, 2, 2, "during");
    ASSERT_FALSE(s.ok());
    EXPECT_EQ(s.error().kind, "unavailable");
    EXPECT_NE(s.error().message.find("is unavailable"), std::string::npos) << s.error().message;
    EXPECT_NE(s.error().message.find("127.0.0.1"), std::string::npos) << s.error().message;
    EXPECT_EQ(s.error().message.find(PgCluster::kPassword), std::string::npos);
    auto r = log->Read(stream, 0, 10);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().kind, "unavailable");
  }
  ASSERT_TRUE(pgtest::SharedCluster()->Start().ok());
  ASSERT_TRUE(log->Append(stream, 2, 2, "after").ok());
  auto all = log->Read(stream, 0, 10);
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(all->size(), 2u);
  EXPECT_EQ((*all)[1].data, "after");
}

}  // namespace
}  // namespace sepp::session
