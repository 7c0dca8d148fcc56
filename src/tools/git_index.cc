#include "tools/git_index.h"

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
  out.entries.reserve(count);
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
    std::string path;
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
      path = prev.substr(0, prev.size() - strip);
      path.append(bytes.substr(at, end - at));
      at = end + 1;
    } else {
      size_t end = bytes.find('\0', at);
      if (end == std::string_view::npos) return Malformed("entry " + std::to_string(i) + " has no end");
      path.assign(bytes.substr(at, end - at));
      size_t len = end - start;  // without the NUL
      at = start + ((len + 8) & ~size_t{7});
      if (at > n) return Malformed("entry " + std::to_string(i) + " is cut short");
    }
    prev = path;
    auto [it, fresh] = out.entries.emplace(std::move(path), e);
    if (!fresh) it->second.conflict = true;  // stages 1-3 of one path
  }
  return out;
}

}  // namespace sepp::tools
