#include "session/table_rows.h"

#include "base/log.h"
#include "session/entry_codec.h"

namespace sepp::session {

Result<SessionHeader> HeaderFromRow(std::string_view text, const std::string& what) {
  Result<Json> hj = ParseRecord(text);
  if (!hj.ok())
    return Error::Make(what + " has an unreadable header: " + hj.error().message, "invalid_header");
  Result<SessionHeader> header = HeaderFromJson(std::move(*hj));
  if (!header.ok()) return Error::Make(what + ": " + header.error().message, "invalid_header");
  return header;
}

void EntryRows::Add(int64_t seq, std::string_view text) {
  next_seq = seq + 1;
  Result<Entry> e = EntryFromText(text);
  if (!e.ok()) {
    ++bad_;
    return;
  }
  AddToMessageStats(stats, *e);
  entries.push_back(std::move(*e));
}

void EntryRows::Finish(const std::string& what) {
  if (bad_) log::Warn(what + ": skipped " + std::to_string(bad_) + " unreadable entries");
}

}  // namespace sepp::session
