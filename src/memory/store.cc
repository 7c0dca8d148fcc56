#include "memory/store.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "base/clock.h"
#include "base/ids.h"
#include "base/sha256.h"
#include "sqlite/fts_query.h"

namespace sepp::memory {

using sqlite::SqliteDb;
using sqlite::SqliteStmt;

namespace {

constexpr const char* kSchema = R"sql(
CREATE TABLE IF NOT EXISTS memories(
  rowid INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, user_id TEXT NOT NULL,
  level TEXT NOT NULL, project TEXT NOT NULL, session_id TEXT NOT NULL,
  text TEXT NOT NULL, metadata TEXT NOT NULL, hash TEXT NOT NULL,
  created_ms INTEGER NOT NULL, updated_ms INTEGER NOT NULL,
  embed_model TEXT NOT NULL DEFAULT '', embedding BLOB,
  UNIQUE(user_id, level, project, session_id, hash));
CREATE VIRTUAL TABLE IF NOT EXISTS memories_fts USING fts5(
  text, content='memories', content_rowid='rowid', tokenize='porter unicode61');
CREATE TRIGGER IF NOT EXISTS memories_ai AFTER INSERT ON memories BEGIN
  INSERT INTO memories_fts(rowid, text) VALUES (new.rowid, new.text);
END;
CREATE TRIGGER IF NOT EXISTS memories_ad AFTER DELETE ON memories BEGIN
  INSERT INTO memories_fts(memories_fts, rowid, text) VALUES ('delete', old.rowid, old.text);
END;
CREATE TRIGGER IF NOT EXISTS memories_au AFTER UPDATE OF text ON memories BEGIN
  INSERT INTO memories_fts(memories_fts, rowid, text) VALUES ('delete', old.rowid, old.text);
  INSERT INTO memories_fts(rowid, text) VALUES (new.rowid, new.text);
END;
CREATE TABLE IF NOT EXISTS memory_history(
  id INTEGER PRIMARY KEY, memory_id TEXT NOT NULL, event TEXT NOT NULL,
  old TEXT, new TEXT, ts INTEGER NOT NULL);
PRAGMA user_version = 1;
)sql";

// What a view may see: ?1 user, ?2 project, ?3 session. Part of every
// statement that touches a memory.
constexpr const char* kVisible =
    "m.user_id = ?1 AND (m.level = 'global' OR (m.level = 'project' AND m.project = ?2) OR "
    "(m.level = 'session' AND m.project = ?2 AND m.session_id = ?3 AND ?3 != ''))";

constexpr const char* kColumns = "m.rowid, m.id, m.level, m.text, m.metadata, m.created_ms, m.updated_ms";

void BindView(SqliteStmt& q, const MemoryView& v) {
  q.Bind(1, v.user).Bind(2, v.project).Bind(3, v.session_id);
}

Memory ReadMemory(const SqliteStmt& q) {
  Memory m;
  m.id = q.Text(1);
  m.level = q.Text(2);
  m.text = q.Text(3);
  m.metadata = Json::parse(q.Text(4), nullptr, false);
  if (m.metadata.is_discarded()) m.metadata = Json::object();
  m.created_ms = q.Int(5);
  m.updated_ms = q.Int(6);
  return m;
}

// Collapses runs of whitespace, so "a  b" and "a b\n" are one memory.
std::string Normalized(const std::string& text) {
  std::string out;
  bool space = false;
  for (char c : text) {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      space = !out.empty();
      continue;
    }
    if (space) out += ' ';
    space = false;
    out += c;
  }
  return out;
}

std::string ToBlob(std::vector<float> v) {
  double norm = 0;
  for (float x : v) norm += double(x) * x;
  norm = std::sqrt(norm);
  if (norm > 0)
    for (float& x : v) x = static_cast<float>(x / norm);
  std::string b(v.size() * sizeof(float), '\0');
  std::memcpy(b.data(), v.data(), b.size());
  return b;
}

std::vector<float> FromBlob(const std::string& b) {
  std::vector<float> v(b.size() / sizeof(float));
  std::memcpy(v.data(), b.data(), v.size() * sizeof(float));
  return v;
}

