// Builds ustar archives byte by byte for the upload-batch tests, including
// the hostile ones a real tar would not write (names with "..", links,
// wrong checksums).
#pragma once
#include <cstdio>
#include <cstring>
#include <string>

namespace sepp::servetest {

// One header (and the data, padded) of type ('0' file, '5' folder, '2' symlink ...).
inline std::string TarEntryBytes(const std::string& name, char type, const std::string& data = "",
                                 const std::string& link = "", bool good_checksum = true) {
  char h[512];
  std::memset(h, 0, sizeof h);
  std::memcpy(h, name.data(), std::min<size_t>(name.size(), 100));
  std::snprintf(h + 100, 8, "%07o", 0644);
  std::snprintf(h + 108, 8, "%07o", 0);
  std::snprintf(h + 116, 8, "%07o", 0);
  std::snprintf(h + 124, 12, "%011o", static_cast<unsigned>(data.size()));
  std::snprintf(h + 136, 12, "%011o", 0);
  h[156] = type;
  std::memcpy(h + 157, link.data(), std::min<size_t>(link.size(), 100));
  std::memcpy(h + 257, "ustar", 6);
  std::memcpy(h + 263, "00", 2);
  std::memset(h + 148, ' ', 8);
  unsigned sum = 0;
  for (unsigned char c : h) sum += c;
  if (!good_checksum) sum += 1;
  std::snprintf(h + 148, 8, "%06o", sum);
  std::string out(h, sizeof h);
  out += data;
  out.append((512 - data.size() % 512) % 512, '\0');
  return out;
}

inline std::string TarEnd() { return std::string(1024, '\0'); }

}  // namespace sepp::servetest
