// libFuzzer target for the wasm engine: decode + validate + instantiate + run
// every export with fuel (src/wasm/fuzz_harness.h). Build with
// -DSEPP_FUZZ=ON and clang; see docs/wasm.md for how to run it.
#include <cstddef>
#include <cstdint>

#include "wasm/fuzz_harness.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  sepp::wasm::FuzzOne(data, size);
  return 0;
}
