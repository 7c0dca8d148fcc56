#include "app/session_stores.h"

#include <optional>

namespace sepp::app {

namespace fs = std::filesystem;
using session::StoreKind;

Result<Stores> OpenStores(const std::string& only) {
  Stores s;
  s.root = session::DefaultSessionsRoot();
  // A URL names a server's store (postgres://…, as `sepp serve --store`):
  // that one alone. OpenUrlStore says what it takes if the scheme is wrong.
  if (only.find("://") != std::string::npos) {
    auto pg = session::OpenUrlStore(only);
    if (!pg.ok()) return pg.error();
    s.open.push_back(std::move(*pg));
    return s;
  }
  std::optional<StoreKind> kind;
  if (!only.empty()) {
    Result<StoreKind> k = session::ParseStoreKind(only);
    if (!k.ok()) return k.error();
    kind = *k;
  }
  if (!kind || *kind == StoreKind::kJsonl) {
    auto j = session::OpenStore(StoreKind::kJsonl, s.root);
    if (!j.ok()) return j.error();
    s.open.push_back(std::move(*j));
  }
  std::error_code ec;
  if ((!kind && fs::exists(s.root / "sessions.db", ec)) || kind == StoreKind::kSqlite) {
    auto q = session::OpenStore(StoreKind::kSqlite, s.root);
    if (!q.ok()) return q.error();
    s.open.push_back(std::move(*q));
  }
  return s;
}

}  // namespace sepp::app
