// The pty fixture of the terminal UI's integration tests: the built sepp
// on a pseudo-terminal against the scripted fake provider, its output fed
// through libvterm; waits poll the pty with a deadline, never a fixed sleep.
#pragma once
#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <random>

#include "base/file.h"
#include "base/json.h"

#include "front/tui/terminal.h"
#include "support/fake_provider.h"
#include "tui/vterm_screen.h"

namespace sepp::front::tui {

namespace fs = std::filesystem;

class TuiPty : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("sepp-tui-" + std::to_string(std::random_device{}()));
    fs::create_directories(root_ / "ws");
    fs::create_directories(root_ / "home");
    ASSERT_TRUE(fp_.Start().ok());
  }
  void TearDown() override {
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
    if (master_ >= 0) close(master_);
    fp_.Stop();
    fs::remove_all(root_);
  }

  void Start(const Json& responses, std::vector<std::string> args = {},
             std::map<std::string, std::string> extra_env = {}) {
    fp_.SetScript({{"responses", responses}});
    struct winsize ws {};
    ws.ws_col = 100;
    ws.ws_row = 30;
    std::map<std::string, std::string> env = {
        {"PATH", "/usr/local/bin:/usr/bin:/bin"},
        {"HOME", (root_ / "home").string()},
        {"SEPP_HOME", (root_ / "home" / ".sepp").string()},
        {"SEPP_PROVIDER", "anthropic"},
        {"ANTHROPIC_BASE_URL", fp_.base_url()},
        {"ANTHROPIC_API_KEY", "sk-test-tui"},
        {"TERM", "xterm-256color"},
        {"LANG", "C.UTF-8"},
    };
    for (const auto& [k, v] : extra_env_) env[k] = v;
    for (const auto& [k, v] : extra_env) env[k] = v;
    std::vector<std::string> env_strings;
    for (const auto& [k, v] : env) env_strings.push_back(k + "=" + v);
    std::vector<char*> envp;
    for (auto& s : env_strings) envp.push_back(s.data());
    envp.push_back(nullptr);
    std::string sepp = std::string(SEPP_BINARY_DIR) + "/sepp";
    std::string cwd = (root_ / "ws").string();
    pid_ = forkpty(&master_, nullptr, nullptr, &ws);
    ASSERT_GE(pid_, 0);
    if (pid_ == 0) {
      if (chdir(cwd.c_str()) != 0) _exit(126);
      std::vector<char*> argv = {sepp.data()};
      for (auto& a : args) argv.push_back(a.data());
      argv.push_back(nullptr);
      execve(sepp.c_str(), argv.data(), envp.data());
      _exit(127);
    }
    fcntl(master_, F_SETFL, O_NONBLOCK);
  }

  // Feeds the pty's output to the screen until done() or the deadline.
  bool WaitFor(const std::function<bool()>& done, double seconds = 30) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    while (!done()) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) return false;
      struct pollfd p = {master_, POLLIN, 0};
      if (poll(&p, 1, static_cast<int>(left.count())) <= 0) continue;
      char buf[65536];
      ssize_t n = read(master_, buf, sizeof buf);
      if (n <= 0) {  // the child closed the pty
        pty_closed_ = true;
        return done();
      }
      term_->Feed(std::string_view(buf, static_cast<size_t>(n)));
    }
    return true;
  }
  bool ScreenHas(const std::string& text) {
    for (const auto& row : term_->Transcript()) {
      if (row.find(text) != std::string::npos) return true;
    }
    return false;
  }
  void Type(std::string_view bytes) { ASSERT_EQ(write(master_, bytes.data(), bytes.size()), static_cast<ssize_t>(bytes.size())); }
  // Waits for the child to exit (reading the pty meanwhile); its status.
  int WaitExit() {
    int status = -1;
    bool exited = WaitFor([&] { return waitpid(pid_, &status, WNOHANG) == pid_; });
    // The pty closed: the child is on its way out; wait for it.
    if (!exited && pty_closed_) exited = waitpid(pid_, &status, 0) == pid_;
    EXPECT_TRUE(exited) << "sepp did not exit";
    if (exited) pid_ = -1;
    // Whatever it wrote last.
    char buf[65536];
    ssize_t n;
    while ((n = read(master_, buf, sizeof buf)) > 0) term_->Feed(std::string_view(buf, static_cast<size_t>(n)));
    return status;
  }
  bool Restored() const { return term_->written().find(TerminalSession::kLeaveModes) != std::string::npos; }

  fs::path root_;
  std::map<std::string, std::string> extra_env_;  // added to the child's environment
  fake::FakeProvider fp_;
  pid_t pid_ = -1;
  int master_ = -1;
  bool pty_closed_ = false;
  std::unique_ptr<testing::VtermScreen> term_ = std::make_unique<testing::VtermScreen>(30, 100);
};

}  // namespace sepp::front::tui
