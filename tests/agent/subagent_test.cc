#include <gtest/gtest.h>

#include <mutex>

#include "agent/agent.h"
#include "agent/agent_definitions.h"
#include "agent/subagent_tool.h"
#include "test_doubles.h"

namespace sepp::agent {
namespace {

using llm::ContentBlock;
using llm::Message;
using testing::Assistant;
using testing::Call;
using testing::EchoTool;
using testing::ForwardingProvider;
using testing::ScriptedProvider;

bool IsChild(const llm::Request& r) { return r.system.find("You are a sub-agent") != std::string::npos; }
std::string FirstText(const llm::Request& r) { return r.messages.empty() ? "" : r.messages[0].Text(); }
bool HasTool(const llm::Request& r, const std::string& name) {
  for (const auto& t : r.tools)
    if (t.name == name) return true;
  return false;
}

class SubagentTest : public ::testing::Test {
 protected:
  SubagentTest() {
    runtime_ = std::make_shared<SubagentRuntime>();
    runtime_->make_provider = [this] { return std::make_unique<ForwardingProvider>(*provider_); };
    // A child's "echo cancel" is the user's abort of the parent's run.
    runtime_->make_tools = [this] {
      auto r = std::make_unique<tools::ToolRegistry>();
      r->Add(std::make_unique<EchoTool>(&cancel_));
      return r;
    };
    runtime_->open_child_session = [this](const std::string& task, const std::string& name) {
      std::lock_guard<std::mutex> lock(mu_);
      ChildSession cs;
      cs.id = "child-" + std::to_string(children_.size());
      children_.push_back(task);
      cs.record = [this](const Message& m) {
        std::lock_guard<std::mutex> lock(mu_);
        child_messages_.push_back(m);
      };
      return cs;
    };
    runtime_->parent.model = "parent-model";
    runtime_->parent.cwd = "/tmp";
    runtime_->date = "2026-11-29";
  }

  Outcome RunParent(const std::string& prompt) {
    registry_.Add(std::make_unique<EchoTool>(&cancel_));
    registry_.Add(std::make_unique<SubagentTool>(runtime_, 0));
    Agent parent(runtime_->parent, *provider_, registry_, nullptr, nullptr);
    return parent.Prompt(prompt, cancel_);
  }

