#include "agent/question_tool.h"

#include <set>

namespace sepp::agent {
namespace {

constexpr size_t kMaxQuestions = 4;
constexpr size_t kMaxOptions = 8;  // AskUserQuestion asks for 2-4; a few more do no harm

Result<std::string> Text(const Json& obj, const char* key, size_t max, bool required) {
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) {
    if (required) return Error::Make(std::string("\"") + key + "\" is required", "invalid");
    return std::string();
  }
  if (!it->is_string()) return Error::Make(std::string("\"") + key + "\" must be a string", "invalid");
  std::string s = it->get<std::string>();
  if (required && s.empty()) return Error::Make(std::string("\"") + key + "\" must not be empty", "invalid");
  if (s.size() > max)
    return Error::Make(std::string("\"") + key + "\" is longer than " + std::to_string(max) + " characters",
                       "invalid");
  return s;
}

class QuestionTool : public tools::Tool {
 public:
  explicit QuestionTool(QuestionAsker* asker) : asker_(asker) {}
  std::string name() const override { return "question"; }
  std::string description() const override {
    return "Ask the user 1-4 questions when you need their decision or information you cannot find "
           "yourself (an ambiguous request, a choice between approaches, a preference). Each question "
           "offers 2-4 options (label + description; put a recommended option first with \" "
           "(Recommended)\"); the user can always type another answer. Leave options out for a free-text "
           "answer. Do not ask what you can find out with the other tools. If no user is available "
           "(a headless run), you are told so at once: decide yourself and say what you assumed.";
  }
  Json parameters() const override {
    return Json::parse(R"json({
      "type": "object",
      "properties": {
        "questions": {
          "type": "array", "minItems": 1, "maxItems": 4,
          "description": "The questions to ask, shown together",
          "items": {
            "type": "object",
            "properties": {
              "question": {"type": "string", "description": "The complete question, ending with a question mark"},
              "header": {"type": "string", "description": "A very short label shown as a tag (at most 12 characters)"},
              "options": {
                "type": "array", "minItems": 2, "maxItems": 4,
                "description": "The choices; leave out for a free-text answer",
                "items": {
                  "type": "object",
                  "properties": {
                    "label": {"type": "string", "description": "The choice, 1-5 words"},
                    "description": {"type": "string", "description": "What choosing it means"}
                  },
                  "required": ["label"]
                }
              },
              "multiSelect": {"type": "boolean", "description": "Allow several options to be picked", "default": false}
            },
            "required": ["question"]
          }
        }
      },
      "required": ["questions"]
    })json");
  }
  std::string Summary(const Json& args) const override {
    if (args.is_object() && args.contains("questions") && args["questions"].is_array() &&
        !args["questions"].empty() && args["questions"][0].is_object())
      return "question " + args["questions"][0].value("question", std::string()).substr(0, 80);
    return "question";
  }

  tools::ToolResult Run(const Json& args, tools::ToolContext& ctx) override {
    tools::ToolResult r;
    auto q = QuestionFromToolArgs(args);
    if (!q.ok()) {
      r.is_error = true;
      r.text = "question: " + q.error().message;
      return r;
    }
    q->call_id = ctx.call_id;
    CancelToken local;
    QuestionAnswer a = asker_->Ask(*q, ctx.cancel ? *ctx.cancel : local);
    r.details = {{"answer", ToJson(a)}};
    if (a.status != QuestionStatus::kAnswered) {
      r.is_error = true;
      if (a.source == "no_front_end")
        r.text = "No user is available to answer (this run has no one to ask). Decide yourself, and say "
                 "what you assumed.";
      else if (a.status == QuestionStatus::kCancelled)
        r.text = "The question was cancelled before the user answered.";
      else if (a.source == "front_end")  // the front end could not ask; it says why
        r.text = "The question was not shown to the user: " + a.message + ". Decide yourself, and say what you assumed.";
      else if (a.source == "timeout")
        r.text = "The user did not answer in time (" + a.message + "). Decide yourself, and say what you assumed.";
      else
        r.text = "The user declined to answer these questions.";
      return r;
    }
    std::string text = "The user answered your questions:";
    for (const QuestionField& f : q->fields) {
      auto it = a.values.find(f.name);
      std::string shown;
      if (it == a.values.end()) shown = "(no answer)";
      else if (it->is_string()) shown = it->get<std::string>();
      else if (it->is_array()) {
        for (const Json& v : *it) shown += (shown.empty() ? "" : ", ") + (v.is_string() ? v.get<std::string>() : v.dump());
        if (shown.empty()) shown = "(none)";
      } else shown = it->dump();
      text += "\n\"" + f.name + "\" = \"" + shown + "\"";
    }
    r.text = text + "\nGo on with these answers in mind.";
    return r;
  }

