// Running many spec scripts and judging them against an expected-failures
// list, shared by `sepp wasm spec` and the spec-suite CTest.
//
// Expected-failures file format: one entry per line, "FILE.json COUNT"
// (blank lines and lines starting with '#' ignored). A file passes when its
// failed count is at most its listed count (0 when unlisted); the suite
// passes when every file does. Files doing better than listed are reported so
// the list can be tightened.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "base/result.h"
#include "wasm/spec_runner.h"

namespace sepp::wasm {

Result<std::map<std::string, int>> ParseExpectedFailures(const std::string& text);

struct SpecSuiteReport {
  std::vector<SpecFileResult> files;
  int passed = 0, failed = 0, skipped = 0;
  bool ok = true;       // no file failed more than expected
  std::string text;     // human-readable report, ending in "N passed, M failed"
};

// verbose: include every failure message, not only the first few per file.
SpecSuiteReport RunSpecSuite(const std::vector<std::string>& json_files,
                             const std::map<std::string, int>& expected_failures, bool verbose);

}  // namespace sepp::wasm
