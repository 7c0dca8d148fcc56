// The JSONL session store.
//
// Layout: <root>/<cwd folder>/<created>_<id>.jsonl, where <cwd folder> is
// CwdFolderName(cwd) (readable tail of the path + FNV-1a hash of all of it,
// so "/a-b" and "/a/b" differ) and <created> is the creation time with ':'
// and '.' made file-name safe ("2026-11-29T14-39-14-123Z"). Hence:
//   - "latest session for this cwd" = newest mtime in one folder: no parsing;
//   - an id or prefix resolves from file names alone (readdir, no parsing).
// Files are created 0600 in folders 0700: sessions hold private work.
//
// File format: UTF-8 text, one JSON object per line, '\n'-terminated. Line 1
// is the header (see entry_codec.cc), then one entry per line in append
// order. Lines are only ever appended, each by a single write(2) on an
// O_APPEND descriptor, so a kill -9 can at worst leave the last line torn.
//
// Reading: each complete line is scanned once for its envelope (type, id,
// parentId, timestamp) and indexed by id; the rest is parsed on first use
// (Entry::data()), so opening a long session stays cheap. Blank lines are
// skipped; lines that are not JSON objects with an id and type are counted
// and skipped (one warning per open). A last line without '\n' that parses is accepted; one that does
// not is a torn write: readers ignore it quietly, and the next writer to open
// the file reports it (log::Warn, once) and truncates it away before
// appending, so the next entry starts on a clean line. A complete but
// unterminated last line gets its '\n' first.
//
// Durability: no fsync per append. A killed process loses nothing the kernel
// accepted; a power cut can lose the last entries, which the torn-line rule
// then handles.
#include "session/jsonl_store.h"

#include <algorithm>
#include <cerrno>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fd.h"
#include "base/file.h"
#include "base/log.h"
#include "base/strings.h"
#include "session/entry_codec.h"
#include "session/store.h"
#include "session/writer_lock.h"

namespace fs = std::filesystem;

namespace sepp::session {
namespace {

constexpr std::string_view kExt = ".jsonl";

std::string IoError(const std::string& what, const fs::path& path, int err) {
  return what + " " + path.string() + ": " + ErrnoText(err);
}

// Appends through the locked descriptor.
class JsonlSink : public EntrySink {
 public:
  JsonlSink(UniqueFd fd, fs::path path) : fd_(std::move(fd)), path_(std::move(path)) {}

  Status Write(const Entry&, const std::string& line) override {
    struct stat st;
    if (::fstat(fd_.get(), &st) != 0)
      return Error::Make(IoError("could not inspect session file", path_, errno), "io");
    std::string text = line;
    text += '\n';
    Status s = WriteAll(fd_.get(), text);
    if (!s.ok()) {
      // Leave no partial line behind: the next append must start clean.
      int ignored = ::ftruncate(fd_.get(), st.st_size);
      (void)ignored;
      return Error::Make("could not write to session file " + path_.string() + ": " +
                             s.error().message,
                         "io");
    }
    return Ok();
  }

 private:
  UniqueFd fd_;  // holds the writer lock
  fs::path path_;
};

std::string FileSafeTime(std::string iso) {
  for (char& c : iso)
    if (c == ':' || c == '.') c = '-';
  return iso;
}

// "<created>_<id>.jsonl" -> id, or "" if the name does not fit.
std::string IdFromFileName(const std::string& name) {
  if (!EndsWith(name, kExt)) return {};
  std::string stem = name.substr(0, name.size() - kExt.size());
  size_t us = stem.rfind('_');
  if (us == std::string::npos) return {};
  std::string id = stem.substr(us + 1);
  return IsValidSessionId(id) ? id : std::string();
}

struct FileRef {
  std::string id;
  fs::path path;
};

class JsonlStore : public Store {
 public:
  explicit JsonlStore(fs::path root) : root_(std::move(root)) {}

  StoreKind kind() const override { return StoreKind::kJsonl; }
  std::string location() const override { return root_.string(); }

  Result<std::unique_ptr<Session>> Create(const NewSession& fields) override {
    SessionHeader h = NewHeader(fields);
    // A fresh id cannot exist yet: skip the scan of every folder.
    return Write(std::move(h), {}, /*check_exists=*/false);
  }

  Result<std::unique_ptr<Session>> Open(std::string_view id_or_prefix, OpenMode mode) override {
    Result<FileRef> ref = Find(id_or_prefix);
    if (!ref.ok()) return ref.error();
    return Load(*ref, mode);
  }

