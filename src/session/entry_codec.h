// Internal to src/session: turning entries and headers into JSON text and
// back, shared by the stores. Not part of the public API.
#pragma once
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <vector>
#include <string>
#include <string_view>

#include "base/json.h"
#include "base/result.h"
#include "session/session.h"

namespace sepp::session {

// Serialises an object on one line with `first` keys leading (in that order)
// and the rest sorted, so files read naturally: {"type":..,"id":..,...}.
std::string EncodeRecord(const Json& object, std::initializer_list<const char*> first);
std::string EncodeEntry(const Entry& entry);    // EncodeRecord(data, envelope order)
std::string EncodeHeader(const SessionHeader& header);

// Replaces registered secrets in every string (keys included), in place.
void RedactStrings(Json& j);

// Parses one stored record. Text that is not valid UTF-8 is repaired (bad
// bytes become U+FFFD) rather than rejected, so one bad byte loses nothing
// else. Error if it is not a JSON object.
Result<Json> ParseRecord(std::string_view text);

// An entry from its stored text. The fast path reads only the envelope
// (a structural scan, no JSON document is built) and leaves the rest to
// Entry::data(); text it cannot take that way (escapes in envelope strings,
// odd structure) goes through a full parse. Error if it is not an entry.
Result<Entry> EntryFromText(std::string_view text);

// Validates the envelope: string "type" and "id" (non-empty), "parentId"
// string or null or absent, "timestamp" string or absent.
Result<Entry> EntryFromJson(Json object);
// Validates a header record: type "session", a valid id.
Result<SessionHeader> HeaderFromJson(Json object);
// The header's JSON object: data with the named fields written over it.
Json HeaderToJson(const SessionHeader& header);

// Prepares a session for Store::Import: redacts secrets from the header and
// every entry and re-validates them. Error names the first invalid entry.
Status PrepareImport(SessionHeader& header, std::vector<Entry>& entries);
// When an imported session was last written: the later of its creation time
// and its last entry's timestamp, in ms since the epoch; now if neither
// parses. (A fork is created now, so it counts as just written.)
int64_t LastWriteMs(const SessionHeader& header, const std::vector<Entry>& entries);
// "2026-11-29T14:39:14.123Z" -> ms since the epoch; nullopt if malformed.
std::optional<int64_t> ParseIso8601Ms(std::string_view text);

// Session ids name files: 1-64 of [0-9A-Za-z_-].
bool IsValidSessionId(std::string_view id);
// Prefixes accepted on the command line: same alphabet, lower-cased by callers.
bool IsValidIdPrefix(std::string_view prefix);

}  // namespace sepp::session
