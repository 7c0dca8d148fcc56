// Replays every input in fuzz/corpus/wasm-regressions/ (inputs that once
// crashed or hung the engine under the fuzzer, plus hand-picked hostile
// modules) through the same harness the fuzzer uses. Passing means no crash,
// no sanitizer report (in sanitizer builds) and bounded time.
#include <gtest/gtest.h>

#include <filesystem>

#include "base/file.h"
#include "wasm/fuzz_harness.h"

namespace sepp::wasm {
namespace {

TEST(WasmFuzzRegressions, ReplayCorpus) {
  std::filesystem::path dir = std::filesystem::path(SEPP_SOURCE_DIR) / "fuzz/corpus/wasm-regressions";
  ASSERT_TRUE(std::filesystem::is_directory(dir)) << dir;
  int replayed = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() == ".md") continue;
    auto bytes = ReadFile(entry.path());
    ASSERT_TRUE(bytes.ok()) << bytes.error().message;
    SCOPED_TRACE(entry.path().filename().string());
    FuzzStats stats = FuzzOne(reinterpret_cast<const uint8_t*>(bytes->data()), bytes->size());
    EXPECT_TRUE(stats.decoded || !stats.instantiated);
    EXPECT_TRUE(stats.instantiated || stats.calls == 0);
    // A hand-picked hostile module is there to run: if it stopped decoding
    // or instantiating, the replay would no longer reach the interpreter.
    // Saved fuzzer crashes (crash-*) need only not crash.
    if (entry.path().filename().string().rfind("crash-", 0) != 0) {
      EXPECT_TRUE(stats.decoded && stats.instantiated);
      EXPECT_GT(stats.calls, 0);
    }
    ++replayed;
  }
  EXPECT_GT(replayed, 0);
}

}  // namespace
}  // namespace sepp::wasm