  Result<std::string> Resolve(std::string_view id_or_prefix) override {
    Result<FileRef> ref = Find(id_or_prefix);
    if (!ref.ok()) return ref.error();
    return ref->id;
  }

  Result<std::string> Latest(const std::string& cwd) override {
    fs::path dir = root_ / CwdFolderName(cwd);
    std::string best_id;
    std::string best_name;
    fs::file_time_type best_time{};
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
      std::string name = it->path().filename().string();
      std::string id = IdFromFileName(name);
      if (id.empty()) continue;
      std::error_code tec;
      auto t = fs::last_write_time(it->path(), tec);
      if (tec) continue;
      if (best_id.empty() || t > best_time || (t == best_time && name > best_name)) {
        best_id = id;
        best_name = name;
        best_time = t;
      }
    }
    if (best_id.empty())
      return Error::Make("there is no session for " + cwd + " yet", "not_found");
    return best_id;
  }

  Result<std::vector<SessionSummary>> List(const std::optional<std::string>& cwd) override {
    std::vector<FileRef> files = cwd ? FilesIn(root_ / CwdFolderName(*cwd)) : AllFiles();
    std::vector<SessionSummary> out;
    for (const FileRef& f : files) {
      Result<std::string> text = ReadPath(f.path);
      if (!text.ok()) {
        log::Warn(text.error().message);
        continue;
      }
      Result<JsonlContent> c = ParseJsonlSession(*text, f.path.string());
      if (!c.ok()) {
        log::Warn("skipped: " + c.error().message);
        continue;
      }
      if (cwd && c->header.cwd != *cwd) continue;  // a hash collision, in theory
      SessionSummary s;
      s.id = f.id;
      s.cwd = c->header.cwd;
      s.created = c->header.created;
      s.parent_session = c->header.parent_session;
      MessageStats stats;
      for (const Entry& e : c->entries) AddToMessageStats(stats, e);
      s.first_prompt = std::move(stats.first_prompt);
      s.message_count = stats.message_count;
      struct stat st;
      if (::stat(f.path.c_str(), &st) == 0)
        s.modified_ms = int64_t(st.st_mtim.tv_sec) * 1000 + st.st_mtim.tv_nsec / 1000000;
      out.push_back(std::move(s));
    }
    std::sort(out.begin(), out.end(), [](const SessionSummary& a, const SessionSummary& b) {
      return a.modified_ms != b.modified_ms ? a.modified_ms > b.modified_ms : a.id > b.id;
    });
    return out;
  }

  Status Remove(std::string_view id_or_prefix) override {
    Result<FileRef> ref = Find(id_or_prefix);
    if (!ref.ok()) return ref.error();
    UniqueFd fd(::open(ref->path.c_str(), O_RDONLY | O_CLOEXEC));
    if (!fd.valid()) return Error::Make(IoError("could not open", ref->path, errno), "io");
    if (Status s = LockForWriting(fd.get(), "session " + ref->id); !s.ok()) return s;
    if (::unlink(ref->path.c_str()) != 0)
      return Error::Make(IoError("could not delete", ref->path, errno), "io");
    std::error_code ec;
    fs::remove(ref->path.parent_path(), ec);  // only succeeds when empty
    return Ok();
  }

  Result<std::unique_ptr<Session>> Import(const SessionHeader& header,
                                          const std::vector<Entry>& entries) override {
    return Write(header, entries, /*check_exists=*/true);
  }

 private:
  Result<std::unique_ptr<Session>> Write(SessionHeader header, std::vector<Entry> entries,
                                         bool check_exists) {
    if (Status s = PrepareImport(header, entries); !s.ok()) return s.error();
    if (check_exists && !FilesNamed(header.id).empty())
      return Error::Make("session " + header.id + " already exists in " + root_.string(),
                         "exists");
    std::string text = EncodeHeader(header);
    text += '\n';
    for (const Entry& e : entries) {
      text += EncodeEntry(e);
      text += '\n';
    }

    fs::path dir = root_ / CwdFolderName(header.cwd);
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) return Error::Make("could not create " + dir.string() + ": " + ec.message(), "io");
    ::chmod(root_.c_str(), 0700);
    ::chmod(dir.c_str(), 0700);
    fs::path path = dir / (FileSafeTime(header.created) + "_" + header.id + std::string(kExt));

