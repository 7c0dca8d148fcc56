// The store's catalog side: what context_list, context_stats and the
// retention settings need. Writes and search are in store.cc.
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <string>

#include "base/strings.h"
#include "sidecar/store.h"
#include "sidecar/store_sql.h"

namespace sepp::sidecar {

using sqlite::SqliteStmt;

namespace {

constexpr size_t kListPreviewBytes = 240;

// A whole number 0..max from NAME, with the words that mean 0; unset or
// empty: fallback.
Result<int64_t> EnvNumber(const char* name, int64_t fallback, int64_t max,
                          std::initializer_list<const char*> zero_words, const char* meaning) {
  const char* raw = std::getenv(name);
  if (!raw || !*raw) return fallback;
  std::string v(Trim(raw));
  for (const char* w : zero_words)
    if (v == w) return int64_t{0};
  bool digits = !v.empty() && v.size() <= 12 && v.find_first_not_of("0123456789") == std::string::npos;
  if (!digits || std::stoll(v) > max) {
    std::string words;
    for (const char* w : zero_words) words += std::string(words.empty() ? "" : ", ") + "\"" + w + "\"";
    return Error::Make(std::string(name) + "=\"" + v.substr(0, 40) + "\" is not usable: give " + meaning +
                           " as a whole number from 0 to " + std::to_string(max) + " (0 or " + words +
                           ": " + (std::string(name).find("DAYS") != std::string::npos ? "keep" : "no cap") +
                           ")",
                       "usage");
  }
  return std::stoll(v);
}

int64_t FileBytes(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 ? static_cast<int64_t>(st.st_size) : 0;
}

}  // namespace

Result<Retention> RetentionFromEnvironment() {
  Retention r;
  auto days = EnvNumber("SEPP_CONTEXT_RETENTION_DAYS", r.max_age_days, 36500, {"off", "keep"},
                        "the days a stored output is kept");
  if (!days.ok()) return days.error();
  auto mb = EnvNumber("SEPP_CONTEXT_MAX_MB", r.max_total_bytes >> 20, 1 << 20, {"off"},
                      "the most MiB the sidecar keeps");
  if (!mb.ok()) return mb.error();
  r.max_age_days = *days;
  r.max_total_bytes = *mb << 20;
  return r;
}

Result<ListPage> Store::List(const Scope& scope, const ListOptions& o) {
  std::lock_guard<std::mutex> lock(mu_);
  const std::string where = std::string(" FROM context_sources s WHERE ") + kScopeWhere +
                            " AND (?3 = '' OR s.id = ?3) AND (?4 = '' OR s.tool_name = ?4)"
                            " AND (?5 = '' OR s.session_id = ?5) AND (?6 = 0 OR s.created_ms >= ?6)"
                            " AND (?7 = 0 OR s.created_ms < ?7)";
  auto bind = [&](SqliteStmt& q) {
    q.Bind(1, scope.project).Bind(2, o.whole_project ? std::string() : scope.session_id)
        .Bind(3, o.source_id).Bind(4, o.tool_name).Bind(5, o.session_id)
        .Bind(6, o.newer_than_ms).Bind(7, o.older_than_ms);
  };
  ListPage page;
  auto count = SqliteStmt::Prepare(*db_, ("SELECT COUNT(*)" + where).c_str());
  if (!count.ok()) return count.error();
  bind(*count);
  auto counted = count->Step();
  if (!counted.ok()) return counted.error();
  page.total = *counted ? count->Int(0) : 0;
  // The first chunk's title and opening bytes: a substr in SQL, so a
  // 4 KiB chunk is not copied out for 240 bytes (cut again on a UTF-8
  // boundary below: substr counts characters, not bytes).
  auto q = SqliteStmt::Prepare(*db_, (std::string("SELECT ") + kSourceColumns +
                                      ", (SELECT c.title FROM context_chunks c WHERE c.source_id = s.chunks_id AND c.ordinal = 1)"
                                      ", (SELECT substr(c.content, 1, 240) FROM context_chunks c WHERE c.source_id = s.chunks_id AND c.ordinal = 1)" +
                                      where + " ORDER BY s.created_ms DESC, s.rowid DESC LIMIT ?8 OFFSET ?9")
                                         .c_str());
  if (!q.ok()) return q.error();
  bind(*q);
  q->Bind(8, std::clamp<int64_t>(o.limit, 1, 50)).Bind(9, std::max<int64_t>(0, o.offset));
  for (;;) {
    auto row = q->Step();
    if (!row.ok()) return row.error();
    if (!*row) break;
    ListedSource l;
    l.info = ReadSource(*q);
    l.title = q->Text(9);
    std::string head = q->Text(10);
    l.preview = head.substr(0, Utf8SafePrefix(head, kListPreviewBytes));
    page.sources.push_back(std::move(l));
  }
  return page;
}

Result<StoreStats> Store::Stats(const Scope& scope, bool whole_project) {
  std::lock_guard<std::mutex> lock(mu_);
  auto q = SqliteStmt::Prepare(*db_, (std::string(
      "SELECT COUNT(*), COALESCE(SUM(s.chunk_count), 0), COALESCE(SUM(s.byte_count), 0), "
      "COALESCE(SUM(s.captured_bytes), 0), COALESCE(SUM(s.returned_bytes), 0), "
      "COALESCE(MIN(s.created_ms), 0), COALESCE(MAX(s.created_ms), 0) "
      "FROM context_sources s WHERE ") + kScopeWhere).c_str());
  if (!q.ok()) return q.error();
  q->Bind(1, scope.project).Bind(2, whole_project ? std::string() : scope.session_id);
  auto row = q->Step();
  if (!row.ok()) return row.error();
  StoreStats st;
  if (*row) {
    st.sources = q->Int(0);
    st.chunks = q->Int(1);
    st.stored_bytes = q->Int(2);
    st.captured_bytes = q->Int(3);
    st.returned_bytes = q->Int(4);
    st.oldest_ms = q->Int(5);
    st.newest_ms = q->Int(6);
  }
  st.db_file_bytes = FileBytes(db_->file());
  st.wal_file_bytes = FileBytes(db_->file() + "-wal");
  st.retention = retention_;
  return st;
}

Status Store::NoteCapture(const std::string& source_id, int64_t captured_bytes, int64_t returned_bytes) {
  std::lock_guard<std::mutex> lock(mu_);
  auto q = SqliteStmt::Prepare(*db_,
      "UPDATE context_sources SET captured_bytes = captured_bytes + ?2, "
      "returned_bytes = returned_bytes + ?3 WHERE id = ?1");
  if (!q.ok()) return q.error();
  q->Bind(1, source_id).Bind(2, captured_bytes).Bind(3, returned_bytes);
  return q->Run();
}

}  // namespace sepp::sidecar
