// Identifiers for sessions, entries and tool calls.
#pragma once
#include <string>

namespace sepp {

// A 16-byte, time-ordered id as 32 lower-case hex digits (UUIDv7 layout
// without dashes): sorts by creation time, unique across processes.
std::string NewId();

// 8 random hex digits: for entry ids inside one session.
std::string ShortId();

}  // namespace sepp
