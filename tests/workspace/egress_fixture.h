// The fixture of the tests of git inside the sandbox (git_egress_test.cc,
// ssh_fetch_test.cc): a private HOME with a planted ~/.ssh key and agent
// socket (which must stay out), SEPP_HOME, the egress variables cleared, a
// workspace, a dumb-served bare remote, and Sh(): a bash script run in a
// real sandboxed child with a policy.
#pragma once
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sandbox/defaults.h"
#include "sandbox/run.h"
#include "tools/git_egress.h"
#include "workspace/git_servers.h"

namespace sepp::testing_git {

struct Outcome {
  int exit_code = -1;
  std::string output;
  std::string error;
};

class EgressFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/sepp-egress-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    root_ = tmpl;
    home_ = root_ / "home";
    ws_ = home_ / "project";
    fs::create_directories(ws_);
    fs::create_directories(home_ / ".ssh");
    std::ofstream(home_ / ".ssh/id_ed25519") << "-----BEGIN OPENSSH PRIVATE KEY-----\nSECRETKEY\n";
    for (const char* v : {"HOME", "SEPP_HOME", "GIT_CEILING_DIRECTORIES", "SSH_AUTH_SOCK",
                          "SEPP_HTTP_ALLOWED_HOSTS", "SEPP_SSH_HOSTS", "GIT_CONFIG_NOSYSTEM"}) {
      const char* old = getenv(v);
      saved_.push_back({v, old ? std::optional<std::string>(old) : std::nullopt});
    }
    setenv("HOME", home_.c_str(), 1);
    setenv("SEPP_HOME", (home_ / ".sepp").c_str(), 1);
    // The repositories made here are under /tmp, never inside the project.
    setenv("GIT_CEILING_DIRECTORIES", root_.c_str(), 1);
    setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
    setenv("SSH_AUTH_SOCK", (home_ / "agent.sock").c_str(), 1);
    unsetenv("SEPP_HTTP_ALLOWED_HOSTS");
    unsetenv("SEPP_SSH_HOSTS");
    ASSERT_EQ(MakeDumbRemote(root_), 0);
  }
  void TearDown() override {
    for (const auto& [name, value] : saved_) value ? setenv(name, value->c_str(), 1) : unsetenv(name);
    std::error_code ec;
    fs::remove_all(root_, ec);
  }

  sandbox::Policy PolicyWith(const tools::GitEgress& egress) {
    sandbox::Policy p = sandbox::DefaultToolPolicy(ws_);
    p.limits.timeout_s = 60;
    tools::ApplyGitEgress(egress, &p);
    return p;
  }

  Outcome Sh(const std::string& script, const sandbox::Policy& policy) {
    sandbox::RunSpec spec;
    spec.argv = {"/bin/bash", "-c", script};
    spec.cwd = ws_;
    Outcome o;
    auto r = sandbox::Run(spec, policy, [&](std::string_view s) { o.output.append(s); }, nullptr);
    if (!r.ok()) o.error = r.error().message;
    else o.exit_code = r->exit_code;
    return o;
  }

  static std::string Port(int p) { return std::to_string(p); }

  fs::path root_, home_, ws_;
  std::vector<std::pair<const char*, std::optional<std::string>>> saved_;
};

}  // namespace sepp::testing_git
