// A sub-agent sent to the background, in process (agent/background_agents.h):
// the parent's prompt ends with the receipt while the child still waits in a
// tool call; the child's report is delivered afterwards; Close() cancels a
// child in the background and returns only once it has ended. End to end
// through sepp --rpc: tests/rpc/rpc_background_agent_test.cc.
#include <gtest/gtest.h>

#include <condition_variable>
#include <mutex>
#include <thread>

#include "agent/agent.h"
#include "agent/background_agents.h"
#include "agent/subagent_tool.h"
#include "test_doubles.h"

namespace sepp::agent {
namespace {

using llm::ContentBlock;
using llm::Message;
using testing::Assistant;
using testing::Call;
using testing::ForwardingProvider;
using testing::ScriptedProvider;

bool IsChild(const llm::Request& r) { return r.system.find("You are a sub-agent") != std::string::npos; }

// "wait": blocks until Release() or the call's cancel; says which.
class WaitTool : public tools::Tool {
 public:
  std::string name() const override { return "wait"; }
  std::string description() const override { return "waits"; }
  Json parameters() const override { return {{"type", "object"}}; }
  std::string Summary(const Json&) const override { return "wait"; }
  tools::ToolResult Run(const Json&, tools::ToolContext& ctx) override {
    std::unique_lock<std::mutex> lock(mu_);
    waiting_ = true;
    cv_.notify_all();
    std::unique_ptr<CancelToken::Registration> reg;
    if (ctx.cancel) {
      lock.unlock();
      reg = ctx.cancel->OnCancel([this] {
        std::lock_guard<std::mutex> l(mu_);
        cv_.notify_all();
      });
      lock.lock();
    }
    cv_.wait(lock, [&] { return released_ || (ctx.cancel && ctx.cancel->cancelled()); });
    return {released_ ? "released" : "cancelled", !released_};
  }
  void WaitUntilWaiting() {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return waiting_; });
  }
  void Release() {
    std::lock_guard<std::mutex> lock(mu_);
    released_ = true;
    cv_.notify_all();
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool waiting_ = false, released_ = false;
};

class BackgroundAgentTest : public ::testing::Test {
 protected:
  BackgroundAgentTest() {
    provider_ = std::make_unique<ScriptedProvider>([](const llm::Request& r, int) -> Result<Message> {
      if (IsChild(r)) {
        if (r.messages.size() == 1)
          return Assistant({Call("w1", "wait", Json::object())}, llm::StopReason::kToolUse);
        return Assistant({ContentBlock::Text("child report: " + r.messages.back().Text())});
      }
      if (r.messages.size() == 1)
        return Assistant({Call("sub", "agent", {{"task", "wait, then report"}})}, llm::StopReason::kToolUse);
      return Assistant({ContentBlock::Text("parent done")});
    });
    runtime_ = std::make_shared<SubagentRuntime>();
    runtime_->make_provider = [this] { return std::make_unique<ForwardingProvider>(*provider_); };
    runtime_->make_tools = [this] {
      auto r = std::make_unique<tools::ToolRegistry>();
      r->Add(std::make_unique<ForwardWait>(wait_));
      return r;
    };
    runtime_->parent.model = "parent-model";
    runtime_->parent.cwd = "/tmp";
    runtime_->background = std::make_shared<BackgroundAgents>();
    runtime_->background->on_finished = [this](const BackgroundAgents::Finished& f) {
      std::lock_guard<std::mutex> lock(mu_);
      told_.push_back(f);
      told_cv_.notify_all();
    };
    registry_.Add(std::make_unique<SubagentTool>(runtime_, 0));
  }

  // Each child's registry gets its own tool object that forwards to one WaitTool.
  class ForwardWait : public tools::Tool {
   public:
    explicit ForwardWait(WaitTool& to) : to_(to) {}
    std::string name() const override { return to_.name(); }
    std::string description() const override { return to_.description(); }
    Json parameters() const override { return to_.parameters(); }
    std::string Summary(const Json& a) const override { return to_.Summary(a); }
    tools::ToolResult Run(const Json& a, tools::ToolContext& ctx) override { return to_.Run(a, ctx); }

   private:
    WaitTool& to_;
  };

  // Runs the parent's prompt on a thread until the child waits, then sends
  // the "agent" call to the background; returns the parent's outcome.
  Outcome PromptAndDetach() {
    Agent parent(runtime_->parent, *provider_, registry_, nullptr, nullptr);
    Outcome o;
    std::thread t([&] { o = parent.Prompt("go", cancel_); });
    wait_.WaitUntilWaiting();
    EXPECT_FALSE(runtime_->background->Detach("nope").ok());
    Status st = runtime_->background->Detach("sub");
    EXPECT_TRUE(st.ok()) << st.error().message;
    t.join();
    return o;
  }