  std::unique_ptr<ScriptedProvider> provider_;
  std::shared_ptr<SubagentRuntime> runtime_;
  tools::ToolRegistry registry_;
  CancelToken cancel_;
  std::mutex mu_;
  std::vector<std::string> children_;
  std::vector<Message> child_messages_;
};

TEST_F(SubagentTest, OnlyTheFinalAnswerReachesTheParent) {
  provider_ = std::make_unique<ScriptedProvider>([](const llm::Request& r, int) -> Result<Message> {
    if (IsChild(r)) {
      if (r.messages.size() == 1)
        return Assistant({ContentBlock::Text("child-internal-note"),
                          Call("k1", "echo", {{"text", "child-tool-output"}})},
                         llm::StopReason::kToolUse);
      return Assistant({ContentBlock::Text("the answer is 42")});
    }
    if (r.messages.size() == 1)
      return Assistant({Call("p1", "agent", {{"task", "find the answer"}})}, llm::StopReason::kToolUse);
    return Assistant({ContentBlock::Text("parent done")});
  });
  Outcome o = RunParent("start");
  ASSERT_EQ(o.status, Outcome::Status::kDone);
  EXPECT_EQ(o.final_text, "parent done");
  // The parent's second request: the tool result is the child's final text,
  // and nothing of the child's own conversation.
  const llm::Request* second = nullptr;
  for (const auto& r : provider_->requests)
    if (!IsChild(r) && r.messages.size() > 1) second = &r;
  ASSERT_NE(second, nullptr);
  EXPECT_EQ(second->messages.back().Text(), "the answer is 42");
  std::string all;
  for (const auto& m : second->messages) all += llm::ToJson(m).dump();
  EXPECT_EQ(all.find("child-internal-note"), std::string::npos);
  EXPECT_EQ(all.find("child-tool-output"), std::string::npos);
  // The child had a fresh context: its first request holds only the task.
  for (const auto& r : provider_->requests)
    if (IsChild(r)) EXPECT_EQ(FirstText(r), "find the answer");
  // Its own session got its messages.
  EXPECT_EQ(children_, std::vector<std::string>{"find the answer"});
  EXPECT_EQ(child_messages_.size(), 4u);  // task, call, result, answer
}

TEST_F(SubagentTest, ParallelSubagentsRunAtOnce) {
  provider_ = std::make_unique<ScriptedProvider>([](const llm::Request& r, int) -> Result<Message> {
    if (IsChild(r)) return Assistant({ContentBlock::Text("done: " + FirstText(r))});
    if (r.messages.size() == 1)
      return Assistant({Call("a", "agent", {{"task", "task A"}}), Call("b", "agent", {{"task", "task B"}})},
                       llm::StopReason::kToolUse);
    return Assistant({ContentBlock::Text("both done")});
  });
  provider_->delay_ms = 300;
  Outcome o = RunParent("go");
  ASSERT_EQ(o.status, Outcome::Status::kDone);
  EXPECT_GE(provider_->max_running.load(), 2);
  const auto& last = provider_->requests.back().messages;
  ASSERT_GE(last.size(), 4u);
  EXPECT_EQ(last[last.size() - 2].Text(), "done: task A");
  EXPECT_EQ(last[last.size() - 1].Text(), "done: task B");
}

TEST_F(SubagentTest, DepthLimitRemovesTheAgentTool) {
  runtime_->max_depth = 1;
  provider_ = std::make_unique<ScriptedProvider>([](const llm::Request& r, int) -> Result<Message> {
    if (IsChild(r)) return Assistant({ContentBlock::Text(HasTool(r, "agent") ? "can delegate" : "leaf")});
    if (r.messages.size() == 1)
      return Assistant({Call("a", "agent", {{"task", "t"}})}, llm::StopReason::kToolUse);
    return Assistant({ContentBlock::Text("ok")});
  });
  RunParent("go");
  EXPECT_EQ(provider_->requests.back().messages.back().Text(), "leaf");
}

TEST_F(SubagentTest, NamedAgentGetsItsToolsAndPrompt) {
  auto def = ParseAgentDefinition(
      "---\nname: finder\ndescription: Finds things\ntools:\n  - Echo\nmodel: inherit\n---\nYou find things.\n",
      "finder.md");
  ASSERT_TRUE(def.ok()) << def.error().message;
  runtime_->definitions.push_back(*def);
  provider_ = std::make_unique<ScriptedProvider>([](const llm::Request& r, int) -> Result<Message> {
    if (IsChild(r)) {
      EXPECT_EQ(r.system.rfind("You find things.", 0), 0u);
      EXPECT_EQ(r.tools.size(), 1u);
      EXPECT_EQ(r.model, "parent-model");
      return Assistant({ContentBlock::Text("found")});
    }
    if (r.messages.size() == 1)
      return Assistant({Call("a", "agent", {{"task", "t"}, {"agent", "finder"}}),
                        Call("b", "agent", {{"task", "t"}, {"agent", "nobody"}})},
                       llm::StopReason::kToolUse);
    return Assistant({ContentBlock::Text("ok")});
  });
  RunParent("go");
  const auto& last = provider_->requests.back().messages;
  EXPECT_EQ(last[last.size() - 2].Text(), "found");
  EXPECT_TRUE(last.back().is_error);
  EXPECT_NE(last.back().Text().find("no agent named \"nobody\""), std::string::npos);
}

TEST_F(SubagentTest, AbortReachesTheChild) {
  provider_ = std::make_unique<ScriptedProvider>([](const llm::Request& r, int) -> Result<Message> {
    if (IsChild(r)) return Assistant({Call("k", "echo", {{"text", "cancel"}})}, llm::StopReason::kToolUse);
    return Assistant({Call("a", "agent", {{"task", "t"}})}, llm::StopReason::kToolUse);
  });
  Outcome o = RunParent("go");
  EXPECT_EQ(o.status, Outcome::Status::kAborted);
}

TEST(AgentDefinitions, ClaudeCodeFormatParses) {
  auto d = ParseAgentDefinition(
      "---\nname: code-reviewer\ndescription: \"Reviews code\"\ntools: Read, Grep, Glob, MultiEdit\n---\n\nBe strict.\n",
      "/x/agents/code-reviewer.md");
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->name, "code-reviewer");
  EXPECT_EQ(d->description, "Reviews code");
  EXPECT_EQ(d->tools, (std::vector<std::string>{"read", "grep", "find", "edit"}));
  EXPECT_EQ(d->system_prompt, "Be strict.");
}

TEST(AgentDefinitions, BadFilesSayWhatIsWrong) {
  auto none = ParseAgentDefinition("no front matter", "a.md");
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.error().message.find("a.md: no front matter"), std::string::npos);
  auto open = ParseAgentDefinition("---\ndescription: x\n", "b.md");
  ASSERT_FALSE(open.ok());
  EXPECT_NE(open.error().message.find("closing"), std::string::npos);
  auto nodesc = ParseAgentDefinition("---\nname: x\n---\nbody", "c.md");
  ASSERT_FALSE(nodesc.ok());
  EXPECT_NE(nodesc.error().message.find("description"), std::string::npos);
}

}  // namespace
}  // namespace sepp::agent

