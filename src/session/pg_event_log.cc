// The PostgreSQL event log. Schema, by migration (sepp_schema_migrations
// holds the versions applied; a server applies the missing ones at start
// under an advisory lock, so servers starting together take turns):
//   1  sepp_streams(stream PRIMARY KEY, last_seq)      the per-stream counter
//      sepp_events(stream, seq, time_ms, data, PRIMARY KEY(stream, seq))
//      sepp_append(stream, seq or NULL, time_ms, data) -> seq
//   2  sepp_served_sessions(id PRIMARY KEY, created_ms, record)
//   3  sepp_tree_sessions, sepp_tree_entries: the agents' session trees
//      (pg_store.cc)
//
// An append is one call of sepp_append, one round trip and one transaction:
// it locks the stream's counter row (a second writer waits for the first to
// commit), takes the next number, inserts the event and NOTIFYs
// "sepp_events" with "<seq> <stream>". The counter moves only with a
// committed event, so numbers are gap-free and in commit order, whichever
// server writes; the NOTIFY is sent at commit, so a listener never hears of
// an event it cannot read yet.
//
// A listener thread holds its own connection with LISTEN sepp_events and
// announces what it hears (EventLog::Announce). When that connection is lost
// it wakes every waiter (who re-read: nothing is missed, only late) and
// dials again with backoff.
#include "session/pg_event_log.h"

#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <thread>

#include "base/fd.h"
#include "base/log.h"
#include "base/clock.h"
#include "session/event_log.h"
#include "session/pg_pool.h"

