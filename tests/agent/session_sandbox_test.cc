// The agent runs its tools in its own session sandbox: attacks made with
// nothing but the model's ordinary tool calls (a scripted provider), next to
// legitimate work that must succeed; sub-agents get a sandbox of their own.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>

#include "agent/agent.h"
#include "sandbox/defaults.h"
#include "sandbox/probe.h"
#include "test_doubles.h"
#include "tools/tool_worker.h"

namespace sepp::agent {
namespace {

namespace fs = std::filesystem;
using testing::Assistant;
using testing::Call;
using testing::ScriptedProvider;

constexpr const char* kSecret = "AGENT-H16-SECRET-KEY";

class SessionSandboxAgentTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/sepp-agent-sbx-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    root_ = tmpl;
    ws_ = root_ / "home/project";
    fs::create_directories(ws_);
    fs::create_directories(root_ / "home/.ssh");
    std::ofstream(root_ / "home/.ssh/id_rsa") << kSecret << "\n";
    std::ofstream(ws_ / "main.cc") << "int main() {}\n";
    old_home_ = getenv("HOME") ? getenv("HOME") : "";
    setenv("HOME", (root_ / "home").c_str(), 1);
    policy_ = sandbox::DefaultToolPolicy(ws_);
    policy_.read_roots.push_back((root_ / "home").string());
    if (auto s = sandbox::CheckEnforceable(policy_); !s.ok())
      GTEST_SKIP() << "the sandbox cannot be enforced here: " << s.error().message;
    tools::SetToolWorkerExecutable(SEPP_BINARY_DIR "/sepp");
    config_.model = "test-model";
    config_.cwd = ws_;
    config_.policy = &policy_;
  }
  void TearDown() override {
    tools::SetToolWorkerExecutable({});
    setenv("HOME", old_home_.c_str(), 1);
    std::error_code ec;
    fs::remove_all(root_, ec);
  }

  fs::path root_, ws_;
  std::string old_home_;
  sandbox::Policy policy_;
  AgentConfig config_;
};

TEST_F(SessionSandboxAgentTest, ModelDrivenAttacksFailAndWorkSucceeds) {
  std::string dots;
  while (dots.size() < 3000) dots += "./";
  fs::create_directories(ws_ / "d");
  fs::create_symlink(dots + ".", ws_ / "d/s");
  fs::create_symlink(root_ / "home/.ssh/id_rsa", ws_ / "d/key");
  ScriptedProvider provider;
  provider.queue.push_back(Assistant(
      {Call("1", "read", {{"path", "d/s/s/s/key"}}),
       Call("2", "bash", {{"command", "cat d/s/s/s/key ~/.ssh/id_rsa; tr '\\0' ' ' </proc/1/cmdline"}}),
       Call("3", "grep", {{"pattern", "SECRET"}, {"path", (root_ / "home").string()}}),
       Call("4", "read", {{"path", "main.cc"}}),
       Call("5", "edit", {{"path", "main.cc"}, {"old_string", "{}"}, {"new_string", "{ return 0; }"}})},
      llm::StopReason::kToolUse));
  provider.queue.push_back(Assistant({llm::ContentBlock::Text("done")}));
  auto registry = tools::MakeBuiltinTools();
  std::vector<llm::Message> recorded;
  CancelToken cancel;
  {
    Agent agent(config_, provider, *registry, nullptr,
                [&](const llm::Message& m) { recorded.push_back(m); });
    Outcome out = agent.Prompt("go", cancel);
    ASSERT_EQ(out.status, Outcome::Status::kDone) << out.error.message;
  }
  std::map<std::string, std::string> results;
  for (const auto& m : recorded)
    if (m.role == llm::Role::kToolResult) results[m.tool_call_id] = m.Text();
  ASSERT_EQ(results.size(), 5u);
  for (const auto& [id, text] : results) EXPECT_EQ(text.find(kSecret), std::string::npos) << id << ": " << text;
  EXPECT_NE(results["1"].find("cannot be resolved"), std::string::npos) << results["1"];
  EXPECT_NE(results["2"].find("__tool-worker"), std::string::npos) << results["2"];  // ran inside
  EXPECT_NE(results["4"].find("int main"), std::string::npos) << results["4"];
  std::ifstream in(ws_ / "main.cc");
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), "int main() { return 0; }\n");
}

}  // namespace
}  // namespace sepp::agent
