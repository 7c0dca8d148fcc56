#include "session/pg_outbox.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "base/clock.h"
#include "base/log.h"
#include "session/entry_codec.h"
#include "session/writer_lock.h"

namespace fs = std::filesystem;

namespace sepp::session {

fs::path PgOutbox::PathFor(const fs::path& dir, const std::string& id) {
  return dir / (id + ".outbox");
}

Result<std::unique_ptr<PgOutbox>> PgOutbox::Open(const fs::path& dir, const std::string& session_id,
                                                 size_t max_bytes, bool create) {
  fs::path path = PathFor(dir, session_id);
  if (create) {
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) return Error::Make("could not create " + dir.string() + ": " + ec.message(), "io");
    ::chmod(dir.c_str(), 0700);
  }
  // Locked, then checked to be still the file at the path: another process
  // that emptied and removed it meanwhile left us an orphan; open again.
  for (int attempt = 0; attempt < 8; ++attempt) {
    int flags = O_RDWR | O_CLOEXEC | O_NOFOLLOW | (create ? O_CREAT : 0);
    UniqueFd fd(::open(path.c_str(), flags, 0600));
    if (!fd.valid()) {
      if (errno == ENOENT && !create) return std::unique_ptr<PgOutbox>();
      return Error::Make("could not open " + path.string() + ": " + ErrnoText(errno), "io");
    }
    if (Status s = LockForWriting(fd.get(), "the outbox of session " + session_id); !s.ok())
      return s.error();
    struct stat held {}, now {};
    if (::fstat(fd.get(), &held) != 0) return Error::Make(path.string() + ": " + ErrnoText(errno), "io");
    if (::stat(path.c_str(), &now) != 0 || now.st_ino != held.st_ino || now.st_dev != held.st_dev) {
      if (!create && ::access(path.c_str(), F_OK) != 0) return std::unique_ptr<PgOutbox>();
      continue;
    }
    std::unique_ptr<PgOutbox> box(new PgOutbox(path, std::move(fd), max_bytes));
    if (Status s = box->Read(); !s.ok()) return s.error();
    return box;
  }
  return Error::Make(path.string() + " keeps being replaced by another process", "locked");
}

PgOutbox::~PgOutbox() = default;

Status PgOutbox::Read() {
  Result<std::string> text = ReadAll(fd_.get());
  if (!text.ok()) return text.error();
  size_t pos = 0, bad = 0;
  while (pos < text->size()) {
    size_t nl = text->find('\n', pos);
    if (nl == std::string::npos) break;  // cut short by a crash: never acknowledged
    std::string_view line(text->data() + pos, nl - pos);
    pos = nl + 1;
    size_t space = line.find(' ');
    Item item;
    char* end = nullptr;
    std::string number(line.substr(0, space));
    item.seq = std::strtoll(number.c_str(), &end, 10);
    Result<Entry> e = space == std::string_view::npos || number.empty() || *end
                          ? Result<Entry>(Error::Make("no sequence number", "invalid"))
                          : EntryFromText(line.substr(space + 1));
    if (!e.ok()) {
      ++bad;
      continue;
    }
    item.id = e->id;
    item.parent_id = e->parent_id;
    item.type = e->type;
    item.line = std::string(line.substr(space + 1));
    pending_.push_back(std::move(item));
  }
  if (bad) log::Warn(path_.string() + ": skipped " + std::to_string(bad) + " unreadable lines");
  bytes_ = pos;
  // Drop a torn tail, so the next Add starts on a line of its own.
  if (pos != text->size() && ::ftruncate(fd_.get(), static_cast<off_t>(pos)) != 0)
    return Error::Make("could not repair " + path_.string() + ": " + ErrnoText(errno), "io");
  return Ok();
}

Status PgOutbox::Add(Item item) {
  std::string record = std::to_string(item.seq) + " " + item.line + "\n";
  if (bytes_ + record.size() > max_bytes_)
    return Error::Make(path_.string() + " is full (" + std::to_string(pending_.size()) +
                           " entries, " + std::to_string(bytes_ >> 10) + " KiB of at most " +
                           std::to_string(max_bytes_ >> 10) +
                           " KiB: the store URL's outbox_kb sets it)",
                       "full");
  if (::lseek(fd_.get(), static_cast<off_t>(bytes_), SEEK_SET) < 0)
    return Error::Make(path_.string() + ": " + ErrnoText(errno), "io");
  Status s = WriteAll(fd_.get(), record);
  if (s.ok() && ::fdatasync(fd_.get()) != 0)
    s = Error::Make("syncing " + path_.string() + ": " + ErrnoText(errno), "io");
  if (!s.ok()) {
    (void)!::ftruncate(fd_.get(), static_cast<off_t>(bytes_));  // not half an entry
    return Error::Make("could not keep the entry in " + path_.string() + ": " + s.error().message,
                       "io");
  }
  bytes_ += record.size();
  pending_.push_back(std::move(item));
  return Ok();
}

void PgOutbox::Discard() {
  // Emptied first: a process that opened the file just before the unlink
  // finds nothing to store twice.
  (void)!::ftruncate(fd_.get(), 0);
  ::unlink(path_.c_str());
  pending_.clear();
  bytes_ = 0;
}

std::string PgOutbox::SetAside(const std::string& why) {
  fs::path aside = path_;
  aside += "." + std::to_string(NowMs()) + ".unstored";
  if (::rename(path_.c_str(), aside.c_str()) != 0) aside = path_;
  log::Error("kept " + std::to_string(pending_.size()) + " entries that could not be stored in " +
             aside.string() + ": " + why);
  pending_.clear();
  return aside.string();
}

}  // namespace sepp::session
