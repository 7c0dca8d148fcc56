// Internal to src/session: the PostgreSQL session store (store.h), where
// `sepp serve --store postgres://…` keeps its agents' session trees, so any
// server on the database reads them and a session resumes on any of them.
// See pg_store.cc for the tables and the writer lock.
#pragma once
#include <memory>

#include "base/result.h"
#include "session/pg_url.h"

namespace sepp::session {

class Store;
// Connects and applies the migrations not yet applied (the same versions as
// the event log's). Fails (kind "unavailable", "auth", "unsupported") when
// the database cannot be used. The store is thread-safe (a pool of
// connections), unlike the file stores.
Result<std::unique_ptr<Store>> OpenPgStore(const PgConfig& config);

}  // namespace sepp::session