    // Write it whole under a temporary name, then link it into place (fails
    // if the name exists), so no reader ever sees half a session.
    fs::path tmp = dir / (".tmp-" + header.id + "-" + std::to_string(::getpid()));
    {
      UniqueFd out(::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600));
      if (!out.valid()) return Error::Make(IoError("could not create", tmp, errno), "io");
      if (Status s = WriteAll(out.get(), text); !s.ok()) {
        ::unlink(tmp.c_str());
        return Error::Make("could not write " + tmp.string() + ": " + s.error().message, "io");
      }
      // An imported session keeps its age, so "latest" still means latest.
      int64_t ms = LastWriteMs(header, entries);
      struct timespec times[2];
      times[0].tv_sec = times[1].tv_sec = ms / 1000;
      times[0].tv_nsec = times[1].tv_nsec = (ms % 1000) * 1000000;
      ::futimens(out.get(), times);
    }
    if (::link(tmp.c_str(), path.c_str()) != 0) {
      int err = errno;
      ::unlink(tmp.c_str());
      return Error::Make(IoError("could not create", path, err), err == EEXIST ? "exists" : "io");
    }
    ::unlink(tmp.c_str());

    UniqueFd fd(::open(path.c_str(), O_RDWR | O_APPEND | O_CLOEXEC));
    if (!fd.valid()) return Error::Make(IoError("could not open", path, errno), "io");
    if (Status s = LockForWriting(fd.get(), "session " + header.id); !s.ok()) return s.error();
    std::string location = path.string();
    return std::make_unique<Session>(std::move(header), std::move(entries),
                                     std::make_unique<JsonlSink>(std::move(fd), path),
                                     std::move(location));
  }

  static Result<std::string> ReadPath(const fs::path& path) {
    UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
    if (!fd.valid()) return Error::Make(IoError("could not open", path, errno), "io");
    return ReadBoundedFd(fd.get(), path, kMaxSessionFileBytes, "a session file");
  }

  static std::vector<FileRef> FilesIn(const fs::path& dir) {
    std::vector<FileRef> out;
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
      std::string id = IdFromFileName(it->path().filename().string());
      if (!id.empty()) out.push_back({id, it->path()});
    }
    return out;
  }

  std::vector<FileRef> AllFiles() const {
    std::vector<FileRef> out;
    std::error_code ec;
    for (fs::directory_iterator it(root_, ec), end; !ec && it != end; it.increment(ec)) {
      std::error_code dec;
      if (!it->is_directory(dec)) continue;
      for (FileRef& f : FilesIn(it->path())) out.push_back(std::move(f));
    }
    return out;
  }

  std::vector<FileRef> FilesNamed(std::string_view id) const {
    std::vector<FileRef> out;
    for (FileRef& f : AllFiles())
      if (f.id == id) out.push_back(std::move(f));
    return out;
  }

  Result<FileRef> Find(std::string_view id_or_prefix) const {
    std::string prefix = ToLower(Trim(id_or_prefix));
    if (!IsValidIdPrefix(prefix))
      return Error::Make("\"" + std::string(id_or_prefix) +
                             "\" is not a session id (ids are hex digits, e.g. 0193ab…)",
                         "invalid_argument");
    std::vector<FileRef> matches;
    for (FileRef& f : AllFiles()) {
      if (f.id == prefix) return f;  // an exact id always wins
      if (StartsWith(f.id, prefix)) matches.push_back(std::move(f));
    }
    if (matches.empty())
      return Error::Make("no session matches \"" + prefix + "\" in " + root_.string() +
                             " (see `sepp sessions list --all`)",
                         "not_found");
    if (matches.size() > 1) {
      std::sort(matches.begin(), matches.end(),
                [](const FileRef& a, const FileRef& b) { return a.id < b.id; });
      std::string msg = "\"" + prefix + "\" matches " + std::to_string(matches.size()) +
                        " sessions; give more of the id:";
      size_t shown = 0;
      for (const FileRef& f : matches) {
        if (++shown > 10) {
          msg += "\n  …";
          break;
        }
        msg += "\n  " + f.id + "  " + f.path.parent_path().filename().string();
      }
      return Error::Make(msg, "ambiguous");
    }
    return matches.front();
  }

  Result<std::unique_ptr<Session>> Load(const FileRef& ref, OpenMode mode) const {
    bool append = mode == OpenMode::kAppend;
    UniqueFd fd(::open(ref.path.c_str(), (append ? O_RDWR | O_APPEND : O_RDONLY | O_NONBLOCK) | O_CLOEXEC));
    if (!fd.valid()) return Error::Make(IoError("could not open session file", ref.path, errno), "io");
    if (append)
      if (Status s = LockForWriting(fd.get(), "session " + ref.id); !s.ok()) return s.error();
    Result<std::string> text = ReadBoundedFd(fd.get(), ref.path, kMaxSessionFileBytes, "a session file");
    if (!text.ok()) return text.error();
    Result<JsonlContent> c = ParseJsonlSession(*text, ref.path.string());
    if (!c.ok()) return c.error();
    if (c->bad_lines)
      log::Warn("session file " + ref.path.string() + ": skipped " + std::to_string(c->bad_lines) +
                " unreadable line(s)");
    if (c->torn_offset != std::string::npos) {
      size_t torn = text->size() - c->torn_offset;
      if (append) {
        log::Warn("session file " + ref.path.string() + ": dropped an incomplete last line (" +
                  std::to_string(torn) + " bytes), left by an interrupted write");
        if (::ftruncate(fd.get(), static_cast<off_t>(c->torn_offset)) != 0)
          return Error::Make(IoError("could not repair", ref.path, errno), "io");
      } else {
        log::Debug("session file " + ref.path.string() + ": ignoring an incomplete last line");
      }
    } else if (c->missing_final_newline && append) {
      if (Status s = WriteAll(fd.get(), "\n"); !s.ok())
        return Error::Make("could not repair " + ref.path.string() + ": " + s.error().message, "io");
    }
    std::unique_ptr<EntrySink> sink;
    if (append) sink = std::make_unique<JsonlSink>(std::move(fd), ref.path);
    return std::make_unique<Session>(std::move(c->header), std::move(c->entries), std::move(sink),
                                     ref.path.string());
  }

  fs::path root_;
};

}  // namespace

