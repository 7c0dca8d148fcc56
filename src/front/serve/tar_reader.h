// A reader of tar archives (POSIX ustar, with pax `path` records and GNU
// long names), for POST /v1/fs/upload-batch. The archive is outside input:
// every header's checksum, size and name is checked, and an archive that
// holds anything but files and folders (a symlink, a hard link, a device),
// a name that is absolute or climbs out with "..", or that ends early, is
// refused whole, before anything is written.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace sepp::front::serve {

struct TarEntry {
  std::string name;       // relative, normalised: no "", ".", ".." parts, no leading "/"
  bool is_dir = false;
  std::string_view data;  // a file's bytes, inside the archive given to ReadTar
};

inline constexpr size_t kMaxTarEntries = 10000;

// The entries of archive (which must outlive them), in archive order.
Result<std::vector<TarEntry>> ReadTar(std::string_view archive);

}  // namespace sepp::front::serve
