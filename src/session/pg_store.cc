// The PostgreSQL session store. Tables (migration 3, pg_event_log.cc):
//
//   sepp_tree_sessions(id PRIMARY KEY, cwd, created, modified_ms,
//                      parent_session, first_prompt, message_count,
//                      header)        -- header: the JSONL header line
//   sepp_tree_entries(session_id, seq, id, parent_id, type,
//                     json,           -- json: the JSONL entry line
//                     PRIMARY KEY(session_id, seq))
//
// The same rows as the SQLite store's, so a record is byte-for-byte what the
// JSONL store writes. Entries are read back in seq order, which is append
// order: the tree, its branches and the leaf come back as they were made.
// An append is one statement (insert the entry, update the session's
// summary), hence one transaction and one round trip.
//
// Writer exclusion: a writable session holds its own connection with a
// session-level advisory lock on (kTreeLockSpace, hashtext(id)); a second
// writer, from this server or another on the database, gets kind "locked".
// The lock ends with the connection, so a crashed server never leaves a
// session stuck. When the connection is lost (the database restarted or
// went away) the next append dials again and retakes the lock; if another
// writer took the session meanwhile, the append fails "locked". After a
// reconnect the next number is read from the table (an append whose answer
// was lost may have landed), so numbers never collide. The lock key is a
// 32-bit hash of the id: two sessions whose ids collide (about one pair in
// four billion) cannot be written at the same time, nothing worse.
#include "session/pg_store.h"

#include <algorithm>

#include "base/clock.h"
#include "base/log.h"
#include "base/strings.h"
#include "session/entry_codec.h"
#include "session/pg_event_log.h"
#include "session/pg_pool.h"
#include "session/store.h"

namespace sepp::session {
namespace {

// The first key of the writer locks (pg_try_advisory_lock(int, int)); the
// migration lock uses the one-key form, so the two never meet.
constexpr const char* kTreeLockSpace = "735560";

int64_t ToInt(const std::optional<std::string>& v) {
  return v ? std::strtoll(v->c_str(), nullptr, 10) : 0;
}

std::string Text(const std::optional<std::string>& v) { return v ? *v : std::string(); }

PgParams EntryParams(const std::string& session_id, int64_t seq, const Entry& e,
                     const std::string& line) {
  return {session_id,
          std::to_string(seq),
          e.id,
          e.parent_id.empty() ? std::nullopt : std::optional<std::string>(e.parent_id),
          e.type,
          line};
}

constexpr const char* kInsertEntry =
    "INSERT INTO sepp_tree_entries(session_id, seq, id, parent_id, type, json) "
    "VALUES ($1, $2, $3, $4, $5, $6)";

// The writer's connection, holding the session's lock.
class WriterConn {
 public:
  WriterConn(PgConfig config, std::string id) : config_(std::move(config)), id_(std::move(id)) {}

  // Dials (if there is no healthy connection) and takes the lock.
  Status Ensure() {
    if (conn_ && !conn_->broken()) return Ok();
    conn_.reset();
    auto c = PgConn::Connect(config_);
    if (!c.ok()) return c.error();
    auto got = (*c)->Query(std::string("SELECT pg_try_advisory_lock(") + kTreeLockSpace +
                               ", hashtext($1))",
                           {id_});
    if (!got.ok()) return got.error();
    if (got->rows.empty() || Text(got->rows[0][0]) != "t")
      return Error::Make("session " + id_ + " is open for writing by another sepp (on this "
                         "server or another one on " + config_.Describe() +
                         "); wait until it ends, or open it read-only",
                         "locked");
    conn_ = std::move(*c);
    return Ok();
  }
  PgConn& conn() { return *conn_; }
  bool connected() const { return conn_ && !conn_->broken(); }

