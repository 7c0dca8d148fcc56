// Builds a C plugin (sdk/c/sepp_plugin.h) into a .wasm for a test, from
// source, with clang's wasm32 target: the tests commit no binaries. The
// test's CMakeLists defines SEPP_CLANG (empty when clang is not installed;
// scripts/setup installs clang and lld).
#pragma once
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <string>

namespace sepp::testing_support {

// "" when built; else the reason (the compiler's exit status).
inline std::string BuildWasmPlugin(const std::filesystem::path& source,
                                   const std::filesystem::path& out) {
  std::string clang = SEPP_CLANG;
  if (clang.empty()) return "clang is not installed (scripts/setup installs clang and lld)";
  std::string cmd = "'" + clang + "' --target=wasm32 -O2 -nostdlib -Wl,--no-entry -Wl,--strip-all -I '" +
                    (std::filesystem::path(SEPP_SOURCE_DIR) / "sdk/c").string() + "' -o '" +
                    out.string() + "' '" + source.string() + "' 2>&1";
  int rc = std::system(cmd.c_str());
  if (rc != 0) return "clang failed (status " + std::to_string(WEXITSTATUS(rc)) + "): " + cmd;
  return "";
}

}  // namespace sepp::testing_support
