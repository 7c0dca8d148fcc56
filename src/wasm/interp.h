// Internal: the interpreter entry point used by Store::Call and the linker.
#pragma once
#include <cstdint>

#include "base/result.h"
#include "wasm/runtime.h"

namespace sepp::wasm {

// Runs `f` with its arguments in slots[0..params) and leaves its results in
// slots[0..results). `slots` must lie inside store.stack_ (Store::Call sets
// this up); everything above it is free for the callee. Traps come back as
// Error{kind = "trap"}.
Status Execute(Store& store, Function* f, uint64_t* slots);

}  // namespace sepp::wasm
