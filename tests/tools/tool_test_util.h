// Helpers for the tools tests: a fresh temporary folder per test, files in
// it, and a one-call way to run a tool.
#pragma once
#include <gtest/gtest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "base/json.h"
#include "tools/tool.h"

namespace sepp::tools::testing {

// Makes base/deep/D/D/... (25 folders of 200 bytes: deeper than PATH_MAX),
// a link base/entry -> the first 15 levels, in there a link "more" -> the
// last 10, and at the bottom a link "end" -> target and a file plain.txt.
// Returns "entry/more": following it makes a path longer than PATH_MAX,
// which userspace resolution gives up on while the kernel resolves it link
// by link. Remove the tree with RemoveTree (paths in it are too long for
// std::filesystem).
inline std::string MakeOverLongChain(const std::filesystem::path& base,
                                     const std::filesystem::path& target) {
  const std::string d(200, 'D');
  std::filesystem::create_directories(base / "deep");
  int fd = ::open((base / "deep").c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  std::string first, second;
  for (int i = 0; i < 25; ++i) {
    ::mkdirat(fd, d.c_str(), 0755);
    int next = ::openat(fd, d.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    ::close(fd);
    fd = next;
    std::string& part = i < 15 ? first : second;
    part += (part.empty() ? "" : "/") + d;
  }
  ::symlinkat(target.c_str(), fd, "end");
  int file = ::openat(fd, "plain.txt", O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  if (file >= 0) {
    ssize_t ignored = ::write(file, "plain text\n", 11);
    (void)ignored;
    ::close(file);
  }
  ::close(fd);
  std::filesystem::create_symlink("deep/" + first, base / "entry");
  // Level 15, reached through the link (its path is short enough).
  int level15 = ::open((base / "entry").c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  ::symlinkat(second.c_str(), level15, "more");
  ::close(level15);
  return "entry/more";
}

inline void RemoveTree(const std::filesystem::path& p) {
  std::string cmd = "rm -rf '" + p.string() + "'";
  if (std::system(cmd.c_str()) != 0) std::filesystem::remove_all(p);
}

class TempDir {
 public:
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "sepp-tools-test-XXXXXX").string();
    char* made = ::mkdtemp(tmpl.data());
    path_ = made ? std::filesystem::path(made) : std::filesystem::path();
  }
  ~TempDir() {
    if (!path_.empty()) RemoveTree(path_);
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