 private:
  PgConfig config_;
  std::string id_;
  std::unique_ptr<PgConn> conn_;
};

class PgSink : public EntrySink {
 public:
  PgSink(std::unique_ptr<WriterConn> writer, std::string id, int64_t next_seq, MessageStats stats)
      : writer_(std::move(writer)), id_(std::move(id)), next_seq_(next_seq),
        stats_(std::move(stats)) {}

  Status Write(const Entry& entry, const std::string& line) override {
    bool lost = !writer_->connected();
    if (Status s = writer_->Ensure(); !s.ok()) return Failed(s.error());
    if (lost) {
      // The last append's answer may have been lost with the connection:
      // the stored tail tells whether it (this very entry) went in.
      auto tail = writer_->conn().Query(
          "SELECT seq, id FROM sepp_tree_entries WHERE session_id = $1 ORDER BY seq DESC LIMIT 1",
          {id_});
      if (!tail.ok()) return Failed(tail.error());
      int64_t last = tail->rows.empty() ? -1 : ToInt(tail->rows[0][0]);
      next_seq_ = last + 1;
      if (!tail->rows.empty() && Text(tail->rows[0][1]) == entry.id) {
        AddToMessageStats(stats_, entry);
        return Ok();
      }
    }
    MessageStats stats = stats_;
    AddToMessageStats(stats, entry);
    PgParams p = EntryParams(id_, next_seq_, entry, line);
    p.push_back(std::to_string(NowMs()));
    p.push_back(stats.first_prompt);
    p.push_back(std::to_string(stats.message_count));
    auto r = writer_->conn().Query(
        std::string("WITH entry AS (") + kInsertEntry +
            ") UPDATE sepp_tree_sessions SET modified_ms = $7, first_prompt = $8, "
            "message_count = $9 WHERE id = $1",
        p);
    if (!r.ok()) return Failed(r.error());
    ++next_seq_;
    stats_ = std::move(stats);
    return Ok();
  }

 private:
  Error Failed(const Error& e) {
    std::string hint = e.kind == "locked" ? "" : " (the entry is not stored)";
    return Error::Make("could not append to session " + id_ + " in PostgreSQL: " + e.message + hint,
                       e.kind == "locked" ? "locked" : "io");
  }

  std::unique_ptr<WriterConn> writer_;
  std::string id_;
  int64_t next_seq_;
  MessageStats stats_;
};

class PgStore : public Store {
 public:
  explicit PgStore(PgConfig config) : pool_(std::move(config)) {}

  StoreKind kind() const override { return StoreKind::kPostgres; }
  std::string location() const override { return pool_.config().Describe(); }

  Status Migrate() {
    auto c = pool_.Acquire();
    if (!c.ok()) return c.error();
    return ApplyPgMigrations(**c, location());
  }

  Result<std::unique_ptr<Session>> Create(const NewSession& fields) override {
    return Import(NewHeader(fields), {});
  }

  Result<std::unique_ptr<Session>> Open(std::string_view id_or_prefix, OpenMode mode) override {
    Result<std::string> id = Resolve(id_or_prefix);
    if (!id.ok()) return id.error();
    std::unique_ptr<WriterConn> writer;
    if (mode == OpenMode::kAppend) {
      writer = std::make_unique<WriterConn>(pool_.config(), *id);
      if (Status s = writer->Ensure(); !s.ok()) return s.error();
    }
    return Load(*id, std::move(writer));
  }