namespace sepp::session {
namespace {

struct Migration {
  int version;
  const char* sql;
};

// Append-only: a released version is never edited, a change is a new one.
constexpr Migration kMigrations[] = {
    {1, R"sql(
CREATE TABLE sepp_streams(stream text PRIMARY KEY, last_seq bigint NOT NULL);
CREATE TABLE sepp_events(stream text NOT NULL, seq bigint NOT NULL, time_ms bigint NOT NULL,
                         data text NOT NULL, PRIMARY KEY(stream, seq));
CREATE FUNCTION sepp_append(p_stream text, p_seq bigint, p_time_ms bigint, p_data text)
RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
  next_seq bigint;
BEGIN
  INSERT INTO sepp_streams(stream, last_seq) VALUES (p_stream, 0) ON CONFLICT (stream) DO NOTHING;
  UPDATE sepp_streams SET last_seq = last_seq + 1 WHERE stream = p_stream
    RETURNING last_seq INTO next_seq;
  IF p_seq IS NOT NULL AND p_seq < next_seq THEN
    RAISE EXCEPTION 'event % of % is stored already', p_seq, p_stream USING ERRCODE = '23505';
  ELSIF p_seq IS NOT NULL AND p_seq > next_seq THEN
    RAISE EXCEPTION 'event % of % would leave a gap (the next is %)', p_seq, p_stream, next_seq
      USING ERRCODE = 'P0001';
  END IF;
  INSERT INTO sepp_events(stream, seq, time_ms, data) VALUES (p_stream, next_seq, p_time_ms, p_data);
  PERFORM pg_notify('sepp_events', next_seq || ' ' || p_stream);
  RETURN next_seq;
END $$;
)sql"},
    {2, R"sql(
CREATE TABLE sepp_served_sessions(id text PRIMARY KEY, created_ms bigint NOT NULL,
                                  record text NOT NULL);
)sql"},
    {3, R"sql(
CREATE TABLE sepp_tree_sessions(
  id text PRIMARY KEY, cwd text NOT NULL, created text NOT NULL, modified_ms bigint NOT NULL,
  parent_session text NOT NULL DEFAULT '', first_prompt text NOT NULL DEFAULT '',
  message_count bigint NOT NULL DEFAULT 0, header text NOT NULL);
CREATE INDEX sepp_tree_sessions_by_cwd ON sepp_tree_sessions(cwd, modified_ms);
CREATE TABLE sepp_tree_entries(
  session_id text NOT NULL REFERENCES sepp_tree_sessions(id) ON DELETE CASCADE,
  seq bigint NOT NULL, id text NOT NULL, parent_id text, type text NOT NULL, json text NOT NULL,
  PRIMARY KEY(session_id, seq));
)sql"},
};

// Any number for pg_advisory_xact_lock that other software is unlikely to use.
constexpr const char* kMigrationLock = "7355608014";

int64_t ToInt(const std::optional<std::string>& v) {
  return v ? std::strtoll(v->c_str(), nullptr, 10) : 0;
}

class PgEventLog : public EventLog {
 public:
  explicit PgEventLog(PgConfig config)
      : pool_(std::move(config)), stop_fd_(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {}
  ~PgEventLog() override {
    stopping_ = true;
    uint64_t one = 1;
    (void)!::write(stop_fd_.get(), &one, sizeof one);
    if (listener_.joinable()) listener_.join();
  }

  std::string_view kind() const override { return "postgres"; }
  std::string location() const override { return pool_.config().Describe(); }

  Status Migrate() {
    auto c = pool_.Acquire();
    if (!c.ok()) return c.error();
    return ApplyPgMigrations(**c, location());
  }

  // The first LISTEN happens before Open returns, so no append after it
  // goes unheard; the thread keeps it up.
  Status StartListening() {
    auto conn = PgConn::Connect(pool_.config());
    if (!conn.ok()) return conn.error();
    if (auto r = (*conn)->Exec("LISTEN sepp_events"); !r.ok()) return r.error();
    listener_ = std::thread([this, c = std::shared_ptr<PgConn>(std::move(*conn))]() mutable {
      Listen(std::move(c));
    });
    return Ok();
  }

  Status Append(std::string_view stream, int64_t seq, int64_t time_ms,
                std::string_view data) override {
    auto r = Call(stream, std::to_string(seq), time_ms, data);
    if (!r.ok()) return r.error();
    return Ok();
  }

  Result<int64_t> AppendNext(std::string_view stream, int64_t time_ms,
                             std::string_view data) override {
    return Call(stream, std::nullopt, time_ms, data);
  }

  Result<std::vector<LoggedEvent>> Read(std::string_view stream, int64_t after,
                                        size_t limit) override {
    // The numbers are gap-free, so the page is the range (after, after +
    // limit]: bounded whatever plan the server picks (with stale statistics
    // it would otherwise sort every event past `after` for each page, and a
    // replay would cost the square of its length).
    auto rows = Query(
        "SELECT seq, time_ms, data FROM sepp_events WHERE stream = $1 AND seq > $2 AND seq <= $2 "
        "+ $3::bigint ORDER BY seq LIMIT $3",
        {std::string(stream), std::to_string(after), std::to_string(limit)});
    if (!rows.ok()) return rows.error();
    std::vector<LoggedEvent> out;
    out.reserve(rows->rows.size());
    for (auto& row : rows->rows)
      out.push_back({ToInt(row[0]), ToInt(row[1]), row[2] ? std::move(*row[2]) : std::string()});
    return out;
  }

  Result<int64_t> Count(std::string_view stream, int64_t after, int64_t upto) override {
    auto rows = Query(
        "SELECT COUNT(*) FROM sepp_events WHERE stream = $1 AND seq > $2 AND seq <= $3",
        {std::string(stream), std::to_string(after), std::to_string(upto)});
    if (!rows.ok()) return rows.error();
    return rows->rows.empty() ? 0 : ToInt(rows->rows[0][0]);
  }

  Result<int64_t> LastSeq(std::string_view stream) override {
    auto rows = Query("SELECT last_seq FROM sepp_streams WHERE stream = $1", {std::string(stream)});
    if (!rows.ok()) return rows.error();
    return rows->rows.empty() ? 0 : ToInt(rows->rows[0][0]);
  }

  Status AddSession(const std::string& id, const Json& record) override {
    auto rows = Query(
        "INSERT INTO sepp_served_sessions(id, created_ms, record) VALUES ($1, $2, $3) "
        "ON CONFLICT (id) DO NOTHING RETURNING id",
        {id, std::to_string(NowMs()), DumpJson(record)});
    if (!rows.ok()) return rows.error();
    if (rows->rows.empty())
      return Error::Make("a session " + id + " exists in the PostgreSQL store (on this server or "
                         "another)",
                         "exists");
    return Ok();
  }

  Status UpdateSession(const std::string& id, const Json& record) override {
    auto rows = Query("UPDATE sepp_served_sessions SET record = $2 WHERE id = $1",
                      {id, DumpJson(record)});
    if (!rows.ok()) return rows.error();
    return Ok();
  }

  Result<std::vector<Json>> Sessions() override {
    auto rows = Query("SELECT record FROM sepp_served_sessions ORDER BY created_ms, id", {});
    if (!rows.ok()) return rows.error();
    std::vector<Json> out;
    for (auto& row : rows->rows) {
      if (!row[0]) continue;
      auto j = ParseJson(*row[0]);
      if (j.ok() && j->is_object()) out.push_back(std::move(*j));
    }
    return out;
  }

 private:
  Result<PgRows> Query(std::string_view sql, const PgParams& params) {
    auto c = pool_.Acquire();
    if (!c.ok()) return c.error();
    return (*c)->Query(sql, params);
  }

  Result<int64_t> Call(std::string_view stream, std::optional<std::string> seq, int64_t time_ms,
                       std::string_view data) {
    auto rows = Query("SELECT sepp_append($1, $2, $3, $4)",
                      {std::string(stream), std::move(seq), std::to_string(time_ms),
                       std::string(data)});
    if (!rows.ok()) {
      Error e = rows.error();
      if (e.kind == "pg_23505") e.kind = "exists";
      if (e.kind == "pg_P0001") e.kind = "conflict";
      return e;
    }
    if (rows->rows.empty() || rows->rows[0].empty()) return Error::Make("sepp_append returned nothing", "io");
    int64_t seq_out = ToInt(rows->rows[0][0]);
    Announce(stream, seq_out);  // this server's readers need not wait for the echo
    return seq_out;
  }

  // The listener thread: LISTEN, announce, reconnect.
  void Listen(std::shared_ptr<PgConn> first) {
    double backoff = 0.1;
    bool was_lost = false;
    while (!stopping_) {
      std::shared_ptr<PgConn> conn = std::move(first);
      if (!conn) {
        auto dialled = PgConn::Connect(pool_.config());
        if (dialled.ok() && (*dialled)->Exec("LISTEN sepp_events").ok())
          conn = std::move(*dialled);
      }
      if (conn) {
        backoff = 0.1;
        if (was_lost) {
          log::Info("the event log is listening to " + location() + " again");
          AnnounceAll();  // what was appended meanwhile is read now
        }
        was_lost = false;
        while (!stopping_) {
          auto got = conn->WaitNotifications(5.0, stop_fd_.get());
          if (!got.ok()) break;
          for (const PgNotification& n : *got) {
            size_t space = n.payload.find(' ');
            if (space == std::string::npos) continue;
            Announce(std::string_view(n.payload).substr(space + 1),
                     std::strtoll(n.payload.c_str(), nullptr, 10));
          }
        }
      }
      if (stopping_) break;
      if (!was_lost) log::Warn("the event log lost the connection that listens to " + location() +
                               "; live events from other servers wait until it is back");
      was_lost = true;
      AnnounceAll();
      // Waits out the backoff, or the stop signal.
      pollfd p{stop_fd_.get(), POLLIN, 0};
      ::poll(&p, 1, static_cast<int>(backoff * 1000));
      backoff = std::min(backoff * 2, 2.0);
    }
  }

  PgPool pool_;
  UniqueFd stop_fd_;
  std::atomic<bool> stopping_{false};
  std::thread listener_;
};

}  // namespace

Status ApplyPgMigrations(PgConn& conn, const std::string& location) {
  auto run = [&]() -> Status {
    if (auto r = conn.Exec("BEGIN; SELECT pg_advisory_xact_lock(" + std::string(kMigrationLock) +
                           "); CREATE TABLE IF NOT EXISTS sepp_schema_migrations(version int "
                           "PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())");
        !r.ok())
      return r.error();
    auto applied = conn.Exec("SELECT COALESCE(MAX(version), 0) FROM sepp_schema_migrations");
    if (!applied.ok()) return applied.error();
    int64_t have = applied->rows.empty() ? 0 : ToInt(applied->rows[0][0]);
    int64_t known = kMigrations[std::size(kMigrations) - 1].version;
    if (have > known)
      return Error::Make("the PostgreSQL store " + location +
                             " was written by a newer sepp (schema " + std::to_string(have) +
                             ", this one knows " + std::to_string(known) +
                             "); upgrade sepp to use it",
                         "unsupported");
    for (const Migration& m : kMigrations) {
      if (m.version <= have) continue;
      if (auto r = conn.Exec(m.sql); !r.ok()) return r.error();
      if (auto r = conn.Exec("INSERT INTO sepp_schema_migrations(version) VALUES (" +
                             std::to_string(m.version) + ")");
          !r.ok())
        return r.error();
    }
    if (auto r = conn.Exec("COMMIT"); !r.ok()) return r.error();
    return Ok();
  };
  Status s = run();
  if (!s.ok() && !conn.broken()) (void)conn.Exec("ROLLBACK");
  return s;
}


Result<std::unique_ptr<EventLog>> OpenPgEventLog(const PgConfig& config) {
  auto log = std::make_unique<PgEventLog>(config);
  if (Status s = log->Migrate(); !s.ok()) return s.error();
  if (Status s = log->StartListening(); !s.ok()) return s.error();
  return std::unique_ptr<EventLog>(std::move(log));
}

}  // namespace sepp::session
