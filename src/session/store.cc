// What both stores share: the factory and Fork.
#include "session/store.h"

#include "base/clock.h"
#include "base/ids.h"
#include "base/paths.h"
#include "session/jsonl_store.h"
#include "session/pg_store.h"
#include "session/pg_url.h"
#include "session/sqlite_store.h"

namespace sepp::session {

Result<StoreKind> ParseStoreKind(std::string_view name) {
  if (name == "jsonl") return StoreKind::kJsonl;
  if (name == "sqlite") return StoreKind::kSqlite;
  return Error::Make("unknown session store \"" + std::string(name) +
                         "\": use \"jsonl\" or \"sqlite\"",
                     "invalid_argument");
}

std::string_view StoreKindName(StoreKind kind) {
  if (kind == StoreKind::kPostgres) return "postgres";
  return kind == StoreKind::kSqlite ? "sqlite" : "jsonl";
}

std::filesystem::path DefaultSessionsRoot() { return SeppHome() / "sessions"; }

Result<std::unique_ptr<Store>> OpenStore(StoreKind kind, const std::filesystem::path& root) {
  if (kind == StoreKind::kSqlite) return OpenSqliteStore(root);
  if (kind == StoreKind::kPostgres)
    return Error::Make("the PostgreSQL store is opened by its URL (sepp serve --store postgres://…)",
                       "invalid_argument");
  return OpenJsonlStore(root);
}

Result<std::unique_ptr<Store>> OpenUrlStore(std::string_view url) {
  auto config = ParsePgUrl(url);
  if (!config.ok()) return config.error();
  return OpenPgStore(*config);
}

SessionHeader NewHeader(const NewSession& fields) {
  SessionHeader h;
  h.id = NewId();
  h.cwd = fields.cwd;
  h.created = Iso8601(NowMs());
  h.parent_session = fields.parent_session;
  h.provider = fields.provider;
  h.model = fields.model;
  return h;
}

Result<std::unique_ptr<Session>> Store::Fork(const Session& from, std::string_view entry_id) {
  std::vector<const Entry*> path = from.Path(entry_id);
  if (entry_id.empty() || path.empty())
    return Error::Make("session " + from.id() + " has no entry " + std::string(entry_id),
                       "not_found");
  SessionHeader h =
      NewHeader({from.header().cwd, from.header().provider, from.header().model, from.id()});
  h.data["forked_from_entry"] = std::string(entry_id);
  std::vector<Entry> entries;
  entries.reserve(path.size());
  for (const Entry* e : path) entries.push_back(*e);
  return Import(h, entries);
}

}  // namespace sepp::session
