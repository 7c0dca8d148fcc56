// SQL the store's files share (store.cc: writes and search; store_catalog.cc:
// list and stats): the scope clause every read carries, and the columns of
// a source with the function that reads them.
#pragma once
#include "sidecar/store.h"
#include "sqlite/sqlite_db.h"

namespace sepp::sidecar {

// The scope as SQL: ?1 is the project, ?2 the session ("" or whole
// project: every session of it).
inline constexpr const char* kScopeWhere = "s.project = ?1 AND (?2 = '' OR s.session_id = ?2)";

inline constexpr const char* kSourceColumns =
    "s.id, s.tool_name, s.input_summary, s.session_id, s.created_ms, s.byte_count, "
    "s.line_count, s.chunk_count, s.content_hash";

// A row whose first columns are kSourceColumns.
SourceInfo ReadSource(const sqlite::SqliteStmt& q);

}  // namespace sepp::sidecar
