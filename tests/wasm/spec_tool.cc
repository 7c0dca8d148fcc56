// Test driver for the spec suite: wasm_spec_tool [--expected-failures FILE]
// [--verbose] FILE.json... Prints per-file counts and "N passed, M failed";
// exits 1 when a file fails more often than its expected-failures entry.
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "base/file.h"
#include "wasm/spec_suite.h"

int main(int argc, char** argv) {
  std::vector<std::string> files;
  std::map<std::string, int> expected;
  bool verbose = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--expected-failures") == 0 && i + 1 < argc) {
      auto text = sepp::ReadFile(argv[++i]);
      if (!text.ok()) {
        std::fprintf(stderr, "%s\n", text.error().message.c_str());
        return 2;
      }
      auto parsed = sepp::wasm::ParseExpectedFailures(*text);
      if (!parsed.ok()) {
        std::fprintf(stderr, "%s\n", parsed.error().message.c_str());
        return 2;
      }
      expected = *parsed;
    } else if (std::strcmp(argv[i], "--verbose") == 0) {
      verbose = true;
    } else {
      files.push_back(argv[i]);
    }
  }
  auto report = sepp::wasm::RunSpecSuite(files, expected, verbose);
  std::fputs(report.text.c_str(), stdout);
  return report.ok ? 0 : 1;
}
