#include "tools/files.h"

#include <algorithm>
#include <cstdio>
#include <fcntl.h>
#include <unistd.h>
#include <vector>

#include "base/fd.h"
#include "base/paths.h"
#include "base/strings.h"

namespace sepp::tools {
namespace {

// Edit distance, capped: names longer than 64 bytes are compared by prefix.
size_t Distance(std::string_view a, std::string_view b) {
  a = a.substr(0, 64);
  b = b.substr(0, 64);
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t sub = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::string Stem(const std::string& name) {
  size_t dot = name.find('.', 1);
  return dot == std::string::npos ? name : name.substr(0, dot);
}

}  // namespace

std::filesystem::path ResolveToolPath(const ToolContext& ctx, const std::string& path) {
  return ResolveAgainst(ctx.cwd, path);
}

std::filesystem::path WriteDestination(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::is_symlink(path, ec)) return path;
  auto target = std::filesystem::weakly_canonical(path, ec);
  return ec ? path : target;
}

std::string ShowPath(const ToolContext& ctx, const std::filesystem::path& path) {
  if (ctx.cwd.empty()) return path.string();
  std::string shown = DisplayPath(path, ctx.cwd);
  return shown.empty() ? "." : shown;
}

bool LooksBinary(std::string_view sample) {
  if (sample.empty()) return false;
  if (sample.find('\0') != std::string_view::npos) return true;
  size_t odd = 0;
  for (unsigned char c : sample)
    if ((c < 0x20 && c != '\n' && c != '\r' && c != '\t' && c != '\f' && c != '\b' &&
         c != 0x1B) ||
        c == 0x7F)
      ++odd;
  // Ill-formed UTF-8 (Latin-1 text has some; random bytes have lots). The
  // sample may end inside a sequence, so look at a safe prefix.
  std::string_view whole = sample.substr(0, Utf8SafePrefix(sample, sample.size() - 1));
  if (!IsValidUtf8(whole)) {
    std::string clean = SanitizeUtf8(whole);
    // Each bad byte became 3 bytes of U+FFFD.
    odd += (clean.size() - whole.size()) / 2;
  }
  return odd * 10 > sample.size() * 3;
}

std::string ImageType(std::string_view s) {
  auto starts = [&](std::string_view magic) { return StartsWith(s, magic); };
  if (starts("\x89PNG\r\n\x1a\n")) return "PNG";
  if (starts("\xFF\xD8\xFF")) return "JPEG";
  if (starts("GIF87a") || starts("GIF89a")) return "GIF";
  if (s.size() >= 12 && starts("RIFF") && s.substr(8, 4) == "WEBP") return "WebP";
  if (starts("BM") && s.size() > 26) return "BMP";
  if (starts(std::string_view("\0\0\1\0", 4))) return "ICO";
  if (starts("II*\0") || starts("MM\0*")) return "TIFF";
  return "";
}

std::string ReadSample(const std::filesystem::path& path) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) return "";
  std::string buf(kSniffBytes, '\0');
  size_t got = 0;
  while (got < buf.size()) {
    ssize_t r = ::read(fd.get(), buf.data() + got, buf.size() - got);
    if (r <= 0) break;
    got += static_cast<size_t>(r);
  }
  buf.resize(got);
  return buf;
}

std::string NotFoundMessage(const ToolContext& ctx, const std::filesystem::path& path) {
  std::string msg = "No such file or directory: " + ShowPath(ctx, path) + ".";
  std::filesystem::path dir = path.parent_path();
  std::error_code ec;
  if (dir.empty() || !std::filesystem::is_directory(dir, ec)) {
    // Say which ancestor is missing: "src/foo/ does not exist".
    std::filesystem::path p = dir;
    while (!p.empty() && p.has_parent_path() && p != p.parent_path() &&
           !std::filesystem::exists(p.parent_path(), ec))
      p = p.parent_path();
    if (!p.empty()) msg += " The folder " + ShowPath(ctx, p) + "/ does not exist.";
    return msg;
  }
  std::string want = path.filename().string();
  std::string want_lower = ToLower(want);
  std::vector<std::pair<size_t, std::string>> close;
  size_t scanned = 0;
  for (auto it = std::filesystem::directory_iterator(dir, ec);
       !ec && it != std::filesystem::directory_iterator() && scanned < 5000;
       it.increment(ec), ++scanned) {
    std::string name = it->path().filename().string();
    std::string lower = ToLower(name);
    size_t d = Distance(want_lower, lower);
    bool similar = d <= std::max<size_t>(2, want.size() / 4) ||
                   (Stem(lower) == Stem(want_lower) && !Stem(lower).empty());
    if (similar) close.emplace_back(d, name);
  }
  if (close.empty()) return msg;
  std::sort(close.begin(), close.end());
  if (close.size() > 5) close.resize(5);
  std::vector<std::string> names;
  for (auto& [d, n] : close) names.push_back(n);
  std::string shown_dir = ShowPath(ctx, dir);
  msg += " Similar names in " + (shown_dir == "." ? std::string("the current folder")
                                                  : shown_dir + "/") +
         ": " + Join(names, ", ") + ".";
  return msg;
}

}  // namespace sepp::tools
