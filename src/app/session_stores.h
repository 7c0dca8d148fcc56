// The session stores to look in, for commands that read sessions
// (`sepp sessions`, the workspace commands).
#pragma once
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "base/result.h"
#include "session/store.h"

namespace sepp::app {

struct Stores {
  std::filesystem::path root;
  std::vector<std::unique_ptr<session::Store>> open;
};

// JSONL always (unless `only` names the other kind), SQLite when its
// database exists (never created just by looking) or `only` is "sqlite";
// only the PostgreSQL store when `only` is a postgres://… URL (as given to
// `sepp serve --store`).
Result<Stores> OpenStores(const std::string& only);

}  // namespace sepp::app
