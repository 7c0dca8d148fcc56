// Sandbox policies as TOML files (format: docs/policy.md).
//
// A file starts from the built-in tool defaults for the workspace (or from
// nothing with `base = "none"`) and adds to them. Every mistake is an Error
// naming the file, the line and the key ("agent.toml:7: network.mode: ..."),
// including unknown keys: a typo in a security policy must not be ignored.
#pragma once
#include <filesystem>
#include <string>
#include <string_view>

#include "base/result.h"
#include "sandbox/policy.h"

namespace sepp::sandbox {

// source_name is used in messages (usually the file's path). Relative paths
// in the policy are resolved against workspace; "~" is the home folder.
Result<Policy> ParsePolicyToml(std::string_view text, const std::string& source_name,
                               const std::filesystem::path& workspace);

Result<Policy> LoadPolicyFile(const std::filesystem::path& file,
                              const std::filesystem::path& workspace);

// "30s", "5m", "1h", "250ms" or a plain number of seconds.
Result<double> ParseDuration(std::string_view text);
// "512MiB", "2G", "100k", "1048576": bytes (k/M/G and KiB/MiB/GiB are both
// powers of 1024 here; sizes are limits, not marketing).
Result<uint64_t> ParseSize(std::string_view text);

}  // namespace sepp::sandbox
