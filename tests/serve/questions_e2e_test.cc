// Questions to the user through `sepp serve` (the binary as a child, the
// fake provider in process): the model's question tool is asked as
// question.requested on the session's stream and answered, declined, timed
// out or cancelled mid-way through the reply/reject endpoints and `sepp api`;
// hostile replies get typed problems and change nothing.
#include <gtest/gtest.h>

#include <filesystem>
#include <thread>

#include "base/strings.h"
#include "serve/serve_child.h"
#include "support/fake_provider.h"
#include "support/tool_results.h"

namespace sepp::servetest {
namespace {

namespace fs = std::filesystem;

constexpr const char* kToken = "questions-token-0123456789abcdef";

Json AskCall() {
  return {{"tool_calls",
           {{{"id", "q1"},
             {"name", "question"},
             {"arguments",
              {{"questions",
                {{{"question", "Which database?"}, {"header", "DB"},
                  {"options", {{{"label", "SQLite"}}, {{"label", "PostgreSQL"}}}}},
                 {{"question", "Which extras?"}, {"options", {"docs", "bench", "fuzz"}}, {"multiSelect", true}}}}}}}}}};
}

class ServeQuestions : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/sepp-serve-questions-XXXXXX";
    root_ = mkdtemp(tmpl);
    fs::create_directories(root_ / "home");
    fs::create_directories(root_ / "project");
    ASSERT_TRUE(fake_.Start().ok());
  }
  void Serve(std::vector<std::string> extra = {}) {
    std::vector<std::string> args = {"--token", kToken};
    args.insert(args.end(), extra.begin(), extra.end());
    server_ = std::make_unique<ServeChild>((root_ / "project").string(), Env(), args);
  }
  void TearDown() override {
    server_.reset();
    fake_.Stop();
    fs::remove_all(root_);
  }
  std::map<std::string, std::string> Env() const {
    return {{"HOME", (root_ / "home").string()},
            {"SEPP_HOME", (root_ / "home").string()},
            {"ANTHROPIC_BASE_URL", fake_.base_url()},
            {"ANTHROPIC_API_KEY", "test-key-not-secret"}};
  }
  net::Headers Auth() const {
    return {{"Authorization", std::string("Bearer ") + kToken}, {"Content-Type", "application/json"}};
  }
  net::HttpResponse Post(const std::string& path, const std::string& body) {
    return Fetch("POST", server_->url(path), Auth(), body);
  }
  void Create(const std::string& id) {
    auto r = Post("/v1/sessions/" + id, Json{{"agent", "sepp"}, {"directory", (root_ / "project").string()}}.dump());
    ASSERT_EQ(r.head.status, 200) << r.body;
  }
  // Sends the message and, from the session's stream, calls act(event) on
  // the question.requested; returns every event to the agent's settling.
  std::vector<Json> AskAndAct(const std::string& id, const std::function<void(const Json&)>& act) {
    std::thread watcher([&] {
      ReadSse(server_->url("/v1/sessions/" + id + "/events/sse?offset=0"), Auth(), [&](const SseRead& r) {
        if (r.events.empty()) return false;
        auto e = ParseJson(r.events.back().data);
        if ((*e)["type"] != "question.requested") return false;
        act(*e);
        return true;
      });
    });
    auto r = Fetch("POST", server_->url("/v1/sessions/" + id + "/messages/stream"), Auth(),
                   Json{{"message", "set it up"}}.dump());
    watcher.join();
    EXPECT_EQ(r.head.status, 200) << r.body;
    std::vector<Json> events;
    for (const auto& line : Split(r.body, '\n'))
      if (line.rfind("data: ", 0) == 0) events.push_back(*ParseJson(line.substr(6)));
    return events;
  }
  static Json Find(const std::vector<Json>& events, const std::string& type) {
    for (const auto& e : events)
      if (e["type"] == type) return e;
    return Json::object();
  }

  fs::path root_;
  fake::FakeProvider fake_;
  std::unique_ptr<ServeChild> server_;
};

