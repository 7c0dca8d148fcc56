// The SQLite session store.
//
// One database, <root>/sessions.db, in WAL mode (readers never block the
// writer), with a 10 s busy timeout between processes. Schema (user_version 1):
//
//   sessions(id TEXT PRIMARY KEY, cwd TEXT, created TEXT, modified_ms INTEGER,
//            parent_session TEXT, first_prompt TEXT, message_count INTEGER,
//            header TEXT)          -- header: the JSONL header line, verbatim
//   entries(session_id TEXT, seq INTEGER, id TEXT, parent_id TEXT, type TEXT,
//           json TEXT,             -- json: the JSONL entry line, verbatim
//           PRIMARY KEY(session_id, seq)) WITHOUT ROWID
//
// So a record is byte-for-byte what the JSONL store would write, and convert
// is lossless both ways. An append is one transaction (insert the entry,
// update the session's modified_ms/first_prompt/message_count), so a kill -9
// loses at most that entry and never leaves a half-written one.
//
// Writer exclusion uses the same flock rule as JSONL, on a per-session lock
// file <root>/sessions.db.locks/<id>.lock (SQLite's own locks only cover one
// transaction, not "this agent owns the session"). Lock files are empty and
// harmless; Remove deletes the session's one.
#include "session/sqlite_store.h"

#include <algorithm>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/fd.h"
#include "base/strings.h"
#include "session/entry_codec.h"
#include "sqlite/sqlite_db.h"
#include "session/store.h"
#include "session/table_rows.h"
#include "session/writer_lock.h"

namespace fs = std::filesystem;

namespace sepp::session {

using sqlite::SqliteDb;
using sqlite::SqliteStmt;
namespace {

constexpr const char* kSchema = R"sql(
CREATE TABLE IF NOT EXISTS sessions(
  id TEXT PRIMARY KEY, cwd TEXT NOT NULL, created TEXT NOT NULL,
  modified_ms INTEGER NOT NULL, parent_session TEXT NOT NULL DEFAULT '',
  first_prompt TEXT NOT NULL DEFAULT '', message_count INTEGER NOT NULL DEFAULT 0,
  header TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS sessions_by_cwd ON sessions(cwd, modified_ms);
CREATE TABLE IF NOT EXISTS entries(
  session_id TEXT NOT NULL, seq INTEGER NOT NULL, id TEXT NOT NULL,
  parent_id TEXT, type TEXT NOT NULL, json TEXT NOT NULL,
  PRIMARY KEY(session_id, seq)) WITHOUT ROWID;
)sql";

constexpr const char* kInsertEntry =
    "INSERT INTO entries(session_id, seq, id, parent_id, type, json) VALUES(?,?,?,?,?,?)";

Status InsertEntry(SqliteStmt& insert, const std::string& session_id, int64_t seq, const Entry& e,
                   const std::string& line) {
  insert.Bind(1, session_id).Bind(2, seq).Bind(3, e.id);
  if (e.parent_id.empty())
    insert.BindNull(4);
  else
    insert.Bind(4, e.parent_id);
  insert.Bind(5, e.type).Bind(6, line);
  return insert.Run();
}

// Appends through the session's own connection while holding its lock file.
class SqliteSink : public EntrySink {
 public:
  SqliteSink(std::unique_ptr<SqliteDb> db, UniqueFd lock, std::string id, int64_t next_seq,
             MessageStats stats)
      : db_(std::move(db)), lock_(std::move(lock)), id_(std::move(id)), next_seq_(next_seq),
        stats_(std::move(stats)) {}

  Status Write(const Entry& entry, const std::string& line) override {
    if (!insert_) {
      auto ins = SqliteStmt::Prepare(*db_, kInsertEntry);
      if (!ins.ok()) return ins.error();
      auto upd = SqliteStmt::Prepare(
          *db_, "UPDATE sessions SET modified_ms=?, first_prompt=?, message_count=? WHERE id=?");
      if (!upd.ok()) return upd.error();
      insert_ = std::make_unique<SqliteStmt>(std::move(*ins));
      update_ = std::make_unique<SqliteStmt>(std::move(*upd));
    }
    MessageStats stats = stats_;
    AddToMessageStats(stats, entry);
    if (Status s = db_->Exec("BEGIN IMMEDIATE"); !s.ok()) return s;
    Status s = InsertEntry(*insert_, id_, next_seq_, entry, line);
    if (s.ok()) {
      update_->Bind(1, NowMs()).Bind(2, stats.first_prompt);
      update_->Bind(3, static_cast<int64_t>(stats.message_count)).Bind(4, id_);
      s = update_->Run();
    }
    if (s.ok()) s = db_->Exec("COMMIT");
    if (!s.ok()) {
      (void)db_->Exec("ROLLBACK");
      return Error::Make("could not append to session " + id_ + ": " + s.error().message, "io");
    }
    ++next_seq_;
    stats_ = std::move(stats);
    return Ok();
  }

