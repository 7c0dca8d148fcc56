#include "tools/path_index.h"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>

#include "tools/fuzzy.h"
#include "tools/safe_open.h"
#include "tools/walk.h"

namespace sepp::tools {
namespace {

constexpr uint32_t kWatchMask = IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO |
                                IN_CLOSE_WRITE | IN_MODIFY | IN_ATTRIB | IN_DELETE_SELF |
                                IN_MOVE_SELF | IN_ONLYDIR | IN_DONT_FOLLOW;
constexpr size_t kFilterWords = 32;  // 2048 bits
constexpr size_t kFilterMaxBytes = 64 * 1024;

inline unsigned char Lower(unsigned char c) { return (c >= 'A' && c <= 'Z') ? c + 32 : c; }
inline uint32_t PairBit(unsigned char a, unsigned char b) {
  return (uint32_t{Lower(a)} * 131u + Lower(b)) & (kFilterWords * 64 - 1);
}

std::string Join(const std::string& dir, const std::string& name) {
  return dir.empty() ? name : dir + "/" + name;
}

// The folders of a set that are not inside another one of the set.
std::vector<std::string> Outermost(const std::set<std::string>& dirs) {
  std::vector<std::string> out;
  for (const std::string& d : dirs) {  // sorted: a parent comes before its children
    if (!out.empty()) {
      const std::string& p = out.back();
      if (p.empty() || (d.size() > p.size() && d.compare(0, p.size(), p) == 0 && d[p.size()] == '/'))
        continue;
    }
    out.push_back(d);
  }
  return out;
}

}  // namespace

PathIndex::PathIndex(std::filesystem::path root, const PathGuard& guard, CancelToken* cancel)
    : root_(std::move(root)) {
  root_fd_.Reset(::open(root_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  std::filesystem::path top;
  if (auto file = FindGitIndexFile(root_, &top)) {
    git_index_file_ = *file;
    std::error_code ec;
    std::string rel = std::filesystem::relative(root_, top, ec).generic_string();
    if (!ec && !rel.empty() && rel != ".") git_prefix_ = rel + "/";
  }
  Build(guard, cancel);
  RefreshGit();
}

PathIndex::~PathIndex() = default;

void PathIndex::Build(const PathGuard& guard, CancelToken* cancel) {
  auto start = std::chrono::steady_clock::now();
  inotify_.Reset(::inotify_init1(IN_NONBLOCK | IN_CLOEXEC));
  watches_.clear();
  watching_ = inotify_.valid();
  entries_ = WalkSubtree("", guard, cancel);
  ++rebuilds_;
  build_ms_ = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

void PathIndex::Watch(const std::string& dir_rel) {
  if (!watching_) return;
  std::filesystem::path p = dir_rel.empty() ? root_ : root_ / dir_rel;
  int wd = ::inotify_add_watch(inotify_.get(), p.c_str(), kWatchMask);
  if (wd < 0) {
    // ENOSPC: the user's inotify watches are used up. Rebuild on every query
    // instead (slower, never stale). A folder gone meanwhile is no failure.
    if (errno != ENOENT && errno != ENOTDIR) watching_ = false;
    return;
  }
  watches_[wd] = dir_rel;
}

std::vector<IndexedPath> PathIndex::WalkSubtree(const std::string& dir, const PathGuard& guard,
                                                CancelToken* cancel) {
  std::vector<IndexedPath> out;
  std::filesystem::path base = dir.empty() ? root_ : root_ / dir;
  if (guard.Hidden(base)) return out;
  Watch(dir);
  std::string prefix = dir.empty() ? "" : dir + "/";
  WalkOptions opts;
  opts.cancel = cancel;
  WalkHider hider(guard, base);
  Walk(base, opts, [&](const WalkEntry& w) {
    if (hider.Hidden(w.rel, w.is_dir)) return true;
    IndexedPath e;
    e.rel = prefix + w.rel;
    size_t slash = e.rel.rfind('/');
    e.name_start = slash == std::string::npos ? 0 : static_cast<uint32_t>(slash + 1);
    e.is_dir = w.is_dir;
    e.is_symlink = w.is_symlink;
    e.mask = CharMask(e.rel);
    e.hidden_at = LastHiddenSegment(e.rel);
    if (e.is_dir) Watch(e.rel);
    out.push_back(std::move(e));
    return true;
  });
  std::sort(out.begin(), out.end(), [](const IndexedPath& a, const IndexedPath& b) { return a.rel < b.rel; });
  return out;
}

void PathIndex::ReplaceSubtree(const std::string& dir, std::vector<IndexedPath> fresh) {
  if (dir.empty()) {
    entries_ = std::move(fresh);
    return;
  }
  std::string lo = dir + "/", hi = dir + "0";  // '0' follows '/'
  auto cmp = [](const IndexedPath& e, const std::string& key) { return e.rel < key; };
  auto first = std::lower_bound(entries_.begin(), entries_.end(), lo, cmp);
  auto last = std::lower_bound(first, entries_.end(), hi, cmp);
  auto at = entries_.erase(first, last);
  entries_.insert(at, std::make_move_iterator(fresh.begin()), std::make_move_iterator(fresh.end()));
}

IndexedPath* PathIndex::Find(std::string_view rel) {
  auto it = std::lower_bound(entries_.begin(), entries_.end(), rel,
                             [](const IndexedPath& e, std::string_view key) { return e.rel < key; });
  return it != entries_.end() && it->rel == rel ? &*it : nullptr;
}

void PathIndex::Refresh(const PathGuard& guard, CancelToken* cancel) {
  std::set<std::string> dirty;
  bool full = !watching_;
  alignas(inotify_event) char buf[64 * 1024];
  while (watching_ && !full) {
    ssize_t n = ::read(inotify_.get(), buf, sizeof buf);
    if (n <= 0) break;  // EAGAIN: nothing more
    for (char* p = buf; p < buf + n;) {
      auto* ev = reinterpret_cast<inotify_event*>(p);
      p += sizeof(inotify_event) + ev->len;
      if (ev->mask & IN_Q_OVERFLOW) {
        full = true;
        break;
      }
      auto w = watches_.find(ev->wd);
      if (w == watches_.end()) continue;
      if (ev->mask & IN_IGNORED) {
        watches_.erase(w);
        continue;
      }
      const std::string& dir = w->second;
      std::string name = ev->len ? std::string(ev->name) : std::string();
      if (ev->mask & (IN_DELETE_SELF | IN_MOVE_SELF)) {
        if (dir.empty()) full = true;  // the root itself went away or moved
        else dirty.insert(dir);
        continue;
      }
      if (ev->mask & (IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO) || name == ".gitignore") {
        dirty.insert(dir);
        continue;
      }
      if (IndexedPath* e = Find(Join(dir, name))) {  // content or mode changed
        e->git = 0;
        e->filter_state = 0;
        e->filter.reset();
      }
    }
  }
  if (full) {
    Build(guard, cancel);
  } else {
    for (const std::string& d : Outermost(dirty)) ReplaceSubtree(d, WalkSubtree(d, guard, cancel));
  }
  RefreshGit();
}

void PathIndex::RefreshGit() {
  if (!git_index_file_) return;
  struct stat st;
  if (::stat(git_index_file_->c_str(), &st) != 0) {
    git_.reset();
    git_size_ = -1;
    return;
  }
  if (git_ && st.st_size == git_size_ && st.st_mtim.tv_sec == git_mtime_.tv_sec &&
      st.st_mtim.tv_nsec == git_mtime_.tv_nsec)
    return;
  git_size_ = st.st_size;
  git_mtime_ = st.st_mtim;
  for (IndexedPath& e : entries_) e.git = 0;
  auto bytes = ReadRegularFile(*git_index_file_, size_t{1} << 30);
  if (!bytes.ok()) {
    git_.reset();
    return;
  }
  auto parsed = ParseGitIndex(*bytes);
  if (parsed.ok()) git_ = std::move(*parsed);
  else git_.reset();
}

bool PathIndex::GitChanged(IndexedPath& e) {
  if (!git_ || e.is_dir) return false;
  if (e.git == 0) {
    const GitIndexEntry* it = git_prefix_.empty() ? git_->Find(e.rel) : git_->Find(git_prefix_ + e.rel);
    if (!it || it->conflict) {
      e.git = 2;
    } else {
      struct stat st;
      bool same = ::fstatat(root_fd_.get(), e.rel.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 &&
                  static_cast<uint32_t>(st.st_size) == it->size &&
                  static_cast<uint32_t>(st.st_mtim.tv_sec) == it->mtime_s;
      e.git = same ? 1 : 2;
    }
  }
  return e.git == 2;
}

UniqueFd PathIndex::OpenBeneath(const IndexedPath& e, DirCache* dirs) const {
  if (e.is_dir || e.is_symlink || !root_fd_.valid()) return UniqueFd();
  constexpr int kFileFlags = O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY;
  // openat2 does it in one call; the sandbox's seccomp filter answers ENOSYS
  // (its flags lie out of a filter's reach), and then each folder on the way
  // is opened with O_NOFOLLOW, the last one kept for the next file (files
  // come in path order, so neighbours share it).
  static std::atomic<bool> no_openat2{false};
  int fd = -1;
  if (!no_openat2.load(std::memory_order_relaxed)) {
    open_how how{};
    how.flags = kFileFlags;
    how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
    fd = static_cast<int>(::syscall(SYS_openat2, root_fd_.get(), e.rel.c_str(), &how, sizeof how));
    if (fd < 0 && (errno == ENOSYS || errno == EPERM)) no_openat2.store(true);
  }
  if (no_openat2.load(std::memory_order_relaxed)) {
    std::string_view dir = std::string_view(e.rel).substr(0, e.name_start ? e.name_start - 1 : 0);
    DirCache local;
    DirCache& cache = dirs ? *dirs : local;
    if (!cache.fd.valid() || cache.rel != dir) {
      cache.fd.Reset();
      cache.rel.clear();
      UniqueFd at(::dup(root_fd_.get()));
      for (std::string_view rest = dir; at.valid() && !rest.empty();) {
        size_t slash = rest.find('/');
        std::string part(rest.substr(0, slash));
        rest = slash == std::string_view::npos ? std::string_view() : rest.substr(slash + 1);
        if (part.empty() || part == "." || part == "..") return UniqueFd();
        at.Reset(::openat(at.get(), part.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
      }
      if (!at.valid()) return UniqueFd();
      cache.fd = std::move(at);
      cache.rel = std::string(dir);
    }
    std::string name = e.rel.substr(e.name_start);
    if (name == "." || name == "..") return UniqueFd();
    fd = ::openat(cache.fd.get(), name.c_str(), kFileFlags);
  }
  if (fd < 0) return UniqueFd();
  UniqueFd out(fd);
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) return UniqueFd();
  return out;
}

bool PathIndex::MayHold(const IndexedPath& e, std::string_view lower_literal) {
  if (e.filter_state != 1 || lower_literal.size() < 2) return true;
  for (size_t i = 0; i + 1 < lower_literal.size(); ++i) {
    uint32_t bit = PairBit(lower_literal[i], lower_literal[i + 1]);
    if (!(e.filter[bit >> 6] >> (bit & 63) & 1)) return false;
  }
  return true;
}

void PathIndex::FillFilter(IndexedPath& e, std::string_view content) {
  if (content.size() > kFilterMaxBytes) {
    e.filter_state = 2;
    e.filter.reset();
    return;
  }
  e.filter = std::make_unique<uint64_t[]>(kFilterWords);
  std::memset(e.filter.get(), 0, kFilterWords * sizeof(uint64_t));
  for (size_t i = 0; i + 1 < content.size(); ++i) {
    uint32_t bit = PairBit(content[i], content[i + 1]);
    e.filter[bit >> 6] |= uint64_t{1} << (bit & 63);
  }
  e.filter_state = 1;
}

}  // namespace sepp::tools