  void WaitTold() {
    std::unique_lock<std::mutex> lock(mu_);
    told_cv_.wait(lock, [&] { return !told_.empty(); });
  }

  std::unique_ptr<ScriptedProvider> provider_;
  std::shared_ptr<SubagentRuntime> runtime_;
  tools::ToolRegistry registry_;
  WaitTool wait_;
  CancelToken cancel_;
  std::mutex mu_;
  std::condition_variable told_cv_;
  std::vector<BackgroundAgents::Finished> told_;
};

TEST_F(BackgroundAgentTest, TheParentEndsItsPromptAndTheReportComesLater) {
  Outcome o = PromptAndDetach();
  ASSERT_EQ(o.status, Outcome::Status::kDone);
  EXPECT_EQ(o.final_text, "parent done");
  // The parent's model read the receipt, not a report.
  std::string receipt = provider_->requests.back().messages.back().Text();
  EXPECT_NE(receipt.find("sent to the background by the user"), std::string::npos) << receipt;
  EXPECT_EQ(runtime_->background->running(), 1u);
  EXPECT_TRUE(runtime_->background->TakeFinished().empty());
  EXPECT_FALSE(runtime_->background->Detach("sub").ok()) << "it is in the background already";

  wait_.Release();
  WaitTold();
  auto reports = runtime_->background->TakeFinished();
  runtime_->background->Close();
  EXPECT_EQ(runtime_->background->running(), 0u);
  ASSERT_EQ(reports.size(), 1u);
  EXPECT_EQ(reports[0].call_id, "sub");
  EXPECT_FALSE(reports[0].is_error);
  EXPECT_EQ(reports[0].text, "child report: released");
  std::string message = BackgroundReportMessage(reports[0]);
  EXPECT_NE(message.find("child report: released"), std::string::npos) << message;
  EXPECT_NE(message.find("wait, then report"), std::string::npos) << message;
  std::lock_guard<std::mutex> lock(mu_);
  ASSERT_EQ(told_.size(), 1u);  // told once
  EXPECT_EQ(told_[0].text, "child report: released");
}

TEST_F(BackgroundAgentTest, CloseCancelsAChildInTheBackgroundAndWaitsForIt) {
  Outcome o = PromptAndDetach();
  ASSERT_EQ(o.status, Outcome::Status::kDone);
  runtime_->background->Close();  // the child's wait is cancelled; no Release()
  EXPECT_EQ(runtime_->background->running(), 0u);
  // The front ends heard it end; no report is left for a model.
  EXPECT_TRUE(runtime_->background->TakeFinished().empty());
  {
    std::lock_guard<std::mutex> lock(mu_);
    ASSERT_EQ(told_.size(), 1u);
    EXPECT_TRUE(told_[0].is_error);
    EXPECT_EQ(told_[0].text, "the sub-agent was aborted");
  }
  // A closed session starts no sub-agent.
  auto run = std::make_shared<BackgroundRun>();
  run->call_id = "later";
  EXPECT_FALSE(runtime_->background->Track(run).ok());
}

TEST_F(BackgroundAgentTest, LeavingTheSessionStopsTheChildAndDropsItsReport) {
  Outcome o = PromptAndDetach();
  ASSERT_EQ(o.status, Outcome::Status::kDone);
  runtime_->background->StopAll();  // no Release(): it is cancelled
  EXPECT_EQ(runtime_->background->running(), 0u);
  EXPECT_TRUE(runtime_->background->TakeFinished().empty()) << "a report of the session left";
  {
    std::lock_guard<std::mutex> lock(mu_);
    ASSERT_EQ(told_.size(), 1u);  // the front ends still hear it ended
    EXPECT_TRUE(told_[0].is_error);
  }
  // The next session's sub-agents may still start.
  auto run = std::make_shared<BackgroundRun>();
  run->call_id = "later";
  EXPECT_TRUE(runtime_->background->Track(run).ok());
  runtime_->background->Untrack("later");
}

TEST_F(BackgroundAgentTest, AbortReachesOnlyTheChildrenInTheBackground) {
  Outcome o = PromptAndDetach();
  ASSERT_EQ(o.status, Outcome::Status::kDone);
  EXPECT_FALSE(runtime_->background->Abort("nope"));
  EXPECT_TRUE(runtime_->background->Abort("sub"));
  WaitTold();
  auto reports = runtime_->background->TakeFinished();  // for the model's next turn
  ASSERT_EQ(reports.size(), 1u);
  EXPECT_TRUE(reports[0].is_error);
  EXPECT_EQ(reports[0].text, "the sub-agent was aborted");
  runtime_->background->Close();
}

}  // namespace
}  // namespace sepp::agent
