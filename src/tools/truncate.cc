// Truncation works on lines: a kept line is kept whole, except when a single
// line is larger than the whole budget (minified files, progress bars), in
// which case its UTF-8-safe prefix (head) or suffix (tail) is kept.
#include "tools/truncate.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <mutex>
#include <set>

#include "base/fd.h"
#include "base/secrets.h"
#include "base/strings.h"

namespace sepp::tools {
namespace {

struct Part {
  size_t bytes = 0;  // length of the kept part
  size_t lines = 0;  // complete lines in it
};

// Whole lines from the start of text within the budget.
Part HeadPart(std::string_view text, size_t max_lines, size_t max_bytes) {
  Part p;
  while (p.bytes < text.size() && p.lines < max_lines) {
    size_t nl = text.find('\n', p.bytes);
    size_t end = nl == std::string_view::npos ? text.size() : nl + 1;
    if (end - p.bytes > max_bytes - std::min(max_bytes, p.bytes)) break;
    p.bytes = end;
    ++p.lines;
  }
  if (p.lines == 0 && !text.empty() && max_lines > 0)  // first line alone too big
    p.bytes = Utf8SafePrefix(text, max_bytes);
  return p;
}

// Whole lines from the end of text within the budget; bytes counts from the end.
Part TailPart(std::string_view text, size_t max_lines, size_t max_bytes) {
  Part p;
  size_t start = text.size();
  while (start > 0 && p.lines < max_lines) {
    // The line that ends at start-1 (with its '\n', if any) begins after
    // the '\n' before it.
    size_t last = start - 1;
    size_t nl = text[last] != '\n' ? text.rfind('\n', last)
                : last == 0        ? std::string_view::npos
                                   : text.rfind('\n', last - 1);
    size_t line_start = nl == std::string_view::npos ? 0 : nl + 1;
    if (start - line_start > max_bytes - p.bytes) break;
    p.bytes += start - line_start;
    start = line_start;
    ++p.lines;
  }
  if (p.lines == 0 && !text.empty() && max_lines > 0) {
    size_t from = text.size() - std::min(text.size(), max_bytes);
    while (from < text.size() && (static_cast<unsigned char>(text[from]) & 0xC0) == 0x80) ++from;
    p.bytes = text.size() - from;
  }
  return p;
}

std::string OmittedMarker(size_t lines, size_t bytes) {
  return "[... " + std::to_string(lines) + (lines == 1 ? " line" : " lines") + " (" +
         HumanBytes(bytes) + ") omitted ...]";
}

// head_src starts at the output's first byte, tail_src ends at its last; in
// memory both are the whole text.
Truncation JoinHeadTail(std::string_view head_src, std::string_view tail_src, size_t total_bytes,
                        size_t total_lines, const TruncateLimits& limits) {
  Truncation t;
  t.total_bytes = total_bytes;
  t.total_lines = total_lines;
  size_t head_lines = limits.max_lines / 2, head_bytes = limits.max_bytes / 2;
  Part head = HeadPart(head_src, head_lines, head_bytes);
  Part tail = TailPart(tail_src, limits.max_lines - head_lines, limits.max_bytes - head_bytes);
  if (head.bytes + tail.bytes > total_bytes) tail.bytes = total_bytes - head.bytes;  // guard
  t.truncated = true;
  t.head_lines = head.lines;
  t.tail_lines = tail.lines;
  t.omitted_bytes = total_bytes - head.bytes - tail.bytes;
  size_t kept = head.lines + tail.lines;
  t.omitted_lines = total_lines > kept ? total_lines - kept : 0;
  t.text.assign(head_src.substr(0, head.bytes));
  if (!t.text.empty() && t.text.back() != '\n') t.text += '\n';
  t.text += OmittedMarker(t.omitted_lines, t.omitted_bytes);
  t.text += '\n';
  t.text.append(tail_src.substr(tail_src.size() - tail.bytes));
  return t;
}

bool WithinLimits(size_t bytes, size_t lines, const TruncateLimits& limits) {
  return bytes <= limits.max_bytes && lines <= limits.max_lines;
}

}  // namespace

size_t CountLines(std::string_view text) {
  if (text.empty()) return 0;
  size_t n = static_cast<size_t>(std::count(text.begin(), text.end(), '\n'));
  return text.back() == '\n' ? n : n + 1;
}

Truncation TruncateHead(std::string_view text, const TruncateLimits& limits) {
  Truncation t;
  t.total_bytes = text.size();
  t.total_lines = CountLines(text);
  if (WithinLimits(t.total_bytes, t.total_lines, limits)) {
    t.text.assign(text);
    t.head_lines = t.total_lines;
    return t;
  }
  Part head = HeadPart(text, limits.max_lines, limits.max_bytes);
  t.truncated = true;
  t.text.assign(text.substr(0, head.bytes));
  t.head_lines = head.lines;
  t.omitted_bytes = text.size() - head.bytes;
  t.omitted_lines = t.total_lines - head.lines;
  return t;
}

Truncation TruncateHeadTail(std::string_view text, const TruncateLimits& limits) {
  size_t lines = CountLines(text);
  if (WithinLimits(text.size(), lines, limits)) {
    Truncation t;
    t.text.assign(text);
    t.total_bytes = text.size();
    t.total_lines = t.head_lines = lines;
    return t;
  }
  return JoinHeadTail(text, text, text.size(), lines, limits);
}

std::string CutLine(std::string_view line, size_t max_bytes) {
  if (line.size() <= max_bytes) return std::string(line);
  size_t keep = Utf8SafePrefix(line, max_bytes);
  return std::string(line.substr(0, keep)) + "… [" + std::to_string(line.size() - keep) +
         " more bytes]";
}

void LimitResult(ToolResult& result, const TruncateLimits& limits) {
  Truncation t = TruncateHead(result.text, limits);
  if (!t.truncated) return;
  result.text = std::move(t.text);
  if (!result.text.empty() && result.text.back() != '\n') result.text += '\n';
  result.text += "[Output truncated: showing " + std::to_string(t.head_lines) + " of " +
                 std::to_string(t.total_lines) + " lines; " + HumanBytes(t.omitted_bytes) +
                 " omitted.]";
  result.truncated = true;
}

namespace {

constexpr auto kKeepSavedOutput = std::chrono::hours(24 * 7);

// Saved outputs older than a week go when a new one is saved (once per
// folder and process): without this the folder only grew.
void PruneOldOutputs(const std::filesystem::path& dir) {
  static std::mutex mu;
  static std::set<std::string> swept;
  {
    std::lock_guard<std::mutex> lock(mu);
    if (!swept.insert(dir.string()).second) return;
  }
  std::error_code ec;
  auto cutoff = std::filesystem::file_time_type::clock::now() - kKeepSavedOutput;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    std::error_code e2;
    if (e.path().extension() == ".log" && e.is_regular_file(e2) &&
        e.last_write_time(e2) < cutoff && !e2)
      std::filesystem::remove(e.path(), e2);
  }
}

}  // namespace

