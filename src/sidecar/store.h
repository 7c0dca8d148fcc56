// The output sidecar's store: one SQLite database ($SEPP_HOME/context.db)
// holding the oversized tool outputs of every session, each under its
// scope (project + session), chunked (chunker.h) and indexed with FTS5.
//
// Schema (user_version 2):
//   context_sources(id TEXT PRIMARY KEY, project TEXT, session_id TEXT,
//                   tool_name TEXT, input_summary TEXT, created_ms INTEGER,
//                   byte_count INTEGER, line_count INTEGER,
//                   chunk_count INTEGER, content_hash TEXT,
//                   captured_bytes INTEGER, returned_bytes INTEGER,
//                   chunks_id TEXT)
//     (captured/returned: what the captures of this source took in and
//     what their receipts put in the context, for context_stats; chunks_id:
//     the source whose chunks hold the content; version 2 added them)
//   context_chunks(rowid INTEGER PRIMARY KEY, source_id TEXT, ordinal INTEGER,
//                  title TEXT, content TEXT, UNIQUE(source_id, ordinal))
//   context_chunks_fts USING fts5(title, content), external content
//                  context_chunks, kept in step by triggers
// Search ranks with bm25(title 5, content 1), as pi-context does.
//
// Every read names its scope and only ever sees rows of that project (and,
// unless widened, that session): the scope is part of each statement's
// WHERE clause, never a filter applied afterwards. A source stored twice in
// one scope (same sha256) is reused; stored by another scope, it gets its
// own source row sharing the chunks already stored (dedupe: the content is
// stored once; chunks go with the last source that uses them). Old sources
// go by age (retention) and, oldest first, by total size.
//
// Thread-safe: one connection behind a mutex (tool calls run in parallel);
// other sepp processes share the file through WAL and the busy timeout.
#pragma once
#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "sqlite/sqlite_db.h"

namespace sepp::sidecar {

struct Scope {
  std::string project;     // the workspace's absolute path
  std::string session_id;  // "" outside a session: the project alone
};

struct Retention {
  int64_t max_age_days = 7;          // 0: keep
  int64_t max_total_bytes = 512ll << 20;  // 0: no cap
};

// SEPP_CONTEXT_RETENTION_DAYS (default 7; 0, "off" or "keep": keep) and
// SEPP_CONTEXT_MAX_MB (default 512; 0 or "off": no cap). A value that is
// not a whole number in range is an error naming the variable.
Result<Retention> RetentionFromEnvironment();

struct SourceInfo {
  std::string id;
  std::string tool_name;
  std::string input_summary;
  std::string session_id;
  int64_t created_ms = 0;
  int64_t byte_count = 0;
  int64_t line_count = 0;
  int64_t chunk_count = 0;
  std::string content_hash;
  bool duplicate = false;  // Put: an equal source of the scope was reused
};

struct StoredChunk {
  std::string source_id;
  int64_t ordinal = 0;  // 1-based
  std::string title;
  std::string content;
  std::string tool_name;
  std::string snippet;  // search only
};

// "<source>_0007": what context_get takes (an ordinal "7" works too).
std::string ChunkId(const std::string& source_id, int64_t ordinal);

// context_list's filters; created_ms bounds are in ms since the epoch.
struct ListOptions {
  std::string source_id;   // "" any
  std::string tool_name;   // "" any
  std::string session_id;  // "" any of the scope (a session of the project)
  int64_t newer_than_ms = 0;  // created at or after; 0: no bound
  int64_t older_than_ms = 0;  // created before; 0: no bound
  int64_t limit = 10;      // 1..50
  int64_t offset = 0;
  bool whole_project = false;
};

struct ListedSource {
  SourceInfo info;
  std::string title;    // the first chunk's
  std::string preview;  // the first 240 bytes (UTF-8 safe)
};

struct ListPage {
  std::vector<ListedSource> sources;
  int64_t total = 0;  // matching sources, all pages
};

struct StoreStats {
  int64_t sources = 0;
  int64_t chunks = 0;
  int64_t stored_bytes = 0;    // the sources' sizes (a repeat in a session is not counted again)
  int64_t captured_bytes = 0;  // every capture, repeats included
  int64_t returned_bytes = 0;  // the receipts that went into the context instead
  int64_t oldest_ms = 0, newest_ms = 0;  // 0 when empty
  int64_t db_file_bytes = 0, wal_file_bytes = 0;  // the whole file, every project
  Retention retention;
};

// context_purge's filters; at least one of them, or `all`.
struct PurgeOptions {
  std::string source_id;   // "" any
  std::string session_id;  // "" any session of the scope
  int64_t older_than_ms = 0;  // created before; 0: no bound
  bool whole_project = false;
};

struct SearchOptions {
  std::string source_id;  // "" any
  std::string tool_name;  // "" any
  int64_t limit = 5;      // capped at 25
  bool whole_project = false;  // true: every session of the project
};

class Store {
 public:
  static Result<std::unique_ptr<Store>> Open(const std::filesystem::path& file,
                                             Retention retention = {});