// BM25 from SQLite is negative, lower is better; this maps it to 0..1.
double NormalizeBm25(double bm25) {
  double s = -bm25;
  return s <= 0 ? 0 : s / (s + 3.0);
}

// Of common terms (each in 1,000 memories or more), those not in most of
// the newest 1,000 memories; the least frequent one when all are. A word
// in most memories weighs nothing in BM25 (FTS5 clamps its IDF), yet the
// first bm25() of a query reads its whole doclist for that IDF (~10 ms for
// "the" at 100,000 memories), so leaving it out of the AND costs only the
// memories that lack it.
Result<std::vector<std::string>> WithoutEverywhereTerms(SqliteDb& db,
                                                        const std::vector<std::string>& terms) {
  auto q = SqliteStmt::Prepare(db,
      "SELECT count(*) FROM memories_fts WHERE memories_fts MATCH ?1 AND "
      "memories_fts.rowid > (SELECT coalesce(max(rowid), 0) FROM memories) - 1000");
  if (!q.ok()) return q.error();
  std::vector<std::string> kept;
  std::string least;
  int64_t least_rows = INT64_MAX;
  for (const auto& t : terms) {
    q->Bind(1, t);
    auto row = q->Step();
    if (!row.ok()) return row.error();
    int64_t n = *row ? q->Int(0) : 0;
    q->Reset();
    if (n <= 500) kept.push_back(t);
    if (n < least_rows) least = t, least_rows = n;
  }
  if (kept.empty() && !least.empty()) kept.push_back(least);
  return kept;
}

Status History(SqliteDb& db, const std::string& id, const char* event, const std::string* old_text,
               const std::string* new_text) {
  auto q = SqliteStmt::Prepare(db, "INSERT INTO memory_history(memory_id, event, old, new, ts) "
                                   "VALUES (?1, ?2, ?3, ?4, ?5)");
  if (!q.ok()) return q.error();
  q->Bind(1, id).Bind(2, std::string_view(event));
  if (old_text) q->Bind(3, *old_text); else q->BindNull(3);
  if (new_text) q->Bind(4, *new_text); else q->BindNull(4);
  q->Bind(5, NowMs());
  return q->Run();
}

}  // namespace

Result<std::string> CheckLevel(const std::string& level) {
  if (level == "global" || level == "project" || level == "session") return level;
  return Error::Make("Invalid scope \"" + level.substr(0, 40) +
                     "\": use \"project\" (this project only), \"global\" (all of your projects) or "
                     "\"session\" (this session only).");
}

Result<std::unique_ptr<Store>> Store::Open(const std::filesystem::path& file) {
  std::error_code ec;
  std::filesystem::create_directories(file.parent_path(), ec);
  auto db = SqliteDb::Open(file);
  if (!db.ok()) return db.error();
  std::unique_ptr<Store> s(new Store(std::move(*db), file));
  if (Status st = s->Init(); !st.ok()) return st.error();
  return s;
}

Status Store::Init() {
  if (Status s = db_->Exec("PRAGMA journal_mode=WAL"); !s.ok()) return s;
  return db_->Exec(kSchema);
}

void Store::set_embedder(std::shared_ptr<const Embedder> embedder) {
  std::lock_guard<std::mutex> lock(mu_);
  embedder_ = std::move(embedder);
  vectors_loaded_ = false;
  vectors_.clear();
}

Result<std::string> Store::EmbedOne(const std::string& text) {
  if (!embedder_) return std::string();
  auto v = embedder_->embed({text});
  if (!v.ok()) return v.error();
  if (v->size() != 1 || v->front().empty())
    return Error::Make("the embeddings endpoint returned no vector");
  return ToBlob(std::move(v->front()));
}

void Store::Remember(int64_t rowid, const std::string& blob, const MemoryView& view,
                     const std::string& level) {
  if (!vectors_loaded_) return;
  if (blob.empty()) {
    vectors_.erase(rowid);
    return;
  }
  vectors_[rowid] = {view.user, level, level == "global" ? "" : view.project,
                     level == "session" ? view.session_id : "", FromBlob(blob)};
}

