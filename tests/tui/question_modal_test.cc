// The terminal UI's question modal: a form answered field by field (a
// choice, a multiple choice, a number with a bad answer first, a boolean,
// a default), another answer typed, Esc declining, a question resolved
// elsewhere dropped, and hostile text from the model kept inert.
#include <gtest/gtest.h>

#include "front/tui/question_modal.h"

namespace sepp::front::tui {
namespace {

using agent::QuestionField;

std::vector<InputEvent> Keys(std::string_view bytes) {
  KeyDecoder d;
  auto events = d.Feed(bytes);
  auto rest = d.Flush();
  events.insert(events.end(), rest.begin(), rest.end());
  return events;
}

std::string Text(const std::vector<Line>& lines) {
  std::string out;
  for (const auto& l : lines) out += l.PlainText() + "\n";
  return out;
}

// Feeds bytes; the answer of the last key, if any.
std::optional<QuestionModal::Answer> Type(QuestionModal& m, std::string_view bytes) {
  std::optional<QuestionModal::Answer> a;
  for (const auto& e : Keys(bytes)) {
    auto r = m.Handle(e);
    if (r) a = r;
  }
  return a;
}

runtime::PendingQuestion Form(const std::string& id) {
  runtime::PendingQuestion p;
  p.question.id = id;
  p.question.prompt = "Set up the project";
  p.question.source = "mcp:setup";
  QuestionField lang;
  lang.kind = QuestionField::Kind::kChoice;
  lang.name = "language";
  lang.options = {{"C++", "compiled"}, {"Rust", ""}};
  lang.required = true;
  QuestionField extras;
  extras.kind = QuestionField::Kind::kChoice;
  extras.multiple = true;
  extras.name = "extras";
  extras.options = {{"docs", ""}, {"bench", ""}, {"fuzz", ""}};
  QuestionField jobs;
  jobs.kind = QuestionField::Kind::kInteger;
  jobs.name = "jobs";
  jobs.maximum = 64;
  QuestionField ci;
  ci.kind = QuestionField::Kind::kBoolean;
  ci.name = "ci";
  QuestionField name;
  name.kind = QuestionField::Kind::kText;
  name.name = "name";
  name.default_value = "demo";
  p.question.fields = {lang, extras, jobs, ci, name};
  return p;
}

TEST(TuiQuestionModal, AFormIsAnsweredFieldByField) {
  QuestionModal m;
  m.Open(Form("q-1"));
  m.Open(Form("q-1"));  // a repeat is ignored
  std::string shown = Text(m.Render());
  EXPECT_NE(shown.find("MCP server setup"), std::string::npos) << shown;
  EXPECT_NE(shown.find("Set up the project"), std::string::npos) << shown;
  EXPECT_NE(shown.find("1. C++"), std::string::npos) << shown;
  EXPECT_FALSE(Type(m, "\x1b[B\r"));  // Rust
  shown = Text(m.Render());
  EXPECT_NE(shown.find("(2/5) extras"), std::string::npos) << shown;
  EXPECT_FALSE(Type(m, " \x1b[B\x1b[B \r"));  // docs and fuzz
  EXPECT_FALSE(Type(m, "100\r"));             // over the maximum: stays, says why
  EXPECT_NE(Text(m.Render()).find("out of range"), std::string::npos) << Text(m.Render());
  EXPECT_FALSE(Type(m, "\x7f\x7f\x7f" "8\r"));
  EXPECT_FALSE(Type(m, "n"));
  auto a = Type(m, "\r");  // the name's default
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(a->question_id, "q-1");
  EXPECT_FALSE(a->declined);
  EXPECT_EQ(a->values, (Json{{"language", "Rust"}, {"extras", {"docs", "fuzz"}}, {"jobs", 8}, {"ci", false},
                             {"name", "demo"}}));
  EXPECT_FALSE(m.open());
}

TEST(TuiQuestionModal, AnotherAnswerIsTypedAndEscDeclines) {
  QuestionModal m;
  runtime::PendingQuestion p;
  p.question.id = "q-2";
  p.question.prompt = "Which database?";
  QuestionField f;
  f.kind = QuestionField::Kind::kChoice;
  f.name = "Which database?";
  f.options = {{"SQLite", ""}, {"PostgreSQL", ""}};
  f.allow_other = true;
  f.required = true;
  p.question.fields = {f};
  m.Open(p);
  m.Open(Form("q-3"));
  EXPECT_NE(Text(m.Render()).find("(1 of 2)"), std::string::npos);
  auto a = Type(m, "DuckDB\r");
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(a->values, (Json{{"Which database?", "DuckDB"}}));
  ASSERT_TRUE(m.open());
  a = Type(m, "\x1b");
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(a->question_id, "q-3");
  EXPECT_TRUE(a->declined);
  // Resolved elsewhere (timed out, cancelled): dropped.
  m.Open(Form("q-4"));
  m.Drop("q-4");
  EXPECT_FALSE(m.open());
  // A required choice cannot be skipped: Enter picks the highlighted one.
  m.Open(Form("q-5"));
  EXPECT_FALSE(Type(m, "2"));
  EXPECT_FALSE(Type(m, "\r"));  // extras: none picked, not required
  EXPECT_FALSE(Type(m, "\r"));  // jobs: no default, not required
  a = Type(m, "y\r");
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(a->values, (Json{{"language", "Rust"}, {"ci", true}, {"name", "demo"}}));
}

TEST(TuiQuestionModal, HostileTextFromTheModelCannotDriveTheTerminal) {
  QuestionModal m;
  runtime::PendingQuestion p = Form("q-6");
  p.question.prompt = "hi \x1b]52;c;ZXZpbA==\x07 there \x1b[2J";
  p.question.fields[0].options[0].label = "\x1b[31mred";
  m.Open(p);
  for (const auto& l : m.Render())
    for (const auto& s : l.spans) EXPECT_EQ(s.text.find('\x1b'), std::string::npos) << s.text;
}

}  // namespace
}  // namespace sepp::front::tui
