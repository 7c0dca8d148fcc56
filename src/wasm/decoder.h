// Binary decoding and validation of WebAssembly 2.0 modules (without SIMD).
//
// DecodeModule is the only way to obtain a Module: it rejects malformed bytes
// (kind "malformed") and ill-typed modules (kind "invalid") with the spec's
// wording where one exists, and compiles every function body to the internal
// form while validating it. It never reads outside the input and bounds every
// allocation by the input size or a fixed limit, so any byte string is safe.
#pragma once
#include <cstdint>
#include <memory>
#include <span>

#include "base/result.h"
#include "wasm/module.h"

namespace sepp::wasm {

Result<std::shared_ptr<const Module>> DecodeModule(std::span<const uint8_t> bytes);

}  // namespace sepp::wasm
