// Durable memory: short facts and preferences a model keeps for later
// sessions, in one SQLite database ($SEPP_HOME/memory.db).
//
// Every memory has a level: "global" (the user's, seen in all of the
// user's projects), "project" (seen only in that project's sessions) or
// "session" (only in that session). A MemoryView is what one session may
// see: its user, its project, its session. Every statement that reads or
// changes a memory carries the view in its WHERE clause, so an id from
// another project (guessed, or seen in a log) is "not found" in this one,
// for get, update and delete alike — unlike sage, whose get and delete
// ignore scope.
//
// Schema (user_version 1):
//   memories(rowid INTEGER PRIMARY KEY, id TEXT UNIQUE, user_id TEXT,
//            level TEXT, project TEXT, session_id TEXT, text TEXT,
//            metadata TEXT, hash TEXT, created_ms INTEGER, updated_ms INTEGER,
//            embed_model TEXT, embedding BLOB,       -- f32, L2-normalised
//            UNIQUE(user_id, level, project, session_id, hash))
//   memories_fts USING fts5(text, tokenize='porter unicode61'), external
//            content memories, kept in step by triggers
//   memory_history(id INTEGER PRIMARY KEY, memory_id TEXT, event TEXT,
//            old TEXT, new TEXT, ts INTEGER)          -- ADD/UPDATE/DELETE
// A global memory has project = session_id = ""; a project one session_id
// = "". The same text added twice at one level is stored once (dedupe on
// the sha256 of its whitespace-normalised text).
//
// Search is BM25 over FTS5 (offline, deterministic). With an Embedder it
// is hybrid: the BM25 candidates and the nearest embeddings are merged and
// scored (cosine + normalised BM25) / 2; the embeddings are held in memory
// after the first hybrid search (a brute-force dot product over 100k × 384
// floats takes a few ms, so no ANN index).
//
// Thread-safe: one connection behind a mutex.
#pragma once
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "base/json.h"
#include "base/result.h"
#include "sqlite/sqlite_db.h"

namespace sepp::memory {

struct MemoryView {
  std::string user;
  std::string project;     // a stable key of the project (its repository)
  std::string session_id;  // "" outside a session: session memories refused
};

// "global", "project", "session"; anything else is an error naming them.
Result<std::string> CheckLevel(const std::string& level);

struct Memory {
  std::string id;
  std::string level;
  std::string text;
  Json metadata = Json::object();
  int64_t created_ms = 0, updated_ms = 0;
  double score = 0;        // search only, 0..1
  bool duplicate = false;  // Add: the same text was already there
};

// Turns texts into vectors (any length, same for all); an error when the
// endpoint fails. Optional: memory works without one.
struct Embedder {
  std::string model;  // recorded per row: a model change re-embeds
  std::function<Result<std::vector<std::vector<float>>>(const std::vector<std::string>&)> embed;
};

struct SearchOptions {
  std::string level;   // "" every level the view sees
  int64_t top_k = 5;   // at most 50
  double threshold = 0;
};

struct ListOptions {
  std::string level;
  int64_t limit = 20;  // at most 100
  int64_t offset = 0;
};

struct Counts {
  int64_t global = 0, project = 0, session = 0, embedded = 0;
};

class Store {
 public:
  static Result<std::unique_ptr<Store>> Open(const std::filesystem::path& file);

  // embedder may be null (BM25 only).
  void set_embedder(std::shared_ptr<const Embedder> embedder);
  bool hybrid() const { return embedder_ != nullptr; }
  const std::filesystem::path& file() const { return file_; }

  Result<Memory> Add(const MemoryView& view, const std::string& level, const std::string& text,
                     const Json& metadata);
  Result<std::vector<Memory>> Search(const MemoryView& view, const std::string& query,
                                     const SearchOptions& options);
  // nullopt: no such memory in what view sees.
  Result<std::optional<Memory>> Get(const MemoryView& view, const std::string& id);
  Result<std::optional<Memory>> Update(const MemoryView& view, const std::string& id,
                                       const std::string& text, const Json* metadata);
  Result<bool> Delete(const MemoryView& view, const std::string& id);
  Result<std::vector<Memory>> List(const MemoryView& view, const ListOptions& options);
  Result<Counts> Count(const MemoryView& view);

  // For benchmarks and imports: many memories in one transaction, no
  // embeddings.
  Status AddMany(const MemoryView& view, const std::string& level,
                 const std::vector<std::string>& texts);

 private:
  Store(std::unique_ptr<sqlite::SqliteDb> db, std::filesystem::path file)
      : db_(std::move(db)), file_(std::move(file)) {}
  Status Init();
  Result<std::string> EmbedOne(const std::string& text);  // a BLOB, or "" without embedder
  Status LoadVectors();                                   // mu_ held
  // mu_ held; blob "" forgets the row.
  void Remember(int64_t rowid, const std::string& blob, const MemoryView& view, const std::string& level);

  std::mutex mu_;
  std::unique_ptr<sqlite::SqliteDb> db_;
  std::filesystem::path file_;
  std::shared_ptr<const Embedder> embedder_;
  // rowid -> embedding of the current model and the row's scope, loaded at
  // the first hybrid search and kept in step by Add/Update/Delete. The
  // scope is checked before ranking (so other projects' vectors cannot
  // crowd a view's own out of the candidates) and again in SQL.
  struct Vector {
    std::string user, level, project, session_id;
    std::vector<float> v;
  };
  bool vectors_loaded_ = false;
  std::map<int64_t, Vector> vectors_;
};

}  // namespace sepp::memory
