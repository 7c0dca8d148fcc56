// sepp's per-call RPC commands (docs/rpc.md, "sepp's extensions"):
// abort_tool_call ends one of three parallel sleeps alone, and
// background_tool_call leaves a running bash going on in the session
// sandbox; a background process does not outlive sepp, even when sepp is
// killed with SIGKILL (the sandbox's pid 1 dies, and the kernel kills the
// rest of its pid namespace).
#include <gtest/gtest.h>
#include <signal.h>

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

class RpcToolCalls : public RpcSeppTest {
 protected:
  RpcToolCalls() : RpcSeppTest("rpc-calls") {}
  // Reads records until one is a tool_execution_update of call_id whose
  // output holds text.
  static bool UntilOutput(Child& c, const std::string& call_id, const std::string& text) {
    while (auto j = c.Next()) {
      if (j->value("type", "") == "tool_execution_update" && j->value("toolCallId", "") == call_id &&
          Contains(j->dump(), text))
        return true;
    }
    return false;
  }
};

TEST_F(RpcToolCalls, OneOfThreeParallelSleepsIsAbortedAloneAndTheTurnGoesOn) {
  fp_.SetScript({{"responses", Json::parse(R"([
    {"tool_calls": [
      {"id": "long", "name": "bash", "arguments": {"command": "echo long-started; sleep 30"}},
      {"id": "b", "name": "bash", "arguments": {"command": "until [ -e go ]; do sleep 0.05; done; echo bee-done"}},
      {"id": "c", "name": "bash", "arguments": {"command": "until [ -e go ]; do sleep 0.05; done; echo cee-done"}}
    ]},
    {"text": "after the calls"}
  ])")}});
  Child c;
  Start(c);
  c.Send(Json{{"id", "p"}, {"type", "prompt"}, {"message", "run three"}});
  ASSERT_TRUE(UntilOutput(c, "long", "long-started"));
  // Bad requests name what is wrong.
  c.Send(Json{{"id", "x1"}, {"type", "abort_tool_call"}});
  Json x1 = c.Until("response", "x1").back();
  EXPECT_FALSE(x1.value("success", true));
  EXPECT_TRUE(Contains(x1.value("error", ""), "toolCallId")) << x1.dump();
  c.Send(Json{{"id", "x2"}, {"type", "abort_tool_call"}, {"toolCallId", "no-such-call"}});
  Json x2 = c.Until("response", "x2").back();
  EXPECT_FALSE(x2.value("success", true));
  EXPECT_TRUE(Contains(x2.value("error", ""), "no-such-call")) << x2.dump();

  c.Send(Json{{"id", "a"}, {"type", "abort_tool_call"}, {"toolCallId", "long"}});
  bool long_ended = false, answered = false;
  while (!(long_ended && answered)) {  // the response and the call's end, in either order
    auto j = c.Next();
    ASSERT_TRUE(j.has_value()) << "sepp stopped answering";
    if (j->value("type", "") == "response" && j->value("id", "") == "a") {
      ASSERT_TRUE(j->value("success", false)) << j->dump();
      answered = true;
    }
    if (j->value("type", "") == "tool_execution_end" && j->value("toolCallId", "") == "long") long_ended = true;
    ASSERT_NE(j->value("type", ""), "agent_settled") << "the turn ended with the abort";
  }
  EXPECT_EQ(fp_.requests().size(), 1u) << "the turn waits for the other two";
  std::ofstream(root_ / "work" / "go") << "go\n";
  c.Until("agent_settled");
  EXPECT_TRUE(Contains(fake::LastToolResult(fp_, "long"), "the user aborted this call"))
      << fake::LastToolResult(fp_, "long");
  EXPECT_TRUE(Contains(fake::LastToolResult(fp_, "b"), "bee-done"));
  EXPECT_TRUE(Contains(fake::LastToolResult(fp_, "c"), "cee-done"));
  EXPECT_FALSE(Contains(fake::LastToolResult(fp_, "b"), "aborted"));
  c.CloseStdin();
  EXPECT_EQ(c.Wait(), 0);
}

TEST_F(RpcToolCalls, ACallSentToTheBackgroundGoesOnAndDiesWhenSeppIsKilled) {
  std::string marker = std::to_string(920000 + getpid() % 9000);
  fp_.SetScript({{"responses", Json::parse(R"([
    {"tool_calls": [
      {"id": "srv", "name": "bash", "arguments": {"command": "echo srv-started; exec sleep )" + marker + R"("}},
      {"id": "quick", "name": "bash", "arguments": {"command": "until [ -e go ]; do sleep 0.05; done; echo quick-done"}}
    ]},
    {"text": "both returned"}
  ])")}});
  Child c;
  Start(c);
  c.Send(Json{{"id", "p"}, {"type", "prompt"}, {"message", "start it"}});
  ASSERT_TRUE(UntilOutput(c, "srv", "srv-started"));
  c.Send(Json{{"id", "bg"}, {"type", "background_tool_call"}, {"toolCallId", "srv"}});
  Json srv_end;
  bool answered = false;
  while (srv_end.is_null() || !answered) {
    auto j = c.Next();
    ASSERT_TRUE(j.has_value()) << "sepp stopped answering";
    if (j->value("type", "") == "response" && j->value("id", "") == "bg") {
      ASSERT_TRUE(j->value("success", false)) << j->dump();
      answered = true;
    }
    if (j->value("type", "") == "tool_execution_end" && j->value("toolCallId", "") == "srv") srv_end = *j;
  }
  EXPECT_FALSE(srv_end.value("isError", true)) << srv_end.dump();
  std::ofstream(root_ / "work" / "go") << "go\n";
  c.Until("agent_settled");
  std::string srv = fake::LastToolResult(fp_, "srv");
  EXPECT_TRUE(Contains(srv, "srv-started")) << srv;
  EXPECT_TRUE(Contains(srv, "sent to the background by the user: pid ")) << srv;
  EXPECT_TRUE(Contains(fake::LastToolResult(fp_, "quick"), "quick-done"));
  // It runs on after its call and after the turn.
  ASSERT_EQ(HostProcessesWith(marker), 1);

  // A call that is not running, or not a bash call, cannot go.
  c.Send(Json{{"id", "bg2"}, {"type", "background_tool_call"}, {"toolCallId", "srv"}});
  Json bg2 = c.Until("response", "bg2").back();
  EXPECT_FALSE(bg2.value("success", true)) << bg2.dump();

  // SIGKILL: sepp has no chance to clean up; the sandbox's pid 1 dies with
  // it (PDEATHSIG) and the kernel ends every process of its namespace.
  kill(c.pid(), SIGKILL);
  EXPECT_EQ(c.Wait(), 128 + SIGKILL);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (HostProcessesWith(marker) != 0 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_EQ(HostProcessesWith(marker), 0) << "a background process outlived sepp";
}

}  // namespace
}  // namespace sepp::rpc_test
