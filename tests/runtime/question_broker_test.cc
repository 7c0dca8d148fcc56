// The ask-the-user path: asked, answered (defaults filled in), declined,
// timed out, cancelled mid-question, and no front end; through the broker
// and through a session whose model calls the question tool.
#include <gtest/gtest.h>

#include <future>
#include <thread>

#include "agent/question.h"
#include "runtime/question_broker.h"
#include "runtime_test_util.h"

namespace sepp::runtime {
namespace {

using agent::QuestionField;
using agent::QuestionStatus;

agent::Question Form() {
  agent::Question q;
  q.prompt = "Set up the project";
  q.source = "mcp:test";
  QuestionField lang;
  lang.kind = QuestionField::Kind::kChoice;
  lang.name = "language";
  lang.options = {{"C++", ""}, {"Rust", ""}};
  lang.required = true;
  QuestionField name;
  name.kind = QuestionField::Kind::kText;
  name.name = "name";
  name.default_value = "demo";
  QuestionField jobs;
  jobs.kind = QuestionField::Kind::kInteger;
  jobs.name = "jobs";
  jobs.minimum = 1;
  jobs.maximum = 64;
  jobs.default_value = 2;
  QuestionField ci;
  ci.kind = QuestionField::Kind::kBoolean;
  ci.name = "ci";
  ci.default_value = true;
  QuestionField extras;
  extras.kind = QuestionField::Kind::kChoice;
  extras.multiple = true;
  extras.name = "extras";
  extras.options = {{"docs", ""}, {"bench", ""}, {"fuzz", ""}};
  q.fields = {lang, name, jobs, ci, extras};
  return q;
}

class QuestionTest : public ::testing::Test {
 protected:
  std::unique_ptr<QuestionBroker> Make(QuestionDefaults d) {
    return std::make_unique<QuestionBroker>(d, [this](agent::Event e) {
      std::lock_guard l(mu_);
      events_.push_back(std::move(e));
      cv_.notify_all();
    });
  }
  agent::Event WaitFor(agent::EventType t) {
    std::unique_lock l(mu_);
    cv_.wait(l, [&] {
      for (const auto& e : events_)
        if (e.type == t) return true;
      return false;
    });
    for (const auto& e : events_)
      if (e.type == t) return e;
    return agent::Event(t);
  }
  size_t Count(agent::EventType t) {
    std::lock_guard l(mu_);
    size_t n = 0;
    for (const auto& e : events_) n += e.type == t;
    return n;
  }
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<agent::Event> events_;
};

TEST_F(QuestionTest, AskedAnsweredAndTheDefaultsFillWhatTheUserLeftOut) {
  auto b = Make({true, 3600});
  CancelToken c;
  auto asked = std::async(std::launch::async, [&] { return b->Ask(Form(), c); });
  agent::Event e = WaitFor(agent::EventType::kQuestionRequested);
  const std::string id = e.data["question_id"];
  EXPECT_EQ(id, "q-1");
  EXPECT_EQ(e.data["prompt"], "Set up the project");
  EXPECT_EQ(e.data["fields"].size(), 5u);
  EXPECT_EQ(e.data["fields"][2]["kind"], "integer");
  EXPECT_EQ(e.data["fields"][1]["default"], "demo");
  ASSERT_EQ(b->Pending().size(), 1u);

  // Answers that do not fit are refused with the field named; it stays open.
  auto bad = b->Answer(id, {{"language", "Go"}});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().kind, "invalid");
  EXPECT_NE(bad.error().message.find("\"language\""), std::string::npos);
  EXPECT_FALSE(b->Answer(id, {{"jobs", 1000}, {"language", "Rust"}}).ok());   // out of range
  EXPECT_FALSE(b->Answer(id, {{"jobs", 2.5}, {"language", "Rust"}}).ok());    // not whole
  EXPECT_FALSE(b->Answer(id, {{"ci", "yes"}, {"language", "Rust"}}).ok());    // not a boolean
  EXPECT_FALSE(b->Answer(id, {{"extras", "docs"}, {"language", "Rust"}}).ok());  // not an array
  EXPECT_FALSE(b->Answer(id, {{"nosuch", 1}, {"language", "Rust"}}).ok());
  EXPECT_FALSE(b->Answer(id, Json::object()).ok());  // language is required, no default
  EXPECT_EQ(b->Pending().size(), 1u);
  EXPECT_FALSE(b->Answer("q-99", {{"language", "Rust"}}).ok());