namespace {
// The C++ twin of kVisible, for the in-memory vectors.
template <typename V>
bool Sees(const MemoryView& view, const V& row) {
  if (row.user != view.user) return false;
  if (row.level == "global") return true;
  if (row.project != view.project) return false;
  return row.level == "project" || (!view.session_id.empty() && row.session_id == view.session_id);
}
}  // namespace

Result<Memory> Store::Add(const MemoryView& view, const std::string& level, const std::string& text,
                          const Json& metadata) {
  auto lv = CheckLevel(level);
  if (!lv.ok()) return lv.error();
  if (level == "session" && view.session_id.empty())
    return Error::Make("There is no session to keep a session memory in: use scope \"project\".");
  std::string project = level == "global" ? "" : view.project;
  std::string session = level == "session" ? view.session_id : "";
  std::string hash = Sha256Hex(Normalized(text));
  std::lock_guard<std::mutex> lock(mu_);
  {
    auto q = SqliteStmt::Prepare(*db_, (std::string("SELECT ") + kColumns +
        " FROM memories m WHERE m.user_id = ?1 AND m.level = ?4 AND m.project = ?2 AND "
        "m.session_id = ?3 AND m.hash = ?5").c_str());
    if (!q.ok()) return q.error();
    q->Bind(1, view.user).Bind(2, project).Bind(3, session).Bind(4, level).Bind(5, hash);
    auto row = q->Step();
    if (!row.ok()) return row.error();
    if (*row) {
      Memory m = ReadMemory(*q);
      m.duplicate = true;
      return m;
    }
  }
  auto blob = EmbedOne(text);
  if (!blob.ok()) return Error::Make("could not embed the memory: " + blob.error().message);
  Memory m;
  m.id = "mem_" + NewId();
  m.level = level;
  m.text = text;
  m.metadata = metadata.is_object() ? metadata : Json::object();
  m.created_ms = m.updated_ms = NowMs();
  sqlite::SqliteTxn txn(*db_);
  if (!txn.begun().ok()) return txn.begun().error();
  auto q = SqliteStmt::Prepare(*db_,
      "INSERT INTO memories(id, user_id, level, project, session_id, text, metadata, hash, "
      "created_ms, updated_ms, embed_model, embedding) VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?9,?10,?11)");
  if (!q.ok()) return q.error();
  q->Bind(1, m.id).Bind(2, view.user).Bind(3, level).Bind(4, project).Bind(5, session).Bind(6, text)
      .Bind(7, m.metadata.dump()).Bind(8, hash).Bind(9, m.created_ms)
      .Bind(10, blob->empty() ? std::string() : embedder_->model);
  if (blob->empty()) q->BindNull(11); else q->BindBlob(11, *blob);
  if (Status st = q->Run(); !st.ok()) return st.error();
  int64_t rowid = db_->LastInsertRowid();
  if (Status st = History(*db_, m.id, "ADD", nullptr, &text); !st.ok()) return st.error();
  if (Status st = txn.Commit(); !st.ok()) return st.error();
  Remember(rowid, *blob, view, level);
  return m;
}

Status Store::AddMany(const MemoryView& view, const std::string& level,
                      const std::vector<std::string>& texts) {
  auto lv = CheckLevel(level);
  if (!lv.ok()) return lv.error();
  std::string project = level == "global" ? "" : view.project;
  std::string session = level == "session" ? view.session_id : "";
  std::lock_guard<std::mutex> lock(mu_);
  sqlite::SqliteTxn txn(*db_);
  if (!txn.begun().ok()) return txn.begun();
  auto q = SqliteStmt::Prepare(*db_,
      "INSERT OR IGNORE INTO memories(id, user_id, level, project, session_id, text, metadata, hash, "
      "created_ms, updated_ms) VALUES (?1,?2,?3,?4,?5,?6,'{}',?7,?8,?8)");
  if (!q.ok()) return q.error();
  int64_t now = NowMs();
  for (const auto& t : texts) {
    q->Bind(1, "mem_" + NewId()).Bind(2, view.user).Bind(3, level).Bind(4, project).Bind(5, session)
        .Bind(6, t).Bind(7, Sha256Hex(Normalized(t))).Bind(8, now);
    if (Status st = q->Run(); !st.ok()) return st;
  }
  if (Status st = txn.Commit(); !st.ok()) return st;
  vectors_loaded_ = false;
  vectors_.clear();
  return Ok();
}

