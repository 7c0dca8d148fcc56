// The SQLite event log, in <root>/sessions.db beside the session tables
// (none of which it touches). Schema, by migration (event_log_migrations
// holds the versions applied):
//   1  stream_events(stream TEXT, seq INTEGER, time_ms INTEGER, data TEXT,
//                    PRIMARY KEY(stream, seq)) WITHOUT ROWID
//   2  served_sessions(id TEXT PRIMARY KEY, created_ms INTEGER, record TEXT)
// An append is one transaction: a killed server loses at most the event it
// was writing, never leaves half of one. BEGIN IMMEDIATE takes the write
// lock before the next number is read, so processes sharing the file cannot
// both take it.
#include <optional>
#include <system_error>

#include "base/clock.h"
#include "session/event_log.h"
#include "sqlite/sqlite_db.h"

namespace sepp::session {

using sqlite::SqliteDb;
using sqlite::SqliteStmt;
namespace {

namespace fs = std::filesystem;

struct Migration {
  int version;
  const char* sql;
};

// Append-only: a released version is never edited, a change is a new one.
constexpr Migration kMigrations[] = {
    {1,
     "CREATE TABLE IF NOT EXISTS stream_events(stream TEXT NOT NULL, seq INTEGER NOT NULL, "
     "time_ms INTEGER NOT NULL, data TEXT NOT NULL, PRIMARY KEY(stream, seq)) WITHOUT ROWID"},
    {2,
     "CREATE TABLE IF NOT EXISTS served_sessions(id TEXT PRIMARY KEY, created_ms INTEGER NOT "
     "NULL, record TEXT NOT NULL)"},
};

class SqliteEventLog : public EventLog {
 public:
  SqliteEventLog(std::unique_ptr<SqliteDb> db) : db_(std::move(db)) {}

  std::string_view kind() const override { return "sqlite"; }
  std::string location() const override { return db_->file(); }

  Status Migrate() {
    std::lock_guard lock(mu_);
    if (Status s = db_->Exec("BEGIN IMMEDIATE"); !s.ok()) return s;
    Status s = MigrateLocked();
    if (s.ok()) s = db_->Exec("COMMIT");
    if (!s.ok()) (void)db_->Exec("ROLLBACK");
    return s;
  }

  Status Append(std::string_view stream, int64_t seq, int64_t time_ms,
                std::string_view data) override {
    {
      std::lock_guard lock(mu_);
      if (Status s = Begin(); !s.ok()) return s;
      auto last = LastSeqLocked(stream);
      Status s = last.ok() ? Ok() : Status(last.error());
      if (s.ok() && seq <= *last)
        s = Error::Make("event " + std::to_string(seq) + " of " + std::string(stream) +
                            " is stored already",
                        "exists");
      if (s.ok() && seq != *last + 1)
        s = Error::Make("event " + std::to_string(seq) + " of " + std::string(stream) +
                            " would leave a gap (the next is " + std::to_string(*last + 1) + ")",
                        "conflict");
      if (s.ok()) s = Insert(stream, seq, time_ms, data);
      if (s.ok()) s = Commit();
      if (!s.ok()) {
        (void)db_->Exec("ROLLBACK");
        return s;
      }
    }
    Announce(stream, seq);
    return Ok();
  }

  Result<int64_t> AppendNext(std::string_view stream, int64_t time_ms,
                             std::string_view data) override {
    int64_t seq = 0;
    {
      std::lock_guard lock(mu_);
      if (Status s = Begin(); !s.ok()) return s.error();
      auto last = LastSeqLocked(stream);
      Status s = last.ok() ? Insert(stream, seq = *last + 1, time_ms, data) : Status(last.error());
      if (s.ok()) s = Commit();
      if (!s.ok()) {
        (void)db_->Exec("ROLLBACK");
        return s.error();
      }
    }
    Announce(stream, seq);
    return seq;
  }

