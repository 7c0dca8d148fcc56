#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <mutex>
#include <thread>

#include "runtime/agent_session.h"
#include "runtime_test_util.h"

namespace sepp::runtime {
namespace {

using agent::EventType;
using testing::CallReply;
using testing::Collect;
using testing::HeldProvider;
using testing::OptionsFor;
using testing::TempHome;
using testing::TextReply;
using testing::Types;

bool Has(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

// The user texts of a request, in order.
std::vector<std::string> UserTexts(const llm::Request& r) {
  std::vector<std::string> out;
  for (const auto& m : r.messages)
    if (m.role == llm::Role::kUser && !m.Text().empty()) out.push_back(m.Text());
  return out;
}

class AgentSessionTest : public ::testing::Test {
 protected:
  std::unique_ptr<AgentSession> Open(SessionOptions o) {
    auto s = AgentSession::Open(std::move(o));
    EXPECT_TRUE(s.ok()) << (s.ok() ? "" : s.error().message);
    return s.ok() ? std::move(s).value() : nullptr;
  }
  std::unique_ptr<AgentSession> Open() { return Open(OptionsFor(provider_, home_.work())); }

  TempHome home_;
  HeldProvider provider_;
};

TEST_F(AgentSessionTest, APromptStreamsStampedEventsToEverySubscriber) {
  provider_.replies = {TextReply("hello")};
  auto s = Open();
  auto a = s->Subscribe();
  auto b = s->Subscribe();
  ASSERT_TRUE(s->Prompt("hi").ok());
  auto ea = Collect(*a, EventType::kAgentSettled);
  auto eb = Collect(*b, EventType::kAgentSettled);
  auto types = Types(ea);
  ASSERT_FALSE(types.empty());
  EXPECT_EQ(types.front(), "session.started");  // replayed to a late subscriber
  EXPECT_EQ(types.back(), "agent.settled");
  for (const char* t : {"agent.started", "message.user", "turn.started", "message.delta",
                        "message.completed", "turn.finished"})
    EXPECT_TRUE(Has(types, t)) << t;
  EXPECT_EQ(Types(eb), types);
  std::string id = s->GetState().session_id;
  ASSERT_EQ(id.size(), 32u);
  for (size_t i = 0; i < ea.size(); ++i) {
    EXPECT_EQ(ea[i].session_id, id);
    EXPECT_GT(ea[i].time_ms, 0);
    if (i > 0) EXPECT_EQ(ea[i].seq, ea[i - 1].seq + 1) << "gap before " << types[i];
  }
  EXPECT_EQ(ea.back().data["outcome"]["status"], "done");
  EXPECT_EQ(ea.back().data["outcome"]["final_text"], "hello");
  EXPECT_EQ(s->LastAssistantText(), "hello");
  EXPECT_EQ(s->Messages().size(), 2u);
  s->Close();
  agent::Event e(EventType::kError);
  ASSERT_EQ(a->Pop(&e, 30), Subscription::Next::kEvent);
  EXPECT_EQ(e.type, EventType::kSessionEnded);
  EXPECT_EQ(e.data["outcome"]["status"], "done");
  EXPECT_EQ(a->Pop(&e, 30), Subscription::Next::kClosed);
}

TEST_F(AgentSessionTest, ASecondPromptWhileBusyIsRefusedNotQueued) {
  provider_.hold();
  auto s = Open();
  auto sub = s->Subscribe();
  ASSERT_TRUE(s->Prompt("one").ok());
  provider_.WaitCalls(1);
  Status st = s->Prompt("two");
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().kind, "busy");
  EXPECT_NE(st.error().message.find("steer"), std::string::npos);
  provider_.release();
  Collect(*sub, EventType::kAgentSettled);
  EXPECT_EQ(provider_.calls(), 1u);
}

TEST_F(AgentSessionTest, SteeringArrivesAtTheNextToolBoundary) {
  std::ofstream(home_.work() / "a.txt") << "alpha\n";
  provider_.replies = {CallReply("c1", "ls", {{"path", "."}}), TextReply("done")};
  provider_.hold();
  auto s = Open();
  auto sub = s->Subscribe();
  ASSERT_TRUE(s->Prompt("list files").ok());
  provider_.WaitCalls(1);
  ASSERT_TRUE(s->Steer("also count them").ok());
  EXPECT_EQ(s->GetState().queue.steering, std::vector<std::string>{"also count them"});
  provider_.release();
  auto events = Collect(*sub, EventType::kAgentSettled);
  auto reqs = provider_.Requests();
  ASSERT_EQ(reqs.size(), 2u);
  // The second call has: prompt, assistant(tool call), tool result, steer.
  const auto& m = reqs[1].messages;
  ASSERT_GE(m.size(), 4u);
  EXPECT_EQ(m[m.size() - 2].role, llm::Role::kToolResult);
  EXPECT_EQ(m.back().role, llm::Role::kUser);
  EXPECT_EQ(m.back().Text(), "also count them");
  // The steer's event comes after the tool finished and before the next turn.
  auto types = Types(events);
  auto fin = std::find(types.begin(), types.end(), "tool.finished");
  ASSERT_NE(fin, types.end());
  auto user2 = std::find(fin, types.end(), "message.user");
  ASSERT_NE(user2, types.end());
  EXPECT_NE(std::find(user2, types.end(), "turn.started"), types.end());
  EXPECT_TRUE(s->GetState().queue.steering.empty());
}

TEST_F(AgentSessionTest, SteeringDuringTheFinalAnswerIsStillAnsweredInThatPrompt) {
  provider_.replies = {TextReply("first"), TextReply("second")};
  provider_.hold();
  auto s = Open();
  auto sub = s->Subscribe();
  ASSERT_TRUE(s->Prompt("go").ok());
  provider_.WaitCalls(1);
  ASSERT_TRUE(s->Steer("and then?").ok());
  provider_.release();
  auto events = Collect(*sub, EventType::kAgentSettled);
  auto types = Types(events);
  EXPECT_EQ(std::count(types.begin(), types.end(), "agent.settled"), 1);
  auto reqs = provider_.Requests();
  ASSERT_EQ(reqs.size(), 2u);
  EXPECT_EQ(UserTexts(reqs[1]), (std::vector<std::string>{"go", "and then?"}));
  EXPECT_EQ(events.back().data["outcome"]["final_text"], "second");
}

TEST_F(AgentSessionTest, FollowUpsRunAfterThePromptSettlesInOrder) {
  provider_.replies = {TextReply("r1"), TextReply("r2"), TextReply("r3")};
  provider_.hold();
  auto s = Open();
  auto sub = s->Subscribe();
  ASSERT_TRUE(s->Prompt("p1").ok());
  provider_.WaitCalls(1);
  ASSERT_TRUE(s->FollowUp("p2").ok());
  ASSERT_TRUE(s->FollowUp("p3").ok());
  EXPECT_EQ(s->GetState().queue.follow_up, (std::vector<std::string>{"p2", "p3"}));
  provider_.release();
  auto events = Collect(*sub, EventType::kAgentSettled);
  auto reqs = provider_.Requests();
  ASSERT_EQ(reqs.size(), 3u);
  EXPECT_EQ(UserTexts(reqs[0]), std::vector<std::string>{"p1"});
  EXPECT_EQ(UserTexts(reqs[1]), (std::vector<std::string>{"p1", "p2"}));
  EXPECT_EQ(UserTexts(reqs[2]), (std::vector<std::string>{"p1", "p2", "p3"}));
  auto types = Types(events);
  EXPECT_EQ(std::count(types.begin(), types.end(), "agent.started"), 1);
  EXPECT_EQ(std::count(types.begin(), types.end(), "agent.settled"), 1);
  EXPECT_TRUE(Has(types, "queue.updated"));
  EXPECT_TRUE(s->WaitIdle(30));
}

TEST_F(AgentSessionTest, AbortEndsTheTurnHandsBackTheQueueAndLeavesAValidSession) {
  provider_.hold();
  auto s = Open();
  auto sub = s->Subscribe();
  ASSERT_TRUE(s->Prompt("long task").ok());
  provider_.WaitCalls(1);
  ASSERT_TRUE(s->FollowUp("later").ok());
  ASSERT_TRUE(s->Steer("now").ok());
  QueueState back = s->Abort();
  EXPECT_EQ(back.steering, std::vector<std::string>{"now"});
  EXPECT_EQ(back.follow_up, std::vector<std::string>{"later"});
  auto events = Collect(*sub, EventType::kAgentSettled);
  EXPECT_EQ(events.back().data["outcome"]["status"], "aborted");
  EXPECT_TRUE(s->GetState().queue.steering.empty());
  EXPECT_EQ(provider_.calls(), 1u);  // nothing queued ran
  std::string id = s->GetState().session_id;
  s.reset();

  // The session reopens with the interrupted turn in its context.
  provider_.release();
  provider_.replies = {TextReply("resumed")};
  SessionOptions o = OptionsFor(provider_, home_.work());
  o.resume = id;
  auto again = Open(std::move(o));
  ASSERT_TRUE(again);
  auto msgs = again->Messages();
  ASSERT_EQ(msgs.size(), 2u);
  EXPECT_EQ(msgs[0].Text(), "long task");
  EXPECT_EQ(msgs[1].stop_reason, llm::StopReason::kAborted);
  auto sub2 = again->Subscribe();
  ASSERT_TRUE(again->Prompt("go on").ok());
  auto ev = Collect(*sub2, EventType::kAgentSettled);
  EXPECT_EQ(ev.back().data["outcome"]["status"], "done");
}

TEST_F(AgentSessionTest, ASlowSubscriberIsCutOffWithASignalAndStallsNothing) {
  provider_.replies = {TextReply(std::string(2000, 'x'))};
  auto s = Open();
  auto slow = s->Subscribe(3);  // never read while the prompt runs
  auto fast = s->Subscribe();
  ASSERT_TRUE(s->Prompt("go").ok());
  auto events = Collect(*fast, EventType::kAgentSettled);
  EXPECT_EQ(events.back().type, EventType::kAgentSettled);
  EXPECT_TRUE(slow->lagged());
  agent::Event e(EventType::kError);
  ASSERT_EQ(slow->Pop(&e, 30), Subscription::Next::kEvent);
  EXPECT_EQ(e.type, EventType::kSubscriberLagged);
  EXPECT_GT(e.data["dropped"].get<int>(), 0);
  EXPECT_NE(e.data["why"].get<std::string>().find("get_state"), std::string::npos);
  EXPECT_EQ(slow->Pop(&e, 30), Subscription::Next::kClosed);
  EXPECT_FALSE(fast->lagged());
}

// agent.started is published by the thread that submits the prompt, before
// Prompt returns: a front end that delivers on the publisher's thread can
// write it without waiting for the worker to wake.
TEST_F(AgentSessionTest, APromptsAgentStartedIsOutBeforePromptReturns) {
  provider_.replies = {TextReply("a")};
  provider_.hold();
  auto s = Open();
  auto sub = s->Subscribe();
  ASSERT_TRUE(s->Prompt("hi").ok());
  auto now = sub->Drain();  // no waiting: already queued
  ASSERT_GE(now.size(), 2u);
  EXPECT_EQ(now[0].type, EventType::kSessionStarted);
  EXPECT_EQ(now[1].type, EventType::kAgentStarted);
  EXPECT_EQ(now[1].text, "hi");
  provider_.release();
  Collect(*sub, EventType::kAgentSettled);
  // The same for a follow-up or a steer that starts a run.
  provider_.replies = {TextReply("b")};
  provider_.hold();
  ASSERT_TRUE(s->FollowUp("later").ok());
  now = sub->Drain();
  ASSERT_FALSE(now.empty());
  EXPECT_EQ(now[0].type, EventType::kAgentStarted);
  provider_.release();
  Collect(*sub, EventType::kAgentSettled);
}

// A client that prompts again and again, not waiting for agent.settled:
// the prompt that gets in as the last run ends (the agent idle, its
// agent.settled about to go out) never has its agent.started come before
// that agent.settled: both are published under the runtime's lock.
TEST_F(AgentSessionTest, EveryRunSettlesBeforeTheNextOneStarts) {
  auto s = Open();
  std::mutex mu;
  std::vector<agent::Event> heard;
  auto live = s->Subscribe();
  std::weak_ptr<Subscription> weak = live;
  live->SetListener([&] {
    auto sub = weak.lock();
    std::lock_guard<std::mutex> l(mu);
    sub->DrainInto(&heard);
  });
  constexpr int kRuns = 50;
  for (int i = 0; i < kRuns; ++i) provider_.replies.push_back(TextReply("r" + std::to_string(i)));
  for (int i = 0; i < kRuns;) {
    Status st = s->Prompt("p" + std::to_string(i));
    if (st.ok()) {
      ++i;
    } else {
      ASSERT_EQ(st.error().kind, "busy");
    }
  }
  ASSERT_TRUE(s->WaitIdle(60));
  std::lock_guard<std::mutex> l(mu);
  live->DrainInto(&heard);
  int open = 0, runs = 0;
  uint64_t last = 0;
  for (const agent::Event& e : heard) {
    EXPECT_GT(e.seq, last) << "events out of order";
    last = e.seq;
    if (e.type == EventType::kAgentStarted) {
      EXPECT_EQ(open, 0) << "a run started before the last one settled";
      ++open;
      ++runs;
    } else if (e.type == EventType::kAgentSettled) {
      EXPECT_EQ(open, 1);
      --open;
    }
  }
  EXPECT_EQ(runs, kRuns);
}

// Messages() reads the agent's own context, also while a model call holds
// it, and follows a compaction.
TEST_F(AgentSessionTest, MessagesAreTheAgentsContextDuringACall) {
  provider_.replies = {TextReply("a")};
  provider_.hold();
  auto s = Open();
  auto sub = s->Subscribe();
  ASSERT_TRUE(s->Prompt("hi").ok());
  provider_.WaitCalls(1);
  auto during = s->Messages();
  ASSERT_EQ(during.size(), 1u);
  EXPECT_EQ(during[0].Text(), "hi");
  EXPECT_EQ(s->GetState().message_count, 1u);
  provider_.release();
  Collect(*sub, EventType::kAgentSettled);
  auto after = s->Messages();
  ASSERT_EQ(after.size(), 2u);
  EXPECT_EQ(after[1].Text(), "a");
}

TEST_F(AgentSessionTest, ModelAndThinkingChangeAtTheNextCall) {
  provider_.replies = {TextReply("a"), TextReply("b")};
  auto s = Open();
  auto sub = s->Subscribe();
  ASSERT_TRUE(s->Prompt("one").ok());
  Collect(*sub, EventType::kAgentSettled);
  ASSERT_TRUE(s->SetModel("claude-other").ok());
  ASSERT_TRUE(s->SetThinking(ThinkingLevel::kHigh).ok());
  ASSERT_TRUE(s->Prompt("two").ok());
  Collect(*sub, EventType::kAgentSettled);
  auto reqs = provider_.Requests();
  ASSERT_EQ(reqs.size(), 2u);
  EXPECT_EQ(reqs[0].model, "claude-test");
  EXPECT_EQ(reqs[0].thinking_budget, 0);
  EXPECT_EQ(reqs[1].model, "claude-other");
  EXPECT_EQ(reqs[1].thinking_budget, ThinkingBudget(ThinkingLevel::kHigh));
  auto st = s->GetState();
  EXPECT_EQ(st.model, "claude-other");
  EXPECT_EQ(st.thinking, ThinkingLevel::kHigh);
}

TEST_F(AgentSessionTest, NewBranchAndForkChangeTheContextAndRefuseWhileBusy) {
  provider_.replies = {TextReply("a1"), TextReply("a2"), TextReply("after branch")};
  auto s = Open();
  auto sub = s->Subscribe();
  ASSERT_TRUE(s->Prompt("q1").ok());
  Collect(*sub, EventType::kAgentSettled);
  ASSERT_TRUE(s->Prompt("q2").ok());
  Collect(*sub, EventType::kAgentSettled);
  std::string first = s->GetState().session_id;
  Json entries = s->Entries();
  ASSERT_GE(entries.size(), 4u);
  std::string a1_id = entries[1]["id"];  // the answer to q1
  ASSERT_TRUE(s->Label(a1_id, "good point").ok());
  Json tree = s->Tree();
  bool labelled = false;
  for (const auto& n : tree["nodes"])
    if (n["id"] == a1_id) labelled = n.value("label", "") == "good point";
  EXPECT_TRUE(labelled) << tree.dump();

  ASSERT_TRUE(s->Branch(a1_id).ok());
  EXPECT_EQ(s->Messages().size(), 2u);
  ASSERT_TRUE(s->Prompt("q3").ok());
  Collect(*sub, EventType::kAgentSettled);
  EXPECT_EQ(UserTexts(provider_.Requests()[2]), (std::vector<std::string>{"q1", "q3"}));

  auto forked = s->Fork(a1_id);
  ASSERT_TRUE(forked.ok()) << forked.error().message;
  EXPECT_NE(*forked, first);
  EXPECT_EQ(s->GetState().session_id, *forked);
  EXPECT_EQ(s->Messages().size(), 2u);
  auto ev = Collect(*sub, EventType::kSessionStarted);
  ASSERT_GE(ev.size(), 2u);
  EXPECT_EQ(ev[ev.size() - 2].type, EventType::kSessionEnded);
  EXPECT_EQ(ev[ev.size() - 2].session_id, first);
  EXPECT_EQ(ev.back().session_id, *forked);

  ASSERT_TRUE(s->SwitchSession(first).ok());
  EXPECT_EQ(s->GetState().session_id, first);
  ASSERT_TRUE(s->NewSession().ok());
  EXPECT_NE(s->GetState().session_id, first);
  EXPECT_TRUE(s->Messages().empty());

  provider_.hold();
  ASSERT_TRUE(s->Prompt("busy").ok());
  provider_.WaitCalls(4);
  Status st = s->NewSession();
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().kind, "busy");
  EXPECT_FALSE(s->Branch("ffffffff").ok());
  s->Abort();
  provider_.release();
  EXPECT_TRUE(s->WaitIdle(30));
  Status bad = s->Branch("ffffffff");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().kind, "not_found");
}

