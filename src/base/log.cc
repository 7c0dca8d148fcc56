#include "base/log.h"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <unistd.h>

#include "base/secrets.h"
#include "base/terminal_text.h"

namespace sepp::log {
namespace {

Level InitialLevel() {
  const char* v = std::getenv("SEPP_LOG");
  if (!v) return Level::kWarn;
  if (!std::strcmp(v, "error")) return Level::kError;
  if (!std::strcmp(v, "info")) return Level::kInfo;
  if (!std::strcmp(v, "debug")) return Level::kDebug;
  return Level::kWarn;
}

std::atomic<int>& CurrentLevel() {
  static std::atomic<int> level{static_cast<int>(InitialLevel())};
  return level;
}

}  // namespace

void SetLevel(Level level) { CurrentLevel().store(static_cast<int>(level)); }

bool Enabled(Level level) { return static_cast<int>(level) <= CurrentLevel().load(); }

void Write(Level level, std::string_view message) {
  if (!Enabled(level)) return;
  static const char* names[] = {"error", "warn", "info", "debug"};
  std::string line = "sepp: ";
  line += names[static_cast<int>(level)];
  line += ": ";
  // Messages may quote a provider's answer, a session file or a project
  // file: redacted, and with control characters shown, never obeyed.
  line += VisibleControls(Redact(message));
  line += '\n';
  static std::mutex mu;
  std::lock_guard<std::mutex> lock(mu);
  ssize_t ignored = ::write(2, line.data(), line.size());
  (void)ignored;
}

}  // namespace sepp::log
