// QuestionModal: the runtime's questions (agent/question.h: the model's
// question tool, an MCP server's elicitation) as the terminal UI asks them,
// one field at a time. A choice is a list (Up/Down, 1-9, Enter; Space
// toggles in a multiple choice; typing gives another answer where the
// question allows one), a boolean is yes/no (y, n), text and numbers are a
// line to type (Enter with nothing typed takes the default). An answer that
// does not fit says why and stays on the field; Esc declines the question.
// Questions that arrive together are asked one at a time.
//
// Like the permission modal it only gets keys while it is open, and is
// opened after the input already waiting went to the editor.
#pragma once
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "base/json.h"
#include "front/tui/key_decoder.h"
#include "front/tui/text.h"
#include "runtime/question_broker.h"

namespace sepp::front::tui {

class QuestionModal {
 public:
  struct Answer {
    std::string question_id;
    bool declined = false;
    Json values = Json::object();  // when not declined
  };

  void Open(const runtime::PendingQuestion& pending);  // a duplicate id is ignored
  void Drop(const std::string& question_id);           // resolved elsewhere
  bool open() const { return !queue_.empty(); }

  // A key (or a paste) while open: the answer once the last field is
  // answered or the question declined; else nullopt.
  std::optional<Answer> Handle(const InputEvent& e);
  std::vector<Line> Render() const;

 private:
  const agent::QuestionField& field() const { return queue_.front().question.fields[field_]; }
  size_t Rows() const;  // the list's rows for the field (options, yes/no)
  void ResetField();
  // Takes v for the field (nullopt: its default); the answer when it was
  // the last field.
  std::optional<Answer> Take(std::optional<Json> v);
  std::optional<Answer> Finish(bool declined);

  std::vector<runtime::PendingQuestion> queue_;
  size_t field_ = 0;
  size_t selected_ = 0;
  std::set<size_t> picked_;  // a multiple choice's toggled options
  std::string typed_;
  std::string problem_;
  Json values_ = Json::object();
};

}  // namespace sepp::front::tui
