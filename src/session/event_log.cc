#include "session/event_log.h"

#include "base/secrets.h"

#include "session/pg_event_log.h"
#include "session/pg_url.h"

namespace sepp::session {

// The announcements of streams nobody waits for are kept so a reader that
// starts waiting just after an append still sees it; past this many streams
// the table is emptied (a waiter then falls back to its timeout).
constexpr size_t kMaxAnnouncedStreams = 10000;

bool EventLog::WaitForAppend(std::string_view stream, int64_t after,
                             std::chrono::milliseconds max_wait) {
  std::unique_lock lock(announce_mu_);
  uint64_t generation = generation_;
  auto ready = [&] {
    if (generation_ != generation) return true;
    auto it = latest_.find(stream);
    return it != latest_.end() && it->second > after;
  };
  return announced_.wait_for(lock, max_wait, ready);
}

void EventLog::Announce(std::string_view stream, int64_t seq) {
  std::lock_guard lock(announce_mu_);
  if (latest_.size() >= kMaxAnnouncedStreams) latest_.clear();
  auto it = latest_.find(stream);
  if (it == latest_.end())
    latest_.emplace(std::string(stream), seq);
  else if (seq > it->second)
    it->second = seq;
  announced_.notify_all();
}

void EventLog::AnnounceAll() {
  std::lock_guard lock(announce_mu_);
  ++generation_;
  announced_.notify_all();
}

Result<std::unique_ptr<EventLog>> OpenEventLog(std::string_view store,
                                               const std::filesystem::path& root) {
  if (store.empty() || store == "sqlite") return EventLog::Open(root);
  if (IsPgUrl(store)) {
    auto config = ParsePgUrl(store);
    if (!config.ok()) return config.error();
    // Masked like a provider key should it ever reach a log line or message.
    if (!config->password.empty()) RegisterSecret(config->password);
    return OpenPgEventLog(*config);
  }
  return Error::Make("--store must be \"sqlite\" or a postgres://user@host:port/database URL",
                     "invalid_argument");
}

}  // namespace sepp::session
