// Schema (beside the session tables; none of them are touched):
//   stream_events(stream TEXT, seq INTEGER, time_ms INTEGER, data TEXT,
//                 PRIMARY KEY(stream, seq)) WITHOUT ROWID
// An append is one INSERT (its own transaction): a killed server loses at
// most the event it was writing, never leaves half of one.
#include "session/event_log.h"

#include <system_error>

#include "session/sqlite_db.h"

namespace sepp::session {

namespace fs = std::filesystem;

EventLog::EventLog(std::unique_ptr<SqliteDb> db) : db_(std::move(db)) {}
EventLog::~EventLog() = default;

Result<std::unique_ptr<EventLog>> EventLog::Open(const fs::path& root) {
  std::error_code ec;
  fs::create_directories(root, ec);
  if (ec)
    return Error::Make("could not create " + root.string() + " for the event log: " + ec.message(),
                       "io");
  auto db = SqliteDb::Open(root / "sessions.db");
  if (!db.ok()) return db.error();
  // WAL as the session store has it: the log's readers (replays) never wait
  // for its writer.
  (void)(*db)->Exec("PRAGMA journal_mode=WAL");
  Status s = (*db)->Exec(
      "CREATE TABLE IF NOT EXISTS stream_events(stream TEXT NOT NULL, seq INTEGER NOT NULL, "
      "time_ms INTEGER NOT NULL, data TEXT NOT NULL, PRIMARY KEY(stream, seq)) WITHOUT ROWID");
  if (!s.ok()) return s.error();
  return std::unique_ptr<EventLog>(new EventLog(std::move(*db)));
}

Status EventLog::Append(std::string_view stream, int64_t seq, int64_t time_ms,
                        std::string_view data) {
  std::lock_guard lock(mu_);
  auto insert = SqliteStmt::Prepare(
      *db_, "INSERT INTO stream_events(stream, seq, time_ms, data) VALUES(?,?,?,?)");
  if (!insert.ok()) return insert.error();
  insert->Bind(1, stream).Bind(2, seq).Bind(3, time_ms).Bind(4, data);
  return insert->Run();
}

Result<std::vector<LoggedEvent>> EventLog::Read(std::string_view stream, int64_t after,
                                                size_t limit) {
  std::lock_guard lock(mu_);
  auto q = SqliteStmt::Prepare(*db_,
                               "SELECT seq, time_ms, data FROM stream_events WHERE stream = ? AND "
                               "seq > ? ORDER BY seq LIMIT ?");
  if (!q.ok()) return q.error();
  q->Bind(1, stream).Bind(2, after).Bind(3, static_cast<int64_t>(limit));
  std::vector<LoggedEvent> out;
  for (;;) {
    Result<bool> row = q->Step();
    if (!row.ok()) return row.error();
    if (!*row) break;
    out.push_back({q->Int(0), q->Int(1), q->Text(2)});
  }
  return out;
}

Result<int64_t> EventLog::Count(std::string_view stream, int64_t after, int64_t upto) {
  std::lock_guard lock(mu_);
  auto q = SqliteStmt::Prepare(
      *db_, "SELECT COUNT(*) FROM stream_events WHERE stream = ? AND seq > ? AND seq <= ?");
  if (!q.ok()) return q.error();
  q->Bind(1, stream).Bind(2, after).Bind(3, upto);
  Result<bool> row = q->Step();
  if (!row.ok()) return row.error();
  return *row ? q->Int(0) : 0;
}

Result<int64_t> EventLog::LastSeq(std::string_view stream) {
  std::lock_guard lock(mu_);
  auto q = SqliteStmt::Prepare(*db_, "SELECT MAX(seq) FROM stream_events WHERE stream = ?");
  if (!q.ok()) return q.error();
  q->Bind(1, stream);
  Result<bool> row = q->Step();
  if (!row.ok()) return row.error();
  return *row ? q->Int(0) : 0;  // MAX over no rows is NULL, read as 0
}

}  // namespace sepp::session
