#include "front/rpc/question_dialogs.h"

#include "base/log.h"

namespace sepp::front::rpc {
namespace {

using Kind = agent::QuestionField::Kind;

// One field's answer from a dialog's reply; the error says why it does not fit.
Result<Json> FieldValue(const agent::QuestionField& f, const Json& r) {
  if (f.kind == Kind::kBoolean) {
    if (r.contains("confirmed") && r["confirmed"].is_boolean()) return r["confirmed"];
    return Error::Make("a confirm dialog answers {\"confirmed\": true|false}");
  }
  if (!r.contains("value") || !r["value"].is_string()) return Error::Make("the answer is {\"value\": \"...\"}");
  const std::string v = r["value"].get<std::string>();
  if (f.kind == Kind::kChoice && f.multiple) {
    if (auto arr = ParseJson(v); arr.ok() && arr->is_array()) return *arr;
    Json picked = Json::array();
    size_t start = 0;
    while (start <= v.size()) {
      size_t comma = v.find(',', start);
      std::string one = v.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
      size_t b = one.find_first_not_of(' '), e = one.find_last_not_of(' ');
      if (b != std::string::npos) picked.push_back(one.substr(b, e - b + 1));
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
    return picked;
  }
  if (f.kind == Kind::kNumber || f.kind == Kind::kInteger) {
    agent::Question one;
    one.fields.push_back(f);
    auto values = agent::ValuesFromStrings(one, Json::array({Json::array({v})}));
    if (!values.ok()) return values.error();
    return (*values)[f.name];
  }
  return Json(v);
}

}  // namespace

Json QuestionDialogs::Dialog(const Open_& q, const std::string& problem) const {
  const agent::QuestionField& f = q.question.fields[q.field];
  std::string title = q.question.fields.size() == 1 ? q.question.prompt : q.question.prompt + "\n";
  if (q.question.fields.size() > 1 || title.empty())
    title += (f.title.empty() ? f.name : f.title) + (f.description.empty() || f.description == q.question.prompt ? "" : ": " + f.description);
  if (!problem.empty()) title = "(" + problem + ") " + title;
  Json req = {{"type", "extension_ui_request"},
              {"id", q.question.id + ":" + std::to_string(q.field)},
              {"title", title},
              {"timeout", static_cast<int64_t>(q.timeout_s * 1000)},
              {"sepp", {{"question", agent::ToJson(q.question)}, {"field", q.field}}}};
  Json options = Json::array();
  for (const auto& o : f.options) options.push_back(o.label);
  // A single choice is pi's select (an "other" answer is not offered there;
  // a client that knows sepp answers with question_response).
  if (f.kind == Kind::kChoice && !f.multiple) {
    req["method"] = "select";
    req["options"] = options;
  } else if (f.kind == Kind::kBoolean) {
    req["method"] = "confirm";
    req["message"] = f.description.empty() ? q.question.prompt : f.description;
  } else {
    req["method"] = "input";
    std::string hint;
    if (f.kind == Kind::kChoice) {
      for (const auto& o : f.options) hint += (hint.empty() ? "" : ", ") + o.label;
      hint = "one or more of: " + hint + " (comma-separated)" + (f.allow_other ? ", or your own answer" : "");
    } else if (f.kind == Kind::kNumber || f.kind == Kind::kInteger) {
      hint = f.kind == Kind::kInteger ? "a whole number" : "a number";
    }
    if (!f.default_value.is_null())
      hint += std::string(hint.empty() ? "" : "; ") + "default " +
              (f.default_value.is_string() ? f.default_value.get<std::string>() : f.default_value.dump());
    if (!hint.empty()) req["placeholder"] = hint;
  }
  return req;
}

Json QuestionDialogs::Open(const agent::Event& e) {
  auto q = agent::QuestionFromJson(e.data);
  if (!q.ok() || q->fields.empty()) {
    log::Warn("question.requested: " + (q.ok() ? std::string("no fields") : q.error().message));
    return nullptr;
  }
  q->id = e.data.value("question_id", q->id);
  std::lock_guard lock(mu_);
  Open_& o = open_[q->id];
  o.question = std::move(q).value();
  o.timeout_s = e.data.value("timeout_s", 300.0);
  return Dialog(o, "");
}

void QuestionDialogs::Forget(const std::string& question_id) {
  std::lock_guard lock(mu_);
  open_.erase(question_id);
}

bool QuestionDialogs::Owns(const std::string& dialog_id) const {
  size_t colon = dialog_id.rfind(':');
  if (colon == std::string::npos) return false;
  std::lock_guard lock(mu_);
  return open_.count(dialog_id.substr(0, colon)) > 0;
}

Json QuestionDialogs::Respond(const Json& r) {
  const std::string dialog_id = r.value("id", std::string());
  size_t colon = dialog_id.rfind(':');
  const std::string qid = dialog_id.substr(0, colon);
  std::unique_lock lock(mu_);
  auto it = open_.find(qid);
  if (it == open_.end() || dialog_id.substr(colon + 1) != std::to_string(it->second.field)) {
    log::Warn("extension_ui_response: no dialog " + dialog_id + " is open");
    return nullptr;
  }
  Open_& o = it->second;
  if (r.value("cancelled", false)) {
    open_.erase(it);
    lock.unlock();
    if (auto st = s_.DeclineQuestion(qid); !st.ok()) log::Warn("extension_ui_response: " + st.error().message);
    return nullptr;
  }
  const agent::QuestionField& f = o.question.fields[o.field];
  // An empty input leaves the field to its default.
  const bool blank = f.kind != Kind::kBoolean && r.contains("value") && r["value"] == "";
  Result<Json> v = blank ? Result<Json>(Json("")) : FieldValue(f, r);
  bool empty = v.ok() && ((v->is_string() && v->get<std::string>().empty()) || (v->is_array() && v->empty()));
  if (v.ok() && !empty) {
    agent::Question one;
    one.fields.push_back(f);
    auto checked = agent::CheckAnswer(one, {{f.name, *v}});
    if (!checked.ok()) v = checked.error();
  }
  if (v.ok() && empty && f.required && f.default_value.is_null()) v = Error::Make("an answer is required");
  if (!v.ok()) return Dialog(o, v.error().message);
  if (!empty) o.values[f.name] = *v;
  if (++o.field < o.question.fields.size()) return Dialog(o, "");
  Json values = std::move(o.values);
  open_.erase(it);
  lock.unlock();
  if (auto st = s_.AnswerQuestion(qid, values); !st.ok()) log::Warn("extension_ui_response: " + st.error().message);
  return nullptr;
}

}  // namespace sepp::front::rpc
