// Whole-file reads and atomic writes.
#pragma once
#include <filesystem>
#include <string>
#include <string_view>

#include "base/result.h"

namespace sepp {

Result<std::string> ReadFile(const std::filesystem::path& path);

// Writes through a temporary file in the same folder and renames it over
// path, so readers never see a half-written file. Creates parent folders.
Status WriteFileAtomic(const std::filesystem::path& path, std::string_view data,
                       int mode = 0644);

}  // namespace sepp