  ASSERT_TRUE(b->Answer(id, {{"language", "Rust"}, {"extras", {"docs", "fuzz"}}}).ok());
  auto a = asked.get();
  EXPECT_EQ(a.status, QuestionStatus::kAnswered);
  EXPECT_EQ(a.source, "user");
  EXPECT_EQ(a.values, (Json{{"language", "Rust"}, {"name", "demo"}, {"jobs", 2}, {"ci", true},
                            {"extras", {"docs", "fuzz"}}}));
  EXPECT_FALSE(b->Answer(id, {{"language", "C++"}}).ok());  // answered once
  agent::Event r = WaitFor(agent::EventType::kQuestionResolved);
  EXPECT_EQ(r.data["question_id"], id);
  EXPECT_EQ(r.data["answer"]["status"], "answered");
  EXPECT_EQ(r.data["question"]["prompt"], "Set up the project");
}

TEST_F(QuestionTest, SandboxAgentsStringAnswersAreTypedByTheFields) {
  auto b = Make({true, 3600});
  CancelToken c;
  auto asked = std::async(std::launch::async, [&] { return b->Ask(Form(), c); });
  const std::string id = WaitFor(agent::EventType::kQuestionRequested).data["question_id"];
  EXPECT_FALSE(b->AnswerStrings(id, Json::array({{"C++"}, {}, {"many"}})).ok());  // not a number
  EXPECT_FALSE(b->AnswerStrings(id, Json::array({{"C++", "Rust"}})).ok());        // one choice only
  EXPECT_FALSE(b->AnswerStrings(id, "C++").ok());
  ASSERT_TRUE(b->AnswerStrings(id, Json::array({{"C++"}, {"mine"}, {"8"}, {"false"}, {"bench"}})).ok());
  auto a = asked.get();
  EXPECT_EQ(a.values, (Json{{"language", "C++"}, {"name", "mine"}, {"jobs", 8}, {"ci", false},
                            {"extras", {"bench"}}}));
}

TEST_F(QuestionTest, TheUserDeclines) {
  auto b = Make({true, 3600});
  CancelToken c;
  auto asked = std::async(std::launch::async, [&] { return b->Ask(Form(), c); });
  const std::string id = WaitFor(agent::EventType::kQuestionRequested).data["question_id"];
  ASSERT_TRUE(b->Decline(id).ok());
  auto a = asked.get();
  EXPECT_EQ(a.status, QuestionStatus::kDeclined);
  EXPECT_EQ(a.source, "user");
  EXPECT_FALSE(b->Decline(id).ok());
  EXPECT_EQ(WaitFor(agent::EventType::kQuestionResolved).data["answer"]["status"], "declined");
}

TEST_F(QuestionTest, AFrontEndThatCannotShowItDeclinesWithItsReason) {
  auto b = Make({true, 3600});
  CancelToken c;
  auto asked = std::async(std::launch::async, [&] { return b->Ask(Form(), c); });
  const std::string id = WaitFor(agent::EventType::kQuestionRequested).data["question_id"];
  ASSERT_TRUE(b->Decline(id, "the client shows only single choices").ok());
  auto a = asked.get();
  EXPECT_EQ(a.status, QuestionStatus::kDeclined);
  EXPECT_EQ(a.source, "front_end");
  EXPECT_EQ(a.message, "the client shows only single choices");
  Json resolved = WaitFor(agent::EventType::kQuestionResolved).data["answer"];
  EXPECT_EQ(resolved["source"], "front_end") << resolved.dump();
}

TEST_F(QuestionTest, WithoutAFrontEndItIsDeclinedAtOnce) {
  auto b = Make({false, 3600});
  CancelToken c;
  auto a = b->Ask(Form(), c);
  EXPECT_EQ(a.status, QuestionStatus::kDeclined);
  EXPECT_EQ(a.source, "no_front_end");
  EXPECT_EQ(Count(agent::EventType::kQuestionRequested), 0u);
  EXPECT_EQ(Count(agent::EventType::kQuestionResolved), 1u);
  // A relay with nothing attached says the same.
  agent::QuestionRelay relay;
  EXPECT_EQ(relay.Ask(Form(), c).source, "no_front_end");
}

TEST_F(QuestionTest, NoAnswerInTimeIsADecline) {
  auto b = Make({true, 0.05});
  CancelToken c;
  auto a = b->Ask(Form(), c);
  EXPECT_EQ(a.status, QuestionStatus::kDeclined);
  EXPECT_EQ(a.source, "timeout");
  EXPECT_TRUE(b->Pending().empty());
  EXPECT_FALSE(b->Answer("q-1", {{"language", "Rust"}}).ok());  // too late
}

TEST_F(QuestionTest, ACancelMidQuestionEndsItAtOnce) {
  auto b = Make({true, 3600});
  CancelToken c;
  auto asked = std::async(std::launch::async, [&] { return b->Ask(Form(), c); });
  WaitFor(agent::EventType::kQuestionRequested);
  c.Cancel();
  auto a = asked.get();
  EXPECT_EQ(a.status, QuestionStatus::kCancelled);
  EXPECT_EQ(a.source, "cancelled");

  // An abort reaches questions asked outside the prompt's token (MCP), and
  // a relay hands questions on while attached.
  agent::QuestionRelay relay;
  relay.Attach(b.get());
  CancelToken never;
  auto elicited = std::async(std::launch::async, [&] { return relay.Ask(Form(), never); });
  while (b->Pending().empty()) std::this_thread::yield();
  b->CancelWaiting();
  EXPECT_EQ(elicited.get().status, QuestionStatus::kCancelled);
  b->CancelAll();  // closing: what comes now is declined
  EXPECT_EQ(relay.Ask(Form(), never).source, "no_front_end");
  relay.Detach();
}

// ---- through a session: the model's question tool

using testing::CallReply;
using testing::HeldProvider;
using testing::TextReply;

Json ToolArgs() {
  return {{"questions",
           {{{"question", "Which database should the service use?"},
             {"header", "Database"},
             {"options", {{{"label", "SQLite"}, {"description", "one file"}}, {{"label", "PostgreSQL"}}}}}}}};
}

std::string LastToolResult(const llm::Request& r) {
  for (auto m = r.messages.rbegin(); m != r.messages.rend(); ++m)
    if (m->role == llm::Role::kToolResult)
      for (const auto& b : m->content)
        if (b.kind == llm::ContentBlock::Kind::kText) return b.text;
  return "";
}

TEST(QuestionSession, TheModelAsksAndTheFrontEndAnswers) {
  testing::TempHome home;
  HeldProvider p;
  p.replies = {CallReply("c1", "question", ToolArgs()), TextReply("SQLite it is")};
  auto o = testing::OptionsFor(p, home.work());
  o.no_session = true;
  o.questions.ask_front_end = true;
  auto s = AgentSession::Open(std::move(o));
  ASSERT_TRUE(s.ok()) << s.error().message;
  auto sub = (*s)->Subscribe();
  ASSERT_TRUE((*s)->Prompt("set up storage").ok());
  auto events = testing::Collect(*sub, agent::EventType::kQuestionRequested);
  ASSERT_EQ(events.back().type, agent::EventType::kQuestionRequested);
  const agent::Event& asked = events.back();
  EXPECT_EQ(asked.call_id, "c1");
  EXPECT_EQ(asked.data["source"], "tool");
  EXPECT_EQ(asked.data["fields"][0]["options"][1]["label"], "PostgreSQL");
  EXPECT_EQ(asked.data["fields"][0]["allow_other"], true);
  auto pending = (*s)->PendingQuestions();
  ASSERT_EQ(pending.size(), 1u);
  const std::string id = asked.data["question_id"];
  ASSERT_TRUE((*s)->AnswerQuestionStrings(id, Json::array({{"SQLite"}})).ok());
  ASSERT_TRUE((*s)->WaitIdle(60));
  auto reqs = p.Requests();
  ASSERT_EQ(reqs.size(), 2u);
  EXPECT_NE(LastToolResult(reqs[1]).find("\"Which database should the service use?\" = \"SQLite\""),
            std::string::npos)
      << LastToolResult(reqs[1]);
}

TEST(QuestionSession, HeadlessTheToolAnswersNoUserAvailableAtOnce) {
  testing::TempHome home;
  HeldProvider p;
  p.replies = {CallReply("c1", "question", ToolArgs()), TextReply("I chose SQLite")};
  auto o = testing::OptionsFor(p, home.work());
  o.no_session = true;  // questions.ask_front_end stays false, as in -p
  auto s = AgentSession::Open(std::move(o));
  ASSERT_TRUE(s.ok()) << s.error().message;
  ASSERT_TRUE((*s)->Prompt("set up storage").ok());
  ASSERT_TRUE((*s)->WaitIdle(60));
  auto reqs = p.Requests();
  ASSERT_EQ(reqs.size(), 2u);
  EXPECT_NE(LastToolResult(reqs[1]).find("No user is available"), std::string::npos);
}

TEST(QuestionSession, AnAbortCancelsTheQuestionMidWay) {
  testing::TempHome home;
  HeldProvider p;
  p.replies = {CallReply("c1", "question", ToolArgs())};
  auto o = testing::OptionsFor(p, home.work());
  o.no_session = true;
  o.questions.ask_front_end = true;
  auto s = AgentSession::Open(std::move(o));
  ASSERT_TRUE(s.ok());
  auto sub = (*s)->Subscribe();
  ASSERT_TRUE((*s)->Prompt("set up storage").ok());
  testing::Collect(*sub, agent::EventType::kQuestionRequested);
  (*s)->Abort();
  auto rest = testing::Collect(*sub, agent::EventType::kQuestionResolved);
  ASSERT_EQ(rest.back().type, agent::EventType::kQuestionResolved);
  EXPECT_EQ(rest.back().data["answer"]["status"], "cancelled");
  EXPECT_TRUE((*s)->WaitIdle(60));
  EXPECT_TRUE((*s)->PendingQuestions().empty());
}

}  // namespace
}  // namespace sepp::runtime
