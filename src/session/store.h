// Session stores: where sessions live, and the one interface both kinds share.
//
//   JSONL (default): one append-only file per session,
//     <root>/<cwd key>/<created>_<id>.jsonl
//   SQLite: one database, <root>/sessions.db (WAL mode).
// root is normally DefaultSessionsRoot() = SeppHome()/sessions; both kinds can
// live side by side in it (`sepp sessions convert` moves sessions between
// them). The formats are described in docs/sessions.md.
//
// Session ids: 32 hex digits (time-ordered). Everywhere a store takes
// `id_or_prefix`, a unique prefix of an id works too; an ambiguous prefix
// fails with kind "ambiguous" and lists the candidates, an unknown one with
// kind "not_found".
//
// Writers are exclusive: Open(kAppend), Create, Import and Fork return a
// session holding a per-session lock (flock) until it is destroyed. A second
// writer, in this or another process, gets kind "locked" and the holder's pid.
// Readers (kReadOnly, List) never wait and never block a writer. A lock dies
// with its process, so a crash never leaves a session stuck.
//
// Thread safety: a Store may be used from one thread at a time; sessions it
// returned may be used on other threads (one thread per session).
#pragma once
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "session/session.h"

namespace sepp::session {

// kPostgres: the server's shared store (`sepp serve --store postgres://…`),
// opened with OpenUrlStore, never chosen by settings.
enum class StoreKind { kJsonl, kSqlite, kPostgres };

// "jsonl" | "sqlite" (as in settings: [session] store = "sqlite").
Result<StoreKind> ParseStoreKind(std::string_view name);
std::string_view StoreKindName(StoreKind kind);

// SeppHome()/sessions.
std::filesystem::path DefaultSessionsRoot();

enum class OpenMode { kReadOnly, kAppend };

// Header fields for a new session; id and created are filled in by Create.
struct NewSession {
  std::string cwd;
  std::string provider;
  std::string model;
  std::string parent_session;  // for sub-agent sessions
};

// The header of a new session: a fresh id, created now, and the fields.
SessionHeader NewHeader(const NewSession& fields);

// One row of `sepp sessions list`.
struct SessionSummary {
  std::string id;
  std::string cwd;
  std::string created;   // ISO 8601
  int64_t modified_ms = 0;  // last write, ms since the epoch
  std::string first_prompt;  // text of the first user message, "" if none
  size_t message_count = 0;
  std::string parent_session;
};

class Store {
 public:
  virtual ~Store() = default;
  virtual StoreKind kind() const = 0;
  // The folder (JSONL) or database file (SQLite), for messages.
  virtual std::string location() const = 0;

  // Creates an empty session (header only) and returns it open for appending.
  virtual Result<std::unique_ptr<Session>> Create(const NewSession& fields) = 0;
  virtual Result<std::unique_ptr<Session>> Open(std::string_view id_or_prefix,
                                                OpenMode mode = OpenMode::kAppend) = 0;
  // The full id for a prefix (see top).
  virtual Result<std::string> Resolve(std::string_view id_or_prefix) = 0;
  // The id of the most recently written session whose cwd is `cwd`; kind
  // "not_found" if there is none. Cheap: no session is parsed.
  virtual Result<std::string> Latest(const std::string& cwd) = 0;
  // Sessions of one cwd (or all, if cwd is nullopt), most recently written first.
  virtual Result<std::vector<SessionSummary>> List(const std::optional<std::string>& cwd) = 0;
  // Deletes a session. Fails with kind "locked" while a writer has it open.
  virtual Status Remove(std::string_view id_or_prefix) = 0;
  // Stores a complete session verbatim (same ids, timestamps and unknown
  // fields) and returns it open for appending; the leaf is its last entry.
  // Fails with kind "exists" if the id is taken. Used by Fork and convert.
  virtual Result<std::unique_ptr<Session>> Import(const SessionHeader& header,
                                                  const std::vector<Entry>& entries) = 0;

  // A new session whose entries are a copy of from's path root→entry_id
  // (ids kept), whose header names from as parent_session, and whose leaf is
  // entry_id. `from` may live in another store.
  Result<std::unique_ptr<Session>> Fork(const Session& from, std::string_view entry_id);
};

Result<std::unique_ptr<Store>> OpenStore(StoreKind kind, const std::filesystem::path& root);
// A postgres://… URL (as `sepp serve --store`): the PostgreSQL store, which
// several servers share; thread-safe. Applies its migrations.
Result<std::unique_ptr<Store>> OpenUrlStore(std::string_view url);

}  // namespace sepp::session
