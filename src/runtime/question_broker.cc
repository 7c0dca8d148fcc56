#include "runtime/question_broker.h"

#include <chrono>

#include "base/clock.h"

namespace sepp::runtime {

using agent::QuestionAnswer;
using agent::QuestionStatus;

QuestionBroker::QuestionBroker(QuestionDefaults defaults, std::function<void(agent::Event)> publish)
    : defaults_(defaults), publish_(std::move(publish)) {}

void QuestionBroker::Resolve(const agent::Question& q, const QuestionAnswer& a) {
  agent::Event e(agent::EventType::kQuestionResolved);
  e.call_id = q.call_id;
  e.parent_call_id = q.parent_call_id;
  // The question again, so a reader that joins late (or only reads the
  // ends) sees what was answered.
  e.data = {{"question_id", q.id}, {"question", agent::ToJson(q)}, {"answer", agent::ToJson(a)}};
  publish_(std::move(e));
}

QuestionAnswer QuestionBroker::Ask(const agent::Question& question_in, CancelToken& cancel) {
  agent::Question question = question_in;
  bool can_ask;
  {
    std::lock_guard lock(mu_);
    question.id = "q-" + std::to_string(++next_id_);
    can_ask = defaults_.ask_front_end && !closing_;
    if (can_ask) {
      Waiting& w = waiting_[question.id];
      w.pending.question = question;
      w.pending.deadline_ms = NowMs() + static_cast<int64_t>(defaults_.timeout_s * 1000);
    }
  }
  if (!can_ask) {
    QuestionAnswer a;
    a.source = "no_front_end";
    a.message = "declined: no user is available to answer questions in this run";
    Resolve(question, a);  // on the record: a reader of the events sees it was declined
    return a;
  }

  agent::Event asked(agent::EventType::kQuestionRequested);
  asked.call_id = question.call_id;
  asked.parent_call_id = question.parent_call_id;
  asked.data = agent::ToJson(question);
  asked.data["question_id"] = question.id;
  asked.data["timeout_s"] = defaults_.timeout_s;
  publish_(std::move(asked));

  auto reg = cancel.OnCancel([this] {
    std::lock_guard lock(mu_);
    cv_.notify_all();
  });
  QuestionAnswer answer;
  {
    std::unique_lock lock(mu_);
    auto deadline = std::chrono::steady_clock::now() +
                    std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                        std::chrono::duration<double>(defaults_.timeout_s));
    bool woke = cv_.wait_until(lock, deadline, [&] {
      return waiting_[question.id].done || cancel.cancelled() || closing_;
    });
    Waiting& w = waiting_[question.id];
    if (w.done) {
      answer = w.answer;
    } else if (!woke) {
      answer.status = QuestionStatus::kDeclined;
      answer.source = "timeout";
      answer.message = "declined: no answer came within " +
                       std::to_string(static_cast<int>(defaults_.timeout_s)) + " s";
    } else {
      answer.status = QuestionStatus::kCancelled;
      answer.source = "cancelled";
      answer.message = "cancelled: the turn was aborted before the user answered";
    }
    waiting_.erase(question.id);
  }
  Resolve(question, answer);
  return answer;
}

std::vector<PendingQuestion> QuestionBroker::Pending() const {
  std::lock_guard lock(mu_);
  std::vector<PendingQuestion> out;
  for (const auto& [id, w] : waiting_)
    if (!w.done) out.push_back(w.pending);
  return out;
}

Status QuestionBroker::Settle(
    const std::string& id,
    const std::function<Result<QuestionAnswer>(const agent::Question&)>& make) {
  {
    std::lock_guard lock(mu_);
    auto it = waiting_.find(id);
    if (it == waiting_.end() || it->second.done)
      return Error::Make("no question " + id.substr(0, 128) +
                             " is waiting (already answered, declined, timed out, or never asked)",
                         "not_found");
    auto a = make(it->second.pending.question);
    if (!a.ok()) return a.error();
    it->second.answer = std::move(a).value();
    it->second.done = true;
  }
  cv_.notify_all();
  return Ok();
}

Status QuestionBroker::Answer(const std::string& id, const Json& values) {
  return Settle(id, [&](const agent::Question& q) -> Result<QuestionAnswer> {
    auto checked = agent::CheckAnswer(q, values);
    if (!checked.ok()) return checked.error();
    QuestionAnswer a;
    a.status = QuestionStatus::kAnswered;
    a.values = std::move(checked).value();
    a.source = "user";
    return a;
  });
}

Status QuestionBroker::AnswerStrings(const std::string& id, const Json& answers) {
  return Settle(id, [&](const agent::Question& q) -> Result<QuestionAnswer> {
    auto checked = agent::ValuesFromStrings(q, answers);
    if (!checked.ok()) return checked.error();
    QuestionAnswer a;
    a.status = QuestionStatus::kAnswered;
    a.values = std::move(checked).value();
    a.source = "user";
    return a;
  });
}

Status QuestionBroker::Decline(const std::string& id, const std::string& why) {
  return Settle(id, [&why](const agent::Question&) -> Result<QuestionAnswer> {
    QuestionAnswer a;
    a.status = QuestionStatus::kDeclined;
    a.source = why.empty() ? "user" : "front_end";
    a.message = why.empty() ? "the user declined to answer" : why;
    return a;
  });
}

void QuestionBroker::CancelWaiting() {
  {
    std::lock_guard lock(mu_);
    for (auto& [id, w] : waiting_) {
      if (w.done) continue;
      w.done = true;
      w.answer.status = QuestionStatus::kCancelled;
      w.answer.source = "cancelled";
      w.answer.message = "cancelled: the turn was aborted before the user answered";
    }
  }
  cv_.notify_all();
}

void QuestionBroker::CancelAll() {
  {
    std::lock_guard lock(mu_);
    closing_ = true;
  }
  cv_.notify_all();
}

}  // namespace sepp::runtime
