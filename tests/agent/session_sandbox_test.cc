// The agent runs its tools in its own session sandbox: attacks made with
// nothing but the model's ordinary tool calls (a scripted provider), next to
// legitimate work that must succeed; sub-agents get a sandbox of their own.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>

#include "agent/agent.h"
#include "agent/subagent_tool.h"
#include "sandbox/defaults.h"
#include "sandbox/probe.h"
#include "test_doubles.h"
#include "tools/tool_test_util.h"
#include "tools/tool_worker.h"
#include "support/host_processes.h"

using sepp::testing_support::HostProcessesWith;

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
    tools::testing::RemoveTree(root_);
  }

  fs::path root_, ws_;
  std::string old_home_;
  sandbox::Policy policy_;
  AgentConfig config_;
};

TEST_F(SessionSandboxAgentTest, ModelDrivenAttacksFailAndWorkSucceeds) {
  // A link chain whose resolution is longer than PATH_MAX, ending at the key.
  const std::string key = tools::testing::MakeOverLongChain(ws_, root_ / "home/.ssh/id_rsa") + "/end";
  ScriptedProvider provider;
  provider.queue.push_back(Assistant(
      {Call("1", "read", {{"path", key}}),
       Call("2", "bash", {{"command", "cat " + key + " ~/.ssh/id_rsa; tr '\\0' ' ' </proc/1/cmdline"}}),
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

// The parent and its sub-agent each have a sandbox: neither sees the other's
// /tmp, and the child's sandbox (with a process it detached) is gone when
// the child is done, while the parent's lives on.
TEST_F(SessionSandboxAgentTest, ASubAgentHasASandboxOfItsOwn) {
  auto runtime = std::make_shared<SubagentRuntime>();
  ScriptedProvider provider([&](const llm::Request& r, int) -> Result<llm::Message> {
    bool child = r.system.find("You are a sub-agent") != std::string::npos;
    size_t n = r.messages.size();
    if (child) {
      if (n == 1)
        return Assistant({Call("c1", "bash", {{"command",
                               "if [ -e /tmp/parent-mark ]; then echo saw; else echo clean; fi "
                               ">child-view.txt; echo c >/tmp/child-mark; "
                               "setsid sh -c 'echo up >/tmp/up; exec sleep 987777' >/dev/null 2>&1 & "
                               "until [ -s /tmp/up ]; do :; done"}})},
                         llm::StopReason::kToolUse);
      return Assistant({llm::ContentBlock::Text("child done")});
    }
    if (n == 1)
      return Assistant({Call("p1", "bash", {{"command", "echo p >/tmp/parent-mark"}})},
                       llm::StopReason::kToolUse);
    if (n == 3)
      return Assistant({Call("p2", "agent", {{"task", "look around"}})}, llm::StopReason::kToolUse);
    if (n == 5)
      return Assistant({Call("p3", "bash", {{"command", "cat /tmp/parent-mark; ls /tmp/child-mark 2>&1; "
                                                        "pgrep -c -f 987777 || true"}})},
                       llm::StopReason::kToolUse);
    return Assistant({llm::ContentBlock::Text("done")});
  });
  runtime->make_provider = [&] { return std::make_unique<testing::ForwardingProvider>(provider); };
  runtime->make_tools = [] { return tools::MakeBuiltinTools(); };
  runtime->parent = config_;
  runtime->date = "2026-12-01";
  auto registry = tools::MakeBuiltinTools();
  registry->Add(std::make_unique<SubagentTool>(runtime, 0));
  std::vector<llm::Message> recorded;
  CancelToken cancel;
  int alive_after_child = -1;
  {
    Agent agent(config_, provider, *registry, nullptr, [&](const llm::Message& m) {
      recorded.push_back(m);
      if (m.role == llm::Role::kToolResult && m.tool_call_id == "p2")
        alive_after_child = HostProcessesWith("987777");
    });
    Outcome out = agent.Prompt("go", cancel);
    ASSERT_EQ(out.status, Outcome::Status::kDone) << out.error.message;
  }
  std::string p3;
  for (const auto& m : recorded)
    if (m.tool_call_id == "p3") p3 = m.Text();
  EXPECT_NE(p3.find("p\n"), std::string::npos) << p3;                 // the parent's own /tmp
  EXPECT_NE(p3.find("No such file"), std::string::npos) << p3;          // not the child's
  EXPECT_EQ(alive_after_child, 0);  // the child's sandbox ended with the child
  std::ifstream view(ws_ / "child-view.txt");
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(view), {}), "clean\n");  // nor the parent's
}

}  // namespace
}  // namespace sepp::agent
