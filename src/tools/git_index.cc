#include "tools/git_index.h"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <fstream>

#include "base/strings.h"

namespace sepp::tools {
namespace {

uint32_t Be32(const unsigned char* p) {
  return uint32_t{p[0]} << 24 | uint32_t{p[1]} << 16 | uint32_t{p[2]} << 8 | p[3];
}

Error Malformed(std::string what) {
  return Error::Make("malformed git index: " + what + " (run `git status` to rewrite it)");
}

}  // namespace

std::optional<std::filesystem::path> FindGitIndexFile(const std::filesystem::path& folder,
                                                      std::filesystem::path* top) {
  std::error_code ec;
  for (std::filesystem::path dir = folder;; dir = dir.parent_path()) {
    std::filesystem::path dot = dir / ".git";
    auto st = std::filesystem::symlink_status(dot, ec);
    if (!ec && std::filesystem::is_directory(st)) {
      *top = dir;
      return dot / "index";
    }
    if (!ec && std::filesystem::is_regular_file(st)) {
      std::ifstream in(dot);
      std::string line;
      std::getline(in, line);
      if (line.rfind("gitdir:", 0) != 0) return std::nullopt;
      std::string where(Trim(line.substr(7)));
      std::filesystem::path gitdir = where;
      if (gitdir.is_relative()) gitdir = dir / gitdir;
      *top = dir;
      return gitdir / "index";
    }
    if (dir == dir.parent_path() || dir.empty()) return std::nullopt;
  }
}

Result<GitIndex> ParseGitIndex(std::string_view bytes) {
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
  const size_t n = bytes.size();
  if (n < 12 || bytes.substr(0, 4) != "DIRC") return Malformed("no DIRC header");
  uint32_t version = Be32(p + 4), count = Be32(p + 8);
  if (version < 2 || version > 4) return Malformed("version " + std::to_string(version));
  GitIndex out;
  out.items_.reserve(count);
  out.paths_.reserve(n);
  size_t at = 12;
  std::string prev;  // version 4 compresses each path against the previous one
  for (uint32_t i = 0; i < count; ++i) {
    size_t start = at;
    if (at + 62 > n) return Malformed("entry " + std::to_string(i) + " is cut short");
    GitIndexEntry e;
    e.mtime_s = Be32(p + at + 8);
    e.size = Be32(p + at + 36);
    uint16_t flags = static_cast<uint16_t>(p[at + 60] << 8 | p[at + 61]);
    e.conflict = (flags & 0x3000) != 0;
    at += 62;
    if (version >= 3 && (flags & 0x4000)) at += 2;
    std::string_view path;
    if (version == 4) {
      size_t strip = 0;
      if (at >= n) return Malformed("entry " + std::to_string(i) + " is cut short");
      unsigned char c = p[at++];
      strip = c & 127;
      while (c & 128) {
        if (at >= n) return Malformed("entry " + std::to_string(i) + " is cut short");
        c = p[at++];
        strip = ((strip + 1) << 7) | (c & 127);
      }
      if (strip > prev.size()) return Malformed("entry " + std::to_string(i) + " strips too much");
      size_t end = bytes.find('\0', at);
      if (end == std::string_view::npos) return Malformed("entry " + std::to_string(i) + " has no end");
      prev.resize(prev.size() - strip);
      prev.append(bytes.substr(at, end - at));
      path = prev;
      at = end + 1;
    } else {
      size_t end = bytes.find('\0', at);
      if (end == std::string_view::npos) return Malformed("entry " + std::to_string(i) + " has no end");
      path = bytes.substr(at, end - at);
      size_t len = end - start;  // without the NUL
      at = start + ((len + 8) & ~size_t{7});
      if (at > n) return Malformed("entry " + std::to_string(i) + " is cut short");
    }
    if (out.paths_.size() + path.size() > UINT32_MAX) return Malformed("paths too long");
    out.items_.push_back({static_cast<uint32_t>(out.paths_.size()), static_cast<uint32_t>(path.size()), e});
    out.paths_.append(path);
  }
  // git writes the entries sorted by path, the stages of a path together;
  // an index that is not is sorted here rather than trusted.
  auto less = [&](const GitIndex::Item& a, const GitIndex::Item& b) { return out.PathOf(a) < out.PathOf(b); };
  if (!std::is_sorted(out.items_.begin(), out.items_.end(), less))
    std::stable_sort(out.items_.begin(), out.items_.end(), less);
  size_t kept = 0;
  for (size_t i = 0; i < out.items_.size(); ++i) {
    if (kept && out.PathOf(out.items_[kept - 1]) == out.PathOf(out.items_[i])) {
      out.items_[kept - 1].entry.conflict = true;  // stages 1-3 of one path
      continue;
    }
    out.items_[kept++] = out.items_[i];
  }
  out.items_.resize(kept);
  return out;
}

const GitIndexEntry* GitIndex::Find(std::string_view path) const {
  auto it = std::lower_bound(items_.begin(), items_.end(), path,
                             [&](const Item& i, std::string_view key) { return PathOf(i) < key; });
  return it != items_.end() && PathOf(*it) == path ? &it->entry : nullptr;
}

}  // namespace sepp::tools
