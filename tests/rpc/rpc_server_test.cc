// The RPC server in process, on pipes, with the runtime's held provider.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <unistd.h>

#include <filesystem>
#include <future>
#include <fstream>
#include <random>
#include <thread>

#include "front/rpc/rpc_mode.h"
#include "rpc_child.h"
#include "runtime/runtime_test_util.h"

namespace sepp::front::rpc {
namespace {

using runtime::testing::HeldProvider;
using runtime::testing::OptionsFor;
using runtime::testing::TempHome;
using runtime::testing::TextReply;

// A server on two pipes; the test writes commands and reads records.
class Served {
 public:
  explicit Served(runtime::SessionOptions o, RpcOptions ro = {}) {
    auto s = runtime::AgentSession::Open(std::move(o));
    EXPECT_TRUE(s.ok());
    session_ = std::move(s).value();
    int in[2], out[2];
    EXPECT_EQ(pipe2(in, O_CLOEXEC), 0);
    EXPECT_EQ(pipe2(out, O_CLOEXEC), 0);
    to_server_ = in[1];
    from_server_ = out[0];
    ro.in_fd = in[0];
    ro.out_fd = out[1];
    server_ = std::thread([this, ro, in0 = in[0], out1 = out[1]] {
      rc_ = RunRpcMode(*session_, ro);
      close(in0);
      close(out1);
    });
  }
  ~Served() {
    CloseInput();
    // Keep reading so the server can finish writing, then join.
    while (NextLine(30)) {
    }
    server_.join();
    close(from_server_);
  }
  void Send(const std::string& line) {
    std::string l = line + "\n";
    ASSERT_EQ(write(to_server_, l.data(), l.size()), static_cast<ssize_t>(l.size()));
  }
  void CloseInput() {
    if (to_server_ >= 0) close(to_server_);
    to_server_ = -1;
  }
  std::optional<std::string> NextLine(double timeout_s = 30) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
    for (;;) {
      size_t nl = buf_.find('\n');
      if (nl != std::string::npos) {
        std::string l = buf_.substr(0, nl);
        buf_.erase(0, nl + 1);
        return l;
      }
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                      deadline - std::chrono::steady_clock::now()).count();
      if (left <= 0) return std::nullopt;
      pollfd p{from_server_, POLLIN, 0};
      if (poll(&p, 1, static_cast<int>(left)) <= 0) continue;
      char b[65536];
      ssize_t n = read(from_server_, b, sizeof b);
      if (n <= 0) return std::nullopt;
      buf_.append(b, static_cast<size_t>(n));
    }
  }
  std::optional<Json> Next() {
    auto l = NextLine();
    if (!l) return std::nullopt;
    auto j = ParseJson(*l);
    EXPECT_TRUE(j.ok()) << "not JSON on stdout: " << *l;
    return j.ok() ? *j : Json::object();
  }
  std::vector<Json> Until(const std::string& type) {
    std::vector<Json> out;
    while (auto j = Next()) {
      out.push_back(*j);
      if (j->value("type", "") == type) break;
    }
    return out;
  }
  runtime::AgentSession& session() { return *session_; }
  int read_fd() const { return from_server_; }

 private:
  std::unique_ptr<runtime::AgentSession> session_;
  int to_server_ = -1, from_server_ = -1;
  std::thread server_;
  std::string buf_;
  int rc_ = -1;
};

class RpcServerTest : public ::testing::Test {
 protected:
  runtime::SessionOptions Options() {
    auto o = OptionsFor(provider_, home_.work());
    o.permissions.ask_front_end = true;
    return o;
  }
  TempHome home_;
  HeldProvider provider_;
};

