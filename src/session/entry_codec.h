// Internal to src/session: turning entries and headers into JSON text and
// back, shared by the stores. Not part of the public API.
#pragma once
#include <initializer_list>
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

// Validates the envelope: string "type" and "id" (non-empty), "parentId"
// string or null or absent, "timestamp" string or absent.
Result<Entry> EntryFromJson(Json object);
// Validates a header record: type "session", a valid id.
Result<SessionHeader> HeaderFromJson(Json object);
// The header's JSON object: data with the named fields written over it.
Json HeaderToJson(const SessionHeader& header);

// Session ids name files: 1-64 of [0-9A-Za-z_-].
bool IsValidSessionId(std::string_view id);
// Prefixes accepted on the command line: same alphabet, lower-cased by callers.
bool IsValidIdPrefix(std::string_view prefix);

}  // namespace sepp::session
