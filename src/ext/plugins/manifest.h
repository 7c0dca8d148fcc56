// A WebAssembly plugin's manifest, sepp-plugin.toml next to its .wasm
// (docs/plugins.md):
//
//   name = "hello"                 # [a-z0-9-], at most 64 characters
//   version = "0.1.0"
//   wasm = "hello.wasm"            # a file in the plugin's folder
//   sha256 = "…"                   # of that file, checked before every load
//   [capabilities]                 # ext/capabilities.h; default: none
//   fs_read = ["./"]
//   [limits]
//   max_memory_pages = 256         # 64 KiB pages (16 MiB)
//   fuel_per_call = 50000000       # wasm instructions per call, refilled
//   timeout_ms = 2000              # wall clock per call
//   max_call_depth = 1000          # nested wasm calls
//
// Plugins live in ~/.sepp/plugins/NAME/ (SeppHome()) and, for trusted
// projects only (base/project_trust.h), in .sepp/plugins/NAME/. Errors name
// the file and line; unknown keys are errors.
#pragma once
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "ext/capabilities.h"

namespace sepp::ext::plugins {

struct PluginLimits {
  uint64_t max_memory_pages = 256;
  uint64_t fuel_per_call = 50'000'000;
  uint64_t timeout_ms = 2000;
  uint32_t max_call_depth = 1000;
  bool operator==(const PluginLimits&) const = default;
};

struct PluginManifest {
  std::string name, version;
  std::filesystem::path wasm;  // absolute: the plugin folder / wasm
  std::string sha256;          // lower-case hex
  Capabilities capabilities;
  PluginLimits limits;
  std::filesystem::path source;  // the manifest file
  std::string scope;             // "user" or "project"
};

inline constexpr char kManifestFile[] = "sepp-plugin.toml";

// Parses a manifest's text; source is its path (for errors and for the
// folder the wasm file is relative to).
Result<PluginManifest> ParseManifest(std::string_view text, const std::filesystem::path& source);
Result<PluginManifest> LoadManifest(const std::filesystem::path& manifest_file);

// A plugin folder found, with its manifest or why it could not be read.
struct FoundPlugin {
  std::filesystem::path dir;
  std::string scope;
  Result<PluginManifest> manifest;
};
// The plugin folders of ~/.sepp/plugins and, when the project at workspace
// is trusted, of workspace/.sepp/plugins (else a warning naming the folder,
// in *warnings). A project plugin with the name of a user one replaces it.
std::vector<FoundPlugin> FindPlugins(const std::filesystem::path& workspace,
                                     std::vector<std::string>* warnings);

}  // namespace sepp::ext::plugins
