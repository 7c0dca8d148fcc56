#include "agent/question.h"

#include <cmath>
#include <cstdlib>

namespace sepp::agent {
namespace {

using Kind = QuestionField::Kind;

std::string Shown(const QuestionField& f) { return "\"" + f.name + "\""; }

bool IsOption(const QuestionField& f, const std::string& label) {
  for (const auto& o : f.options)
    if (o.label == label) return true;
  return false;
}

std::string OptionList(const QuestionField& f) {
  std::string out;
  for (const auto& o : f.options) out += (out.empty() ? "" : ", ") + ("\"" + o.label + "\"");
  return out;
}

Result<Json> CheckValue(const QuestionField& f, const Json& v) {
  switch (f.kind) {
    case Kind::kChoice: {
      auto one = [&](const Json& x) -> Status {
        if (!x.is_string()) return Error::Make(Shown(f) + ": a choice is a string (an option's label)", "invalid");
        const std::string s = x.get<std::string>();
        if (IsOption(f, s)) return Ok();
        if (f.allow_other && !s.empty() && s.size() <= 10000) return Ok();
        return Error::Make(Shown(f) + ": \"" + s.substr(0, 80) + "\" is not one of " + OptionList(f),
                           "invalid");
      };
      if (f.multiple) {
        if (!v.is_array()) return Error::Make(Shown(f) + ": several may be picked: send an array of labels", "invalid");
        for (const Json& x : v)
          if (auto st = one(x); !st.ok()) return st.error();
        if (f.required && v.empty()) return Error::Make(Shown(f) + ": pick at least one", "invalid");
        return v;
      }
      if (auto st = one(v); !st.ok()) return st.error();
      return v;
    }
    case Kind::kText:
      if (!v.is_string()) return Error::Make(Shown(f) + ": must be a string", "invalid");
      if (f.max_length && v.get<std::string>().size() > *f.max_length)
        return Error::Make(Shown(f) + ": at most " + std::to_string(*f.max_length) + " characters", "invalid");
      return v;
    case Kind::kNumber:
    case Kind::kInteger: {
      if (!v.is_number()) return Error::Make(Shown(f) + ": must be a number", "invalid");
      double d = v.get<double>();
      if (f.kind == Kind::kInteger && (!std::isfinite(d) || d != std::floor(d)))
        return Error::Make(Shown(f) + ": must be a whole number", "invalid");
      if ((f.minimum && d < *f.minimum) || (f.maximum && d > *f.maximum))
        return Error::Make(Shown(f) + ": out of range", "invalid");
      return v;
    }
    case Kind::kBoolean:
      if (!v.is_boolean()) return Error::Make(Shown(f) + ": must be true or false", "invalid");
      return v;
  }
  return Error::Make(Shown(f) + ": unknown field kind", "invalid");
}

Result<Json> FromString(const QuestionField& f, const std::string& s) {
  switch (f.kind) {
    case Kind::kChoice:
    case Kind::kText:
      return Json(s);
    case Kind::kBoolean:
      if (s == "true" || s == "yes") return Json(true);
      if (s == "false" || s == "no") return Json(false);
      return Error::Make(Shown(f) + ": answer \"true\" or \"false\"", "invalid");
    case Kind::kNumber:
    case Kind::kInteger: {
      char* end = nullptr;
      double d = std::strtod(s.c_str(), &end);
      if (s.empty() || end != s.c_str() + s.size() || !std::isfinite(d))
        return Error::Make(Shown(f) + ": \"" + s.substr(0, 40) + "\" is not a number", "invalid");
      if (f.kind == Kind::kInteger && d == std::floor(d) && std::fabs(d) < 9e15)
        return Json(static_cast<int64_t>(d));
      return Json(d);
    }
  }
  return Error::Make(Shown(f) + ": unknown field kind", "invalid");
}

bool ParseKind(const std::string& s, Kind* out) {
  for (Kind k : {Kind::kChoice, Kind::kText, Kind::kNumber, Kind::kInteger, Kind::kBoolean})
    if (s == ToString(k)) return *out = k, true;
  return false;
}

}  // namespace

const char* ToString(QuestionField::Kind k) {
  switch (k) {
    case Kind::kChoice: return "choice";
    case Kind::kText: return "text";
    case Kind::kNumber: return "number";
    case Kind::kInteger: return "integer";
    case Kind::kBoolean: return "boolean";
  }
  return "text";
}

const char* ToString(QuestionStatus s) {
  switch (s) {
    case QuestionStatus::kAnswered: return "answered";
    case QuestionStatus::kDeclined: return "declined";
    case QuestionStatus::kCancelled: return "cancelled";
  }
  return "declined";
}

Result<Json> CheckAnswer(const Question& q, const Json& values) {
  if (!values.is_object()) return Error::Make("the answer is an object of field name -> value", "invalid");
  for (auto it = values.begin(); it != values.end(); ++it) {
    bool known = false;
    for (const auto& f : q.fields) known = known || f.name == it.key();
    if (!known) return Error::Make("the question has no field \"" + it.key().substr(0, 80) + "\"", "invalid");
  }
  Json out = Json::object();
  for (const auto& f : q.fields) {
    auto it = values.find(f.name);
    if (it == values.end() || it->is_null()) {
      if (!f.default_value.is_null()) out[f.name] = f.default_value;
      else if (f.required) return Error::Make(Shown(f) + " is required", "invalid");
      continue;
    }
    auto v = CheckValue(f, *it);
    if (!v.ok()) return v.error();
    out[f.name] = std::move(v).value();
  }
  return out;
}

Result<Json> ValuesFromStrings(const Question& q, const Json& answers) {
  if (!answers.is_array() || answers.size() > q.fields.size())
    return Error::Make("\"answers\" is an array with one array of strings per field (" +
                           std::to_string(q.fields.size()) + " at most)",
                       "invalid");
  Json values = Json::object();
  for (size_t i = 0; i < answers.size(); ++i) {
    const QuestionField& f = q.fields[i];
    const Json& a = answers[i];
    if (!a.is_array()) return Error::Make("answers[" + std::to_string(i) + "] must be an array of strings", "invalid");
    for (const Json& s : a)
      if (!s.is_string()) return Error::Make("answers[" + std::to_string(i) + "] must be an array of strings", "invalid");
    if (a.empty()) continue;  // not answered: the default, or required
    if (f.kind == Kind::kChoice && f.multiple) {
      values[f.name] = a;
      continue;
    }
    if (a.size() != 1)
      return Error::Make(Shown(f) + " takes one answer, not " + std::to_string(a.size()), "invalid");
    auto v = FromString(f, a[0].get<std::string>());
    if (!v.ok()) return v.error();
    values[f.name] = std::move(v).value();
  }
  return CheckAnswer(q, values);
}

Json ToJson(const QuestionField& f) {
  Json j = {{"name", f.name}, {"kind", ToString(f.kind)}, {"required", f.required}};
  if (!f.title.empty()) j["title"] = f.title;
  if (!f.description.empty()) j["description"] = f.description;
  if (f.kind == Kind::kChoice) {
    Json opts = Json::array();
    for (const auto& o : f.options) {
      Json oj = {{"label", o.label}};
      if (!o.description.empty()) oj["description"] = o.description;
      opts.push_back(std::move(oj));
    }
    j["options"] = std::move(opts);
    j["multiple"] = f.multiple;
    j["allow_other"] = f.allow_other;
  }
  if (!f.default_value.is_null()) j["default"] = f.default_value;
  if (f.minimum) j["minimum"] = *f.minimum;
  if (f.maximum) j["maximum"] = *f.maximum;
  if (f.max_length) j["max_length"] = *f.max_length;
  return j;
}

Json ToJson(const Question& q) {
  Json fields = Json::array();
  for (const auto& f : q.fields) fields.push_back(ToJson(f));
  Json j = {{"id", q.id}, {"prompt", q.prompt}, {"fields", std::move(fields)}, {"source", q.source}};
  if (!q.call_id.empty()) j["call_id"] = q.call_id;
  return j;
}

Json ToJson(const QuestionAnswer& a) {
  Json j = {{"status", ToString(a.status)}, {"source", a.source}};
  if (a.status == QuestionStatus::kAnswered) j["values"] = a.values;
  if (!a.message.empty()) j["message"] = a.message;
  return j;
}

Result<Question> QuestionFromJson(const Json& j) {
  if (!j.is_object() || !j.contains("prompt") || !j["prompt"].is_string() || !j.contains("fields") ||
      !j["fields"].is_array())
    return Error::Make("a question is {prompt, fields[]}", "invalid");
  Question q;
  q.id = j.value("id", std::string());
  q.prompt = j["prompt"].get<std::string>();
  q.source = j.value("source", std::string());
  q.call_id = j.value("call_id", std::string());
  for (const Json& fj : j["fields"]) {
    if (!fj.is_object() || !fj.contains("name") || !fj["name"].is_string())
      return Error::Make("a question field is {name, kind, ...}", "invalid");
    QuestionField f;
    f.name = fj["name"].get<std::string>();
    if (!ParseKind(fj.value("kind", std::string("text")), &f.kind))
      return Error::Make("field \"" + f.name + "\": unknown kind", "invalid");
    f.title = fj.value("title", std::string());
    f.description = fj.value("description", std::string());
    f.required = fj.value("required", false);
    f.multiple = fj.value("multiple", false);
    f.allow_other = fj.value("allow_other", false);
    if (fj.contains("options") && fj["options"].is_array())
      for (const Json& o : fj["options"])
        if (o.is_object() && o.contains("label") && o["label"].is_string())
          f.options.push_back({o["label"].get<std::string>(), o.value("description", std::string())});
    if (fj.contains("default")) f.default_value = fj["default"];
    if (fj.contains("minimum") && fj["minimum"].is_number()) f.minimum = fj["minimum"].get<double>();
    if (fj.contains("maximum") && fj["maximum"].is_number()) f.maximum = fj["maximum"].get<double>();
    if (fj.contains("max_length") && fj["max_length"].is_number_unsigned())
      f.max_length = fj["max_length"].get<size_t>();
    q.fields.push_back(std::move(f));
  }
  return q;
}

QuestionAnswer QuestionRelay::Ask(const Question& question, CancelToken& cancel) {
  QuestionAsker* asker = nullptr;
  {
    std::lock_guard lock(mu_);
    asker = asker_;
    if (asker) ++in_flight_;
  }
  if (!asker) {
    QuestionAnswer a;
    a.source = "no_front_end";
    a.message = "declined: no user is available to answer in this run";
    return a;
  }
  QuestionAnswer a = asker->Ask(question, cancel);
  {
    std::lock_guard lock(mu_);
    --in_flight_;
  }
  cv_.notify_all();
  return a;
}

void QuestionRelay::Attach(QuestionAsker* asker) {
  std::lock_guard lock(mu_);
  asker_ = asker;
}

void QuestionRelay::Detach() {
  std::unique_lock lock(mu_);
  asker_ = nullptr;
  cv_.wait(lock, [&] { return in_flight_ == 0; });
}

}  // namespace sepp::agent