 private:
  std::unique_ptr<SqliteDb> db_;
  std::unique_ptr<SqliteStmt> insert_, update_;
  UniqueFd lock_;
  std::string id_;
  int64_t next_seq_;
  MessageStats stats_;
};

class SqliteStore : public Store {
 public:
  SqliteStore(fs::path root, std::unique_ptr<SqliteDb> db)
      : root_(std::move(root)), file_(root_ / "sessions.db"), db_(std::move(db)) {}

  StoreKind kind() const override { return StoreKind::kSqlite; }
  std::string location() const override { return file_.string(); }

  Result<std::unique_ptr<Session>> Create(const NewSession& fields) override {
    SessionHeader h = NewHeader(fields);
    return Import(h, {});
  }

  Result<std::unique_ptr<Session>> Open(std::string_view id_or_prefix, OpenMode mode) override {
    Result<std::string> id = Resolve(id_or_prefix);
    if (!id.ok()) return id.error();
    UniqueFd lock;
    if (mode == OpenMode::kAppend) {
      Result<UniqueFd> l = Lock(*id);
      if (!l.ok()) return l.error();
      lock = std::move(*l);
    }
    return Load(*id, std::move(lock));
  }

  Result<std::string> Resolve(std::string_view id_or_prefix) override {
    std::string prefix = ToLower(Trim(id_or_prefix));
    if (!IsValidIdPrefix(prefix))
      return Error::Make("\"" + std::string(id_or_prefix) +
                             "\" is not a session id (ids are hex digits, e.g. 0193ab…)",
                         "invalid_argument");
    auto q = SqliteStmt::Prepare(*db_,
                                 "SELECT id, cwd FROM sessions WHERE substr(id, 1, ?) = ? ORDER BY id");
    if (!q.ok()) return q.error();
    q->Bind(1, static_cast<int64_t>(prefix.size())).Bind(2, prefix);
    std::vector<std::pair<std::string, std::string>> matches;
    for (;;) {
      Result<bool> row = q->Step();
      if (!row.ok()) return row.error();
      if (!*row) break;
      matches.emplace_back(q->Text(0), q->Text(1));
      if (matches.back().first == prefix) return prefix;
    }
    if (matches.empty())
      return Error::Make("no session matches \"" + prefix + "\" in " + file_.string() +
                             " (see `sepp sessions list --all`)",
                         "not_found");
    if (matches.size() > 1) {
      std::string msg = "\"" + prefix + "\" matches " + std::to_string(matches.size()) +
                        " sessions; give more of the id:";
      for (size_t i = 0; i < matches.size(); ++i) {
        if (i == 10) {
          msg += "\n  …";
          break;
        }
        msg += "\n  " + matches[i].first + "  " + matches[i].second;
      }
      return Error::Make(msg, "ambiguous");
    }
    return matches.front().first;
  }

  Result<std::string> Latest(const std::string& cwd) override {
    auto q = SqliteStmt::Prepare(
        *db_, "SELECT id FROM sessions WHERE cwd = ? ORDER BY modified_ms DESC, id DESC LIMIT 1");
    if (!q.ok()) return q.error();
    q->Bind(1, cwd);
    Result<bool> row = q->Step();
    if (!row.ok()) return row.error();
    if (!*row) return Error::Make("there is no session for " + cwd + " yet", "not_found");
    return q->Text(0);
  }

  Result<std::vector<SessionSummary>> List(const std::optional<std::string>& cwd) override {
    std::string sql =
        "SELECT id, cwd, created, modified_ms, first_prompt, message_count, parent_session "
        "FROM sessions";
    if (cwd) sql += " WHERE cwd = ?";
    sql += " ORDER BY modified_ms DESC, id DESC";
    auto q = SqliteStmt::Prepare(*db_, sql.c_str());
    if (!q.ok()) return q.error();
    if (cwd) q->Bind(1, *cwd);
    std::vector<SessionSummary> out;
    for (;;) {
      Result<bool> row = q->Step();
      if (!row.ok()) return row.error();
      if (!*row) break;
      SessionSummary s;
      s.id = q->Text(0);
      s.cwd = q->Text(1);
      s.created = q->Text(2);
      s.modified_ms = q->Int(3);
      s.first_prompt = q->Text(4);
      s.message_count = static_cast<size_t>(q->Int(5));
      s.parent_session = q->Text(6);
      out.push_back(std::move(s));
    }
    return out;
  }

