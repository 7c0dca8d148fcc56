// Helpers for the tools tests: a fresh temporary folder per test, files in
// it, and a one-call way to run a tool.
#pragma once
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "base/json.h"
#include "tools/tool.h"

namespace sepp::tools::testing {

class TempDir {
 public:
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "sepp-tools-test-XXXXXX").string();
    char* made = ::mkdtemp(tmpl.data());
    path_ = made ? std::filesystem::path(made) : std::filesystem::path();
  }
  ~TempDir() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  const std::filesystem::path& path() const { return path_; }

  void Write(const std::string& rel, const std::string& content) const {
    std::filesystem::path p = path_ / rel;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << content;
  }
  std::string Read(const std::string& rel) const {
    std::ifstream in(path_ / rel, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
  void Mkdir(const std::string& rel) const { std::filesystem::create_directories(path_ / rel); }

 private:
  std::filesystem::path path_;
};

class ToolTest : public ::testing::Test {
 protected:
  ToolTest() {
    ctx_.cwd = dir_.path();
    ctx_.output_dir = dir_.path() / ".sepp-output";
  }
  ToolResult Call(Tool& tool, const Json& args) { return tool.Run(args, ctx_); }

  TempDir dir_;
  ToolContext ctx_;
};

}  // namespace sepp::tools::testing