TEST_F(RpcServerTest, MutatedLinesEachGetExactlyOneResponse) {
  Served s(Options());
  const std::vector<std::string> seeds = {
      R"({"id":"a","type":"get_state"})",
      R"({"id":"b","type":"get_messages"})",
      R"({"id":"c","type":"set_thinking_level","level":"high"})",
      R"({"id":"d","type":"get_entries","since":"x"})",
      R"({"id":"e","type":"get_tree"})",
      R"({"id":"f","type":"clear_queue"})",
      R"({"id":"g","type":"set_model","provider":"anthropic","modelId":"m"})",
      R"({"id":"h","type":"get_fork_messages"})",
      R"({"id":"i","type":"get_session_stats"})",
      R"({"id":"j","type":"label"})",
      R"({"id":"k","type":"switch_session","sessionPath":7})",
  };
  std::mt19937 rng(20261201);
  const char junk[] = "{}[]\":,\\ \x01\xff\xc3\xa9" "0123abc";
  int sent = 0;
  std::vector<std::string> lines;
  for (int i = 0; i < 3000; ++i) {
    std::string l = seeds[rng() % seeds.size()];
    int edits = 1 + static_cast<int>(rng() % 4);
    for (int k = 0; k < edits && !l.empty(); ++k) {
      size_t pos = rng() % l.size();
      switch (rng() % 4) {
        case 0: l.erase(pos, 1 + rng() % 3); break;
        case 1: l.insert(pos, 1, junk[rng() % (sizeof junk - 1)]); break;
        case 2: l[pos] = junk[rng() % (sizeof junk - 1)]; break;
        case 3: l = l.substr(0, pos); break;
      }
    }
    std::replace(l.begin(), l.end(), '\n', ' ');
    std::replace(l.begin(), l.end(), '\r', ' ');
    if (l.find_first_not_of(" \t") == std::string::npos) continue;  // blank lines ask nothing
    lines.push_back(l);
    s.Send(l);
    ++sent;
  }
  s.Send(R"({"id":"last","type":"get_state"})");
  int responses = 0;
  bool saw_last = false;
  while (auto j = s.Next()) {
    if (j->value("type", "") != "response") continue;
    ++responses;
    if (j->value("id", Json()) == "last") {
      saw_last = true;
      break;
    }
    EXPECT_TRUE(j->contains("success"));
    if (!(*j)["success"].get<bool>()) {
      EXPECT_FALSE(j->value("error", "").empty()) << j->dump();
    }
  }
  EXPECT_TRUE(saw_last);
  EXPECT_EQ(responses, sent + 1);
}

TEST_F(RpcServerTest, EveryRequestWithAnIdGetsItBack) {
  Served s(Options());
  s.Send(R"({"id":"u1","type":"no_such_command"})");
  s.Send(R"({"id":"u2","type":"prompt","message":)");  // cut off
  s.Send(R"({"id":42,"type":"get_state"})");
  s.Send(R"({"id":"u3"})");
  s.Send(R"({"id":"u4","type":"set_thinking_level","level":5})");
  s.Send(R"([1,2,3])");
  std::vector<Json> rs;
  while (rs.size() < 6) {
    auto j = s.Next();
    ASSERT_TRUE(j);
    if (j->value("type", "") == "response") rs.push_back(*j);
  }
  EXPECT_EQ(rs[0]["id"], "u1");
  EXPECT_EQ(rs[0]["error"], "Unknown command: no_such_command");
  EXPECT_EQ(rs[1]["id"], "u2");
  EXPECT_EQ(rs[1]["command"], "parse");
  EXPECT_EQ(rs[2]["id"], 42);
  EXPECT_TRUE(rs[2]["success"].get<bool>());
  EXPECT_EQ(rs[3]["id"], "u3");
  EXPECT_FALSE(rs[3]["success"].get<bool>());
  EXPECT_EQ(rs[4]["id"], "u4");
  EXPECT_NE(rs[4]["error"].get<std::string>().find("level"), std::string::npos);
  EXPECT_FALSE(rs[5].contains("id"));
  EXPECT_EQ(rs[5]["command"], "parse");
}

TEST_F(RpcServerTest, ALineOverTheLimitIsOneErrorAndTheStreamGoesOn) {
  RpcOptions ro;
  ro.max_line_bytes = 1024;
  Served s(Options(), ro);
  s.Send(R"({"id":"big","type":"prompt","message":")" + std::string(100000, 'x') + "\"}");
  s.Send(R"({"id":"next","type":"get_state"})");
  auto a = s.Until("response");
  EXPECT_EQ(a.back()["id"], "big");
  EXPECT_NE(a.back()["error"].get<std::string>().find("longer than 1024"), std::string::npos);
  auto b = s.Until("response");
  EXPECT_EQ(b.back()["id"], "next");
  EXPECT_TRUE(b.back()["success"].get<bool>());
  EXPECT_EQ(provider_.calls(), 0u);
}

