// The runtime's project trust question (runtime/project_trust_prompt.h):
// asked once, at the first prompt, through the permission gate. No answer
// within the gate's timeout is a denial: the project's hook does not run,
// the prompt goes on, and the refusal is recorded for `sepp ext list`.
// Allowed, the hook joins the running chain at that prompt.
#include <gtest/gtest.h>

#include <fstream>
#include <thread>

#include "base/project_trust.h"
#include "runtime/agent_session.h"
#include "runtime_test_util.h"

namespace sepp::runtime {
namespace {

using agent::EventType;
using testing::HeldProvider;
using testing::OptionsFor;
using testing::TempHome;
using testing::TextReply;

class ProjectTrustTest : public ::testing::Test {
 protected:
  ProjectTrustTest() {
    std::filesystem::create_directories(home_.work() / ".sepp/hooks");
    std::ofstream(home_.work() / ".sepp/hooks/mark.lua")
        << "sepp.on('input', function(ev) return {action = 'transform', text = ev.text, "
           "context = 'PROJECT-HOOK-RAN'} end)\n";
  }
  std::unique_ptr<AgentSession> Open(double timeout_s) {
    SessionOptions o = OptionsFor(provider_, home_.work());
    o.permissions.ask_front_end = true;
    o.permissions.timeout_s = timeout_s;
    auto s = AgentSession::Open(std::move(o));
    EXPECT_TRUE(s.ok()) << (s.ok() ? "" : s.error().message);
    return s.ok() ? std::move(s).value() : nullptr;
  }
  static bool Sent(const llm::Request& r, const std::string& text) {
    for (const auto& m : r.messages)
      if (m.Text().find(text) != std::string::npos) return true;
    return false;
  }
  TempHome home_;
  HeldProvider provider_;
};

TEST_F(ProjectTrustTest, NoAnswerIsADenialTheHookDoesNotRunAndTheSessionGoesOn) {
  provider_.replies = {TextReply("first"), TextReply("second")};
  auto s = Open(0.05);
  auto sub = s->Subscribe();
  ASSERT_TRUE(s->Prompt("hello").ok());
  auto events = testing::Collect(*sub, EventType::kAgentSettled);
  int asked = 0;
  std::string source;
  for (const auto& e : events) {
    if (e.type == EventType::kPermissionRequested) {
      ++asked;
      EXPECT_EQ(e.data["kind"], "project_trust");
      EXPECT_EQ(e.data["items"][0]["detail"], "lua-hook");
    }
    if (e.type == EventType::kPermissionResolved) source = e.data["answer"]["source"];
  }
  EXPECT_EQ(asked, 1);
  EXPECT_EQ(source, "timeout");
  ASSERT_EQ(provider_.calls(), 1u);
  EXPECT_FALSE(Sent(provider_.Requests()[0], "PROJECT-HOOK-RAN"));
  EXPECT_EQ(s->LastAssistantText(), "first");
  // Asked once per session: the next prompt neither asks nor runs the hook.
  ASSERT_TRUE(s->Prompt("again").ok());
  events = testing::Collect(*sub, EventType::kAgentSettled);
  for (const auto& e : events) EXPECT_NE(e.type, EventType::kPermissionRequested);
  EXPECT_FALSE(Sent(provider_.Requests()[1], "PROJECT-HOOK-RAN"));
  s->Close();
  ProjectConfig config = ReadProjectConfig(home_.work());
  EXPECT_NE(TrustState::kTrusted, ProjectTrustOf(config));
  EXPECT_NE(ProjectRefusalOf(config).find("no answer"), std::string::npos);
}

TEST_F(ProjectTrustTest, AllowedTheHookJoinsTheRunningChainAtThatPrompt) {
  provider_.replies = {TextReply("first"), TextReply("second")};
  auto s = Open(300);
  auto sub = s->Subscribe();
  ASSERT_TRUE(s->Prompt("hello").ok());
  agent::Event e(EventType::kError);
  while (sub->Pop(&e, 30) == Subscription::Next::kEvent && e.type != EventType::kPermissionRequested) {
  }
  ASSERT_EQ(e.type, EventType::kPermissionRequested);
  ASSERT_TRUE(s->AnswerPermission(e.data["request_id"], {agent::PermissionChoice::kAllowProject, "", ""}).ok());
  testing::Collect(*sub, EventType::kAgentSettled);
  ASSERT_TRUE(s->Prompt("again").ok());
  testing::Collect(*sub, EventType::kAgentSettled);
  s->Close();
  ASSERT_EQ(provider_.calls(), 2u);
  EXPECT_TRUE(Sent(provider_.Requests()[0], "PROJECT-HOOK-RAN"));
  EXPECT_TRUE(Sent(provider_.Requests()[1], "PROJECT-HOOK-RAN"));
  EXPECT_EQ(ProjectTrustOf(ReadProjectConfig(home_.work())), TrustState::kTrusted);
}

// A headless session (no front end answers) never asks; the hook stays off.
TEST_F(ProjectTrustTest, AHeadlessSessionDoesNotAsk) {
  provider_.replies = {TextReply("first")};
  SessionOptions o = OptionsFor(provider_, home_.work());
  auto s = AgentSession::Open(std::move(o));
  ASSERT_TRUE(s.ok());
  auto sub = (*s)->Subscribe();
  ASSERT_TRUE((*s)->Prompt("hello").ok());
  for (const auto& ev : testing::Collect(*sub, EventType::kAgentSettled))
    EXPECT_NE(ev.type, EventType::kPermissionRequested);
  (*s)->Close();
  EXPECT_FALSE(Sent(provider_.Requests()[0], "PROJECT-HOOK-RAN"));
}

}  // namespace
}  // namespace sepp::runtime