std::string PrepareOutputFolder(const std::filesystem::path& dir) {
  std::error_code ec;
  if (dir.has_parent_path()) std::filesystem::create_directories(dir.parent_path(), ec);
  ::mkdir(dir.c_str(), 0700);  // private: outputs may hold what the command printed
  struct stat st {};
  if (::lstat(dir.c_str(), &st) != 0)
    return "cannot create " + dir.string() + ": " + ErrnoText(errno);
  // In a shared folder such as /tmp another user may have planted the name
  // first (a link to somewhere of theirs, or a folder they can read).
  if (S_ISLNK(st.st_mode) || !S_ISDIR(st.st_mode) || st.st_uid != ::geteuid() ||
      (st.st_mode & (S_IWGRP | S_IWOTH)) != 0)
    return "refusing to save output in " + dir.string() +
           ": it is not a private folder of this user (a link, another owner, or writable by "
           "others); remove it or set TMPDIR";
  PruneOldOutputs(dir);
  return {};
}

OutputCollector::OutputCollector(TruncateLimits limits, std::filesystem::path spill_path)
    : limits_(limits), spill_path_(std::move(spill_path)) {}

OutputCollector::~OutputCollector() {
  if (file_) std::fclose(file_);
}

void OutputCollector::Append(std::string_view chunk) {
  if (chunk.empty()) return;
  total_bytes_ += chunk.size();
  newlines_ += static_cast<size_t>(std::count(chunk.begin(), chunk.end(), '\n'));
  last_ = chunk.back();
  if (!spilled_) {
    all_.append(chunk);
    size_t lines = newlines_ + (last_ == '\n' ? 0 : 1);
    if (!WithinLimits(total_bytes_, lines, limits_)) Spill();
    return;
  }
  SaveChunk(chunk, false);
  tail_.append(chunk);
  if (tail_.size() > 2 * limits_.max_bytes + 1)
    tail_.erase(0, tail_.size() - limits_.max_bytes - 1);
}

