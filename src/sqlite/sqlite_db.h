// A minimal RAII wrapper over the SQLite C API, for every store that keeps
// its data in SQLite (sessions, the event log, the output sidecar, memory).
#pragma once
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

#include "base/result.h"

struct sqlite3;
struct sqlite3_stmt;

namespace sepp::sqlite {

class SqliteDb {
 public:
  // Opens (creating) the database file with a busy timeout, so concurrent
  // processes wait for each other instead of failing.
  static Result<std::unique_ptr<SqliteDb>> Open(const std::filesystem::path& file);
  ~SqliteDb();
  SqliteDb(const SqliteDb&) = delete;
  SqliteDb& operator=(const SqliteDb&) = delete;

  sqlite3* get() const { return db_; }
  const std::string& file() const { return file_; }
  Status Exec(const char* sql);
  // Rows changed by the last INSERT/UPDATE/DELETE.
  int64_t Changes() const;
  // The rowid of the last row this connection inserted.
  int64_t LastInsertRowid() const;
  // The connection's last error, as "what: message".
  Error LastError(const std::string& what) const;

 private:
  SqliteDb(sqlite3* db, std::string file) : db_(db), file_(std::move(file)) {}
  sqlite3* db_;
  std::string file_;
};

// A prepared statement; Bind* take 1-based indexes.
class SqliteStmt {
 public:
  static Result<SqliteStmt> Prepare(SqliteDb& db, const char* sql);
  SqliteStmt(SqliteStmt&& o) noexcept;
  SqliteStmt& operator=(SqliteStmt&& o) noexcept;
  ~SqliteStmt();

  SqliteStmt& Bind(int index, std::string_view text);
  SqliteStmt& Bind(int index, int64_t value);
  SqliteStmt& BindNull(int index);
  SqliteStmt& BindDouble(int index, double value);
  SqliteStmt& BindBlob(int index, std::string_view bytes);
  // true: a row is ready; false: done. Error on failure.
  Result<bool> Step();
  Status Run();  // Step to completion, expecting no rows
  void Reset();
  std::string Text(int column) const;  // 0-based
  int64_t Int(int column) const;
  double Double(int column) const;
  std::string Blob(int column) const;
  bool IsNull(int column) const;

 private:
  SqliteStmt(SqliteDb* db, sqlite3_stmt* stmt) : db_(db), stmt_(stmt) {}
  SqliteDb* db_ = nullptr;
  sqlite3_stmt* stmt_ = nullptr;
};

// BEGIN IMMEDIATE at construction (check ok()); rolls back at destruction
// unless Commit() succeeded, so an early return leaves nothing half-done.
class SqliteTxn {
 public:
  explicit SqliteTxn(SqliteDb& db);
  ~SqliteTxn();
  SqliteTxn(const SqliteTxn&) = delete;
  SqliteTxn& operator=(const SqliteTxn&) = delete;
  const Status& begun() const { return begun_; }
  Status Commit();

 private:
  SqliteDb& db_;
  Status begun_;
  bool open_ = false;
};

}  // namespace sepp::sqlite
