// Questions over ACP, which has no elicitation: a single choice is asked as
// session/request_permission with its options and answered by the pick; a
// dismissal declines it; a question ACP cannot show (free text, several
// fields, a multiple choice) is declined without asking, and the model reads
// that the client cannot show it, not that the user said no.
// `sepp --acp` against the in-process fake provider.
#include <gtest/gtest.h>

#include <filesystem>

#include "acp/acp_child.h"
#include "acp/acp_sepp_fixture.h"
#include "support/tool_results.h"

namespace sepp::acptest {
namespace {

namespace fs = std::filesystem;

class AcpQuestions : public AcpSeppTest {
 protected:
  AcpQuestions() : AcpSeppTest("acp-questions") {}
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

TEST_F(AcpQuestions, ADismissalIsTheUsersDeclineAnOptionNotOfferedIsTheClients) {
  int asked = 0;
  Run(SingleChoice(), [](const Json&) { return Json{{"outcome", {{"outcome", "cancelled"}}}}; }, &asked);
  EXPECT_EQ(asked, 1);
  std::string seen = fake::LastToolResult(fake_, "q1");
  EXPECT_NE(seen.find("The user declined"), std::string::npos) << seen;
  Run(SingleChoice(), [](const Json&) { return Json{{"outcome", {{"outcome", "selected"}, {"optionId", "decline"}}}}; },
      &asked);
  seen = fake::LastToolResult(fake_, "q1");
  EXPECT_NE(seen.find("The user declined"), std::string::npos) << seen;
  Run(SingleChoice(), [](const Json&) { return Json{{"outcome", {{"outcome", "selected"}, {"optionId", "answer-9"}}}}; },
      &asked);
  seen = fake::LastToolResult(fake_, "q1");
  EXPECT_EQ(seen.find("The user declined"), std::string::npos) << seen;
  EXPECT_NE(seen.find("not shown to the user: the ACP client answered with something other than one of the options"),
            std::string::npos)
      << seen;
}

// Each question ACP cannot carry: never asked, and the reason the model
// reads names what the client cannot show.
TEST_F(AcpQuestions, AQuestionAcpCannotShowIsDeclinedWithTheReason) {
  struct Case {
    Json args;
    const char* reason;
  };
  const Case cases[] = {
      {{{"questions", {{{"question", "Anything else?"}}}}}, "asks for free text, not a choice"},
      {{{"questions", {{{"question", "Which database?"}, {"options", {{{"label", "SQLite"}}, {{"label", "PG"}}}}},
                       {{"question", "Which port?"}}}}},
       "this one has 2 fields"},
      {{{"questions", {{{"question", "Which checks?"}, {"multiSelect", true},
                        {"options", {{{"label", "lint"}}, {{"label", "fuzz"}}}}}}}},
       "several options be picked"},
  };
  for (const Case& c : cases) {
    int asked = 0;
    Json done = Run(c.args, [](const Json&) { return Json::object(); }, &asked);
    EXPECT_EQ(done["result"]["stopReason"], "end_turn") << done.dump();
    EXPECT_EQ(asked, 0) << c.args.dump();
    std::string seen = fake::LastToolResult(fake_, "q1");
    EXPECT_EQ(seen.find("The user declined"), std::string::npos) << seen;
    EXPECT_NE(seen.find("not shown to the user: the client is an ACP front end, and ACP can show only"),
              std::string::npos)
        << seen;
    EXPECT_NE(seen.find(c.reason), std::string::npos) << seen;
  }
}

}  // namespace
}  // namespace sepp::acptest
