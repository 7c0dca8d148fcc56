// Shared set-up for the sandbox tests: a scratch folder per test with a fake
// home (holding planted secrets) and a workspace, and helpers that run a
// command under the default tool policy for that workspace.
#pragma once
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "sandbox/defaults.h"
#include "sandbox/run.h"

namespace sepp::sandbox {

struct Outcome {
  int exit_code = -1;
  int term_signal = 0;
  bool timed_out = false;
  std::string output;
  std::vector<Denial> denials;
  std::string error;  // when Run() itself refused
};

class SandboxTest : public ::testing::Test {
 public:
  void SetUp() override {
    char tmpl[] = "/tmp/sepp-sbx-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    root_ = std::filesystem::path(tmpl);
    home_ = root_ / "home";
    ws_ = home_ / "project";
    std::filesystem::create_directories(ws_);
    std::filesystem::create_directories(home_ / ".ssh");
    std::filesystem::create_directories(home_ / ".aws");
    Write(home_ / ".ssh/id_ed25519", "-----BEGIN OPENSSH PRIVATE KEY-----\nSECRETKEY\n");
    Write(home_ / ".aws/credentials", "[default]\naws_secret_access_key=SECRETAWS\n");
    Write(home_ / ".bashrc", "# rc\n");
    old_home_ = getenv("HOME") ? getenv("HOME") : "";
    setenv("HOME", home_.c_str(), 1);
    setenv("SEPP_HOME", (home_ / ".sepp").c_str(), 1);
    policy_ = DefaultToolPolicy(ws_);
    // Let tests read the fake home (as a user's broader policy might), so
    // the deny paths, not mere invisibility, are what protects the secrets.
    policy_.read_roots.push_back(home_.string());
    policy_.read_roots.push_back(std::filesystem::path(SANDBOX_ATTACK).parent_path().string());
    policy_.limits.timeout_s = 60;
  }
  void TearDown() override {
    setenv("HOME", old_home_.c_str(), 1);
    unsetenv("SEPP_HOME");
    std::error_code ec;
    std::filesystem::remove_all(root_, ec);
  }

  static void Write(const std::filesystem::path& p, const std::string& text) {
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p) << text;
  }
  static std::string ReadText(const std::filesystem::path& p) {
    std::ifstream in(p);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }

  Outcome RunArgv(const std::vector<std::string>& argv, const Policy& policy,
                  const std::string& stdin_data = "") {
    RunSpec spec;
    spec.argv = argv;
    spec.cwd = ws_;
    spec.stdin_data = stdin_data;
    spec.init = use_init_;
    Outcome o;
    auto r = sandbox::Run(spec, policy, [&](std::string_view s) { o.output.append(s); }, nullptr);
    if (!r.ok()) {
      o.error = r.error().message;
      return o;
    }
    o.exit_code = r->exit_code;
    o.term_signal = r->term_signal;
    o.timed_out = r->timed_out;
    o.denials = r->denials;
    return o;
  }
  Outcome Sh(const std::string& script) { return RunArgv({"/bin/bash", "-c", script}, policy_); }
  Outcome Sh(const std::string& script, const Policy& p) {
    return RunArgv({"/bin/bash", "-c", script}, p);
  }
  Outcome Attack(const std::vector<std::string>& args) {
    std::vector<std::string> argv = {SANDBOX_ATTACK};
    argv.insert(argv.end(), args.begin(), args.end());
    return RunArgv(argv, policy_);
  }

  std::filesystem::path root_, home_, ws_;
  std::string old_home_;
  Policy policy_;
  bool use_init_ = false;
};

}  // namespace sepp::sandbox