Status Store::LoadVectors() {
  if (vectors_loaded_ || !embedder_) return Ok();
  auto q = SqliteStmt::Prepare(*db_, "SELECT rowid, embedding, user_id, level, project, session_id "
                                     "FROM memories WHERE embed_model = ?1 AND embedding IS NOT NULL");
  if (!q.ok()) return q.error();
  q->Bind(1, embedder_->model);
  vectors_.clear();
  for (;;) {
    auto row = q->Step();
    if (!row.ok()) return row.error();
    if (!*row) break;
    vectors_[q->Int(0)] = {q->Text(2), q->Text(3), q->Text(4), q->Text(5), FromBlob(q->Blob(1))};
  }
  vectors_loaded_ = true;
  return Ok();
}

Result<std::vector<Memory>> Store::Search(const MemoryView& view, const std::string& query,
                                          const SearchOptions& o) {
  if (!o.level.empty()) {
    auto lv = CheckLevel(o.level);
    if (!lv.ok()) return lv.error();
  }
  int64_t k = std::clamp<int64_t>(o.top_k, 1, 50);
  int64_t pool = std::max<int64_t>(4 * k, 60);
  std::vector<std::string> terms = sqlite::FtsTerms(query);
  // The query's vector, asked for before taking the lock (an HTTP call).
  std::vector<float> qvec;
  std::shared_ptr<const Embedder> embedder;
  {
    std::lock_guard<std::mutex> lock(mu_);
    embedder = embedder_;
  }
  if (embedder) {
    auto v = embedder->embed({query});
    if (!v.ok()) return Error::Make("could not embed the query: " + v.error().message);
    if (v->size() == 1) qvec = FromBlob(ToBlob(std::move(v->front())));
  }
  std::lock_guard<std::mutex> lock(mu_);
  std::map<int64_t, double> bm25n, cosine;
  // Any of the words may match (a question's words are not all in the
  // answer), but only the rarest: "the" in 100,000 memories would make
  // BM25 score all of them, and so would five words in 900 each
  // (sqlite/fts_query.h; the rarest carry the ranking anyway). When every
  // word is common, all of them must match (but words in most memories),
  // and the newest `pool` such memories are ranked (BM25 over the
  // thousands of rows that hold common words costs tens of milliseconds
  // and tells them apart by little more than length).
  std::string match;
  bool newest = false;
  if (!terms.empty()) {
    auto rare = sqlite::RarestFtsTerms(*db_, "memories_fts", terms);
    if (!rare.ok()) return rare.error();
    newest = rare->empty();
    if (newest) {
      auto kept = WithoutEverywhereTerms(*db_, terms);
      if (!kept.ok()) return kept.error();
      match = sqlite::JoinFtsTerms(*kept, sqlite::FtsJoin::kAll);
    } else {
      match = sqlite::JoinFtsTerms(*rare, sqlite::FtsJoin::kAny);
    }
  }
  if (!match.empty()) {
    auto q = SqliteStmt::Prepare(*db_, (std::string(
        "SELECT m.rowid, bm25(memories_fts) FROM memories_fts JOIN memories m ON m.rowid = "
        "memories_fts.rowid WHERE memories_fts MATCH ?4 AND ") + kVisible +
        " AND (?5 = '' OR m.level = ?5) ORDER BY " +
        (newest ? "memories_fts.rowid DESC" : "bm25(memories_fts)") + " LIMIT ?6").c_str());
    if (!q.ok()) return q.error();
    BindView(*q, view);
    q->Bind(4, match).Bind(5, o.level).Bind(6, pool);
    for (;;) {
      auto row = q->Step();
      if (!row.ok()) return row.error();
      if (!*row) break;
      bm25n[q->Int(0)] = NormalizeBm25(q->Double(1));
    }
  }
  if (!qvec.empty()) {
    if (Status st = LoadVectors(); !st.ok()) return st.error();
    std::vector<std::pair<double, int64_t>> best;
    for (const auto& [rowid, row] : vectors_) {
      const std::vector<float>& v = row.v;
      if (v.size() != qvec.size() || !Sees(view, row)) continue;
      if (!o.level.empty() && row.level != o.level) continue;
      double dot = 0;
      for (size_t i = 0; i < v.size(); ++i) dot += double(v[i]) * qvec[i];
      best.push_back({dot, rowid});
    }
    size_t n = std::min<size_t>(best.size(), static_cast<size_t>(pool) * 4);
    std::partial_sort(best.begin(), best.begin() + n, best.end(),
                      [](const auto& a, const auto& b) { return a.first > b.first; });
    best.resize(n);
    for (const auto& [dot, rowid] : best) cosine[rowid] = std::max(0.0, dot);
    // BM25 hits need their cosine too.
    for (auto& [rowid, s] : bm25n) {
      (void)s;
      if (cosine.count(rowid)) continue;
      auto it = vectors_.find(rowid);
      if (it == vectors_.end() || it->second.v.size() != qvec.size()) continue;
      double dot = 0;
      for (size_t i = 0; i < qvec.size(); ++i) dot += double(it->second.v[i]) * qvec[i];
      cosine[rowid] = std::max(0.0, dot);
    }
  }
  std::vector<std::pair<double, int64_t>> ranked;
  std::map<int64_t, bool> seen;
  for (const auto& [rowid, s] : bm25n) seen[rowid] = true;
  for (const auto& [rowid, s] : cosine) seen[rowid] = true;
  for (const auto& [rowid, unused] : seen) {
    (void)unused;
    double b = bm25n.count(rowid) ? bm25n[rowid] : 0;
    double score = qvec.empty() ? b : (b + (cosine.count(rowid) ? cosine[rowid] : 0)) / 2;
    if (score <= 0 || score < o.threshold) continue;
    ranked.push_back({score, rowid});
  }
  std::sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first > b.first : a.second > b.second;
  });
  // Each winner is read through the view again: a vector candidate is
  // only shown when SQL agrees the view may see it.
  auto get = SqliteStmt::Prepare(*db_, (std::string("SELECT ") + kColumns +
                                        " FROM memories m WHERE m.rowid = ?4 AND " + kVisible +
                                        " AND (?5 = '' OR m.level = ?5)").c_str());
  if (!get.ok()) return get.error();
  std::vector<Memory> out;
  for (const auto& [score, rowid] : ranked) {
    if (static_cast<int64_t>(out.size()) >= k) break;
    BindView(*get, view);
    get->Bind(4, rowid).Bind(5, o.level);
    auto row = get->Step();
    if (!row.ok()) return row.error();
    if (*row) {
      Memory m = ReadMemory(*get);
      m.score = score;
      out.push_back(std::move(m));
    }
    get->Reset();
  }
  return out;
}