std::string CwdFolderName(const std::string& cwd) {
  uint32_t hash = 2166136261u;
  for (unsigned char c : cwd) hash = (hash ^ c) * 16777619u;
  std::string tail;
  for (char c : cwd) {
    bool keep = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                c == '.' || c == '_';
    char out = keep ? c : '-';
    if (out == '-' && (tail.empty() || tail.back() == '-')) continue;
    tail += out;
  }
  while (!tail.empty() && tail.back() == '-') tail.pop_back();
  if (tail.size() > 48) tail = tail.substr(tail.size() - 48);
  if (tail.empty() || tail[0] == '.') tail = "root" + tail;
  char hex[9];
  std::snprintf(hex, sizeof hex, "%08x", hash);
  return tail + "_" + hex;
}

Result<JsonlContent> ParseJsonlSession(std::string_view text, const std::string& what) {
  JsonlContent c;
  bool have_header = false;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    bool terminated = nl != std::string_view::npos;
    size_t end = terminated ? nl : text.size();
    std::string_view line = text.substr(pos, end - pos);
    size_t start = pos;
    pos = terminated ? nl + 1 : text.size();
    if (Trim(line).empty()) continue;

    if (!have_header) {
      Result<Json> record = ParseRecord(line);
      if (!record.ok()) {
        if (!terminated) {  // the header itself is torn: nothing was ever stored
          c.torn_offset = start;
          break;
        }
        return Error::Make(what + " is not a sepp session file: " + record.error().message,
                           "invalid_header");
      }
      Result<SessionHeader> h = HeaderFromJson(std::move(*record));
      if (!h.ok()) return Error::Make(what + " is not a sepp session file: " + h.error().message,
                                      "invalid_header");
      c.header = std::move(*h);
      have_header = true;
      if (!terminated) c.missing_final_newline = true;
      continue;
    }
    // A complete line is read by its envelope; the unterminated last line
    // gets a full parse, since it decides whether a write was torn.
    Result<Json> record = terminated ? Result<Json>(Json()) : ParseRecord(line);
    Result<Entry> e = terminated ? EntryFromText(line)
                      : record.ok() ? EntryFromJson(std::move(*record))
                                    : Result<Entry>(record.error());
    if (!e.ok()) {
      if (!terminated)
        c.torn_offset = start;
      else
        ++c.bad_lines;
      continue;
    }
    c.entries.push_back(std::move(*e));
    if (!terminated) c.missing_final_newline = true;
  }
  if (!have_header)
    return Error::Make(what + " is not a sepp session file: it has no header line",
                       "invalid_header");
  return c;
}

Result<std::unique_ptr<Store>> OpenJsonlStore(const std::filesystem::path& root) {
  if (root.empty()) return Error::Make("no folder given for the session store", "invalid_argument");
  return std::unique_ptr<Store>(std::make_unique<JsonlStore>(root));
}

}  // namespace sepp::session
