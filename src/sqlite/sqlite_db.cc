#include "sqlite/sqlite_db.h"

#include <sqlite3.h>

namespace sepp::sqlite {

Result<std::unique_ptr<SqliteDb>> SqliteDb::Open(const std::filesystem::path& file) {
  sqlite3* db = nullptr;
  int rc = sqlite3_open_v2(file.c_str(), &db,
                           SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr);
  if (rc != SQLITE_OK) {
    std::string msg = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    sqlite3_close_v2(db);
    return Error::Make("could not open the database " + file.string() + ": " + msg, "io");
  }
  sqlite3_busy_timeout(db, 10000);
  sqlite3_extended_result_codes(db, 1);
  // WAL + NORMAL: a commit survives a killed process (the WAL is in the page
  // cache); only a power cut may lose the last ones. Same promise as JSONL.
  sqlite3_exec(db, "PRAGMA synchronous=NORMAL", nullptr, nullptr, nullptr);
  return std::unique_ptr<SqliteDb>(new SqliteDb(db, file.string()));
}

SqliteDb::~SqliteDb() { sqlite3_close_v2(db_); }

int64_t SqliteDb::Changes() const { return sqlite3_changes(db_); }

int64_t SqliteDb::LastInsertRowid() const { return sqlite3_last_insert_rowid(db_); }

Status SqliteDb::Exec(const char* sql) {
  char* err = nullptr;
  if (sqlite3_exec(db_, sql, nullptr, nullptr, &err) == SQLITE_OK) return Ok();
  std::string msg = err ? err : "unknown error";
  sqlite3_free(err);
  return Error::Make("database " + file_ + ": " + msg, "io");
}

Error SqliteDb::LastError(const std::string& what) const {
  return Error::Make(what + " (database " + file_ + "): " + sqlite3_errmsg(db_), "io");
}

Result<SqliteStmt> SqliteStmt::Prepare(SqliteDb& db, const char* sql) {
  sqlite3_stmt* stmt = nullptr;
  if (sqlite3_prepare_v2(db.get(), sql, -1, &stmt, nullptr) != SQLITE_OK)
    return db.LastError("could not prepare a query");
  return SqliteStmt(&db, stmt);
}

SqliteStmt::SqliteStmt(SqliteStmt&& o) noexcept : db_(o.db_), stmt_(o.stmt_) { o.stmt_ = nullptr; }

SqliteStmt& SqliteStmt::operator=(SqliteStmt&& o) noexcept {
  if (this != &o) {
    sqlite3_finalize(stmt_);
    db_ = o.db_;
    stmt_ = o.stmt_;
    o.stmt_ = nullptr;
  }
  return *this;
}

SqliteStmt::~SqliteStmt() { sqlite3_finalize(stmt_); }

SqliteStmt& SqliteStmt::Bind(int index, std::string_view text) {
  sqlite3_bind_text(stmt_, index, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
  return *this;
}

SqliteStmt& SqliteStmt::Bind(int index, int64_t value) {
  sqlite3_bind_int64(stmt_, index, value);
  return *this;
}

SqliteStmt& SqliteStmt::BindNull(int index) {
  sqlite3_bind_null(stmt_, index);
  return *this;
}

SqliteStmt& SqliteStmt::BindDouble(int index, double value) {
  sqlite3_bind_double(stmt_, index, value);
  return *this;
}

SqliteStmt& SqliteStmt::BindBlob(int index, std::string_view bytes) {
  sqlite3_bind_blob(stmt_, index, bytes.data(), static_cast<int>(bytes.size()), SQLITE_TRANSIENT);
  return *this;
}

Result<bool> SqliteStmt::Step() {
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  return db_->LastError("query failed");
}

Status SqliteStmt::Run() {
  Result<bool> r = Step();
  Reset();
  if (!r.ok()) return r.error();
  return Ok();
}

void SqliteStmt::Reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

std::string SqliteStmt::Text(int column) const {
  const unsigned char* t = sqlite3_column_text(stmt_, column);
  int n = sqlite3_column_bytes(stmt_, column);
  return t ? std::string(reinterpret_cast<const char*>(t), static_cast<size_t>(n)) : std::string();
}

int64_t SqliteStmt::Int(int column) const { return sqlite3_column_int64(stmt_, column); }

double SqliteStmt::Double(int column) const { return sqlite3_column_double(stmt_, column); }

std::string SqliteStmt::Blob(int column) const {
  const void* b = sqlite3_column_blob(stmt_, column);
  int n = sqlite3_column_bytes(stmt_, column);
  return b ? std::string(static_cast<const char*>(b), static_cast<size_t>(n)) : std::string();
}

bool SqliteStmt::IsNull(int column) const { return sqlite3_column_type(stmt_, column) == SQLITE_NULL; }

SqliteTxn::SqliteTxn(SqliteDb& db) : db_(db), begun_(db.Exec("BEGIN IMMEDIATE")) {
  open_ = begun_.ok();
}

SqliteTxn::~SqliteTxn() {
  if (open_) (void)db_.Exec("ROLLBACK");
}

Status SqliteTxn::Commit() {
  Status st = db_.Exec("COMMIT");
  if (st.ok()) open_ = false;
  return st;
}

}  // namespace sepp::sqlite
