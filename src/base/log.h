// Logging to stderr, with secrets redacted and control characters shown
// visibly (base/terminal_text.h), so a quoted text cannot drive the terminal.
//
// Library code logs only through this; it never prints to stdout (stdout
// belongs to the front end: protocol in rpc/acp mode, the answer in -p mode).
// Level comes from SEPP_LOG (error|warn|info|debug), default warn.
#pragma once
#include <string_view>

namespace sepp::log {

enum class Level { kError = 0, kWarn = 1, kInfo = 2, kDebug = 3 };

void SetLevel(Level level);
bool Enabled(Level level);
void Write(Level level, std::string_view message);

inline void Error(std::string_view m) { Write(Level::kError, m); }
inline void Warn(std::string_view m) { Write(Level::kWarn, m); }
inline void Info(std::string_view m) { Write(Level::kInfo, m); }
inline void Debug(std::string_view m) { Write(Level::kDebug, m); }

}  // namespace sepp::log