  Result<std::vector<LoggedEvent>> Read(std::string_view stream, int64_t after,
                                        size_t limit) override {
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

  Result<int64_t> Count(std::string_view stream, int64_t after, int64_t upto) override {
    std::lock_guard lock(mu_);
    auto q = SqliteStmt::Prepare(
        *db_, "SELECT COUNT(*) FROM stream_events WHERE stream = ? AND seq > ? AND seq <= ?");
    if (!q.ok()) return q.error();
    q->Bind(1, stream).Bind(2, after).Bind(3, upto);
    Result<bool> row = q->Step();
    if (!row.ok()) return row.error();
    return *row ? q->Int(0) : 0;
  }

  Result<int64_t> LastSeq(std::string_view stream) override {
    std::lock_guard lock(mu_);
    return LastSeqLocked(stream);
  }

  Status AddSession(const std::string& id, const Json& record) override {
    std::lock_guard lock(mu_);
    auto q = SqliteStmt::Prepare(
        *db_, "INSERT INTO served_sessions(id, created_ms, record) VALUES(?,?,?) ON CONFLICT(id) "
              "DO NOTHING");
    if (!q.ok()) return q.error();
    q->Bind(1, id).Bind(2, NowMs()).Bind(3, DumpJson(record));
    if (Status s = q->Run(); !s.ok()) return s;
    if (db_->Changes() == 0)
      return Error::Make("a session " + id + " exists in " + db_->file(), "exists");
    return Ok();
  }

  Status UpdateSession(const std::string& id, const Json& record) override {
    std::lock_guard lock(mu_);
    auto q = SqliteStmt::Prepare(*db_, "UPDATE served_sessions SET record = ? WHERE id = ?");
    if (!q.ok()) return q.error();
    q->Bind(1, DumpJson(record)).Bind(2, id);
    return q->Run();
  }

  Result<std::vector<Json>> Sessions() override {
    std::lock_guard lock(mu_);
    auto q = SqliteStmt::Prepare(*db_,
                                 "SELECT record FROM served_sessions ORDER BY created_ms, id");
    if (!q.ok()) return q.error();
    std::vector<Json> out;
    for (;;) {
      Result<bool> row = q->Step();
      if (!row.ok()) return row.error();
      if (!*row) break;
      auto j = ParseJson(q->Text(0));
      if (j.ok() && j->is_object()) out.push_back(std::move(*j));
    }
    return out;
  }

 private:
  Status MigrateLocked() {
    if (Status s = db_->Exec("CREATE TABLE IF NOT EXISTS event_log_migrations(version INTEGER "
                             "PRIMARY KEY, applied_ms INTEGER NOT NULL)");
        !s.ok())
      return s;
    auto q = SqliteStmt::Prepare(*db_, "SELECT COALESCE(MAX(version), 0) FROM event_log_migrations");
    if (!q.ok()) return q.error();
    Result<bool> row = q->Step();
    if (!row.ok()) return row.error();
    int64_t applied = *row ? q->Int(0) : 0;
    int64_t known = kMigrations[std::size(kMigrations) - 1].version;
    if (applied > known)
      return Error::Make("the event log in " + db_->file() + " was written by a newer sepp (schema " +
                             std::to_string(applied) + ", this one knows " + std::to_string(known) +
                             "); upgrade sepp to use it",
                         "unsupported");
    for (const Migration& m : kMigrations) {
      if (m.version <= applied) continue;
      if (Status s = db_->Exec(m.sql); !s.ok()) return s;
      auto ins = SqliteStmt::Prepare(
          *db_, "INSERT INTO event_log_migrations(version, applied_ms) VALUES(?,?)");
      if (!ins.ok()) return ins.error();
      ins->Bind(1, static_cast<int64_t>(m.version)).Bind(2, NowMs());
      if (Status s = ins->Run(); !s.ok()) return s;
    }
    return Ok();
  }

  // The append path's statements are prepared once, at their first use:
  // preparing them cost more than running them (a server appends every
  // event it streams, several per prompt). Under mu_.
  Result<SqliteStmt*> Cached(std::optional<SqliteStmt>& slot, const char* sql) {
    if (!slot) {
      auto q = SqliteStmt::Prepare(*db_, sql);
      if (!q.ok()) return q.error();
      slot.emplace(std::move(*q));
    }
    return &*slot;
  }
  Status Begin() {
    auto q = Cached(begin_, "BEGIN IMMEDIATE");
    return q.ok() ? (*q)->Run() : Status(q.error());
  }
  Status Commit() {
    auto q = Cached(commit_, "COMMIT");
    return q.ok() ? (*q)->Run() : Status(q.error());
  }

  Status Insert(std::string_view stream, int64_t seq, int64_t time_ms, std::string_view data) {
    auto insert = Cached(insert_, "INSERT INTO stream_events(stream, seq, time_ms, data) VALUES(?,?,?,?)");
    if (!insert.ok()) return insert.error();
    (*insert)->Bind(1, stream).Bind(2, seq).Bind(3, time_ms).Bind(4, data);
    return (*insert)->Run();
  }

  Result<int64_t> LastSeqLocked(std::string_view stream) {
    auto q = Cached(last_seq_, "SELECT MAX(seq) FROM stream_events WHERE stream = ?");
    if (!q.ok()) return q.error();
    (*q)->Bind(1, stream);
    Result<bool> row = (*q)->Step();
    int64_t last = row.ok() && *row ? (*q)->Int(0) : 0;  // MAX over no rows is NULL, read as 0
    (*q)->Reset();  // a statement left stepping would hold its read open
    if (!row.ok()) return row.error();
    return last;
  }

  std::mutex mu_;
  std::unique_ptr<SqliteDb> db_;
  // After db_: finalized before the connection closes.
  std::optional<SqliteStmt> begin_, commit_, insert_, last_seq_;
};

}  // namespace

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
  auto log = std::make_unique<SqliteEventLog>(std::move(*db));
  if (Status s = log->Migrate(); !s.ok()) return s.error();
  return std::unique_ptr<EventLog>(std::move(log));
}

}  // namespace sepp::session