void OutputCollector::Spill() {
  spilled_ = true;
  head_ = all_.substr(0, limits_.max_bytes + 1);
  tail_ = all_.size() > limits_.max_bytes + 1 ? all_.substr(all_.size() - limits_.max_bytes - 1)
                                              : all_;
  if (spill_path_.empty()) {
    spill_error_ = "no folder for saved output";
  } else if (std::string why = PrepareOutputFolder(spill_path_.parent_path()); !why.empty()) {
    spill_error_ = why;
  } else {
    // Private to the user (0600) whatever the umask, and never through a
    // link planted at the name.
    int fd = ::open(spill_path_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                    0600);
    if (fd >= 0) file_ = ::fdopen(fd, "wb");
    if (!file_) {
      spill_error_ = "cannot create " + spill_path_.string() + ": " + ErrnoText(errno);
      if (fd >= 0) ::close(fd);
    } else {
      SaveChunk(all_, false);
    }
  }
  std::string().swap(all_);
}

// The saved copy is redacted like everything else that leaves a tool, and
// stops at kMaxSavedBytes with a note saying how much more there was. A
// secret split between two chunks is caught too: the text after the last
// newline waits for the next chunk (up to 64 KiB of it) before redaction.
void OutputCollector::SaveChunk(std::string_view chunk, bool last) {
  if (!file_) return;
  std::string_view part = chunk.substr(0, kMaxSavedBytes - saved_bytes_);
  unsaved_bytes_ += chunk.size() - part.size();
  saved_bytes_ += part.size();
  pending_save_.append(part);
  size_t cut = pending_save_.size();
  if (!last && saved_bytes_ < kMaxSavedBytes) {
    size_t nl = pending_save_.rfind('\n');
    cut = nl == std::string::npos ? 0 : nl + 1;
    if (pending_save_.size() - cut > 65536) cut = pending_save_.size();
  }
  if (cut == 0) return;
  std::string text = Redact(std::string_view(pending_save_).substr(0, cut));
  pending_save_.erase(0, cut);
  if (std::fwrite(text.data(), 1, text.size(), file_) != text.size()) {
    spill_error_ = "writing " + spill_path_.string() + " failed: " + ErrnoText(errno);
    std::fclose(file_);
    file_ = nullptr;
  }
}

Truncation OutputCollector::Finish() {
  SaveChunk({}, /*last=*/true);
  if (file_ && unsaved_bytes_ > 0) {
    std::string note = "\n[sepp: the saved output stops here, at " + HumanBytes(kMaxSavedBytes) +
                       "; " + std::to_string(unsaved_bytes_) + " more bytes were not saved]\n";
    std::fwrite(note.data(), 1, note.size(), file_);
  }
  if (file_) {
    if (std::fclose(file_) != 0 && spill_error_.empty())
      spill_error_ = "writing " + spill_path_.string() + " failed: " + ErrnoText(errno);
    file_ = nullptr;
  }
  if (!spilled_) return TruncateHeadTail(all_, limits_);
  size_t lines = newlines_ + (last_ == '\n' ? 0 : 1);
  return JoinHeadTail(head_, tail_, total_bytes_, lines, limits_);
}

}  // namespace sepp::tools
