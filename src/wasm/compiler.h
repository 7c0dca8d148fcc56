// Internal: validation of function bodies and their compilation to the
// internal form (ops.h). Used by the decoder only.
#pragma once
#include <vector>

#include "base/result.h"
#include "wasm/module.h"
#include "wasm/reader.h"

namespace sepp::wasm {

struct ModuleContext {
  const Module* module = nullptr;
  std::vector<bool> declared_funcs;  // may appear in ref.func inside bodies
  bool has_data_count = false;
  uint32_t data_count = 0;
};

// Limits that keep hostile but well-formed inputs from exhausting the host.
constexpr uint32_t kMaxLocals = 50000;
constexpr uint32_t kMaxOperandDepth = 100000;

// Validates the body (locals already decoded into out->local_types) and fills
// out->code and out->max_height. Errors carry kind "invalid" or "malformed".
Status CompileFunction(const ModuleContext& ctx, uint32_t func_index, Reader body,
                       CompiledFunc* out);

}  // namespace sepp::wasm