TEST_F(ServeQuestions, AskedAndAnsweredInSandboxAgentsShape) {
  fake_.SetScript({{"responses", {AskCall(), {{"text", "done"}}}}});
  Serve();
  Create("a1");
  int status = 0;
  auto events = AskAndAct("a1", [&](const Json& e) {
    const Json& d = e["data"];
    EXPECT_EQ(d["prompt"], "The agent has 2 questions");
    EXPECT_EQ(d["options"], (Json{"SQLite", "PostgreSQL"}));
    EXPECT_EQ(d["status"], "requested");
    EXPECT_EQ(d["fields"][1]["multiple"], true);
    const std::string qid = d["question_id"];
    // Hostile replies first: each a typed problem; the question stays open.
    const std::string base = "/v1/sessions/a1/questions/";
    EXPECT_EQ(Post(base + qid + "/reply", R"({"answers": "SQLite"})").head.status, 400);
    EXPECT_EQ(Post(base + qid + "/reply", R"({"answers": [["SQLite"]], "values": {}})").head.status, 400);
    EXPECT_EQ(Post(base + qid + "/reply", R"({"answers": [["SQLite", "PostgreSQL"]]})").head.status, 400);
    EXPECT_EQ(Post(base + qid + "/reply", R"({"answers": [[]]})").head.status, 400);  // required
    EXPECT_EQ(Post(base + "q-999/reply", R"({"answers": [["SQLite"]]})").head.status, 404);
    EXPECT_EQ(Post(base + "bad%20id/reply", R"({"answers": [["SQLite"]]})").head.status, 400);
    EXPECT_EQ(Post(base + qid + "/reply", "not json").head.status, 400);
    status = Post(base + qid + "/reply", R"({"answers": [["SQLite"], ["docs", "fuzz"]]})").head.status;
  });
  EXPECT_EQ(status, 204);
  Json resolved = Find(events, "question.resolved");
  EXPECT_EQ(resolved["data"]["status"], "answered");
  EXPECT_EQ(resolved["data"]["response"], (Json{{"SQLite"}, {"docs", "fuzz"}}));
  std::string seen = fake::LastToolResult(fake_, "q1");
  EXPECT_NE(seen.find("\"Which database?\" = \"SQLite\""), std::string::npos) << seen;
  EXPECT_NE(seen.find("\"Which extras?\" = \"docs, fuzz\""), std::string::npos) << seen;
  // The answered question is gone.
  EXPECT_EQ(Post("/v1/sessions/a1/questions/" + resolved["data"]["question_id"].get<std::string>() + "/reject", "")
                .head.status,
            404);
}

TEST_F(ServeQuestions, RejectedThroughTheApiCommand) {
  fake_.SetScript({{"responses", {AskCall(), {{"text", "done"}}}}});
  Serve();
  Create("r1");
  auto env = Env();
  env["SEPP_SERVE_URL"] = server_->url("");
  env["SEPP_SERVE_TOKEN"] = kToken;
  int rc = -1;
  std::string out, err;
  auto events = AskAndAct("r1", [&](const Json& e) {
    rc = RunSepp({"api", "sessions", "questions", "reject", "r1", e["data"]["question_id"]}, env, &out, &err);
  });
  EXPECT_EQ(rc, 0) << err;
  EXPECT_EQ(Find(events, "question.resolved")["data"]["status"], "rejected");
  EXPECT_EQ(Find(events, "question.resolved")["data"]["metadata"]["source"], "user");
  EXPECT_NE(fake::LastToolResult(fake_, "q1").find("declined"), std::string::npos);
  // Replying to a question that is not waiting: the problem's detail, status 1.
  EXPECT_EQ(RunSepp({"api", "sessions", "questions", "reply", "r1", "q-1", "--answer", "SQLite"}, env, &out, &err), 1);
  EXPECT_NE(err.find("no question q-1 is waiting"), std::string::npos) << err;
}

TEST_F(ServeQuestions, AnsweredWithTypedValuesThroughTheApiCommand) {
  fake_.SetScript({{"responses", {AskCall(), {{"text", "done"}}}}});
  Serve();
  Create("v1");
  auto env = Env();
  env["SEPP_SERVE_URL"] = server_->url("");
  env["SEPP_SERVE_TOKEN"] = kToken;
  int rc = -1;
  std::string out, err;
  AskAndAct("v1", [&](const Json& e) {
    rc = RunSepp({"api", "sessions", "questions", "reply", "v1", e["data"]["question_id"], "--values",
                  R"({"Which database?": "PostgreSQL", "Which extras?": ["bench"]})"},
                 env, &out, &err);
  });
  EXPECT_EQ(rc, 0) << err;
  EXPECT_NE(fake::LastToolResult(fake_, "q1").find("\"Which database?\" = \"PostgreSQL\""), std::string::npos);
}

TEST_F(ServeQuestions, NoReplyInTimeIsADecline) {
  fake_.SetScript({{"responses", {AskCall(), {{"text", "done"}}}}});
  Serve({"--question-timeout", "0.2"});
  Create("t1");
  auto events = AskAndAct("t1", [](const Json&) {});
  Json resolved = Find(events, "question.resolved");
  EXPECT_EQ(resolved["data"]["status"], "rejected");
  EXPECT_EQ(resolved["data"]["metadata"]["source"], "timeout");
  EXPECT_NE(fake::LastToolResult(fake_, "q1").find("did not answer in time"), std::string::npos);
}

TEST_F(ServeQuestions, TerminatingTheSessionCancelsTheQuestionMidWay) {
  fake_.SetScript({{"responses", {AskCall(), {{"text", "never asked for"}}}}});
  Serve();
  Create("c1");
  int status = 0;
  auto events = AskAndAct("c1", [&](const Json&) { status = Post("/v1/sessions/c1/terminate", "").head.status; });
  EXPECT_EQ(status, 204);
  Json resolved = Find(events, "question.resolved");
  EXPECT_EQ(resolved["data"]["status"], "rejected");
  EXPECT_EQ(resolved["data"]["metadata"]["status"], "cancelled");
  EXPECT_EQ(fake_.requests().size(), 1u) << "the model is not called again";
}

}  // namespace
}  // namespace sepp::servetest