namespace sepp::agent {
namespace {

TEST_F(SubagentTest, ChildEventsArriveNestedUnderTheParentsCallAndDenialsAreRecordedTwice) {
  std::mutex mu;
  std::vector<Event> nested;
  std::vector<std::string> parent_denials;
  runtime_->on_child_event = [&](const Event& e) {
    std::lock_guard<std::mutex> l(mu);
    nested.push_back(e);
  };
  runtime_->record_child_denial = [&](const std::string& child, const std::string& call_id,
                                      const std::string& tool,
                                      const std::vector<sandbox::Denial>& ds) {
    std::lock_guard<std::mutex> l(mu);
    parent_denials.push_back(child + "/" + call_id + "/" + tool);
    for (const auto& d : ds)
      parent_denials.push_back(std::string(sandbox::DenialKindName(d.kind)) + ": " + d.target);
  };
  std::vector<std::string> child_denials;
  auto open = runtime_->open_child_session;
  runtime_->open_child_session = [&, open](const std::string& task, const std::string& name) {
    ChildSession cs = open(task, name);
    cs.record_denial = [&](const std::string& call_id, const std::string& tool,
                           const std::vector<sandbox::Denial>&) {
      std::lock_guard<std::mutex> l(mu);
      child_denials.push_back(call_id + "/" + tool);
    };
    return cs;
  };
  // The child's echo call "fails" as a denial: EchoTool cannot, so use a
  // tool that reports one.
  struct Refuser : tools::Tool {
    std::string name() const override { return "refuse"; }
    std::string description() const override { return "refuses"; }
    Json parameters() const override { return {{"type", "object"}}; }
    std::string Summary(const Json&) const override { return "refuse"; }
    tools::ToolResult Run(const Json&, tools::ToolContext&) override {
      tools::ToolResult r;
      r.text = "blocked";
      r.is_error = true;
      r.details = {{"denied", true}};
      r.denials = {{sandbox::DenialKind::kWrite, "/etc/x",
                    "/etc/x is outside the workspace, the only place this session may write"}};
      return r;
    }
  };
  runtime_->make_tools = [] {
    auto r = std::make_unique<tools::ToolRegistry>();
    r->Add(std::make_unique<Refuser>());
    return r;
  };
  provider_ = std::make_unique<ScriptedProvider>([](const llm::Request& r, int) -> Result<Message> {
    if (IsChild(r)) {
      if (r.messages.size() == 1)
        return Assistant({Call("k1", "refuse", Json::object())}, llm::StopReason::kToolUse);
      return Assistant({ContentBlock::Text("child done")});
    }
    if (r.messages.size() == 1)
      return Assistant({Call("p1", "agent", {{"task", "try it"}})}, llm::StopReason::kToolUse);
    return Assistant({ContentBlock::Text("parent done")});
  });
  Outcome o = RunParent("start");
  ASSERT_EQ(o.status, Outcome::Status::kDone);
  std::vector<std::string> types;
  for (const auto& e : nested) {
    EXPECT_EQ(e.parent_call_id, "p1");
    EXPECT_EQ(e.child_session_id, "child-0");
    types.push_back(ToString(e.type));
  }
  for (const char* t : {"message.user", "turn.started", "tool.started", "tool.finished",
                        "message.completed"})
    EXPECT_NE(std::find(types.begin(), types.end(), t), types.end()) << t;
  EXPECT_EQ(child_denials, std::vector<std::string>{"k1/refuse"});
  EXPECT_EQ(parent_denials, (std::vector<std::string>{"child-0/k1/refuse", "write: /etc/x"}));
}

// A sub-agent's permission request carries the parent's call id (the
// "agent" call that runs it), so a front end can show which call asked;
// the parent's own requests carry none.
TEST_F(SubagentTest, ASubAgentsPermissionRequestNamesTheParentsCall) {
  struct Gate : PermissionGate {
    std::mutex mu;
    std::vector<PermissionRequest> asked;
    PermissionAnswer Ask(const PermissionRequest& r, CancelToken&) override {
      std::lock_guard<std::mutex> l(mu);
      asked.push_back(r);
      return {PermissionChoice::kDeny, "no", "user"};
    }
  } gate;
  struct Refuser : tools::Tool {
    std::string name() const override { return "refuse"; }
    std::string description() const override { return "refuses"; }
    Json parameters() const override { return {{"type", "object"}}; }
    std::string Summary(const Json&) const override { return "refuse"; }
    tools::ToolResult Run(const Json&, tools::ToolContext&) override {
      tools::ToolResult r;
      r.text = "blocked";
      r.is_error = true;
      r.details = {{"denied", true}};
      r.denials = {{sandbox::DenialKind::kNetwork, "pypi.org", "no network"}};
      return r;
    }
  };
  runtime_->parent.permission_gate = &gate;
  runtime_->make_tools = [] {
    auto r = std::make_unique<tools::ToolRegistry>();
    r->Add(std::make_unique<Refuser>());
    return r;
  };
  Json retry = {{"call_id", "k1"}, {"domains", {"pypi.org"}}, {"justification", "pip"}};
  provider_ = std::make_unique<ScriptedProvider>([retry](const llm::Request& r, int) -> Result<Message> {
    size_t n = r.messages.size();
    if (IsChild(r)) {
      if (n == 1) return Assistant({Call("k1", "refuse", Json::object())}, llm::StopReason::kToolUse);
      if (n == 3) return Assistant({Call("k2", "retry_with_access", retry)}, llm::StopReason::kToolUse);
      return Assistant({ContentBlock::Text("child done")});
    }
    if (n == 1) return Assistant({Call("p1", "agent", {{"task", "install it"}})}, llm::StopReason::kToolUse);
    if (n == 3)
      return Assistant({Call("p2", "retry_with_access", Json{{"call_id", "p1"},
                                                             {"domains", {"pypi.org"}},
                                                             {"justification", "again"}})},
                       llm::StopReason::kToolUse);
    return Assistant({ContentBlock::Text("parent done")});
  });
  Outcome o = RunParent("start");
  ASSERT_EQ(o.status, Outcome::Status::kDone);
  ASSERT_EQ(gate.asked.size(), 2u);
  EXPECT_EQ(gate.asked[0].call_id, "k2");
  EXPECT_EQ(gate.asked[0].parent_call_id, "p1");
  ASSERT_EQ(gate.asked[0].denials.size(), 1u);
  EXPECT_EQ(gate.asked[0].denials[0].target, "pypi.org");
  EXPECT_EQ(gate.asked[1].call_id, "p2");  // the parent's own: no parent
  EXPECT_EQ(gate.asked[1].parent_call_id, "");
}

}  // namespace
}  // namespace sepp::agent
