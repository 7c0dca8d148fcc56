// The ask-the-user path: a typed question put to the person behind whichever
// front end is attached, beside the permission gate (permission_gate.h).
//
// A question has an id, a prompt and fields: a choice among options (one or
// several), free text, or a small form of primitive typed fields (string,
// number, integer, boolean) with defaults. Users: the model's `question`
// tool (Claude Code's AskUserQuestion) and MCP elicitation (form mode).
//
// The agent layer defines the types and the interface; the session runtime
// implements it (runtime/question_broker.h): published as question.requested,
// answered by the front end, published as question.resolved. No answer within
// the limit, or no front end that can ask, is a decline; a cancel ends the
// wait at once.
#pragma once
#include <condition_variable>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "base/cancel.h"
#include "base/json.h"
#include "base/result.h"

namespace sepp::agent {

struct QuestionOption {
  std::string label;        // what is picked, and what the answer holds
  std::string description;  // what picking it means (may be empty)
};

struct QuestionField {
  enum class Kind { kChoice, kText, kNumber, kInteger, kBoolean };
  Kind kind = Kind::kText;
  std::string name;         // the answer's key for this field
  std::string title;        // a short label ("Auth method")
  std::string description;  // the question this field asks (may be empty)
  // kChoice: the options; several may be picked when multiple; allow_other
  // takes a free text instead of an option (AskUserQuestion's "Other").
  std::vector<QuestionOption> options;
  bool multiple = false;
  bool allow_other = false;
  bool required = false;
  Json default_value;  // null: none; filled in when the answer omits the field
  std::optional<double> minimum, maximum;  // kNumber / kInteger
  std::optional<size_t> max_length;        // kText
};

const char* ToString(QuestionField::Kind k);  // "choice" | "text" | "number" | "integer" | "boolean"

struct Question {
  std::string id;      // unique within the session ("q-1", ...), set by the asker
  std::string prompt;  // what the user reads first
  std::vector<QuestionField> fields;
  std::string source;  // who asks: "tool" (the model) | "mcp:SERVER"
  std::string call_id;         // the tool call that asks, if any
  std::string parent_call_id;  // set when a sub-agent asks
};

enum class QuestionStatus { kAnswered, kDeclined, kCancelled };
const char* ToString(QuestionStatus s);  // "answered" | "declined" | "cancelled"

struct QuestionAnswer {
  QuestionStatus status = QuestionStatus::kDeclined;
  Json values = Json::object();  // kAnswered: field name -> value, checked (CheckAnswer)
  // Who ended it: "user", "timeout", "no_front_end", "cancelled" (abort or
  // close), "front_end" (the front end could not show it; message says why).
  std::string source;
  std::string message;  // why, in words the model can read
};

class QuestionAsker {
 public:
  virtual ~QuestionAsker() = default;
  // Blocks until the question is answered, declined or cancelled.
  // Thread-safe; never throws; a cancelled token ends it with kCancelled.
  virtual QuestionAnswer Ask(const Question& question, CancelToken& cancel) = 0;
};

// The values a front end sent, checked against the question's fields: every
// key names a field, every value has the field's type (a choice's labels are
// options unless allow_other; a multiple choice is an array), required
// fields are there; the defaults of omitted fields are filled in (MCP's
// SEP-1034). The error says which field is wrong and why.
Result<Json> CheckAnswer(const Question& question, const Json& values);
// sandbox-agent's reply {answers: string[][]}: answers[i] answers fields[i]
// (the picked labels, or one text; numbers and booleans as text), then
// CheckAnswer.
Result<Json> ValuesFromStrings(const Question& question, const Json& answers);

Json ToJson(const QuestionField& f);
Json ToJson(const Question& q);  // {id, prompt, fields[], source, call_id?}
Json ToJson(const QuestionAnswer& a);
// The inverse of ToJson(Question) for a front end that relays questions
// (the fields' shapes are checked; the id is kept).
Result<Question> QuestionFromJson(const Json& j);

// An asker bound late: made before the session that answers exists (MCP
// servers start before the session opens), attached when it opens and
// detached when it closes. Unattached, every question is declined with
// source "no_front_end".
class QuestionRelay : public QuestionAsker {
 public:
  QuestionAnswer Ask(const Question& question, CancelToken& cancel) override;
  void Attach(QuestionAsker* asker);
  // Waits for the questions in flight to return (the asker has ended them).
  void Detach();

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  QuestionAsker* asker_ = nullptr;
  int in_flight_ = 0;
};

}  // namespace sepp::agent
