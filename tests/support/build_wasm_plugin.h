// Builds a plugin into a .wasm for a test, from source: the tests commit no
// binaries. C freestanding (sdk/c/sepp_plugin.h, clang's wasm32 target), C
// with wasi-libc (wasm32-wasi), Rust with std (Debian's rustc and its
// wasm32 standard library) and AssemblyScript (asc, pinned in
// tests/plugins/node). The test's CMakeLists defines SEPP_CLANG and, for the
// other toolchains, SEPP_RUSTC and SEPP_ASC (empty when not installed;
// scripts/setup installs all of them).
#pragma once
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#ifndef SEPP_RUSTC
#define SEPP_RUSTC ""
#endif
#ifndef SEPP_ASC
#define SEPP_ASC ""
#endif

namespace sepp::testing_support {

// "" when built; else the reason (the compiler's exit status).
inline std::string RunBuild(const std::string& what, const std::string& cmd) {
  int rc = std::system((cmd + " 2>&1").c_str());
  if (rc != 0) return what + " failed (status " + std::to_string(WEXITSTATUS(rc)) + "): " + cmd;
  return "";
}

inline std::string Quote(const std::filesystem::path& p) { return "'" + p.string() + "'"; }

inline std::string BuildWasmPlugin(const std::filesystem::path& source,
                                   const std::filesystem::path& out) {
  std::string clang = SEPP_CLANG;
  if (clang.empty()) return "clang is not installed (scripts/setup installs clang and lld)";
  std::string cmd = "'" + clang + "' --target=wasm32 -O2 -nostdlib -Wl,--no-entry -Wl,--strip-all -I '" +
                    (std::filesystem::path(SEPP_SOURCE_DIR) / "sdk/c").string() + "' -o '" +
                    out.string() + "' '" + source.string() + "'";
  return RunBuild("clang", cmd);
}


// C with wasi-libc: stdio, files through the WASI preopens.
inline std::string BuildWasiCPlugin(const std::filesystem::path& source,
                                    const std::filesystem::path& out) {
  std::string clang = SEPP_CLANG;
  if (clang.empty()) return "clang is not installed (scripts/setup installs clang, lld and wasi-libc)";
  return RunBuild("clang (wasm32-wasi)",
                  Quote(clang) + " --target=wasm32-wasi -mexec-model=reactor -O2 -Wl,--strip-all -I " +
                      Quote(std::filesystem::path(SEPP_SOURCE_DIR) / "sdk/c") + " -o " + Quote(out) + " " +
                      Quote(source));
}

// Rust with std, wasm32-wasi, with plain rustc (no cargo, no crates).
inline std::string BuildRustPlugin(const std::filesystem::path& source,
                                   const std::filesystem::path& out) {
  std::string rustc = SEPP_RUSTC;
  if (rustc.empty())
    return "rustc with the wasm32 standard library is not installed (scripts/setup installs "
           "rustc and libstd-rust-dev-wasm32)";
  return RunBuild("rustc (wasm32-wasi)", Quote(rustc) + " --edition 2021 --target wasm32-wasi "
                  "--crate-type cdylib -O -C link-arg=--strip-all -o " + Quote(out) + " " + Quote(source));
}

// AssemblyScript, from the repository root (the SDK's abort is named by
// its path relative to it). Without --optimize: binaryen's passes would
// double the build time of the test and change nothing it checks.
inline std::string BuildAssemblyScriptPlugin(const std::filesystem::path& source,
                                             const std::filesystem::path& out) {
  std::string asc = SEPP_ASC;
  if (asc.empty() || !std::filesystem::exists(asc))
    return "the AssemblyScript compiler is not installed: run `npm ci` in tests/plugins/node (scripts/setup does)";
  std::filesystem::path rel = std::filesystem::relative(source, SEPP_SOURCE_DIR);
  return RunBuild("asc", "cd " + Quote(SEPP_SOURCE_DIR) + " && " + Quote(asc) + " " + Quote(rel) +
                  " --outFile " + Quote(out) + " --runtime stub "
                  "--use abort=sdk/assemblyscript/sepp/abort");
}


}  // namespace sepp::testing_support
