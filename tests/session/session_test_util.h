// Helpers for the session tests: a private temporary folder and child processes.
#pragma once
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "base/file.h"
#include "base/json.h"

namespace sepp::session::testing {

class TempDir {
 public:
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "sepp-session-XXXXXX").string();
    char* made = ::mkdtemp(tmpl.data());
    EXPECT_NE(made, nullptr);
    path_ = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// Runs fn in a forked child, which exits with fn's result (never returns
// into the test framework). Returns the child's pid.
inline pid_t ForkChild(const std::function<int()>& fn) {
  pid_t pid = ::fork();
  if (pid == 0) {
    int rc = 99;
    try {
      rc = fn();
    } catch (...) {
    }
    ::_exit(rc);
  }
  return pid;
}

inline int WaitExit(pid_t pid) {
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

inline Json UserMessage(const std::string& text) {
  return Json{{"role", "user"}, {"content", Json::array({Json{{"type", "text"}, {"text", text}}})}};
}

inline Json AssistantMessage(const std::string& text) {
  return Json{{"role", "assistant"},
              {"content", Json::array({Json{{"type", "text"}, {"text", text}}})},
              {"usage", Json{{"input", 10}, {"output", 5}, {"cache_read", 0}, {"cache_write", 0}}},
              {"stop_reason", "stop"}};
}

// Every byte of every file below dir, concatenated (for "no secret on disk").
inline std::string AllBytesUnder(const std::filesystem::path& dir) {
  std::string all;
  for (auto& e : std::filesystem::recursive_directory_iterator(dir)) {
    if (!e.is_regular_file()) continue;
    auto text = ReadFile(e.path());
    if (text.ok()) all += *text;
  }
  return all;
}

}  // namespace sepp::session::testing
