// Whole-file reads and atomic writes.
#pragma once
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include "base/result.h"

namespace sepp {

Result<std::string> ReadFile(const std::filesystem::path& path);

// The one reader for files sepp reads as configuration or state (policy,
// settings, agent definitions, context files, session files): a symlink is
// followed, but what it leads to must be a regular file (not /dev/zero, a
// FIFO or a terminal, which could be read forever or block), and at most
// max_bytes long. Errors (kind "io") name the file, what it is for (`what`,
// e.g. "a sandbox policy"), the size and the limit.
constexpr uint64_t kMaxConfigFileBytes = 4ull << 20;     // 4 MiB
constexpr uint64_t kMaxSessionFileBytes = 512ull << 20;  // 512 MiB
Result<std::string> ReadBoundedFile(const std::filesystem::path& path, uint64_t max_bytes,
                                    std::string_view what);
// The same for a file already open (e.g. locked first).
Result<std::string> ReadBoundedFd(int fd, const std::filesystem::path& path, uint64_t max_bytes,
                                  std::string_view what);

// Writes through a temporary file in the same folder and renames it over
// path, so readers never see a half-written file. Creates parent folders.
Status WriteFileAtomic(const std::filesystem::path& path, std::string_view data,
                       int mode = 0644);

}  // namespace sepp
