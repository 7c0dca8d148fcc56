// Keeps the layers honest (docs/design.md §1): a source file may include only
// headers of its own folder or of folders on lower layers.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <string>

namespace {

const std::map<std::string, int> kLayer = {
    {"base", 0},  {"net", 1},   {"sqlite", 1},  {"sidecar", 2}, {"memory", 2},   {"sandbox", 2}, {"wasm", 1},    {"llm", 2},   {"session", 2}, {"workspace", 2},
    {"tools", 3}, {"agent", 4}, {"ext", 5},     {"runtime", 6}, {"front", 7}, {"app", 8},
};

TEST(Layering, NoFolderIncludesAHigherOrSiblingLayer) {
  namespace fs = std::filesystem;
  fs::path src = fs::path(SEPP_SOURCE_DIR) / "src";
  std::regex include_re(R"re(^\s*#\s*include\s*"([a-z_]+)/)re");
  int files = 0;
  for (const auto& entry : fs::recursive_directory_iterator(src)) {
    if (!entry.is_regular_file()) continue;
    auto ext = entry.path().extension();
    if (ext != ".h" && ext != ".cc") continue;
    std::string folder = *fs::relative(entry.path(), src).begin();
    ASSERT_TRUE(kLayer.count(folder)) << "folder src/" << folder << " has no layer: add it to "
                                      << "kLayer and docs/design.md";
    ++files;
    std::ifstream in(entry.path());
    std::string line;
    int lineno = 0;
    while (std::getline(in, line)) {
      ++lineno;
      std::smatch m;
      if (!std::regex_search(line, m, include_re)) continue;
      std::string dep = m[1];
      if (dep == folder || !kLayer.count(dep)) continue;
      EXPECT_LT(kLayer.at(dep), kLayer.at(folder))
          << entry.path() << ":" << lineno << " includes " << dep << "/ (layer "
          << kLayer.at(dep) << ") from " << folder << "/ (layer " << kLayer.at(folder) << ")";
    }
  }
  EXPECT_GT(files, 10);
}

}  // namespace