// The user's own bash goes into the model's context as pi puts it there:
// a user message from the next prompt on, unless excluded; one that ran
// while a prompt was in flight enters after that prompt (and is recorded
// there); a resumed session reads the same context back from its file.
TEST_F(AgentSessionTest, TheUsersBashEntersTheNextPromptsContextUnlessExcluded) {
  provider_.replies = {TextReply("a1"), TextReply("a2"), TextReply("a3")};
  auto s = Open();
  auto sub = s->Subscribe();
  auto shown = s->RunBash("echo shown-to-model; exit 4", false);
  ASSERT_TRUE(shown.ok()) << shown.error().message;
  auto hidden = s->RunBash("echo kept-from-model", true);
  ASSERT_TRUE(hidden.ok()) << hidden.error().message;
  ASSERT_TRUE(s->Prompt("q1").ok());
  Collect(*sub, EventType::kAgentSettled);
  const std::string ran = "Ran `echo shown-to-model; exit 4`\n```\nshown-to-model\n```\n\n"
                          "Command exited with code 4";
  EXPECT_EQ(UserTexts(provider_.Requests()[0]), (std::vector<std::string>{ran, "q1"}));

  // During a prompt: not in that prompt's calls, in the next one's.
  provider_.hold();
  ASSERT_TRUE(s->Prompt("q2").ok());
  provider_.WaitCalls(2);
  auto during = s->RunBash("echo during", false);
  ASSERT_TRUE(during.ok()) << during.error().message;
  provider_.release();
  Collect(*sub, EventType::kAgentSettled);
  ASSERT_TRUE(s->Prompt("q3").ok());
  Collect(*sub, EventType::kAgentSettled);
  auto requests = provider_.Requests();
  ASSERT_EQ(requests.size(), 3u);
  EXPECT_EQ(UserTexts(requests[1]), (std::vector<std::string>{ran, "q1", "q2"}));
  const std::string ran_during = "Ran `echo during`\n```\nduring\n```";
  EXPECT_EQ(UserTexts(requests[2]), (std::vector<std::string>{ran, "q1", "q2", ran_during, "q3"}));
  for (const auto& r : requests)
    for (const auto& t : UserTexts(r)) EXPECT_EQ(t.find("kept-from-model"), std::string::npos);

  // The file holds the entries where the context has them: the one run
  // during q2 after q2's answer.
  std::vector<std::string> order;
  for (const auto& e : s->Entries()) {
    std::string type = e.value("type", "");
    if (type == "bash_execution") order.push_back("bash:" + e.value("command", ""));
    if (type == "message") order.push_back(e["message"].value("role", ""));
  }
  EXPECT_EQ(order, (std::vector<std::string>{"bash:echo shown-to-model; exit 4",
                                             "bash:echo kept-from-model", "user", "assistant",
                                             "user", "assistant", "bash:echo during", "user",
                                             "assistant"}));

  // Resumed, the session rebuilds the same context.
  std::string id = s->GetState().session_id;
  s.reset();
  SessionOptions again = OptionsFor(provider_, home_.work());
  again.resume = id;
  auto resumed = Open(std::move(again));
  ASSERT_NE(resumed, nullptr);
  std::vector<std::string> texts;
  for (const auto& m : resumed->Messages())
    if (m.role == llm::Role::kUser) texts.push_back(m.Text());
  EXPECT_EQ(texts, (std::vector<std::string>{ran, "q1", "q2", ran_during, "q3"}));
}

