// One fuzzing step for the engine, shared by the libFuzzer target
// (fuzz/wasm_fuzz.cc) and the regression test that replays the corpus of past
// crashes: decode + validate, link every import to a stub of the right type,
// instantiate and call every exported function, all under small limits and
// fuel so hostile modules finish quickly.
#pragma once
#include <cstddef>
#include <cstdint>

namespace sepp::wasm {

struct FuzzStats {
  bool decoded = false;
  bool instantiated = false;
  int calls = 0;
};

FuzzStats FuzzOne(const uint8_t* data, size_t size);

}  // namespace sepp::wasm
