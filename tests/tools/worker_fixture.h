// Shared set-up for the session sandbox tests: a scratch folder with a fake
// home (a planted SSH key and credentials, denied by the default policy) and
// a workspace inside it, and a ToolWorker for that workspace whose worker is
// the built sepp.
#pragma once
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include "sandbox/defaults.h"
#include "sandbox/probe.h"
#include "tools/tool.h"
#include "tools/tool_worker.h"
#include "tool_test_util.h"

namespace sepp::tools::testing {

inline constexpr const char* kSecret = "SECRETKEY-h16-do-not-leak";

class WorkerTest : public ::testing::Test {
 public:
  void SetUp() override {
    char tmpl[] = "/tmp/sepp-worker-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    root_ = tmpl;
    home_ = root_ / "home";
    ws_ = home_ / "project";
    std::filesystem::create_directories(ws_);
    std::filesystem::create_directories(home_ / ".ssh");
    Put(home_ / ".ssh/id_ed25519", std::string("-----BEGIN OPENSSH PRIVATE KEY-----\n") +
                                       kSecret + "\n");
    Put(home_ / ".bashrc", "# rc\n");
    old_home_ = getenv("HOME") ? getenv("HOME") : "";
    setenv("HOME", home_.c_str(), 1);
    policy_ = sandbox::DefaultToolPolicy(ws_);
    // The fake home is readable, so the deny paths (not mere invisibility)
    // are what protects the key.
    policy_.read_roots.push_back(home_.string());
    policy_.limits.timeout_s = 60;
    if (auto s = sandbox::CheckEnforceable(policy_); !s.ok())
      GTEST_SKIP() << "the sandbox cannot be enforced here: " << s.error().message;
    worker_ = std::make_unique<ToolWorker>(policy_, ws_, SEPP_BINARY_DIR "/sepp", false);
    registry_ = MakeBuiltinTools();
  }
  void TearDown() override {
    worker_.reset();
    setenv("HOME", old_home_.c_str(), 1);
    RemoveTree(root_);
  }

  static void Put(const std::filesystem::path& p, const std::string& text) {
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << text;
  }
  static std::string Get(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }

  ToolContext Context(CancelToken* cancel = nullptr) {
    ToolContext ctx;
    ctx.cwd = ws_;
    ctx.policy = &policy_;
    ctx.worker = worker_.get();
    ctx.cancel = cancel;
    return ctx;
  }
  // One call through RunTool, as the agent makes it: in the worker.
  ToolResult Use(const std::string& tool, const Json& args, CancelToken* cancel = nullptr) {
    ToolContext ctx = Context(cancel);
    return RunTool(*registry_->Find(tool), args, ctx);
  }

  std::filesystem::path root_, home_, ws_;
  std::string old_home_;
  sandbox::Policy policy_;
  std::unique_ptr<ToolWorker> worker_;
  std::unique_ptr<ToolRegistry> registry_;
};

}  // namespace sepp::tools::testing
