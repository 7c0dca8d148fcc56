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
// session stuck. The lock key is a 32-bit hash of the id: two sessions whose
// ids collide (about one pair in four billion) cannot be written at the same
// time, nothing worse.
//
// A database that is away loses nothing: appends go to the session's outbox
// on local disk (pg_outbox.h) and are stored in order when it is back, by
// the session's flusher thread or, if the session ended first, by the next
// Open for writing on this machine. Every append is insert-once by
// (session, seq) (InsertOnce), so a retry after a lost answer never doubles
// an entry; when the connection comes back the lock is taken again, and if
// another writer wrote the session meanwhile the numbers collide and the
// outbox is set aside (kept, with an error) instead of mixing two histories.
#include "session/pg_store.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "base/clock.h"
#include "base/log.h"
#include "base/paths.h"
#include "base/sha256.h"
#include "base/strings.h"
#include "session/entry_codec.h"
#include "session/pg_event_log.h"
#include "session/pg_outbox.h"
#include "session/pg_pool.h"
#include "session/store.h"
#include "session/table_rows.h"

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

// An append that may be a retry: the entry goes in unless its seq is taken.
// The answer says whether it went in and which entry holds the seq, so a
// retry whose first answer was lost is told apart from another writer's
// entry. (The main SELECT's snapshot does not see the CTE's insert.)
constexpr const char* kInsertOnce =
    "WITH entry AS (INSERT INTO sepp_tree_entries(session_id, seq, id, parent_id, type, json) "
    "VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (session_id, seq) DO NOTHING RETURNING 1) "
    "SELECT (SELECT count(*) FROM entry), "
    "(SELECT id FROM sepp_tree_entries WHERE session_id = $1 AND seq = $2)";
// The same, updating the session's summary when the entry went in: one
// statement, one transaction, one round trip.
constexpr const char* kInsertOnceWithSummary =
    "WITH entry AS (INSERT INTO sepp_tree_entries(session_id, seq, id, parent_id, type, json) "
    "VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (session_id, seq) DO NOTHING RETURNING 1), "
    "summary AS (UPDATE sepp_tree_sessions SET modified_ms = $7, first_prompt = $8, "
    "message_count = $9 WHERE id = $1 AND EXISTS (SELECT 1 FROM entry)) "
    "SELECT (SELECT count(*) FROM entry), "
    "(SELECT id FROM sepp_tree_entries WHERE session_id = $1 AND seq = $2)";
constexpr const char* kUpdateSummary =
    "UPDATE sepp_tree_sessions SET modified_ms = $2, first_prompt = $3, message_count = $4 "
    "WHERE id = $1";

PgParams SummaryParams(const std::string& session_id, const MessageStats& stats) {
  return {session_id, std::to_string(NowMs()), stats.first_prompt,
          std::to_string(stats.message_count)};
}

// Stores one entry as number item.seq of the session unless that number is
// stored already. Ok when it went in, or was there with the same entry id
// (an earlier try landed and its answer was lost); kind "conflict" when
// another entry holds the number: another writer wrote the session while
// this one had lost the database (and with it the lock).
Status InsertOnce(PgConn& conn, const std::string& session_id, const PgOutbox::Item& item,
                  const MessageStats* summary) {
  PgParams p = {session_id,
                std::to_string(item.seq),
                item.id,
                item.parent_id.empty() ? std::nullopt : std::optional<std::string>(item.parent_id),
                item.type,
                item.line};
  if (summary) {
    PgParams more = SummaryParams(session_id, *summary);
    p.insert(p.end(), more.begin() + 1, more.end());
  }
  auto r = conn.Query(summary ? kInsertOnceWithSummary : kInsertOnce, p);
  if (!r.ok()) return r.error();
  if (r->rows.size() != 1 || r->rows[0].size() != 2)
    return Error::Make("PostgreSQL answered an append with " + std::to_string(r->rows.size()) +
                           " rows",
                       "io");
  if (Text(r->rows[0][0]) == "1" || Text(r->rows[0][1]) == item.id) return Ok();
  return Error::Make("its number " + std::to_string(item.seq) + " holds entry " +
                         Text(r->rows[0][1]) + " instead of " + item.id +
                         ": another writer wrote the session while this one had lost the database",
                     "conflict");
}

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

 private:
  PgConfig config_;
  std::string id_;
  std::unique_ptr<PgConn> conn_;
};