// Events are written by the thread that publishes them (the reader for a
// prompt's agent_start, right behind its response; the agent's loop for
// the rest): a client that prompts the moment it reads agent_settled still
// reads every run in pi's order: the response first, then agent_start, the
// run's events, agent_settled, and nothing of the next run before that.
TEST_F(RpcServerTest, BackToBackPromptsKeepPisOrder) {
  constexpr int kRuns = 100;
  for (int i = 0; i < kRuns; ++i) provider_.replies.push_back(TextReply("answer " + std::to_string(i)));
  Served s(Options());
  for (int i = 0; i < kRuns; ++i) {
    std::string id = "p" + std::to_string(i);
    s.Send(R"({"id":")" + id + R"(","type":"prompt","message":"q)" + std::to_string(i) + R"("})");
    auto records = s.Until("agent_settled");
    ASSERT_GE(records.size(), 3u) << i;
    EXPECT_EQ(records[0].value("type", ""), "response") << i;
    EXPECT_EQ(records[0].value("id", ""), id) << i;
    EXPECT_TRUE(records[0].value("success", false)) << records[0].dump();
    EXPECT_EQ(records[1].value("type", ""), "agent_start") << i;
    int starts = 0;
    for (const Json& r : records) starts += r.value("type", "") == "agent_start";
    EXPECT_EQ(starts, 1) << i;
    EXPECT_EQ(records.back().value("type", ""), "agent_settled");
    bool answered = false;
    for (const Json& r : records)
      answered |= r.value("type", "") == "agent_end" || r.dump().find("answer " + std::to_string(i)) != std::string::npos;
    EXPECT_TRUE(answered) << i;
  }
}

TEST_F(RpcServerTest, AClientThatStopsReadingCannotBlockAbort) {
  // A long answer that floods stdout, then a model call that waits forever
  // unless aborted: the client reads nothing until abort has settled.
  std::string big(300000, 'y');
  provider_.replies = {runtime::testing::Reply(
      {llm::ContentBlock::Text(big), llm::ContentBlock::ToolCall("c1", "ls", {{"path", "."}})})};
  provider_.hold_from(1);
  RpcOptions ro;
  ro.max_buffered_event_bytes = 64 * 1024;
  Served s(Options(), ro);
  s.Send(R"({"id":"p","type":"prompt","message":"go"})");
  provider_.WaitCalls(2);  // the flood is out, the second call is held
  s.Send(R"({"id":"x","type":"abort"})");
  EXPECT_TRUE(s.session().WaitIdle(30)) << "abort did not get through";
  s.Send(R"({"id":"q","type":"clear_queue"})");
  // Now read: the responses are there, in order, and the records are JSON.
  bool abort_ok = false, clear_ok = false;
  int seen = 0;
  while (seen < 2) {
    auto j = s.Next();
    ASSERT_TRUE(j);
    if (j->value("id", "") == "x") abort_ok = (*j)["success"].get<bool>(), ++seen;
    if (j->value("id", "") == "q") clear_ok = (*j)["success"].get<bool>(), ++seen;
  }
  EXPECT_TRUE(abort_ok);
  EXPECT_TRUE(clear_ok);
  provider_.release();
}

TEST_F(RpcServerTest, AClientThatStopsReadingCanStillAnswerAPermissionRequest) {
  std::filesystem::path outside = home_.work().parent_path() / "outside";
  std::filesystem::create_directories(outside);
  std::string target = (outside / "r.txt").string();
  provider_.replies = {
      runtime::testing::Reply({llm::ContentBlock::Text(std::string(300000, 'y')),
                               llm::ContentBlock::ToolCall("w1", "write", {{"path", target}, {"content", "r\n"}})}),
      runtime::testing::CallReply("r1", "retry_with_access",
                                  {{"call_id", "w1"}, {"write_paths", {outside.string()}},
                                   {"justification", "the report goes there"}}),
      TextReply("done")};
  RpcOptions ro;
  ro.max_buffered_event_bytes = 64 * 1024;
  Served s(Options(), ro);
  s.Send(R"({"id":"p","type":"prompt","message":"write it"})");
  // Nobody reads stdout. The question is still asked, and answerable.
  while (s.session().PendingPermissions().empty()) std::this_thread::yield();
  std::string id = s.session().PendingPermissions()[0].request.id;
  s.Send(R"({"type":"extension_ui_response","id":")" + id + R"(","value":"Allow once"})");
  EXPECT_TRUE(s.session().WaitIdle(30));
  EXPECT_TRUE(std::filesystem::exists(target));
  // The dialog reached stdout too, behind the events already buffered.
  bool dialog = false;
  while (auto j = s.Next()) {
    if (j->value("type", "") == "extension_ui_request") {
      dialog = true;
      EXPECT_EQ((*j)["method"], "select");
      EXPECT_NE((*j)["title"].get<std::string>().find("writing to"), std::string::npos);
    }
    if (j->value("type", "") == "agent_settled") break;
  }
  EXPECT_TRUE(dialog);
}

