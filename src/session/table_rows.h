// Internal to src/session: reading one session back from a table store
// (SQLite, PostgreSQL). Both keep the header's JSONL line in a sessions row
// and each entry's JSONL line in an entries row numbered by seq; only the
// way rows are fetched differs, so the decoding is here once.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "session/session.h"

namespace sepp::session {

// The stored header line; `what` names the session in errors
// ("session <id> in <db>"). Error kind "invalid_header".
Result<SessionHeader> HeaderFromRow(std::string_view text, const std::string& what);

// Collects a session's entry rows in seq order. An unreadable row is
// skipped (and counted, for one warning) rather than failing the session:
// one bad row loses nothing else, as in the JSONL store.
class EntryRows {
 public:
  void Add(int64_t seq, std::string_view text);
  // Warns once about skipped rows; call after the last Add.
  void Finish(const std::string& what);

  std::vector<Entry> entries;
  int64_t next_seq = 0;  // one past the highest seq seen
  MessageStats stats;    // of the readable entries

 private:
  size_t bad_ = 0;
};

}  // namespace sepp::session