  Result<std::string> Resolve(std::string_view id_or_prefix) override {
    std::string prefix = ToLower(Trim(id_or_prefix));
    if (!IsValidIdPrefix(prefix))
      return Error::Make("\"" + std::string(id_or_prefix) +
                             "\" is not a session id (ids are hex digits, e.g. 0193ab…)",
                         "invalid_argument");
    auto rows = Query(
        "SELECT id, cwd FROM sepp_tree_sessions WHERE left(id, length($1)) = $1 ORDER BY id "
        "LIMIT 11",
        {prefix});
    if (!rows.ok()) return rows.error();
    for (auto& row : rows->rows)
      if (Text(row[0]) == prefix) return prefix;
    if (rows->rows.empty())
      return Error::Make("no session matches \"" + prefix + "\" in " + location() +
                             " (see GET /v1/sessions)",
                         "not_found");
    if (rows->rows.size() > 1) {
      std::string msg = "\"" + prefix + "\" matches several sessions; give more of the id:";
      for (size_t i = 0; i < rows->rows.size() && i < 10; ++i)
        msg += "\n  " + Text(rows->rows[i][0]) + "  " + Text(rows->rows[i][1]);
      if (rows->rows.size() > 10) msg += "\n  …";
      return Error::Make(msg, "ambiguous");
    }
    return Text(rows->rows[0][0]);
  }

  Result<std::string> Latest(const std::string& cwd) override {
    auto rows = Query(
        "SELECT id FROM sepp_tree_sessions WHERE cwd = $1 ORDER BY modified_ms DESC, id DESC "
        "LIMIT 1",
        {cwd});
    if (!rows.ok()) return rows.error();
    if (rows->rows.empty()) return Error::Make("there is no session for " + cwd + " yet", "not_found");
    return Text(rows->rows[0][0]);
  }

  Result<std::vector<SessionSummary>> List(const std::optional<std::string>& cwd) override {
    std::string sql =
        "SELECT id, cwd, created, modified_ms, first_prompt, message_count, parent_session "
        "FROM sepp_tree_sessions";
    PgParams params;
    if (cwd) {
      sql += " WHERE cwd = $1";
      params.push_back(*cwd);
    }
    sql += " ORDER BY modified_ms DESC, id DESC";
    auto rows = Query(sql, params);
    if (!rows.ok()) return rows.error();
    std::vector<SessionSummary> out;
    for (auto& row : rows->rows) {
      SessionSummary s;
      s.id = Text(row[0]);
      s.cwd = Text(row[1]);
      s.created = Text(row[2]);
      s.modified_ms = ToInt(row[3]);
      s.first_prompt = Text(row[4]);
      s.message_count = static_cast<size_t>(ToInt(row[5]));
      s.parent_session = Text(row[6]);
      out.push_back(std::move(s));
    }
    return out;
  }

  Status Remove(std::string_view id_or_prefix) override {
    Result<std::string> id = Resolve(id_or_prefix);
    if (!id.ok()) return id.error();
    WriterConn writer(pool_.config(), *id);  // no writer may have it open
    if (Status s = writer.Ensure(); !s.ok()) return s;
    auto r = writer.conn().Query("DELETE FROM sepp_tree_sessions WHERE id = $1", {*id});
    if (!r.ok()) return r.error();
    return Ok();
  }

  Result<std::unique_ptr<Session>> Import(const SessionHeader& header_in,
                                          const std::vector<Entry>& entries_in) override {
    SessionHeader header = header_in;
    std::vector<Entry> entries = entries_in;
    if (Status s = PrepareImport(header, entries); !s.ok()) return s.error();
    auto writer = std::make_unique<WriterConn>(pool_.config(), header.id);
    if (Status s = writer->Ensure(); !s.ok()) return s.error();
    MessageStats stats;
    for (const Entry& e : entries) AddToMessageStats(stats, e);
    PgConn& conn = writer->conn();
    auto run = [&]() -> Status {
      if (auto r = conn.Exec("BEGIN"); !r.ok()) return r.error();
      auto ins = conn.Query(
          "INSERT INTO sepp_tree_sessions(id, cwd, created, modified_ms, parent_session, "
          "first_prompt, message_count, header) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) "
          "ON CONFLICT (id) DO NOTHING RETURNING id",
          {header.id, header.cwd, header.created, std::to_string(LastWriteMs(header, entries)),
           header.parent_session, stats.first_prompt, std::to_string(stats.message_count),
           EncodeHeader(header)});
      if (!ins.ok()) return ins.error();
      if (ins->rows.empty())
        return Error::Make("session " + header.id + " already exists in " + location(), "exists");
      int64_t seq = 0;
      for (const Entry& e : entries)
        if (auto r = conn.Query(kInsertEntry, EntryParams(header.id, seq++, e, EncodeEntry(e)));
            !r.ok())
          return r.error();
      if (auto r = conn.Exec("COMMIT"); !r.ok()) return r.error();
      return Ok();
    };
    if (Status s = run(); !s.ok()) {
      if (!conn.broken()) (void)conn.Exec("ROLLBACK");
      return s.error();
    }
    int64_t next_seq = static_cast<int64_t>(entries.size());
    return MakeSession(std::move(header), std::move(entries), std::move(writer), next_seq,
                       std::move(stats));
  }

