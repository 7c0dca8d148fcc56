// Runs a WebAssembly spec test script converted by wabt's `wast2json`.
// Every module and action command counts as a check too (it must load and
// instantiate, or run), besides the assertions.
//
// Supported commands: module, register, action, assert_return (with
// nan:canonical / nan:arithmetic patterns), assert_trap, assert_exhaustion,
// assert_invalid, assert_malformed, assert_unlinkable and
// assert_uninstantiable. Modules given in text form (module_type "text") are
// counted as skipped: the engine reads only the binary format. The "spectest"
// host module (print functions, global_i32/i64/f32/f64, table, memory) is
// provided as the reference interpreter defines it.
#pragma once
#include <string>
#include <vector>

#include "base/result.h"

namespace sepp::wasm {

struct SpecFileResult {
  std::string file;
  int passed = 0;
  int failed = 0;
  int skipped = 0;
  std::vector<std::string> failures;  // "file:line: what went wrong"
};

// Runs every command in `json_path`; module files are resolved next to it.
// Returns an error only if the script itself cannot be read or parsed.
Result<SpecFileResult> RunSpecFile(const std::string& json_path);

}  // namespace sepp::wasm
