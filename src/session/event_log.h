// The server's event log: every event a `sepp serve` stream (an ACP
// connection's JSON-RPC envelopes, a session's universal events) sent,
// numbered per stream from 1, and the served sessions' records. A client
// that reconnects with the number of the last event it saw is replayed the
// rest, however long ago that was, across server restarts and (with the
// PostgreSQL store) from any server on the same database.
//
// Two stores implement it (docs/serve.md, "The store"):
//   SQLite (default): <root>/sessions.db beside the session tree, so
//     `sepp sessions` and the server read one file; one server.
//   PostgreSQL (postgres://…): shared by several servers; appends are
//     announced with NOTIFY, so a server streams another's events live.
// Both apply their versioned schema migrations when opened (a table of the
// applied versions; a database from a newer sepp is refused).
//
// Sequences are gap-free and ordered per stream, whichever process writes:
// AppendNext takes the next number under the store's lock; Append insists
// on the number it is given (a duplicate has kind "exists", a number past
// the next kind "conflict"), which makes a retry after a lost answer safe.
//
// Thread-safe.
#pragma once
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "base/json.h"
#include "base/result.h"

namespace sepp::session {

struct LoggedEvent {
  int64_t seq = 0;
  int64_t time_ms = 0;  // when it was logged, Unix epoch
  std::string data;     // the event, verbatim
};

class EventLog {
 public:
  // The SQLite log in <root>/sessions.db (created if needed).
  static Result<std::unique_ptr<EventLog>> Open(const std::filesystem::path& root);
  virtual ~EventLog() = default;

  // "sqlite" or "postgres".
  virtual std::string_view kind() const = 0;
  // For messages: the file, or the URL without its password.
  virtual std::string location() const = 0;

  // Stores the event as number seq, which must be the stream's next.
  virtual Status Append(std::string_view stream, int64_t seq, int64_t time_ms,
                        std::string_view data) = 0;
  // Stores the event as the stream's next number and returns that number.
  virtual Result<int64_t> AppendNext(std::string_view stream, int64_t time_ms,
                                     std::string_view data) = 0;
  // Events with seq > after, oldest first, at most limit of them.
  virtual Result<std::vector<LoggedEvent>> Read(std::string_view stream, int64_t after,
                                                size_t limit) = 0;
  // How many of the events after < seq <= upto are stored (a replay checks
  // that none is missing before it promises them).
  virtual Result<int64_t> Count(std::string_view stream, int64_t after, int64_t upto) = 0;
  // The stream's highest seq; 0 for a stream never logged.
  virtual Result<int64_t> LastSeq(std::string_view stream) = 0;

  // The served sessions (sepp's session API): one record per id, which any
  // server on the store lists. AddSession fails with kind "exists" if the id
  // is taken (by this server or another).
  virtual Status AddSession(const std::string& id, const Json& record) = 0;
  virtual Status UpdateSession(const std::string& id, const Json& record) = 0;
  // Every record, oldest first.
  virtual Result<std::vector<Json>> Sessions() = 0;

  // Waits until an event past `after` may be in the stream (one was
  // appended, by this process or, with PostgreSQL, announced by another) or
  // max_wait passes. True when woken early. A reader re-reads either way:
  // the timeout is the fallback that polls when an announcement was lost.
  bool WaitForAppend(std::string_view stream, int64_t after, std::chrono::milliseconds max_wait);

 protected:
  // Records that stream has events up to seq and wakes its waiters.
  void Announce(std::string_view stream, int64_t seq);
  // Wakes every waiter (after the announcements may have been missed).
  void AnnounceAll();

 private:
  std::mutex announce_mu_;
  std::condition_variable announced_;
  std::map<std::string, int64_t, std::less<>> latest_;  // stream -> highest announced seq
  uint64_t generation_ = 0;  // bumped by AnnounceAll
};

// "" or "sqlite": the SQLite log under root; postgres://…: PostgreSQL.
Result<std::unique_ptr<EventLog>> OpenEventLog(std::string_view store,
                                               const std::filesystem::path& root);

}  // namespace sepp::session
