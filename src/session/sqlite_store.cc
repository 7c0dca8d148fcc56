#include "session/sqlite_store.h"

#include "session/store.h"

namespace sepp::session {

Result<std::unique_ptr<Store>> OpenSqliteStore(const std::filesystem::path&) {
  return Error::Make("the SQLite session store is not built yet", "unsupported");
}

}  // namespace sepp::session