TEST_F(AgentSessionTest, SwitchToAMissingSessionKeepsTheCurrentOne) {
  auto s = Open();
  std::string id = s->GetState().session_id;
  Status st = s->SwitchSession("0123456789abcdef0123456789abcdef");
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(s->GetState().session_id, id);
  // And the current one is still writable.
  provider_.replies = {TextReply("ok")};
  auto sub = s->Subscribe();
  ASSERT_TRUE(s->Prompt("still here").ok());
  auto ev = Collect(*sub, EventType::kAgentSettled);
  EXPECT_EQ(ev.back().data["outcome"]["status"], "done");
  EXPECT_EQ(s->Entries().size(), 2u);
}

TEST_F(AgentSessionTest, CompactRunsOnTheWorkerAndRecordsAnEntry) {
  provider_.replies = {TextReply("a1"), TextReply("a2"), TextReply("a3"), TextReply("SUMMARY")};
  SessionOptions o = OptionsFor(provider_, home_.work());
  o.compaction.keep_recent_tokens = 1;
  auto s = Open(std::move(o));
  auto sub = s->Subscribe();
  for (const char* q : {"q1", "q2", "q3"}) {
    ASSERT_TRUE(s->Prompt(q).ok());
    Collect(*sub, EventType::kAgentSettled);
  }
  auto r = s->Compact("the API").get();
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_NE(provider_.Requests().back().messages.back().Text().find("the API"), std::string::npos);
  bool has_entry = false;
  for (const auto& e : s->Entries()) has_entry |= e.value("type", "") == "compaction";
  EXPECT_TRUE(has_entry);
  // get_messages shows the compacted context, as the next call sends it.
  auto msgs = s->Messages();
  ASSERT_FALSE(msgs.empty());
  EXPECT_LT(msgs.size(), 6u);
  EXPECT_NE(msgs[0].Text().find("SUMMARY"), std::string::npos);
}

