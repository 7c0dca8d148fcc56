// A running sub-agent sent to the background (RPC background_tool_call on
// its "agent" call, docs/rpc.md): the parent's turn goes on with a receipt,
// the sub-agent keeps working in its own session sandbox, its report comes
// back (background_agent_end, then in the parent's next request), and it
// dies with an abort or with the session (left for a new one, or closed):
// its processes do not outlive it.
// The sub-agent waits in a bash call for a file the test writes, so nothing
// depends on timing.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "rpc_sepp_fixture.h"
#include "support/tool_results.h"
#include "support/host_processes.h"

using sepp::testing_support::HostProcessesWith;

namespace sepp::rpc_test {
namespace {

namespace fs = std::filesystem;

bool Contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// Polls until the count of processes with marker is n (a process table walk
// is the only way to see them; the deadline only bounds a failure).
bool ProcessesBecome(const std::string& marker, int n) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (HostProcessesWith(marker) != n) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return true;
}

class RpcBackgroundAgent : public RpcSeppTest {
 protected:
  RpcBackgroundAgent() : RpcSeppTest("rpc-bgagent") {}
  void SetUp() override {
    RpcSeppTest::SetUp();
    marker_ = std::to_string(930000 + getpid() % 9000);
  }
  // The parent calls "agent"; the sub-agent runs `child_command` in bash;
  // once the call is in the background the parent answers "parent went on".
  // Then `rest` (the sub-agent's and the parent's next answers).
  void Script(const std::string& child_command, const std::string& rest) {
    Json responses = Json::array();
    responses.push_back({{"tool_calls", {{{"id", "sub"}, {"name", "agent"},
                                          {"arguments", {{"task", "wait for the go file"}}}}}}});
    responses.push_back({{"tool_calls", {{{"id", "cb"}, {"name", "bash"},
                                          {"arguments", {{"command", child_command}}}}}}});
    responses.push_back({{"text", "parent went on"}});
    for (const auto& r : Json::parse(rest)) responses.push_back(r);
    fp_.SetScript({{"responses", responses}});
  }
  // Prompts, waits until the sub-agent is in its bash call (the "agent"
  // call's progress line names it), sends the call to the background and
  // reads up to the parent's settling: the turn went on without the child.
  void PromptAndBackground(Child& c) {
    c.Send(Json{{"id", "p"}, {"type", "prompt"}, {"message", "delegate it"}});
    bool in_bash = false;
    while (!in_bash) {
      auto j = c.Next();
      ASSERT_TRUE(j.has_value()) << "sepp stopped answering";
      in_bash = j->value("type", "") == "tool_execution_update" && j->value("toolCallId", "") == "sub" &&
                Contains(j->dump(), "⎿");  // the child started its call
    }
    c.Send(Json{{"id", "bg"}, {"type", "background_tool_call"}, {"toolCallId", "sub"}});
    bool answered = false, settled = false;
    while (!(answered && settled)) {
      auto j = c.Next();
      ASSERT_TRUE(j.has_value()) << "sepp stopped answering";
      if (j->value("type", "") == "response" && j->value("id", "") == "bg") {
        ASSERT_TRUE(j->value("success", false)) << j->dump();
        answered = true;
      }
      ASSERT_NE(j->value("type", ""), "background_agent_end") << "the sub-agent ended early: " << j->dump();
      if (j->value("type", "") == "agent_settled") settled = true;
    }
    std::string receipt = fake::LastToolResult(fp_, "sub");
    EXPECT_TRUE(Contains(receipt, "sent to the background by the user")) << receipt;
    ASSERT_EQ(fp_.requests().size(), 3u) << "the parent's turn went on (and the sub-agent waits)";
  }
  // Reads up to the background_agent_end of the "sub" call.
  static Json UntilBackgroundEnd(Child& c) {
    while (auto j = c.Next()) {
      if (j->value("type", "") == "background_agent_end" && j->value("toolCallId", "") == "sub") return *j;
    }
    return Json();
  }
  std::string marker_;
};

TEST_F(RpcBackgroundAgent, TheParentGoesOnAndTheReportArrivesAtTheNextTurn) {
  Script("until [ -e go ]; do sleep 0.05; done; echo child-saw-go",
         R"([{"text": "child report: the go file is there"}, {"text": "parent read the report"}])");
  Child c;
  Start(c);
  PromptAndBackground(c);
  // It is no longer a call of the turn: it cannot go again.
  c.Send(Json{{"id", "bg2"}, {"type", "background_tool_call"}, {"toolCallId", "sub"}});
  Json bg2 = c.Until("response", "bg2").back();
  EXPECT_FALSE(bg2.value("success", true)) << bg2.dump();

  std::ofstream(root_ / "work" / "go") << "go\n";
  Json end = UntilBackgroundEnd(c);
  ASSERT_FALSE(end.is_null()) << "no background_agent_end";
  EXPECT_FALSE(end.value("isError", true)) << end.dump();
  EXPECT_TRUE(Contains(end.dump(), "child report: the go file is there")) << end.dump();
  EXPECT_TRUE(Contains(fake::LastToolResult(fp_, "cb"), "child-saw-go")) << "the sub-agent's own call ran";

  // The parent's model reads the report with its next request.
  c.Send(Json{{"id", "p2"}, {"type", "prompt"}, {"message", "what did it find?"}});
  c.Until("agent_settled");
  auto requests = fp_.requests();
  ASSERT_EQ(requests.size(), 5u);
  std::string last = requests.back().body.dump();
  EXPECT_TRUE(Contains(last, "child report: the go file is there")) << last;
  EXPECT_TRUE(Contains(last, "sent to the background")) << last;
  EXPECT_TRUE(Contains(last, "what did it find?")) << last;
  c.CloseStdin();
  EXPECT_EQ(c.Wait(), 0);
}

TEST_F(RpcBackgroundAgent, AnAbortKillsTheSubAgentInTheBackground) {
  Script("echo started; exec sleep " + marker_, "[]");
  Child c;
  Start(c);
  PromptAndBackground(c);
  ASSERT_TRUE(ProcessesBecome(marker_, 1)) << "the sub-agent's command is not running";
  // An unknown call id is still an error; the sub-agent's call id aborts it alone.
  c.Send(Json{{"id", "x"}, {"type", "abort_tool_call"}, {"toolCallId", "no-such-call"}});
  EXPECT_FALSE(c.Until("response", "x").back().value("success", true));
  c.Send(Json{{"id", "a"}, {"type", "abort"}});
  Json end = UntilBackgroundEnd(c);
  ASSERT_FALSE(end.is_null()) << "no background_agent_end";
  EXPECT_TRUE(end.value("isError", false)) << end.dump();
  EXPECT_TRUE(Contains(end.dump(), "aborted")) << end.dump();
  EXPECT_TRUE(ProcessesBecome(marker_, 0)) << "the aborted sub-agent's command runs on";
  EXPECT_EQ(fp_.requests().size(), 3u) << "an aborted sub-agent asks its model nothing more";
  c.CloseStdin();
  EXPECT_EQ(c.Wait(), 0);
}

TEST_F(RpcBackgroundAgent, OneSubAgentInTheBackgroundIsAbortedByItsCallId) {
  Script("echo started; exec sleep " + marker_, "[]");
  Child c;
  Start(c);
  PromptAndBackground(c);
  ASSERT_TRUE(ProcessesBecome(marker_, 1)) << "the sub-agent's command is not running";
  c.Send(Json{{"id", "a"}, {"type", "abort_tool_call"}, {"toolCallId", "sub"}});
  Json end = UntilBackgroundEnd(c);
  ASSERT_FALSE(end.is_null()) << "no background_agent_end";
  EXPECT_TRUE(end.value("isError", false)) << end.dump();
  EXPECT_TRUE(ProcessesBecome(marker_, 0)) << "the aborted sub-agent's command runs on";
  c.CloseStdin();
  EXPECT_EQ(c.Wait(), 0);
}

TEST_F(RpcBackgroundAgent, LeavingTheSessionKillsTheSubAgentWhileSeppRunsOn) {
  Script("echo started; exec sleep " + marker_, R"([{"text": "fresh session answer"}])");
  Child c;
  Start(c);
  PromptAndBackground(c);
  ASSERT_TRUE(ProcessesBecome(marker_, 1)) << "the sub-agent's command is not running";
  c.Send(Json{{"id", "n"}, {"type", "new_session"}});
  Json end;
  bool answered = false;
  while (end.is_null() || !answered) {  // the end comes before the response
    auto j = c.Next();
    ASSERT_TRUE(j.has_value()) << "sepp stopped answering";
    if (j->value("type", "") == "background_agent_end") end = *j;
    if (j->value("type", "") == "response" && j->value("id", "") == "n") {
      ASSERT_TRUE(j->value("success", false)) << j->dump();
      answered = true;
    }
  }
  EXPECT_TRUE(end.value("isError", false)) << end.dump();
  EXPECT_TRUE(ProcessesBecome(marker_, 0)) << "the sub-agent's command outlived its session";
  // The new session's model hears nothing of it.
  c.Send(Json{{"id", "p2"}, {"type", "prompt"}, {"message", "hello again"}});
  c.Until("agent_settled");
  std::string last = fp_.requests().back().body.dump();
  EXPECT_TRUE(Contains(last, "hello again")) << last;
  EXPECT_FALSE(Contains(last, "which the user sent to the background")) << last;
  EXPECT_FALSE(Contains(last, "sent to the background by the user")) << last;
  c.CloseStdin();
  EXPECT_EQ(c.Wait(), 0);
}

TEST_F(RpcBackgroundAgent, TheSessionsEndKillsTheSubAgentInTheBackground) {
  Script("echo started; exec sleep " + marker_, "[]");
  Child c;
  Start(c);
  PromptAndBackground(c);
  ASSERT_TRUE(ProcessesBecome(marker_, 1)) << "the sub-agent's command is not running";
  // The session ends (stdin closed): sepp cancels the sub-agent, waits until
  // its sandbox is gone, and exits.
  c.CloseStdin();
  EXPECT_EQ(c.Wait(), 0);
  EXPECT_TRUE(ProcessesBecome(marker_, 0)) << "a background sub-agent's command outlived its session";
}

}  // namespace
}  // namespace sepp::rpc_test
