// Wall-clock helpers.
#pragma once
#include <cstdint>
#include <string>

namespace sepp {

int64_t NowMs();                        // milliseconds since the Unix epoch
std::string Iso8601(int64_t ms);        // "2026-11-29T14:39:14.123Z"
std::string TodayLocal();               // "2026-11-29", for the system prompt
// Monotonic seconds, for durations and deadlines.
double MonotonicSeconds();

}  // namespace sepp
