#include "front/serve/tar_reader.h"

#include <cstdint>
#include <optional>

#include "base/strings.h"
#include "base/terminal_text.h"

namespace sepp::front::serve {
namespace {

constexpr size_t kBlock = 512;

std::string_view Field(std::string_view h, size_t off, size_t len) {
  std::string_view f = h.substr(off, len);
  size_t nul = f.find('\0');
  return nul == std::string_view::npos ? f : f.substr(0, nul);
}

// An octal number field (spaces and NULs around it allowed); nullopt when
// malformed (including GNU's base-256 form, never needed below 8 GiB).
std::optional<uint64_t> Octal(std::string_view h, size_t off, size_t len) {
  std::string_view f = h.substr(off, len);
  size_t i = 0;
  while (i < f.size() && f[i] == ' ') ++i;
  uint64_t v = 0;
  size_t digits = 0;
  for (; i < f.size() && f[i] >= '0' && f[i] <= '7'; ++i, ++digits) {
    if (v > (UINT64_MAX >> 3)) return std::nullopt;
    v = v << 3 | static_cast<uint64_t>(f[i] - '0');
  }
  for (; i < f.size(); ++i)
    if (f[i] != ' ' && f[i] != '\0') return std::nullopt;
  if (digits == 0) return std::nullopt;
  return v;
}

bool ChecksumOk(std::string_view h) {
  auto want = Octal(h, 148, 8);
  if (!want) return false;
  uint64_t sum = 0;
  for (size_t i = 0; i < kBlock; ++i)
    sum += (i >= 148 && i < 156) ? ' ' : static_cast<unsigned char>(h[i]);
  return sum == *want;
}

// "a/./b/" -> "a/b"; an error for what may not be extracted.
Result<std::string> CleanName(std::string_view raw) {
  std::string shown = VisibleControls(SanitizeUtf8(raw.substr(0, 200)));
  if (raw.empty()) return Error::Make("an entry of the archive has no name");
  if (raw.front() == '/')
    return Error::Make("the archive's entry \"" + shown + "\" has an absolute name; upload-batch takes relative names");
  std::string out;
  for (const auto& part : Split(raw, '/')) {
    if (part.empty() || part == ".") continue;
    if (part == "..")
      return Error::Make("the archive's entry \"" + shown + "\" climbs out with \"..\"");
    for (char c : part)
      if (static_cast<unsigned char>(c) < 0x20)
        return Error::Make("the archive's entry \"" + shown + "\" has a control character in its name");
    if (!out.empty()) out += '/';
    out += part;
  }
  if (out.empty()) return Error::Make("the archive's entry \"" + shown + "\" names no file");
  return out;
}

// The value of the "path" record of a pax extended header ("LEN path=VALUE\n"...).
Result<std::optional<std::string>> PaxPath(std::string_view body) {
  std::optional<std::string> path;
  while (!body.empty()) {
    size_t space = body.find(' ');
    if (space == std::string_view::npos || space == 0 || space > 20)
      return Error::Make("the archive has a malformed pax header");
    uint64_t len = 0;
    for (size_t i = 0; i < space; ++i) {
      if (body[i] < '0' || body[i] > '9') return Error::Make("the archive has a malformed pax header");
      len = len * 10 + static_cast<uint64_t>(body[i] - '0');
    }
    if (len <= space + 1 || len > body.size() || body[len - 1] != '\n')
      return Error::Make("the archive has a malformed pax header");
    std::string_view record = body.substr(space + 1, len - space - 2);
    size_t eq = record.find('=');
    if (eq == std::string_view::npos) return Error::Make("the archive has a malformed pax header");
    if (record.substr(0, eq) == "path") path = std::string(record.substr(eq + 1));
    if (record.substr(0, eq) == "linkpath")
      return Error::Make("the archive holds a link; upload-batch takes files and folders only");
    body.remove_prefix(len);
  }
  return path;
}

}  // namespace

Result<std::vector<TarEntry>> ReadTar(std::string_view archive) {
  std::vector<TarEntry> out;
  std::optional<std::string> long_name;  // from a pax or GNU 'L' entry, for the next one
  size_t pos = 0;
  for (;;) {
    if (pos == archive.size()) break;  // no end blocks: accepted, as GNU tar does
    if (archive.size() - pos < kBlock)
      return Error::Make("the archive ends inside a header (at byte " + std::to_string(pos) + ")");
    std::string_view h = archive.substr(pos, kBlock);
    if (h.find_first_not_of('\0') == std::string_view::npos) break;  // the end
    if (!ChecksumOk(h))
      return Error::Make("the archive's header at byte " + std::to_string(pos) +
                         " has a wrong checksum (not a tar archive, or a damaged one)");
    auto size = Octal(h, 124, 12);
    if (!size) return Error::Make("the archive's header at byte " + std::to_string(pos) + " has a malformed size");
    pos += kBlock;
    if (*size > archive.size() - pos)
      return Error::Make("the archive ends inside an entry's data (it says " + std::to_string(*size) +
                         " bytes, " + std::to_string(archive.size() - pos) + " are left)");
    std::string_view data = archive.substr(pos, *size);
    pos += (*size + kBlock - 1) / kBlock * kBlock;
    if (pos > archive.size()) pos = archive.size();
    char type = h[156];
    if (type == 'x') {  // pax header of the next entry
      auto p = PaxPath(data);
      if (!p.ok()) return p.error();
      if (*p) long_name = **p;
      continue;
    }
    if (type == 'g') continue;  // pax global header: nothing we use
    if (type == 'L') {          // GNU long name of the next entry
      long_name = std::string(Field(data, 0, data.size()));
      continue;
    }
    std::string name;
    if (long_name) {
      name = std::move(*long_name);
      long_name.reset();
    } else {
      std::string_view prefix = Field(h, 345, 155);
      name = std::string(Field(h, 0, 100));
      if (Field(h, 257, 5) == "ustar" && !prefix.empty()) name = std::string(prefix) + "/" + name;
    }
    bool is_dir = type == '5' || ((type == '\0' || type == '0' || type == '7') && !name.empty() && name.back() == '/');
    if (!(is_dir || type == '0' || type == '\0' || type == '7')) {
      std::string what = type == '1' ? "a hard link" : type == '2' ? "a symlink" : "a special file";
      return Error::Make("the archive's entry \"" + VisibleControls(SanitizeUtf8(name.substr(0, 200))) +
                         "\" is " + what + "; upload-batch takes files and folders only");
    }
    auto clean = CleanName(name);
    if (!clean.ok()) return clean.error();
    if (out.size() == kMaxTarEntries)
      return Error::Make("the archive has more than " + std::to_string(kMaxTarEntries) + " entries");
    out.push_back({std::move(*clean), is_dir, is_dir ? std::string_view() : data});
  }
  if (long_name) return Error::Make("the archive ends after a long-name header");
  return out;
}

}  // namespace sepp::front::serve