  Status Remove(std::string_view id_or_prefix) override {
    Result<std::string> id = Resolve(id_or_prefix);
    if (!id.ok()) return id.error();
    Result<UniqueFd> lock = Lock(*id);
    if (!lock.ok()) return lock.error();
    if (Status s = db_->Exec("BEGIN IMMEDIATE"); !s.ok()) return s;
    Status s = Ok();
    for (const char* sql : {"DELETE FROM entries WHERE session_id = ?",
                            "DELETE FROM sessions WHERE id = ?"}) {
      auto q = SqliteStmt::Prepare(*db_, sql);
      if (!q.ok()) {
        s = q.error();
        break;
      }
      q->Bind(1, *id);
      s = q->Run();
      if (!s.ok()) break;
    }
    if (s.ok()) s = db_->Exec("COMMIT");
    if (!s.ok()) {
      (void)db_->Exec("ROLLBACK");
      return s;
    }
    ::unlink(LockPath(*id).c_str());
    return Ok();
  }

  Result<std::unique_ptr<Session>> Import(const SessionHeader& header_in,
                                          const std::vector<Entry>& entries_in) override {
    SessionHeader header = header_in;
    std::vector<Entry> entries = entries_in;
    if (Status s = PrepareImport(header, entries); !s.ok()) return s.error();
    Result<UniqueFd> lock = Lock(header.id);
    if (!lock.ok()) return lock.error();

    MessageStats stats;
    for (const Entry& e : entries) AddToMessageStats(stats, e);
    if (Status s = db_->Exec("BEGIN IMMEDIATE"); !s.ok()) return s.error();
    Status s = InsertSession(header, entries, stats);
    if (s.ok()) s = db_->Exec("COMMIT");
    if (!s.ok()) {
      (void)db_->Exec("ROLLBACK");
      return s.error();
    }
    return MakeSession(std::move(header), std::move(entries), std::move(*lock),
                       static_cast<int64_t>(entries_in.size()), std::move(stats));
  }

  // Sets WAL mode and creates the schema once. Concurrent first opens from
  // several processes are serialised by BEGIN IMMEDIATE (which honours the
  // busy timeout, unlike a lone PRAGMA write).
  Status Init() {
    Result<int64_t> version = UserVersion();
    if (!version.ok()) return version.error();
    if (*version == 0) {
      if (Status s = db_->Exec("BEGIN IMMEDIATE"); !s.ok()) return s;
      Status s = db_->Exec(kSchema);
      if (s.ok()) s = db_->Exec("PRAGMA user_version = 1");
      if (s.ok()) s = db_->Exec("COMMIT");
      if (!s.ok()) {
        (void)db_->Exec("ROLLBACK");
        return s;
      }
      version = 1;
    }
    if (*version > 1)
      return Error::Make("the session database " + file_.string() +
                             " was written by a newer sepp (schema " + std::to_string(*version) +
                             "); upgrade sepp to use it",
                         "unsupported");
    auto mode = SqliteStmt::Prepare(*db_, "PRAGMA journal_mode");
    if (!mode.ok()) return mode.error();
    Result<bool> row = mode->Step();
    if (!row.ok()) return row.error();
    if (*row && ToLower(mode->Text(0)) != "wal") {
      mode->Reset();
      // Switching needs a moment alone with the file; retry briefly.
      Status s = Ok();
      for (int attempt = 0; attempt < 50; ++attempt) {
        s = db_->Exec("PRAGMA journal_mode=WAL");
        if (s.ok()) break;
        ::usleep(20000);
      }
      if (!s.ok()) return s;
    }
    return Ok();
  }

 private:
  Result<int64_t> UserVersion() {
    auto v = SqliteStmt::Prepare(*db_, "PRAGMA user_version");
    if (!v.ok()) return v.error();
    Result<bool> row = v->Step();
    if (!row.ok()) return row.error();
    return *row ? v->Int(0) : 0;
  }

  fs::path LockPath(const std::string& id) const {
    return root_ / "sessions.db.locks" / (id + ".lock");
  }

  Result<UniqueFd> Lock(const std::string& id) {
    fs::path path = LockPath(id);
    std::error_code ec;
    fs::create_directories(path.parent_path(), ec);
    UniqueFd fd(::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600));
    if (!fd.valid())
      return Error::Make("could not create the lock file " + path.string() + ": " + ErrnoText(errno),
                         "io");
    if (Status s = LockForWriting(fd.get(), "session " + id); !s.ok()) return s.error();
    return fd;
  }

