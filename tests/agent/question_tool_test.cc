// The question tool's input (Claude Code's AskUserQuestion) and what the
// model reads back: answered, declined, no user, cancelled; bad input gets
// an error that says what is wrong.
#include <gtest/gtest.h>

#include "agent/question_tool.h"

namespace sepp::agent {
namespace {

class Fixed : public QuestionAsker {
 public:
  QuestionAnswer Ask(const Question& q, CancelToken& c) override {
    asked = q;
    QuestionAnswer a = answer;
    if (c.cancelled()) a = {QuestionStatus::kCancelled, Json::object(), "cancelled", ""};
    return a;
  }
  Question asked;
  QuestionAnswer answer;
};

Json Args() {
  return Json::parse(R"json({"questions": [
    {"question": "Which auth method?", "header": "Auth", "options": [
      {"label": "JWT (Recommended)", "description": "stateless"}, {"label": "Session cookie"}]},
    {"question": "Which extras?", "options": ["docs", "bench", "fuzz"], "multiSelect": true},
    {"question": "Anything else?"}]})json");
}

TEST(QuestionTool, AskUserQuestionsInputBecomesTypedFields) {
  auto q = QuestionFromToolArgs(Args());
  ASSERT_TRUE(q.ok()) << q.error().message;
  ASSERT_EQ(q->fields.size(), 3u);
  EXPECT_EQ(q->fields[0].kind, QuestionField::Kind::kChoice);
  EXPECT_EQ(q->fields[0].title, "Auth");
  EXPECT_FALSE(q->fields[0].multiple);
  EXPECT_TRUE(q->fields[0].allow_other);
  EXPECT_EQ(q->fields[0].options[0].description, "stateless");
  EXPECT_TRUE(q->fields[1].multiple);
  EXPECT_EQ(q->fields[1].options[2].label, "fuzz");
  EXPECT_EQ(q->fields[2].kind, QuestionField::Kind::kText);
}

TEST(QuestionTool, BadInputSaysWhatIsWrong) {
  for (const char* bad : {R"({})", R"({"questions": []})", R"({"questions": "x"})",
                          R"({"questions": [{"header": "h"}]})", R"({"questions": [{"question": ""}]})",
                          R"({"questions": [{"question": "a?"}, {"question": "a?"}]})",
                          R"({"questions": [{"question": "a?", "options": [{"label": "only"}]}]})",
                          R"({"questions": [{"question": "a?", "options": [{"label": "x"}, {"label": "x"}]}]})",
                          R"({"questions": [{"question": "a?", "options": [1, 2]}]})",
                          R"({"questions": [{"question": "a?", "options": ["x", "y"], "multiSelect": "yes"}]})",
                          R"({"questions": [{"question": "1"}, {"question": "2"}, {"question": "3"}, {"question": "4"}, {"question": "5"}]})"}) {
    auto q = QuestionFromToolArgs(Json::parse(bad));
    EXPECT_FALSE(q.ok()) << bad;
  }
  Fixed asker;
  auto tool = MakeQuestionTool(&asker);
  tools::ToolContext ctx;
  auto r = tool->Run(Json::parse(R"({"questions": "x"})"), ctx);
  EXPECT_TRUE(r.is_error);
  EXPECT_NE(r.text.find("\"questions\""), std::string::npos);
}

TEST(QuestionTool, TheModelReadsTheAnswersOrWhyThereAreNone) {
  Fixed asker;
  auto tool = MakeQuestionTool(&asker);
  tools::ToolContext ctx;
  ctx.call_id = "c7";
  asker.answer = {QuestionStatus::kAnswered,
                  {{"Which auth method?", "Session cookie"}, {"Which extras?", {"docs", "fuzz"}}, {"Anything else?", "no"}},
                  "user", ""};
  auto r = tool->Run(Args(), ctx);
  EXPECT_FALSE(r.is_error);
  EXPECT_EQ(asker.asked.call_id, "c7");
  EXPECT_EQ(asker.asked.source, "tool");
  EXPECT_NE(r.text.find("\"Which auth method?\" = \"Session cookie\""), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("\"Which extras?\" = \"docs, fuzz\""), std::string::npos) << r.text;

  asker.answer = {QuestionStatus::kDeclined, Json::object(), "no_front_end", ""};
  r = tool->Run(Args(), ctx);
  EXPECT_TRUE(r.is_error);
  EXPECT_NE(r.text.find("No user is available"), std::string::npos);
  asker.answer = {QuestionStatus::kDeclined, Json::object(), "timeout", "declined: no answer came within 300 s"};
  EXPECT_NE(tool->Run(Args(), ctx).text.find("did not answer in time"), std::string::npos);
  asker.answer = {QuestionStatus::kDeclined, Json::object(), "user", ""};
  EXPECT_NE(tool->Run(Args(), ctx).text.find("declined"), std::string::npos);
  // A front end that cannot show the question says why; the model reads
  // that reason, not that the user said no.
  asker.answer = {QuestionStatus::kDeclined, Json::object(), "front_end", "the client shows only single choices"};
  r = tool->Run(Args(), ctx);
  EXPECT_TRUE(r.is_error);
  EXPECT_NE(r.text.find("not shown to the user: the client shows only single choices."), std::string::npos) << r.text;
  EXPECT_EQ(r.text.find("declined"), std::string::npos) << r.text;
  CancelToken cancel;
  cancel.Cancel();
  ctx.cancel = &cancel;
  EXPECT_NE(tool->Run(Args(), ctx).text.find("cancelled"), std::string::npos);
}

}  // namespace
}  // namespace sepp::agent
