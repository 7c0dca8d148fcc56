// The server's event log: numbered per stream, kept across reopenings,
// beside the session store in the same database file.
#include <gtest/gtest.h>

#include <filesystem>

#include "session/event_log.h"
#include "session/store.h"

namespace sepp::session {
namespace {

namespace fs = std::filesystem;

class EventLogTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/sepp-event-log-XXXXXX";
    root_ = mkdtemp(tmpl);
  }
  void TearDown() override { fs::remove_all(root_); }
  fs::path root_;
};

TEST_F(EventLogTest, AppendsReadsAndCountsPerStream) {
  auto log = EventLog::Open(root_);
  ASSERT_TRUE(log.ok()) << log.error().message;
  EXPECT_EQ(*(*log)->LastSeq("a"), 0);
  for (int i = 1; i <= 5; ++i) ASSERT_TRUE((*log)->Append("a", i, 1000 + i, "ev" + std::to_string(i)).ok());
  ASSERT_TRUE((*log)->Append("b", 1, 7, "other").ok());
  EXPECT_EQ(*(*log)->LastSeq("a"), 5);
  auto r = (*log)->Read("a", 2, 2);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->size(), 2u);
  EXPECT_EQ((*r)[0].seq, 3);
  EXPECT_EQ((*r)[0].data, "ev3");
  EXPECT_EQ((*r)[0].time_ms, 1003);
  EXPECT_EQ((*r)[1].seq, 4);
  EXPECT_EQ(*(*log)->Count("a", 1, 4), 3);
  EXPECT_EQ(*(*log)->Count("a", 0, 100), 5);
  EXPECT_EQ(*(*log)->Count("b", 0, 100), 1);
  EXPECT_FALSE((*log)->Append("a", 3, 1, "again").ok()) << "a number is used once";
  EXPECT_EQ((*log)->Read("a", 2, 1)->front().data, "ev3");
}

TEST_F(EventLogTest, SurvivesReopeningAndSharesTheSessionDatabase) {
  {
    auto log = EventLog::Open(root_);
    ASSERT_TRUE(log.ok());
    ASSERT_TRUE((*log)->Append("s", 1, 1, "{\"x\":1}").ok());
  }
  // The session store opens the same file and works beside the log.
  auto store = OpenStore(StoreKind::kSqlite, root_);
  ASSERT_TRUE(store.ok()) << store.error().message;
  EXPECT_TRUE((*store)->List(std::nullopt).ok());
  auto log = EventLog::Open(root_);
  ASSERT_TRUE(log.ok());
  EXPECT_EQ(*(*log)->LastSeq("s"), 1);
  EXPECT_EQ((*log)->Read("s", 0, 10)->front().data, "{\"x\":1}");
  EXPECT_TRUE(fs::exists(root_ / "sessions.db"));
}

}  // namespace
}  // namespace sepp::session