long RssKb() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
  return -1;
}

TEST_F(RpcServerTest, AThousandPromptsGrowMemoryOnlyWithTheSession) {
  for (int i = 0; i < 1000; ++i) provider_.replies.push_back(TextReply("answer " + std::to_string(i)));
  provider_.keep_requests = false;
  Served s(Options());
  auto prompt = [&](int i) {
    s.Send(R"({"type":"prompt","message":"question )" + std::to_string(i) + "\"}");
    auto ev = s.Until("agent_settled");
    ASSERT_FALSE(ev.empty());
    ASSERT_EQ(ev.back().value("type", ""), "agent_settled");
  };
  for (int i = 0; i < 100; ++i) prompt(i);
  long warm = RssKb();
  for (int i = 100; i < 1000; ++i) prompt(i);
  long after = RssKb();
  EXPECT_EQ(s.session().Messages().size(), 2000u);
  std::printf("RSS after 100 prompts %ld kB, after 1000 %ld kB\n", warm, after);
  // 900 more prompts add 1,800 small messages (a few hundred bytes each in
  // the context, the session file's index and the snapshot): a few MB at
  // most. A per-prompt leak of a thread, a subscription or a copy of the
  // history would cost far more.
  EXPECT_LT(after - warm, 16 * 1024) << "RSS grew from " << warm << " kB to " << after << " kB";
}

// ---- questions (rpc/question_dialogs.h): pi's extension UI dialogs

agent::Question ProjectForm() {
  agent::Question q;
  q.prompt = "New project";
  q.source = "mcp:test";
  agent::QuestionField lang;
  lang.kind = agent::QuestionField::Kind::kChoice;
  lang.name = "language";
  lang.options = {{"C++", ""}, {"Rust", ""}};
  lang.required = true;
  agent::QuestionField jobs;
  jobs.kind = agent::QuestionField::Kind::kInteger;
  jobs.name = "jobs";
  jobs.default_value = 2;
  agent::QuestionField ci;
  ci.kind = agent::QuestionField::Kind::kBoolean;
  ci.name = "ci";
  ci.description = "Set up CI?";
  q.fields = {lang, jobs, ci};
  return q;
}

class RpcQuestions : public RpcServerTest {
 protected:
  // Long enough never to fire while a test answers, short enough that a
  // lost answer fails the test instead of hanging it until ctest's timeout.
  runtime::SessionOptions Options(double timeout_s = 120) {
    auto o = RpcServerTest::Options();
    o.questions.ask_front_end = true;
    o.questions.timeout_s = timeout_s;
    o.no_session = true;
    return o;
  }
  // The server answers commands once it is subscribed to the session: a
  // question asked after this reaches it.
  static void Ready(Served& s) {
    s.Send(R"({"id":"ready","type":"get_state"})");
    while (auto j = s.Next())
      if (j->value("type", "") == "response" && j->value("id", "") == "ready") return;
  }
  static Json Dialog(Served& s) {
    while (auto j = s.Next())
      if (j->value("type", "") == "extension_ui_request") return *j;
    return Json::object();
  }
};

TEST_F(RpcQuestions, AFormIsAskedFieldByFieldAndAnswered) {
  Served s(Options());
  Ready(s);
  auto answer = std::async(std::launch::async, [&] {
    CancelToken never;
    return s.session().questions().Ask(ProjectForm(), never);
  });
  Json d = Dialog(s);
  EXPECT_EQ(d["method"], "select");
  EXPECT_EQ(d["options"], (Json{"C++", "Rust"}));
  EXPECT_EQ(d["sepp"]["question"]["fields"].size(), 3u);
  const std::string id = d["id"];
  s.Send(Json{{"type", "extension_ui_response"}, {"id", id}, {"value", "Rust"}}.dump());
  d = Dialog(s);
  EXPECT_EQ(d["method"], "input");
  EXPECT_NE(d["placeholder"].get<std::string>().find("default 2"), std::string::npos);
  // Not a number: the same field is asked again, saying why.
  s.Send(Json{{"type", "extension_ui_response"}, {"id", d["id"]}, {"value", "many"}}.dump());
  Json again = Dialog(s);
  EXPECT_EQ(again["id"], d["id"]);
  EXPECT_NE(again["title"].get<std::string>().find("not a number"), std::string::npos);
  s.Send(Json{{"type", "extension_ui_response"}, {"id", d["id"]}, {"value", ""}}.dump());  // the default
  d = Dialog(s);
  EXPECT_EQ(d["method"], "confirm");
  EXPECT_EQ(d["message"], "Set up CI?");
  s.Send(Json{{"type", "extension_ui_response"}, {"id", d["id"]}, {"confirmed", true}}.dump());
  auto a = answer.get();
  EXPECT_EQ(a.status, agent::QuestionStatus::kAnswered);
  EXPECT_EQ(a.values, (Json{{"language", "Rust"}, {"jobs", 2}, {"ci", true}}));
}