Result<std::optional<Memory>> Store::Get(const MemoryView& view, const std::string& id) {
  std::lock_guard<std::mutex> lock(mu_);
  auto q = SqliteStmt::Prepare(*db_, (std::string("SELECT ") + kColumns +
                                      " FROM memories m WHERE m.id = ?4 AND " + kVisible).c_str());
  if (!q.ok()) return q.error();
  BindView(*q, view);
  q->Bind(4, id);
  auto row = q->Step();
  if (!row.ok()) return row.error();
  if (!*row) return std::optional<Memory>();
  return std::optional<Memory>(ReadMemory(*q));
}

Result<std::optional<Memory>> Store::Update(const MemoryView& view, const std::string& id,
                                            const std::string& text, const Json* metadata) {
  auto current = Get(view, id);
  if (!current.ok()) return current.error();
  if (!*current) return std::optional<Memory>();
  auto blob = EmbedOne(text);
  if (!blob.ok()) return Error::Make("could not embed the memory: " + blob.error().message);
  std::lock_guard<std::mutex> lock(mu_);
  Memory m = **current;
  sqlite::SqliteTxn txn(*db_);
  if (!txn.begun().ok()) return txn.begun().error();
  auto q = SqliteStmt::Prepare(*db_, (std::string(
      "UPDATE memories AS m SET text = ?5, hash = ?6, metadata = ?7, updated_ms = ?8, "
      "embed_model = ?9, embedding = ?10 WHERE m.id = ?4 AND ") + kVisible + " RETURNING rowid").c_str());
  if (!q.ok()) return q.error();
  BindView(*q, view);
  Json meta = metadata && metadata->is_object() ? *metadata : m.metadata;
  q->Bind(4, id).Bind(5, text).Bind(6, Sha256Hex(Normalized(text))).Bind(7, meta.dump())
      .Bind(8, NowMs()).Bind(9, blob->empty() ? std::string() : embedder_->model);
  if (blob->empty()) q->BindNull(10); else q->BindBlob(10, *blob);
  auto row = q->Step();
  if (!row.ok()) {
    std::string msg = row.error().message;
    if (msg.find("UNIQUE") != std::string::npos)
      return Error::Make("an equal memory already exists at this scope; delete this one instead");
    return row.error();
  }
  if (!*row) return std::optional<Memory>();
  int64_t rowid = q->Int(0);
  q->Reset();
  if (Status st = History(*db_, id, "UPDATE", &m.text, &text); !st.ok()) return st.error();
  if (Status st = txn.Commit(); !st.ok()) return st.error();
  Remember(rowid, *blob, view, m.level);
  m.text = text;
  m.metadata = meta;
  m.updated_ms = NowMs();
  return std::optional<Memory>(m);
}