// Stores what a session left in its outbox (pg_outbox.h) when it ended
// before the database came back; the writer holds the session's lock.
// True when there was something to store. Entries another writer has
// overtaken are set aside (kept in a file, with an error in the log): the
// session opens with what the database has.
Result<bool> StoreLeftovers(WriterConn& writer, const PgConfig& config, const std::string& id) {
  auto box = PgOutbox::Open(config.outbox_dir, id, config.outbox_max_bytes, /*create=*/false);
  if (!box.ok()) {
    if (box.error().kind == "locked")
      return Error::Make("another sepp on this machine keeps entries of session " + id +
                             " that are not yet in " + config.Describe() + " (" +
                             box.error().message + "); wait until it has stored them",
                         "locked");
    return box.error();
  }
  if (!*box) return false;
  for (const PgOutbox::Item& item : (*box)->pending()) {
    Status s = InsertOnce(writer.conn(), id, item, nullptr);
    if (s.ok()) continue;
    if (s.error().kind != "conflict") return s.error();
    (*box)->SetAside("session " + id + ": " + s.error().message);
    return true;
  }
  log::Info("session " + id + ": stored " + std::to_string((*box)->pending().size()) +
            " entries kept in " + (*box)->path().string() + " while " + config.Describe() +
            " was away");
  (*box)->Discard();
  return true;
}

// Appends through the writer's connection. While the database is away
// (kind "unavailable": it stopped, restarted, or does not answer) entries go
// to the session's outbox on local disk, and a flusher thread stores them in
// order, with their numbers, when it is back; meanwhile later entries queue
// behind them, so the numbering stays gap-free and in order, and a retry
// never doubles an entry (InsertOnce).
class PgSink : public EntrySink {
 public:
  PgSink(std::unique_ptr<WriterConn> writer, const PgConfig& config, std::string id,
         int64_t next_seq, MessageStats stats)
      : writer_(std::move(writer)), config_(config), id_(std::move(id)), next_seq_(next_seq),
        stats_(std::move(stats)) {}

  ~PgSink() override {
    {
      std::lock_guard lock(mu_);
      stop_ = true;
      cv_.notify_all();
    }
    if (flusher_.joinable()) flusher_.join();
    // One last try (the database may be back); what is left stays on disk
    // and is stored when the session is next opened for writing here.
    std::unique_lock lock(mu_);
    if (outbox_ && !Drain(lock, /*wait=*/false))
      log::Warn("session " + id_ + ": " + std::to_string(outbox_->pending().size()) +
                " entries are still in " + outbox_->path().string() + " (" + config_.Describe() +
                " is away); they are stored when the session is next opened here");
  }

  Status Write(const Entry& entry, const std::string& line) override {
    std::lock_guard lock(mu_);
    if (failed_) return *failed_;
    PgOutbox::Item item{next_seq_, entry.id, entry.parent_id, entry.type, line};
    MessageStats stats = stats_;
    AddToMessageStats(stats, entry);
    if (!outbox_) {
      Status s = Store(item, &stats);
      if (s.ok()) return Stored(std::move(stats));
      if (s.error().kind != "unavailable") return Failed(s.error());
      auto box = PgOutbox::Open(config_.outbox_dir, id_, config_.outbox_max_bytes, true);
      if (!box.ok())
        return Failed(Error::Make(s.error().message + ", and the outbox could not be opened: " +
                                      box.error().message,
                                  box.error().kind));
      outbox_ = std::move(*box);
      log::Warn("session " + id_ + " keeps its entries in " + outbox_->path().string() +
                " until the database is back: " + s.error().message);
    }
    StartFlusher();
    if (Status s = outbox_->Add(std::move(item)); !s.ok())
      return Failed(Error::Make(config_.Describe() + " is away and " + s.error().message,
                                s.error().kind));
    return Stored(std::move(stats));
  }

 private:
  Status Stored(MessageStats stats) {
    ++next_seq_;
    stats_ = std::move(stats);
    return Ok();
  }

  Status Store(const PgOutbox::Item& item, const MessageStats* summary) {
    if (Status s = writer_->Ensure(); !s.ok()) return s;
    return InsertOnce(writer_->conn(), id_, item, summary);
  }

  // Stores the outbox front to back (mu_ held, released around each
  // statement, so Write keeps queueing). With wait it backs off and retries
  // until it is empty or the sink stops; without, one pass. True when empty.
  bool Drain(std::unique_lock<std::mutex>& lock, bool wait) {
    auto backoff = std::chrono::milliseconds(100);
    bool warned = false;
    while (outbox_) {
      if (outbox_->pending().empty()) {
        if (writer_->Ensure().ok())
          (void)writer_->conn().Query(kUpdateSummary, SummaryParams(id_, stats_));
        log::Info("session " + id_ + " is stored again in " + config_.Describe());
        outbox_->Discard();
        outbox_.reset();
        return true;
      }
      PgOutbox::Item item = outbox_->pending().front();
      Status s = Ok();
      {
        // Only this thread uses the connection while the outbox has entries.
        lock.unlock();
        s = Store(item, nullptr);
        lock.lock();
      }
      if (s.ok()) {
        outbox_->PopFront();
        backoff = std::chrono::milliseconds(100);
        continue;
      }
      if (s.error().kind == "conflict") {
        std::string kept = outbox_->SetAside("session " + id_ + ": " + s.error().message);
        failed_ = Error::Make("session " + id_ + " cannot be appended to any more: " +
                                  s.error().message + " (its entries since are kept in " + kept +
                                  ")",
                              "conflict");
        outbox_.reset();
        return true;
      }
      if (!wait || stop_) return false;
      if (!warned && s.error().kind != "unavailable")
        log::Warn("session " + id_ + ": the entries in " + outbox_->path().string() +
                  " wait: " + s.error().message);
      warned = true;
      if (cv_.wait_for(lock, backoff, [&] { return stop_; })) return false;
      backoff = std::min(backoff * 2, std::chrono::milliseconds(2000));
    }
    return true;
  }

