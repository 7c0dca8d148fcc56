// QuestionBroker: the session runtime's ask-the-user path (agent/question.h),
// beside the permission gate. It publishes `question.requested` (the
// question with its id and the time limit), waits for
// AgentSession::AnswerQuestion / DeclineQuestion, at most the limit, and
// publishes `question.resolved` {question_id, answer}. Without a front end
// that can ask, it declines at once (source "no_front_end"); no answer in
// time is a decline (source "timeout"); a cancel (abort, close) ends the wait
// at once (kCancelled).
#pragma once
#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "agent/events.h"
#include "agent/question.h"

namespace sepp::runtime {

// Whether questions go to a front end, and how long one may take.
struct QuestionDefaults {
  // A front end that shows questions sets it (rpc, serve, the TUI); without
  // it every question is declined at once ("no user available").
  bool ask_front_end = false;
  double timeout_s = 300;  // no answer within this long is a decline
};

// A question waiting for its answer (the front end's view).
struct PendingQuestion {
  agent::Question question;
  int64_t deadline_ms = 0;  // since the Unix epoch
};

class QuestionBroker : public agent::QuestionAsker {
 public:
  QuestionBroker(QuestionDefaults defaults, std::function<void(agent::Event)> publish);

  agent::QuestionAnswer Ask(const agent::Question& question, CancelToken& cancel) override;

  std::vector<PendingQuestion> Pending() const;
  // values are checked against the question's fields (agent::CheckAnswer);
  // errors: kind "not_found" (no such question waiting), "invalid" (the
  // values do not fit; the question stays open).
  Status Answer(const std::string& id, const Json& values);
  // sandbox-agent's {answers: string[][]} form of Answer.
  Status AnswerStrings(const std::string& id, const Json& answers);
  // Declined by the user; with `why`, by the front end for that reason (it
  // cannot show the question, it failed): source "front_end", the model
  // reads why.
  Status Decline(const std::string& id, const std::string& why = "");
  // Cancels every question waiting now (the prompt was aborted).
  void CancelWaiting();
  // Cancels every waiting question and declines new ones (the session closes).
  void CancelAll();

 private:
  struct Waiting {
    PendingQuestion pending;
    bool done = false;
    agent::QuestionAnswer answer;
  };
  Status Settle(const std::string& id, const std::function<Result<agent::QuestionAnswer>(const agent::Question&)>& make);
  void Resolve(const agent::Question& q, const agent::QuestionAnswer& a);

  QuestionDefaults defaults_;
  std::function<void(agent::Event)> publish_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::map<std::string, Waiting> waiting_;
  int next_id_ = 0;
  bool closing_ = false;
};

}  // namespace sepp::runtime
