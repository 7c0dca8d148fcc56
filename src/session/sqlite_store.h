// Internal to src/session: the SQLite store (see store.h, docs/sessions.md).
#pragma once
#include <filesystem>
#include <memory>

#include "base/result.h"

namespace sepp::session {

class Store;
// Opens (creating if needed) <root>/sessions.db.
Result<std::unique_ptr<Store>> OpenSqliteStore(const std::filesystem::path& root);

}  // namespace sepp::session