  // Stores text (already redacted by the caller) for scope; returns the
  // new source, or the existing one of the same scope with equal content.
  Result<SourceInfo> Put(const Scope& scope, const std::string& tool_name,
                         const std::string& input_summary, const std::string& text);

  // query is the model's (sqlite/fts_query.h makes it safe). Best first.
  Result<std::vector<StoredChunk>> Search(const Scope& scope, const std::string& query,
                                          const SearchOptions& options);

  // The source, if scope may see it (a session sees the project's sources
  // when whole_project).
  Result<std::optional<SourceInfo>> Source(const Scope& scope, const std::string& source_id,
                                           bool whole_project);
  // Chunks first..last (1-based, inclusive) of a visible source, in order.
  Result<std::vector<StoredChunk>> Chunks(const Scope& scope, const std::string& source_id,
                                          int64_t first, int64_t last, bool whole_project);

  // A page of the scope's sources, newest first (store_catalog.cc).
  Result<ListPage> List(const Scope& scope, const ListOptions& options);
  Result<StoreStats> Stats(const Scope& scope, bool whole_project);
  // Deletes the scope's sources that match every filter given; returns
  // how many went.
  Result<int64_t> PurgeWhere(const Scope& scope, const PurgeOptions& options);
  // What a capture of source_id took in and what its receipt returned
  // (Sidecar::Capture, after the receipt is built).
  Status NoteCapture(const std::string& source_id, int64_t captured_bytes, int64_t returned_bytes);
  const Retention& retention() const { return retention_; }

  // Drops sources past the retention. Run by Open, and by Put when an hour
  // has passed since the last run or an eighth of the size cap was added
  // since (a long-lived sepp serve keeps it too); returns how many went.
  Result<int64_t> ApplyRetention();
  // Every source of scope's session (all of the project's when
  // whole_project) goes: `sepp remove` of a workspace session, tests.
  Result<int64_t> Purge(const Scope& scope, bool whole_project);
  // Every source of every project at or below folder (an absolute path,
  // compared as stored): `sepp remove`, whose worktree is the project of
  // every session run in it or in a folder of it. Returns how many went.
  Result<int64_t> PurgeFolder(const std::string& folder);

  const std::string& file() const { return db_->file(); }

 private:
  Store(std::unique_ptr<sqlite::SqliteDb> db, Retention r) : db_(std::move(db)), retention_(r) {}
  Status Init();
  Result<int64_t> ApplyRetentionLocked();
  // After a Put of `added` bytes: runs retention when it is due.
  void RetainAfterPut(int64_t added);

  std::mutex mu_;
  std::unique_ptr<sqlite::SqliteDb> db_;
  Retention retention_;
  int64_t retained_ms_ = 0;       // when retention last ran
  int64_t added_since_retention_ = 0;
};

}  // namespace sepp::sidecar