 private:
  Result<PgRows> Query(std::string_view sql, const PgParams& params) {
    auto c = pool_.Acquire();
    if (!c.ok()) return c.error();
    return (*c)->Query(sql, params);
  }

  Result<std::unique_ptr<Session>> Load(const std::string& id, std::unique_ptr<WriterConn> writer) {
    // Read on the writer's own connection when there is one: it holds the
    // lock, so what it reads is all there is.
    std::optional<PgPool::Lease> lease;
    PgConn* conn = nullptr;
    if (writer) {
      conn = &writer->conn();
    } else {
      auto c = pool_.Acquire();
      if (!c.ok()) return c.error();
      lease.emplace(std::move(*c));
      conn = &**lease;
    }
    auto h = conn->Query("SELECT header FROM sepp_tree_sessions WHERE id = $1", {id});
    if (!h.ok()) return h.error();
    if (h->rows.empty()) return Error::Make("session " + id + " no longer exists", "not_found");
    std::string what = "session " + id + " in " + location();
    Result<Json> hj = ParseRecord(Text(h->rows[0][0]));
    if (!hj.ok())
      return Error::Make(what + " has an unreadable header: " + hj.error().message,
                         "invalid_header");
    Result<SessionHeader> header = HeaderFromJson(std::move(*hj));
    if (!header.ok()) return Error::Make(what + ": " + header.error().message, "invalid_header");

    auto rows = conn->Query(
        "SELECT seq, json FROM sepp_tree_entries WHERE session_id = $1 ORDER BY seq", {id});
    if (!rows.ok()) return rows.error();
    std::vector<Entry> entries;
    entries.reserve(rows->rows.size());
    int64_t next_seq = 0;
    size_t bad = 0;
    MessageStats stats;
    for (auto& row : rows->rows) {
      next_seq = ToInt(row[0]) + 1;
      Result<Entry> e = EntryFromText(Text(row[1]));
      if (!e.ok()) {
        ++bad;
        continue;
      }
      AddToMessageStats(stats, *e);
      entries.push_back(std::move(*e));
    }
    if (bad) log::Warn(what + ": skipped " + std::to_string(bad) + " unreadable entries");
    return MakeSession(std::move(*header), std::move(entries), std::move(writer), next_seq,
                       std::move(stats));
  }

  Result<std::unique_ptr<Session>> MakeSession(SessionHeader header, std::vector<Entry> entries,
                                               std::unique_ptr<WriterConn> writer,
                                               int64_t next_seq, MessageStats stats) {
    std::unique_ptr<EntrySink> sink;
    if (writer)
      sink = std::make_unique<PgSink>(std::move(writer), header.id, next_seq, std::move(stats));
    std::string where = "postgres:" + location() + "#" + header.id;
    return std::make_unique<Session>(std::move(header), std::move(entries), std::move(sink),
                                     std::move(where));
  }

  PgPool pool_;
};

}  // namespace

Result<std::unique_ptr<Store>> OpenPgStore(const PgConfig& config) {
  auto store = std::make_unique<PgStore>(config);
  if (Status s = store->Migrate(); !s.ok()) return s.error();
  return std::unique_ptr<Store>(std::move(store));
}

}  // namespace sepp::session
