// The session's questions (agent/question.h) as pi's extension UI dialogs:
// one `extension_ui_request` per field, in order — `select` for a single
// choice (its options only: pi's select takes no other text), `confirm` for
// a boolean, `input` for text, numbers and a multiple choice (labels
// separated by commas, or a JSON array) — with dialog ids
// "QUESTION_ID:FIELD". The client answers each with `extension_ui_response`
// ({value} | {confirmed} | {cancelled: true}); the last one answers the
// question, a cancelled one declines it. Each request carries the whole
// question under "sepp", so a client that knows sepp can answer it at once
// with `question_response` instead (docs/rpc.md).
#pragma once
#include <map>
#include <mutex>
#include <string>

#include "agent/events.h"
#include "agent/question.h"
#include "base/json.h"
#include "runtime/agent_session.h"

namespace sepp::front::rpc {

class QuestionDialogs {
 public:
  explicit QuestionDialogs(runtime::AgentSession& session) : s_(session) {}
  // question.requested: the first dialog to write.
  Json Open(const agent::Event& e);
  // question.resolved: the question is over (answered, timed out, cancelled).
  void Forget(const std::string& question_id);
  // True when dialog_id is one of ours ("q-N:I").
  bool Owns(const std::string& dialog_id) const;
  // The client's extension_ui_response to one of ours: the next dialog to
  // write, or null (the question was answered or declined). An answer that
  // does not fit its field asks the same field again, saying why.
  Json Respond(const Json& response);

 private:
  struct Open_ {
    agent::Question question;
    double timeout_s = 300;
    size_t field = 0;
    Json values = Json::object();
  };
  Json Dialog(const Open_& q, const std::string& problem) const;

  runtime::AgentSession& s_;
  mutable std::mutex mu_;
  std::map<std::string, Open_> open_;
};

}  // namespace sepp::front::rpc
