// Spec suite driver (spec_suite.h).
#include "wasm/spec_suite.h"

#include <filesystem>

#include "base/strings.h"

namespace sepp::wasm {

Result<std::map<std::string, int>> ParseExpectedFailures(const std::string& text) {
  std::map<std::string, int> out;
  int line_no = 0;
  for (const std::string& raw : SplitLines(text)) {
    ++line_no;
    std::string_view line = Trim(raw);
    if (line.empty() || line[0] == '#') continue;
    size_t space = line.find_last_of(" \t");
    if (space == std::string_view::npos)
      return Error::Make("expected-failures line " + std::to_string(line_no) + ": want \"FILE COUNT\"");
    std::string name(Trim(line.substr(0, space)));
    std::string count(Trim(line.substr(space + 1)));
    try {
      out[name] = std::stoi(count);
    } catch (...) {
      return Error::Make("expected-failures line " + std::to_string(line_no) + ": bad count \"" + count + "\"");
    }
  }
  return out;
}

SpecSuiteReport RunSpecSuite(const std::vector<std::string>& json_files,
                             const std::map<std::string, int>& expected_failures, bool verbose) {
  SpecSuiteReport rep;
  for (const std::string& path : json_files) {
    std::string name = std::filesystem::path(path).filename().string();
    auto r = RunSpecFile(path);
    SpecFileResult fr;
    if (!r.ok()) {
      fr.file = name;
      fr.failed = 1;
      fr.failures.push_back(name + ": " + r.error().message);
    } else {
      fr = std::move(*r);
    }
    auto it = expected_failures.find(name);
    int allowed = it == expected_failures.end() ? 0 : it->second;
    std::string status = "ok";
    if (fr.failed > allowed) {
      status = "FAIL (expected at most " + std::to_string(allowed) + " failures)";
      rep.ok = false;
    } else if (fr.failed < allowed) {
      status = "better than expected (" + std::to_string(allowed) + " listed): tighten the list";
    } else if (allowed > 0) {
      status = "ok (" + std::to_string(allowed) + " expected failures)";
    }
    rep.text += name + ": " + std::to_string(fr.passed) + " passed, " + std::to_string(fr.failed) + " failed" +
                (fr.skipped ? ", " + std::to_string(fr.skipped) + " skipped" : "") + "  " + status + "\n";
    size_t shown = 0;
    for (const std::string& f : fr.failures) {
      if (!verbose && shown >= 5) {
        rep.text += "  ... " + std::to_string(fr.failures.size() - shown) + " more\n";
        break;
      }
      rep.text += "  " + f + "\n";
      ++shown;
    }
    rep.passed += fr.passed;
    rep.failed += fr.failed;
    rep.skipped += fr.skipped;
    rep.files.push_back(std::move(fr));
  }
  rep.text += "total: " + std::to_string(json_files.size()) + " files, " + std::to_string(rep.skipped) +
              " text-format assertions skipped\n";
  rep.text += std::to_string(rep.passed) + " passed, " + std::to_string(rep.failed) + " failed\n";
  return rep;
}

}  // namespace sepp::wasm