  Status InsertSession(const SessionHeader& header, const std::vector<Entry>& entries,
                       const MessageStats& stats) {
    auto exists = SqliteStmt::Prepare(*db_, "SELECT 1 FROM sessions WHERE id = ?");
    if (!exists.ok()) return exists.error();
    exists->Bind(1, header.id);
    Result<bool> row = exists->Step();
    if (!row.ok()) return row.error();
    if (*row)
      return Error::Make("session " + header.id + " already exists in " + file_.string(), "exists");
    auto ins = SqliteStmt::Prepare(
        *db_,
        "INSERT INTO sessions(id, cwd, created, modified_ms, parent_session, first_prompt, "
        "message_count, header) VALUES(?,?,?,?,?,?,?,?)");
    if (!ins.ok()) return ins.error();
    ins->Bind(1, header.id).Bind(2, header.cwd).Bind(3, header.created);
    ins->Bind(4, LastWriteMs(header, entries)).Bind(5, header.parent_session);
    ins->Bind(6, stats.first_prompt).Bind(7, static_cast<int64_t>(stats.message_count));
    ins->Bind(8, EncodeHeader(header));
    if (Status s = ins->Run(); !s.ok()) return s;
    auto insert = SqliteStmt::Prepare(*db_, kInsertEntry);
    if (!insert.ok()) return insert.error();
    int64_t seq = 0;
    for (const Entry& e : entries)
      if (Status s = InsertEntry(*insert, header.id, seq++, e, EncodeEntry(e)); !s.ok()) return s;
    return Ok();
  }

  Result<std::unique_ptr<Session>> Load(const std::string& id, UniqueFd lock) {
    auto h = SqliteStmt::Prepare(*db_, "SELECT header FROM sessions WHERE id = ?");
    if (!h.ok()) return h.error();
    h->Bind(1, id);
    Result<bool> row = h->Step();
    if (!row.ok()) return row.error();
    if (!*row) return Error::Make("session " + id + " no longer exists", "not_found");
    std::string what = "session " + id + " in " + file_.string();
    Result<SessionHeader> header = HeaderFromRow(h->Text(0), what);
    if (!header.ok()) return header.error();

    auto q = SqliteStmt::Prepare(*db_,
                                 "SELECT seq, json FROM entries WHERE session_id = ? ORDER BY seq");
    if (!q.ok()) return q.error();
    q->Bind(1, id);
    EntryRows rows;
    for (;;) {
      Result<bool> r = q->Step();
      if (!r.ok()) return r.error();
      if (!*r) break;
      rows.Add(q->Int(0), q->Text(1));
    }
    rows.Finish(what);
    return MakeSession(std::move(*header), std::move(rows.entries), std::move(lock), rows.next_seq,
                       std::move(rows.stats));
  }

  Result<std::unique_ptr<Session>> MakeSession(SessionHeader header, std::vector<Entry> entries,
                                               UniqueFd lock, int64_t next_seq,
                                               MessageStats stats) {
    std::unique_ptr<EntrySink> sink;
    if (lock.valid()) {
      // Each writable session gets its own connection: transactions on a
      // shared one would interleave if sessions are used on several threads.
      Result<std::unique_ptr<SqliteDb>> db = SqliteDb::Open(file_);
      if (!db.ok()) return db.error();
      sink = std::make_unique<SqliteSink>(std::move(*db), std::move(lock), header.id, next_seq,
                                          std::move(stats));
    }
    std::string location = "sqlite:" + file_.string() + "#" + header.id;
    return std::make_unique<Session>(std::move(header), std::move(entries), std::move(sink),
                                     std::move(location));
  }

  fs::path root_;
  fs::path file_;
  std::unique_ptr<SqliteDb> db_;
};

}  // namespace

Result<std::unique_ptr<Store>> OpenSqliteStore(const std::filesystem::path& root) {
  if (root.empty()) return Error::Make("no folder given for the session store", "invalid_argument");
  std::error_code ec;
  fs::create_directories(root, ec);
  if (ec) return Error::Make("could not create " + root.string() + ": " + ec.message(), "io");
  Result<std::unique_ptr<SqliteDb>> db = SqliteDb::Open(root / "sessions.db");
  if (!db.ok()) return db.error();
  ::chmod((root / "sessions.db").c_str(), 0600);
  auto store = std::make_unique<SqliteStore>(root, std::move(*db));
  if (Status s = store->Init(); !s.ok()) return s.error();
  return std::unique_ptr<Store>(std::move(store));
}

}  // namespace sepp::session