 private:
  QuestionAsker* asker_;
};

}  // namespace

Result<Question> QuestionFromToolArgs(const Json& args) {
  if (!args.is_object() || !args.contains("questions") || !args["questions"].is_array())
    return Error::Make("\"questions\" must be an array of {question, header?, options?, multiSelect?}", "invalid");
  const Json& qs = args["questions"];
  if (qs.empty() || qs.size() > kMaxQuestions)
    return Error::Make("ask 1 to " + std::to_string(kMaxQuestions) + " questions, not " + std::to_string(qs.size()),
                       "invalid");
  Question q;
  q.source = "tool";
  std::set<std::string> seen;
  for (size_t i = 0; i < qs.size(); ++i) {
    const Json& item = qs[i];
    const std::string where = "questions[" + std::to_string(i) + "]";
    if (!item.is_object()) return Error::Make(where + " must be an object", "invalid");
    auto text = Text(item, "question", 2000, true);
    if (!text.ok()) return Error::Make(where + ": " + text.error().message, "invalid");
    auto header = Text(item, "header", 60, false);
    if (!header.ok()) return Error::Make(where + ": " + header.error().message, "invalid");
    if (!seen.insert(*text).second) return Error::Make(where + " repeats an earlier question", "invalid");
    QuestionField f;
    f.name = *text;
    f.title = *header;
    f.description = *text;
    f.required = true;
    auto opts = item.find("options");
    if (opts != item.end() && !opts->is_null()) {
      if (!opts->is_array()) return Error::Make(where + ": \"options\" must be an array", "invalid");
      if (opts->size() == 1 || opts->size() > kMaxOptions)
        return Error::Make(where + ": give 2 to 4 options, or none for a free-text answer", "invalid");
      std::set<std::string> labels;
      for (const Json& o : *opts) {
        QuestionOption option;
        if (o.is_string()) {  // a model's shorthand: plain labels
          option.label = o.get<std::string>();
        } else if (o.is_object()) {
          auto label = Text(o, "label", 200, true);
          if (!label.ok()) return Error::Make(where + ": an option: " + label.error().message, "invalid");
          auto desc = Text(o, "description", 1000, false);
          if (!desc.ok()) return Error::Make(where + ": an option: " + desc.error().message, "invalid");
          option.label = *label;
          option.description = *desc;
        } else {
          return Error::Make(where + ": an option is {label, description}", "invalid");
        }
        if (option.label.empty() || !labels.insert(option.label).second)
          return Error::Make(where + ": option labels must be non-empty and different", "invalid");
        f.options.push_back(std::move(option));
      }
    }
    if (!f.options.empty()) {
      f.kind = QuestionField::Kind::kChoice;
      f.allow_other = true;
      auto multi = item.find("multiSelect");
      if (multi != item.end() && !multi->is_null()) {
        if (!multi->is_boolean()) return Error::Make(where + ": \"multiSelect\" must be true or false", "invalid");
        f.multiple = multi->get<bool>();
      }
    } else {
      f.kind = QuestionField::Kind::kText;
      f.max_length = 10000;
    }
    q.fields.push_back(std::move(f));
  }
  q.prompt = q.fields.size() == 1 ? q.fields[0].description : "The agent has " + std::to_string(q.fields.size()) + " questions";
  return q;
}

std::unique_ptr<tools::Tool> MakeQuestionTool(QuestionAsker* asker) {
  return std::make_unique<QuestionTool>(asker);
}

}  // namespace sepp::agent
