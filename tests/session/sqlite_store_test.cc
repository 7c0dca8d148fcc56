// What only the SQLite store has: its database, hostile rows, schema versions;
// and moving sessions between the two stores without loss.
#include <gtest/gtest.h>

#include <sqlite3.h>

#include "session/session_test_util.h"
#include "session/store.h"

namespace sepp::session {
namespace {

using testing::AssistantMessage;
using testing::TempDir;
using testing::UserMessage;

template <class T>
T Take(Result<T>&& r) {
  if (!r.ok()) ADD_FAILURE() << r.error().message;
  return std::move(r).value();
}

void RawSql(const std::filesystem::path& db_file, const std::string& sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(db_file.c_str(), &db), SQLITE_OK);
  char* err = nullptr;
  EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err), SQLITE_OK) << (err ? err : "");
  sqlite3_free(err);
  sqlite3_close(db);
}

TEST(SqliteStore, HostileRowsAreSkipped) {
  TempDir dir;
  auto store = Take(OpenStore(StoreKind::kSqlite, dir.path()));
  std::string id;
  {
    auto s = Take(store->Create(NewSession{"/p", "a", "m", ""}));
    ASSERT_TRUE(s->AppendMessage(UserMessage("one")).ok());
    id = s->id();
  }
  RawSql(dir.path() / "sessions.db",
         "INSERT INTO entries VALUES('" + id + "', 50, 'g1', NULL, 'x', 'not json');"
         "INSERT INTO entries VALUES('" + id + "', 51, 'g2', NULL, 'x', '[1,2]');"
         "INSERT INTO entries VALUES('" + id + "', 52, 'g3', NULL, 'x', '{\"type\":\"x\"}');"
         "INSERT INTO entries VALUES('" + id + "', 53, 'u', NULL, 'note', "
         "CAST(X'7B2274797065223A226E6F7465222C226964223A2275222C2274223A22FF227D' AS TEXT));");
  auto s = Take(store->Open(id, OpenMode::kAppend));
  EXPECT_EQ(s->size(), 2u);  // "one" and the repaired invalid-UTF-8 note
  ASSERT_TRUE(s->Find("u"));
  EXPECT_EQ(s->Find("u")->data()["t"], "\xEF\xBF\xBD");
  auto next = s->AppendMessage(UserMessage("after"));
  ASSERT_TRUE(next.ok()) << next.error().message;  // seq continues after the junk rows
}

TEST(SqliteStore, RefusesADatabaseFromANewerSepp) {
  TempDir dir;
  { auto store = Take(OpenStore(StoreKind::kSqlite, dir.path())); }
  RawSql(dir.path() / "sessions.db", "PRAGMA user_version = 7");
  auto store = OpenStore(StoreKind::kSqlite, dir.path());
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.error().kind, "unsupported");
  EXPECT_NE(store.error().message.find("newer sepp"), std::string::npos);
}

TEST(SqliteStore, NotADatabase) {
  TempDir dir;
  ASSERT_TRUE(WriteFileAtomic(dir.path() / "sessions.db", std::string(8192, 'z')).ok());
  auto store = OpenStore(StoreKind::kSqlite, dir.path());
  ASSERT_FALSE(store.ok());
  EXPECT_NE(store.error().message.find("sessions.db"), std::string::npos);
}

// JSONL -> SQLite -> JSONL gives back the same records.
TEST(Convert, RoundTripBetweenStoresIsLossless) {
  TempDir a, b;
  auto jsonl = Take(OpenStore(StoreKind::kJsonl, a.path()));
  auto sqlite = Take(OpenStore(StoreKind::kSqlite, b.path()));
  std::string id;
  std::vector<Json> original;
  {
    auto s = Take(jsonl->Create(NewSession{"/p", "anthropic", "m", ""}));
    std::string first = Take(s->AppendMessage(UserMessage("q")));
    ASSERT_TRUE(s->AppendMessage(AssistantMessage("a")).ok());
    ASSERT_TRUE(s->SetLeaf(first).ok());
    ASSERT_TRUE(s->Append("future", Json{{"x", Json::array({1, 2})}}).ok());
    ASSERT_TRUE(s->Label(first, "start").ok());
    id = s->id();
    for (const Entry& e : s->entries()) original.push_back(e.data());
  }
  auto from = Take(jsonl->Open(id, OpenMode::kReadOnly));
  std::vector<Entry> entries(from->entries().begin(), from->entries().end());
  {
    auto copied = Take(sqlite->Import(from->header(), entries));
    EXPECT_EQ(copied->LabelOf(entries[0].id), "start");
  }
  ASSERT_TRUE(jsonl->Remove(id).ok());
  auto mid = Take(sqlite->Open(id, OpenMode::kReadOnly));
  std::vector<Entry> back(mid->entries().begin(), mid->entries().end());
  { auto again = Take(jsonl->Import(mid->header(), back)); }
  auto end = Take(jsonl->Open(id, OpenMode::kReadOnly));
  ASSERT_EQ(end->size(), original.size());
  for (size_t i = 0; i < original.size(); ++i) EXPECT_EQ(end->entries()[i].data(), original[i]);
  EXPECT_EQ(end->header().data, from->header().data);
  EXPECT_EQ(Take(jsonl->Latest("/p")), id);
  auto list = Take(sqlite->List(std::nullopt));
  ASSERT_EQ(list.size(), 1u);
  EXPECT_EQ(list[0].message_count, 2u);
}

}  // namespace
}  // namespace sepp::session