  void StartFlusher() {
    if (flushing_) return;
    if (flusher_.joinable()) flusher_.join();  // it has let go of mu_ for good
    flushing_ = true;
    flusher_ = std::thread([this] {
      std::unique_lock lock(mu_);
      Drain(lock, /*wait=*/true);
      flushing_ = false;
    });
  }

  Error Failed(const Error& e) {
    bool keep_kind = e.kind == "locked" || e.kind == "conflict" || e.kind == "full";
    return Error::Make("could not append to session " + id_ + " in PostgreSQL: " + e.message +
                           (e.kind == "locked" ? "" : " (the entry is not stored)"),
                       keep_kind ? e.kind : "io");
  }

  std::unique_ptr<WriterConn> writer_;
  const PgConfig config_;
  const std::string id_;
  std::mutex mu_;  // everything below
  std::condition_variable cv_;
  int64_t next_seq_;
  MessageStats stats_;
  std::unique_ptr<PgOutbox> outbox_;  // while entries wait for the database
  std::optional<Error> failed_;       // the outbox was overtaken: no more appends
  bool stop_ = false;
  bool flushing_ = false;
  std::thread flusher_;
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
      Result<bool> left = StoreLeftovers(*writer, pool_.config(), *id);
      if (!left.ok()) return left.error();
      return Load(*id, std::move(writer), /*refresh_summary=*/*left);
    }
    return Load(*id, nullptr, false);
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
    const PgConfig& c = pool_.config();
    if (auto box = PgOutbox::Open(c.outbox_dir, *id, c.outbox_max_bytes, false); box.ok() && *box)
      (*box)->Discard();
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

  // refresh_summary: entries went in without the session's summary
  // (StoreLeftovers); it is set from what is read.
  Result<std::unique_ptr<Session>> Load(const std::string& id, std::unique_ptr<WriterConn> writer,
                                        bool refresh_summary) {
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
    Result<SessionHeader> header = HeaderFromRow(Text(h->rows[0][0]), what);
    if (!header.ok()) return header.error();

    auto stored = conn->Query(
        "SELECT seq, json FROM sepp_tree_entries WHERE session_id = $1 ORDER BY seq", {id});
    if (!stored.ok()) return stored.error();
    EntryRows rows;
    rows.entries.reserve(stored->rows.size());
    for (auto& row : stored->rows) rows.Add(ToInt(row[0]), Text(row[1]));
    rows.Finish(what);
    if (refresh_summary)
      if (auto r = conn->Query(kUpdateSummary, SummaryParams(id, rows.stats)); !r.ok())
        return r.error();
    return MakeSession(std::move(*header), std::move(rows.entries), std::move(writer),
                       rows.next_seq, std::move(rows.stats));
  }

  Result<std::unique_ptr<Session>> MakeSession(SessionHeader header, std::vector<Entry> entries,
                                               std::unique_ptr<WriterConn> writer,
                                               int64_t next_seq, MessageStats stats) {
    std::unique_ptr<EntrySink> sink;
    if (writer)
      sink = std::make_unique<PgSink>(std::move(writer), pool_.config(), header.id, next_seq,
                                      std::move(stats));
    std::string where = "postgres:" + location() + "#" + header.id;
    return std::make_unique<Session>(std::move(header), std::move(entries), std::move(sink),
                                     std::move(where));
  }

  PgPool pool_;
};

}  // namespace

Result<std::unique_ptr<Store>> OpenPgStore(const PgConfig& config_in) {
  PgConfig config = config_in;
  // One outbox folder per database, so entries never go to another one.
  if (config.outbox_dir.empty())
    config.outbox_dir =
        (SeppHome() / "pg-outbox" / Sha256Hex(config.Describe()).substr(0, 16)).string();
  auto store = std::make_unique<PgStore>(config);
  if (Status s = store->Migrate(); !s.ok()) return s.error();
  return std::unique_ptr<Store>(std::move(store));
}

}  // namespace sepp::session
