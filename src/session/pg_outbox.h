// Internal to src/session: a session's entries kept on local disk while its
// PostgreSQL store is away (pg_store.cc writes them through it, and stores
// them in order when the database is back).
//
// One file per session, <dir>/<session id>.outbox, mode 0600 in a 0700
// folder: a line "<seq> <entry JSON>\n" per entry, synced before Add
// returns, so an entry the session was told is saved survives a crash of
// sepp or of the machine. A last line cut short by such a crash was never
// acknowledged; it is ignored. The file is held under an exclusive flock
// while open: one process at a time owns a session's outbox (a second gets
// kind "locked"). It is bounded (max_bytes): Add fails with kind "full"
// instead of filling the disk while the database stays away.
//
// Not thread-safe (pg_store.cc guards it).
#pragma once
#include <cstdint>
#include <deque>
#include <filesystem>
#include <memory>
#include <string>

#include "base/fd.h"
#include "base/result.h"

namespace sepp::session {

class PgOutbox {
 public:
  struct Item {
    int64_t seq = 0;
    std::string id, parent_id, type;  // the entry's envelope, for the row
    std::string line;                 // the entry's JSON text
  };

  // The outbox file of a session (it need not exist).
  static std::filesystem::path PathFor(const std::filesystem::path& dir, const std::string& id);
  // Opens (creating it if asked) and locks the session's outbox, reading
  // the entries already in it. nullptr (no error) when it does not exist and
  // create is false.
  static Result<std::unique_ptr<PgOutbox>> Open(const std::filesystem::path& dir,
                                                const std::string& session_id, size_t max_bytes,
                                                bool create);
  ~PgOutbox();

  // Appends and syncs one entry. Kind "full" past max_bytes, "io" when the
  // disk refuses.
  Status Add(Item item);
  const std::deque<Item>& pending() const { return pending_; }
  // The first pending entry is stored.
  void PopFront() { pending_.pop_front(); }
  // Every entry is stored: empties and removes the file.
  void Discard();
  // Keeps the file for the user under a new name (its entries could not be
  // stored); returns that name.
  std::string SetAside(const std::string& why);

  const std::filesystem::path& path() const { return path_; }
  size_t bytes() const { return bytes_; }
  size_t max_bytes() const { return max_bytes_; }

 private:
  PgOutbox(std::filesystem::path path, UniqueFd fd, size_t max_bytes)
      : path_(std::move(path)), fd_(std::move(fd)), max_bytes_(max_bytes) {}
  Status Read();

  std::filesystem::path path_;
  UniqueFd fd_;
  size_t max_bytes_;
  size_t bytes_ = 0;  // the file's acknowledged length
  std::deque<Item> pending_;
};

}  // namespace sepp::session