Result<bool> Store::Delete(const MemoryView& view, const std::string& id) {
  std::lock_guard<std::mutex> lock(mu_);
  sqlite::SqliteTxn txn(*db_);
  if (!txn.begun().ok()) return txn.begun().error();
  auto q = SqliteStmt::Prepare(*db_, (std::string("DELETE FROM memories AS m WHERE m.id = ?4 AND ") +
                                      kVisible + " RETURNING rowid, text").c_str());
  if (!q.ok()) return q.error();
  BindView(*q, view);
  q->Bind(4, id);
  auto row = q->Step();
  if (!row.ok()) return row.error();
  if (!*row) return false;
  int64_t rowid = q->Int(0);
  std::string old = q->Text(1);
  q->Reset();
  if (Status st = History(*db_, id, "DELETE", &old, nullptr); !st.ok()) return st.error();
  if (Status st = txn.Commit(); !st.ok()) return st.error();
  Remember(rowid, "", view, "");
  return true;
}

Result<std::vector<Memory>> Store::List(const MemoryView& view, const ListOptions& o) {
  if (!o.level.empty()) {
    auto lv = CheckLevel(o.level);
    if (!lv.ok()) return lv.error();
  }
  std::lock_guard<std::mutex> lock(mu_);
  auto q = SqliteStmt::Prepare(*db_, (std::string("SELECT ") + kColumns + " FROM memories m WHERE " +
                                      kVisible + " AND (?4 = '' OR m.level = ?4) "
                                      "ORDER BY m.updated_ms DESC, m.rowid DESC LIMIT ?5 OFFSET ?6").c_str());
  if (!q.ok()) return q.error();
  BindView(*q, view);
  q->Bind(4, o.level).Bind(5, std::clamp<int64_t>(o.limit, 1, 100)).Bind(6, std::max<int64_t>(0, o.offset));
  std::vector<Memory> out;
  for (;;) {
    auto row = q->Step();
    if (!row.ok()) return row.error();
    if (!*row) break;
    out.push_back(ReadMemory(*q));
  }
  return out;
}

Result<Counts> Store::Count(const MemoryView& view) {
  std::lock_guard<std::mutex> lock(mu_);
  auto q = SqliteStmt::Prepare(*db_, (std::string(
      "SELECT m.level, COUNT(*), SUM(m.embedding IS NOT NULL) FROM memories m WHERE ") + kVisible +
      " GROUP BY m.level").c_str());
  if (!q.ok()) return q.error();
  BindView(*q, view);
  Counts c;
  for (;;) {
    auto row = q->Step();
    if (!row.ok()) return row.error();
    if (!*row) break;
    std::string level = q->Text(0);
    int64_t n = q->Int(1);
    (level == "global" ? c.global : level == "project" ? c.project : c.session) = n;
    c.embedded += q->Int(2);
  }
  return c;
}

}  // namespace sepp::memory