TEST_F(RpcQuestions, ADismissedDialogDeclinesAndQuestionResponseAnswersAtOnce) {
  Served s(Options());
  Ready(s);
  CancelToken never;
  auto first = std::async(std::launch::async, [&] { return s.session().questions().Ask(ProjectForm(), never); });
  Json d = Dialog(s);
  s.Send(Json{{"type", "extension_ui_response"}, {"id", d["id"]}, {"cancelled", true}}.dump());
  auto a = first.get();
  EXPECT_EQ(a.status, agent::QuestionStatus::kDeclined);
  EXPECT_EQ(a.source, "user");

  auto second = std::async(std::launch::async, [&] { return s.session().questions().Ask(ProjectForm(), never); });
  d = Dialog(s);
  const std::string qid = d["sepp"]["question"]["id"];
  s.Send(Json{{"id", "r1"}, {"type", "question_response"}, {"questionId", qid}, {"values", {{"language", "Go"}}}}.dump());
  Json bad;
  while (auto j = s.Next())
    if (j->value("type", "") == "response") { bad = *j; break; }
  EXPECT_EQ(bad["success"], false);
  EXPECT_NE(bad["error"].get<std::string>().find("\"language\""), std::string::npos);
  s.Send(Json{{"id", "r2"}, {"type", "question_response"}, {"questionId", qid}, {"values", {{"language", "C++"}, {"ci", false}}}}.dump());
  auto b = second.get();
  EXPECT_EQ(b.status, agent::QuestionStatus::kAnswered);
  EXPECT_EQ(b.values, (Json{{"language", "C++"}, {"jobs", 2}, {"ci", false}}));
}

TEST_F(RpcQuestions, NoAnswerInTimeDeclinesAndALateAnswerChangesNothing) {
  Served s(Options(0.2));
  Ready(s);
  CancelToken never;
  auto asked = std::async(std::launch::async, [&] { return s.session().questions().Ask(ProjectForm(), never); });
  Json d = Dialog(s);
  EXPECT_EQ(d["timeout"], 200);
  auto a = asked.get();
  EXPECT_EQ(a.status, agent::QuestionStatus::kDeclined);
  EXPECT_EQ(a.source, "timeout");
  s.Send(Json{{"type", "extension_ui_response"}, {"id", d["id"]}, {"value", "Rust"}}.dump());
  s.Send(R"({"id":"st","type":"get_state"})");  // the server is still there and answers
  bool state = false;
  while (auto j = s.Next())
    if (j->value("type", "") == "response" && j->value("id", "") == "st") { state = (*j)["success"] == true; break; }
  EXPECT_TRUE(state);
}

TEST_F(RpcQuestions, TheModelsQuestionIsCancelledByAnAbortMidWay) {
  provider_.replies = {runtime::testing::CallReply(
      "c1", "question", {{"questions", {{{"question", "Which one?"}, {"options", {"a", "b"}}}}}})};
  Served s(Options());
  s.Send(R"({"id":"p","type":"prompt","message":"ask me"})");
  Json d = Dialog(s);
  EXPECT_EQ(d["method"], "select");
  EXPECT_EQ(d["title"], "Which one?");
  s.Send(R"({"id":"a","type":"abort"})");
  EXPECT_TRUE(s.session().WaitIdle(30));
  EXPECT_TRUE(s.session().PendingQuestions().empty());
  auto reqs = provider_.Requests();
  ASSERT_EQ(reqs.size(), 1u);  // aborted: the model was not called again
}

}  // namespace
}  // namespace sepp::front::rpc
