// File helpers shared by the tools: path resolution, binary and image
// sniffing, and "not found" messages that help the model recover.
#pragma once
#include <filesystem>
#include <string>
#include <string_view>

#include "tools/tool.h"

namespace sepp::tools {

// A path argument: "~/x" expanded, relative paths taken against ctx.cwd,
// "." and ".." normalised. Never touches the filesystem.
std::filesystem::path ResolveToolPath(const ToolContext& ctx, const std::string& path);

// path relative to ctx.cwd when below it, else absolute: for output.
std::string ShowPath(const ToolContext& ctx, const std::filesystem::path& path);

// Where a write to `path` lands: a symlink's target (so the link stays a
// link), else path itself.
std::filesystem::path WriteDestination(const std::filesystem::path& path);

// How many leading bytes the sniffers look at.
inline constexpr size_t kSniffBytes = 8192;

// True when sample (the start of a file) has a NUL byte, or more than 30%
// of it is neither text nor well-formed UTF-8.
bool LooksBinary(std::string_view sample);

// "PNG", "JPEG", "GIF", "WebP", "BMP", "ICO", "TIFF" by magic bytes; empty
// when sample is not an image.
std::string ImageType(std::string_view sample);

// The first kSniffBytes of a file (fewer if it is shorter); empty on error.
std::string ReadSample(const std::filesystem::path& path);

// "No such file or directory: src/mian.cc. Similar names in src/: main.cc"
// (the suggestions only when the parent folder exists and has close names).
std::string NotFoundMessage(const ToolContext& ctx, const std::filesystem::path& path);

}  // namespace sepp::tools
