// Questions over ACP, which has no elicitation: a single choice is asked as
// session/request_permission with its options and answered by the pick; a
// dismissal declines it; a free-text question is declined without asking.
// `sepp --acp` against the in-process fake provider.
#include <gtest/gtest.h>

#include <filesystem>

#include "acp/acp_child.h"
#include "support/fake_provider.h"
#include "support/tool_results.h"

namespace sepp::acptest {
namespace {

namespace fs = std::filesystem;

class AcpQuestions : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/sepp-acp-questions-XXXXXX";
    root_ = mkdtemp(tmpl);
    fs::create_directories(root_ / "home");
    fs::create_directories(root_ / "project");
    ASSERT_TRUE(fake_.Start().ok());
  }
  void TearDown() override {
    fake_.Stop();
    fs::remove_all(root_);
  }
  std::map<std::string, std::string> Env() const {
    return {{"HOME", (root_ / "home").string()},
            {"SEPP_HOME", (root_ / "home").string()},
            {"ANTHROPIC_BASE_URL", fake_.base_url()},
            {"ANTHROPIC_API_KEY", "test-key"}};
  }
  // Runs a prompt whose model asks `args`; answer(request) answers each
  // session/request_permission (null: none expected). The prompt's response.
  Json Run(const Json& args, const std::function<Json(const Json&)>& answer, int* asked) {
    fake_.SetScript({{"responses", {{{"tool_calls", {{{"id", "q1"}, {"name", "question"}, {"arguments", args}}}}},
                                    {{"text", "ok"}}}}});
    AcpChild c((root_ / "project").string(), Env());
    Json init = c.Call(0, "initialize", {{"protocolVersion", 1}, {"clientCapabilities", Json::object()}});
    EXPECT_TRUE(init.contains("result")) << init.dump();
    Json s = c.Call(1, "session/new", {{"cwd", (root_ / "project").string()}, {"mcpServers", Json::array()}});
    std::string sid = s["result"].value("sessionId", "");
    c.Send({{"jsonrpc", "2.0"}, {"id", 2}, {"method", "session/prompt"},
            {"params", {{"sessionId", sid}, {"prompt", {{{"type", "text"}, {"text", "ask"}}}}}}});
    while (auto m = c.Next()) {
      if (m->value("method", "") == "session/request_permission") {
        ++*asked;
        c.Send({{"jsonrpc", "2.0"}, {"id", (*m)["id"]}, {"result", answer((*m)["params"])}});
        continue;
      }
      if (m->contains("id") && (*m)["id"] == 2) return *m;
    }
    return Json::object();
  }

  fs::path root_;
  fake::FakeProvider fake_;
};

Json SingleChoice() {
  return {{"questions", {{{"question", "Which database?"},
                          {"options", {{{"label", "SQLite"}, {"description", "one file"}}, {{"label", "PostgreSQL"}}}}}}}};
}

TEST_F(AcpQuestions, ASingleChoiceIsAPermissionRequestAnsweredByThePick) {
  int asked = 0;
  Json params;
  Json done = Run(SingleChoice(), [&](const Json& p) {
    params = p;
    return Json{{"outcome", {{"outcome", "selected"}, {"optionId", "answer-1"}}}};
  }, &asked);
  EXPECT_EQ(done["result"]["stopReason"], "end_turn") << done.dump();
  EXPECT_EQ(asked, 1);
  EXPECT_EQ(params["toolCall"]["toolCallId"], "q1");
  EXPECT_EQ(params["options"].size(), 3u);
  EXPECT_EQ(params["options"][1]["name"], "PostgreSQL");
  EXPECT_EQ(params["options"][2]["optionId"], "decline");
  std::string seen = fake::LastToolResult(fake_, "q1");
  EXPECT_NE(seen.find("\"Which database?\" = \"PostgreSQL\""), std::string::npos) << seen;
}

TEST_F(AcpQuestions, ADismissalOrAnOptionNotOfferedDeclines) {
  int asked = 0;
  Run(SingleChoice(), [](const Json&) { return Json{{"outcome", {{"outcome", "cancelled"}}}}; }, &asked);
  EXPECT_EQ(asked, 1);
  EXPECT_NE(fake::LastToolResult(fake_, "q1").find("declined"), std::string::npos);
  Run(SingleChoice(), [](const Json&) { return Json{{"outcome", {{"outcome", "selected"}, {"optionId", "answer-9"}}}}; },
      &asked);
  EXPECT_NE(fake::LastToolResult(fake_, "q1").find("declined"), std::string::npos);
}

TEST_F(AcpQuestions, AFreeTextQuestionIsDeclinedWithoutAsking) {
  int asked = 0;
  Json done = Run({{"questions", {{{"question", "Anything else?"}}}}}, [](const Json&) { return Json::object(); }, &asked);
  EXPECT_EQ(done["result"]["stopReason"], "end_turn") << done.dump();
  EXPECT_EQ(asked, 0);
  EXPECT_NE(fake::LastToolResult(fake_, "q1").find("declined"), std::string::npos);
}

}  // namespace
}  // namespace sepp::acptest
