// The server's event log: every event a `sepp serve` stream (an ACP
// connection's JSON-RPC envelopes, later a session's universal events) sent,
// numbered per stream from 1, kept in the same database as the session tree
// (<root>/sessions.db) so that `sepp sessions` and the server read one store.
// A client that reconnects with the number of the last event it saw is
// replayed the rest, however long ago that was and across server restarts.
//
// Thread-safe: one connection behind a mutex (appends are short).
#pragma once
#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace sepp::session {

class SqliteDb;

struct LoggedEvent {
  int64_t seq = 0;
  int64_t time_ms = 0;  // when it was logged, Unix epoch
  std::string data;     // the event, verbatim
};

class EventLog {
 public:
  // Opens (creating if needed) <root>/sessions.db and its stream_events table.
  static Result<std::unique_ptr<EventLog>> Open(const std::filesystem::path& root);
  ~EventLog();

  // seq must be the stream's next number; a duplicate is refused.
  Status Append(std::string_view stream, int64_t seq, int64_t time_ms, std::string_view data);
  // Events with seq > after, oldest first, at most limit of them.
  Result<std::vector<LoggedEvent>> Read(std::string_view stream, int64_t after, size_t limit);
  // How many of the events after < seq <= upto are stored (a replay checks
  // that none is missing before it promises them).
  Result<int64_t> Count(std::string_view stream, int64_t after, int64_t upto);
  // The stream's highest seq; 0 for a stream never logged.
  Result<int64_t> LastSeq(std::string_view stream);

 private:
  explicit EventLog(std::unique_ptr<SqliteDb> db);
  std::mutex mu_;
  std::unique_ptr<SqliteDb> db_;
};

}  // namespace sepp::session
