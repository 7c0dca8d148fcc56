#include "sidecar/store.h"

#include <algorithm>
#include <cstdio>
#include <random>

#include "base/clock.h"
#include "sidecar/chunker.h"
#include "sidecar/content_hash.h"
#include "sidecar/store_sql.h"
#include "sqlite/fts_query.h"

namespace sepp::sidecar {

using sqlite::SqliteDb;
using sqlite::SqliteStmt;

namespace {

constexpr const char* kSchema = R"sql(
CREATE TABLE IF NOT EXISTS context_sources(
  id TEXT PRIMARY KEY, project TEXT NOT NULL, session_id TEXT NOT NULL,
  tool_name TEXT NOT NULL, input_summary TEXT NOT NULL, created_ms INTEGER NOT NULL,
  byte_count INTEGER NOT NULL, line_count INTEGER NOT NULL, chunk_count INTEGER NOT NULL,
  content_hash TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS context_sources_scope ON context_sources(project, session_id, content_hash);
CREATE INDEX IF NOT EXISTS context_sources_age ON context_sources(created_ms);
CREATE TABLE IF NOT EXISTS context_chunks(
  rowid INTEGER PRIMARY KEY, source_id TEXT NOT NULL, ordinal INTEGER NOT NULL,
  title TEXT NOT NULL, content TEXT NOT NULL, UNIQUE(source_id, ordinal));
CREATE VIRTUAL TABLE IF NOT EXISTS context_chunks_fts USING fts5(
  title, content, content='context_chunks', content_rowid='rowid');
CREATE TRIGGER IF NOT EXISTS context_chunks_ai AFTER INSERT ON context_chunks BEGIN
  INSERT INTO context_chunks_fts(rowid, title, content) VALUES (new.rowid, new.title, new.content);
END;
CREATE TRIGGER IF NOT EXISTS context_chunks_ad AFTER DELETE ON context_chunks BEGIN
  INSERT INTO context_chunks_fts(context_chunks_fts, rowid, title, content)
  VALUES ('delete', old.rowid, old.title, old.content);
END;
)sql";

std::string NewSourceId() {
  static std::mutex mu;
  static std::mt19937_64 rng{std::random_device{}()};
  uint64_t r;
  {
    std::lock_guard<std::mutex> lock(mu);
    r = rng();
  }
  uint64_t ms = static_cast<uint64_t>(NowMs());
  std::string b36;
  do {
    b36.insert(b36.begin(), "0123456789abcdefghijklmnopqrstuvwxyz"[ms % 36]);
    ms /= 36;
  } while (ms);
  char hex[9];
  std::snprintf(hex, sizeof hex, "%08x", static_cast<unsigned>(r & 0xffffffffu));
  return "ctx_" + b36 + "_" + hex;
}

int64_t Lines(std::string_view text) {
  if (text.empty()) return 0;
  int64_t n = std::count(text.begin(), text.end(), '\n');
  return text.back() == '\n' ? n : n + 1;
}

}  // namespace

SourceInfo ReadSource(const SqliteStmt& q) {
  SourceInfo s;
  s.id = q.Text(0);
  s.tool_name = q.Text(1);
  s.input_summary = q.Text(2);
  s.session_id = q.Text(3);
  s.created_ms = q.Int(4);
  s.byte_count = q.Int(5);
  s.line_count = q.Int(6);
  s.chunk_count = q.Int(7);
  s.content_hash = q.Text(8);
  return s;
}

std::string ChunkId(const std::string& source_id, int64_t ordinal) {
  char n[24];
  std::snprintf(n, sizeof n, "_%04lld", static_cast<long long>(ordinal));
  return source_id + n;
}

Result<std::unique_ptr<Store>> Store::Open(const std::filesystem::path& file, Retention retention) {
  std::error_code ec;
  std::filesystem::create_directories(file.parent_path(), ec);
  auto db = SqliteDb::Open(file);
  if (!db.ok()) return db.error();
  std::unique_ptr<Store> s(new Store(std::move(*db), retention));
  if (Status st = s->Init(); !st.ok()) return st.error();
  if (auto r = s->ApplyRetention(); !r.ok()) return r.error();
  return s;
}

Status Store::Init() {
  if (Status s = db_->Exec("PRAGMA journal_mode=WAL"); !s.ok()) return s;
  if (Status s = db_->Exec(kSchema); !s.ok()) return s;
  // Version 2: what each source's captures took in and returned
  // (context_stats), and chunks_id, the source whose chunks hold the
  // content (itself, or the first source stored with the same sha256: the
  // same output is stored once, whoever stores it again). A version-1 file
  // gains the columns; its sources keep their own chunks.
  auto v = SqliteStmt::Prepare(*db_, "PRAGMA user_version");
  if (!v.ok()) return v.error();
  auto row = v->Step();
  if (!row.ok()) return row.error();
  int64_t version = *row ? v->Int(0) : 0;
  v->Reset();
  if (version < 2) {
    sqlite::SqliteTxn txn(*db_);
    if (!txn.begun().ok()) return txn.begun();
    if (Status s = db_->Exec(
            "ALTER TABLE context_sources ADD COLUMN captured_bytes INTEGER NOT NULL DEFAULT 0;"
            "ALTER TABLE context_sources ADD COLUMN returned_bytes INTEGER NOT NULL DEFAULT 0;"
            "ALTER TABLE context_sources ADD COLUMN chunks_id TEXT NOT NULL DEFAULT '';"
            "UPDATE context_sources SET chunks_id = id;"
            "PRAGMA user_version = 2;");
        !s.ok())
      return s;
    if (Status s = txn.Commit(); !s.ok()) return s;
  }
  return db_->Exec(
      "CREATE INDEX IF NOT EXISTS context_sources_hash ON context_sources(content_hash);"
      "CREATE INDEX IF NOT EXISTS context_sources_chunks ON context_sources(chunks_id);");
}

Result<SourceInfo> Store::Put(const Scope& scope, const std::string& tool_name,
                              const std::string& input_summary, const std::string& text) {
  std::lock_guard<std::mutex> lock(mu_);
  std::string hash = ContentHash(text);
  {
    auto q = SqliteStmt::Prepare(*db_, (std::string("SELECT ") + kSourceColumns +
                                        " FROM context_sources s WHERE s.project = ?1 AND "
                                        "s.session_id = ?2 AND s.content_hash = ?3 LIMIT 1").c_str());
    if (!q.ok()) return q.error();
    q->Bind(1, scope.project).Bind(2, scope.session_id).Bind(3, hash);
    auto row = q->Step();
    if (!row.ok()) return row.error();
    if (*row) {
      SourceInfo s = ReadSource(*q);
      s.duplicate = true;
      return s;
    }
  }
  // Stored before, by any scope: this source shares those chunks (scope
  // lives on the source row, so sharing them shows nothing to anyone).
  std::string chunks_id;
  int64_t shared_chunks = 0;
  {
    auto q = SqliteStmt::Prepare(*db_, "SELECT chunks_id, chunk_count FROM context_sources "
                                       "WHERE content_hash = ?1 LIMIT 1");
    if (!q.ok()) return q.error();
    q->Bind(1, hash);
    auto row = q->Step();
    if (!row.ok()) return row.error();
    if (*row) chunks_id = q->Text(0), shared_chunks = q->Int(1);
  }
  std::vector<Chunk> chunks;
  if (chunks_id.empty()) chunks = ChunkText(text);
  SourceInfo s;
  s.id = NewSourceId();
  s.tool_name = tool_name;
  s.input_summary = input_summary.substr(0, 500);
  s.session_id = scope.session_id;
  s.created_ms = NowMs();
  s.byte_count = static_cast<int64_t>(text.size());
  s.line_count = Lines(text);
  s.chunk_count = chunks_id.empty() ? static_cast<int64_t>(chunks.size()) : shared_chunks;
  s.content_hash = hash;

  sqlite::SqliteTxn txn(*db_);
  if (!txn.begun().ok()) return txn.begun().error();
  auto ins = SqliteStmt::Prepare(*db_,
      "INSERT INTO context_sources(id, project, session_id, tool_name, input_summary, created_ms, "
      "byte_count, line_count, chunk_count, content_hash, chunks_id) "
      "VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11)");
  if (!ins.ok()) return ins.error();
  ins->Bind(1, s.id).Bind(2, scope.project).Bind(3, scope.session_id).Bind(4, s.tool_name)
      .Bind(5, s.input_summary).Bind(6, s.created_ms).Bind(7, s.byte_count).Bind(8, s.line_count)
      .Bind(9, s.chunk_count).Bind(10, s.content_hash).Bind(11, chunks_id.empty() ? s.id : chunks_id);
  if (Status st = ins->Run(); !st.ok()) return st.error();
  auto chunk = SqliteStmt::Prepare(
      *db_, "INSERT INTO context_chunks(source_id, ordinal, title, content) VALUES (?1,?2,?3,?4)");
  if (!chunk.ok()) return chunk.error();
  for (size_t i = 0; i < chunks.size(); ++i) {
    chunk->Bind(1, s.id).Bind(2, static_cast<int64_t>(i + 1)).Bind(3, chunks[i].title)
        .Bind(4, chunks[i].content);
    if (Status st = chunk->Run(); !st.ok()) return st.error();
  }
  if (Status st = txn.Commit(); !st.ok()) return st.error();
  RetainAfterPut(s.byte_count);
  return s;
}

Result<std::vector<StoredChunk>> Store::Search(const Scope& scope, const std::string& query,
                                               const SearchOptions& o) {
  std::vector<StoredChunk> out;
  std::vector<std::string> terms = sqlite::FtsTerms(query);
  if (terms.empty()) return out;
  std::string match = sqlite::JoinFtsTerms(terms, sqlite::FtsJoin::kAll);
  std::lock_guard<std::mutex> lock(mu_);
  // Words that every chunk has ("error" in a build log) would make BM25
  // score every chunk: with a rare word among them the AND is driven by
  // it; when all are common, the newest matching chunks come first.
  auto rare = sqlite::RareFtsTerms(*db_, "context_chunks_fts", terms);
  if (!rare.ok()) return rare.error();
  const char* order = rare->empty() ? "ORDER BY context_chunks_fts.rowid DESC"
                                    : "ORDER BY bm25(context_chunks_fts, 5.0, 1.0)";
  auto q = SqliteStmt::Prepare(*db_, (std::string(
      "SELECT s.id, c.ordinal, c.title, c.content, s.tool_name, "
      "snippet(context_chunks_fts, 1, '', '', ' … ', 40) "
      "FROM context_chunks_fts JOIN context_chunks c ON c.rowid = context_chunks_fts.rowid "
      "JOIN context_sources s ON s.chunks_id = c.source_id "
      "WHERE context_chunks_fts MATCH ?3 AND ") + kScopeWhere +
      " AND (?4 = '' OR s.id = ?4) AND (?5 = '' OR s.tool_name = ?5) " + order +
      " LIMIT ?6").c_str());
  if (!q.ok()) return q.error();
  q->Bind(1, scope.project).Bind(2, o.whole_project ? std::string() : scope.session_id)
      .Bind(3, match).Bind(4, o.source_id).Bind(5, o.tool_name)
      .Bind(6, std::clamp<int64_t>(o.limit, 1, 25));
  for (;;) {
    auto row = q->Step();
    if (!row.ok()) return row.error();
    if (!*row) break;
    out.push_back({q->Text(0), q->Int(1), q->Text(2), q->Text(3), q->Text(4), q->Text(5)});
  }
  return out;
}

Result<std::optional<SourceInfo>> Store::Source(const Scope& scope, const std::string& source_id,
                                                bool whole_project) {
  std::lock_guard<std::mutex> lock(mu_);
  auto q = SqliteStmt::Prepare(*db_, (std::string("SELECT ") + kSourceColumns +
                                      " FROM context_sources s WHERE s.id = ?3 AND " + kScopeWhere)
                                         .c_str());
  if (!q.ok()) return q.error();
  q->Bind(1, scope.project).Bind(2, whole_project ? std::string() : scope.session_id)
      .Bind(3, source_id);
  auto row = q->Step();
  if (!row.ok()) return row.error();
  if (!*row) return std::optional<SourceInfo>();
  return std::optional<SourceInfo>(ReadSource(*q));
}

Result<std::vector<StoredChunk>> Store::Chunks(const Scope& scope, const std::string& source_id,
                                               int64_t first, int64_t last, bool whole_project) {
  std::lock_guard<std::mutex> lock(mu_);
  auto q = SqliteStmt::Prepare(*db_, (std::string(
      "SELECT s.id, c.ordinal, c.title, c.content, s.tool_name FROM context_sources s "
      "JOIN context_chunks c ON c.source_id = s.chunks_id WHERE s.id = ?3 AND ") + kScopeWhere +
      " AND c.ordinal BETWEEN ?4 AND ?5 ORDER BY c.ordinal").c_str());
  if (!q.ok()) return q.error();
  q->Bind(1, scope.project).Bind(2, whole_project ? std::string() : scope.session_id)
      .Bind(3, source_id).Bind(4, first).Bind(5, last);
  std::vector<StoredChunk> out;
  for (;;) {
    auto row = q->Step();
    if (!row.ok()) return row.error();
    if (!*row) break;
    out.push_back({q->Text(0), q->Int(1), q->Text(2), q->Text(3), q->Text(4), ""});
  }
  return out;
}

namespace {

// Deletes the sources the SELECT (one column: id) names, and their chunks
// when no other source shares them.
Result<int64_t> DeleteSources(SqliteDb& db, SqliteStmt& select) {
  std::vector<std::string> ids;
  for (;;) {
    auto row = select.Step();
    if (!row.ok()) return row.error();
    if (!*row) break;
    ids.push_back(select.Text(0));
  }
  select.Reset();
  if (ids.empty()) return int64_t{0};
  sqlite::SqliteTxn txn(db);
  if (!txn.begun().ok()) return txn.begun().error();
  auto owner = SqliteStmt::Prepare(db, "SELECT chunks_id FROM context_sources WHERE id = ?1");
  auto sources = SqliteStmt::Prepare(db, "DELETE FROM context_sources WHERE id = ?1");
  auto chunks = SqliteStmt::Prepare(db,
      "DELETE FROM context_chunks WHERE source_id = ?1 AND "
      "NOT EXISTS (SELECT 1 FROM context_sources WHERE chunks_id = ?1)");
  if (!owner.ok()) return owner.error();
  if (!sources.ok()) return sources.error();
  if (!chunks.ok()) return chunks.error();
  for (const auto& id : ids) {
    owner->Bind(1, id);
    auto row = owner->Step();
    if (!row.ok()) return row.error();
    std::string chunks_id = *row ? owner->Text(0) : id;
    owner->Reset();
    sources->Bind(1, id);
    if (Status st = sources->Run(); !st.ok()) return st.error();
    chunks->Bind(1, chunks_id);
    if (Status st = chunks->Run(); !st.ok()) return st.error();
  }
  if (Status st = txn.Commit(); !st.ok()) return st.error();
  return static_cast<int64_t>(ids.size());
}

}  // namespace

Result<int64_t> Store::ApplyRetention() {
  std::lock_guard<std::mutex> lock(mu_);
  return ApplyRetentionLocked();
}

void Store::RetainAfterPut(int64_t added) {
  added_since_retention_ += added;
  bool hour = NowMs() - retained_ms_ >= 3600 * 1000ll;
  bool eighth = retention_.max_total_bytes > 0 &&
                added_since_retention_ * 8 >= retention_.max_total_bytes;
  if (!hour && !eighth) return;
  // A failure here is not the Put's: the source is stored; the next
  // Put (or the next Open) tries again.
  (void)ApplyRetentionLocked();
}

Result<int64_t> Store::ApplyRetentionLocked() {
  retained_ms_ = NowMs();
  added_since_retention_ = 0;
  int64_t gone = 0;
  if (retention_.max_age_days > 0) {
    auto q = SqliteStmt::Prepare(*db_, "SELECT id FROM context_sources WHERE created_ms < ?1");
    if (!q.ok()) return q.error();
    q->Bind(1, NowMs() - retention_.max_age_days * 86400000ll);
    auto n = DeleteSources(*db_, *q);
    if (!n.ok()) return n.error();
    gone += *n;
  }
  if (retention_.max_total_bytes > 0) {
    // Newest first, keeping sources while the running total fits.
    auto q = SqliteStmt::Prepare(*db_,
        "SELECT id FROM (SELECT id, SUM(byte_count) OVER (ORDER BY created_ms DESC, rowid DESC) AS "
        "total FROM context_sources) WHERE total > ?1");
    if (!q.ok()) return q.error();
    q->Bind(1, retention_.max_total_bytes);
    auto n = DeleteSources(*db_, *q);
    if (!n.ok()) return n.error();
    gone += *n;
  }
  return gone;
}

Result<int64_t> Store::Purge(const Scope& scope, bool whole_project) {
  PurgeOptions o;
  o.whole_project = whole_project;
  return PurgeWhere(scope, o);
}

Result<int64_t> Store::PurgeFolder(const std::string& folder) {
  std::string f = folder;
  while (f.size() > 1 && f.back() == '/') f.pop_back();
  if (f.empty() || f[0] != '/') return Error{"not an absolute folder: '" + folder + "'", "usage"};
  std::lock_guard<std::mutex> lock(mu_);
  // A prefix compared with substr, not LIKE: '%' and '_' in a path are
  // ordinary characters, and "/a/wt" must not take "/a/wt2".
  auto q = SqliteStmt::Prepare(*db_,
      "SELECT id FROM context_sources WHERE project = ?1 OR "
      "substr(project, 1, length(?1) + 1) = ?1 || '/'");
  if (!q.ok()) return q.error();
  q->Bind(1, f);
  return DeleteSources(*db_, *q);
}

Result<int64_t> Store::PurgeWhere(const Scope& scope, const PurgeOptions& o) {
  std::lock_guard<std::mutex> lock(mu_);
  auto q = SqliteStmt::Prepare(*db_, (std::string("SELECT s.id FROM context_sources s WHERE ") +
                                      kScopeWhere +
                                      " AND (?3 = '' OR s.id = ?3) AND (?4 = '' OR s.session_id = ?4)"
                                      " AND (?5 = 0 OR s.created_ms < ?5)").c_str());
  if (!q.ok()) return q.error();
  q->Bind(1, scope.project).Bind(2, o.whole_project ? std::string() : scope.session_id)
      .Bind(3, o.source_id).Bind(4, o.session_id).Bind(5, o.older_than_ms);
  return DeleteSources(*db_, *q);
}

}  // namespace sepp::sidecar
