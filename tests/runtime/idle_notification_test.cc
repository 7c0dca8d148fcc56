// Claude's Notification "idle_prompt": once the agent has settled and no
// input comes for the idle time, the hooks hear once that it waits for the
// user; the next prompt starts a new idle period.
#include <gtest/gtest.h>

#include <condition_variable>
#include <fstream>
#include <mutex>

#include "runtime/agent_session.h"
#include "runtime_test_util.h"

namespace sepp::runtime {
namespace {

using agent::EventType;
using testing::HeldProvider;
using testing::OptionsFor;
using testing::TempHome;
using testing::TextReply;

TEST(IdleNotificationTest, HooksHearIdlePromptOncePerIdlePeriod) {
  TempHome home;
  std::filesystem::create_directories(home.home() / "hooks");
  std::ofstream(home.home() / "hooks/idle.lua")
      << "sepp.on('notification', function(ev) sepp.notify('HEARD ' .. ev.type .. ': ' .. ev.message) end)\n";
  HeldProvider provider;
  provider.replies = {TextReply("one"), TextReply("two")};
  std::mutex mu;
  std::condition_variable cv;
  std::vector<std::string> heard;
  SessionOptions o = OptionsFor(provider, home.work());
  o.permissions.ask_front_end = true;
  o.idle_notification_s = 0.05;
  o.on_warning = [&](const std::string& w) {
    std::lock_guard<std::mutex> lock(mu);
    if (w.find("HEARD") != std::string::npos) heard.push_back(w);
    cv.notify_all();
  };
  auto s = AgentSession::Open(std::move(o));
  ASSERT_TRUE(s.ok()) << s.error().message;
  auto sub = (*s)->Subscribe();
  auto wait_for = [&](size_t n) {
    std::unique_lock<std::mutex> lock(mu);
    return cv.wait_for(lock, std::chrono::seconds(30), [&] { return heard.size() >= n; });
  };
  ASSERT_TRUE((*s)->Prompt("first").ok());
  testing::Collect(*sub, EventType::kAgentSettled);
  ASSERT_TRUE(wait_for(1));
  ASSERT_TRUE((*s)->Prompt("second").ok());
  testing::Collect(*sub, EventType::kAgentSettled);
  ASSERT_TRUE(wait_for(2));
  (*s)->Close();
  std::lock_guard<std::mutex> lock(mu);
  ASSERT_EQ(heard.size(), 2u) << "one notification per idle period";
  EXPECT_NE(heard[0].find("HEARD idle_prompt: sepp is waiting for your input"), std::string::npos)
      << heard[0];
}

}  // namespace
}  // namespace sepp::runtime