TEST_F(AgentSessionTest, NoSessionKeepsNothingAndRefusesSessionOperations) {
  SessionOptions o = OptionsFor(provider_, home_.work());
  o.no_session = true;
  auto s = Open(std::move(o));
  EXPECT_TRUE(s->GetState().session_id.empty());
  EXPECT_FALSE(s->NewSession().ok());
  EXPECT_FALSE(s->Label("x", "y").ok());
  EXPECT_TRUE(s->Entries().empty());
}

TEST_F(AgentSessionTest, ThinkingLevelsRoundTrip) {
  for (ThinkingLevel l : AllThinkingLevels()) {
    ThinkingLevel back;
    ASSERT_TRUE(ParseThinkingLevel(ToString(l), &back));
    EXPECT_EQ(back, l);
    EXPECT_EQ(LevelForBudget(ThinkingBudget(l)), l);
  }
  ThinkingLevel x;
  EXPECT_FALSE(ParseThinkingLevel("extreme", &x));
}

}  // namespace
}  // namespace sepp::runtime

namespace sepp::runtime {
namespace {

// Per-call control: one of two parallel calls is aborted; the other runs to
// its end and the turn goes on to the next model call.
TEST(AgentSessionAbortCall, AbortsOneCallAndTheTurnGoesOn) {
  testing::TempHome home;
  HeldProvider provider;
  provider.replies = {testing::Reply({llm::ContentBlock::ToolCall("slow", "bash", {{"command", "sleep 30"}}),
                                      llm::ContentBlock::ToolCall("quick", "bash",
                                                                  {{"command", "sleep 0.2; echo quick-out"}})}),
                      TextReply("went on")};
  auto s = AgentSession::Open(OptionsFor(provider, home.work()));
  ASSERT_TRUE(s.ok()) << s.error().message;
  auto sub = (*s)->Subscribe();
  EXPECT_EQ((*s)->AbortCall("slow").error().kind, "not_found") << "nothing runs yet";
  ASSERT_TRUE((*s)->Prompt("two calls").ok());
  agent::Event e(EventType::kError);
  while (sub->Pop(&e, 30) == Subscription::Next::kEvent)
    if (e.type == EventType::kToolStarted && e.call_id == "slow") break;
  ASSERT_EQ(e.call_id, "slow");
  ASSERT_TRUE((*s)->AbortCall("slow").ok());
  auto events = Collect(*sub, EventType::kAgentSettled);
  std::map<std::string, agent::Event> finished;
  for (const auto& ev : events)
    if (ev.type == EventType::kToolFinished) finished.emplace(ev.call_id, ev);
  ASSERT_EQ(finished.size(), 2u);
  EXPECT_TRUE(finished.at("slow").is_error);
  EXPECT_NE(finished.at("slow").result.find("the user aborted this call"), std::string::npos);
  EXPECT_FALSE(finished.at("quick").is_error) << finished.at("quick").result;
  EXPECT_NE(finished.at("quick").result.find("quick-out"), std::string::npos);
  EXPECT_EQ(events.back().data["outcome"]["status"], "done");
  EXPECT_EQ(provider.calls(), 2u) << "the turn went on to the next model call";
  EXPECT_EQ((*s)->LastAssistantText(), "went on");
  EXPECT_EQ((*s)->AbortCall("slow").error().kind, "not_found") << "finished calls are forgotten";
}

}  // namespace
}  // namespace sepp::runtime
