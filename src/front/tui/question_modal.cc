#include "front/tui/question_modal.h"

#include <algorithm>

#include "base/strings.h"

namespace sepp::front::tui {
namespace {

using Kind = agent::QuestionField::Kind;

constexpr Style kTitleStyle{.fg = 4, .bold = true};
constexpr Style kDimStyle{.dim = true};
constexpr Style kSelectedStyle{.inverse = true};
constexpr Style kProblemStyle{.fg = 1};

std::string Shown(const Json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

}  // namespace

void QuestionModal::Open(const runtime::PendingQuestion& pending) {
  if (pending.question.fields.empty()) return;
  for (const auto& p : queue_)
    if (p.question.id == pending.question.id) return;
  queue_.push_back(pending);
  if (queue_.size() == 1) {
    field_ = 0;
    values_ = Json::object();
    ResetField();
  }
}

void QuestionModal::Drop(const std::string& question_id) {
  auto it = std::find_if(queue_.begin(), queue_.end(),
                         [&](const auto& p) { return p.question.id == question_id; });
  if (it == queue_.end()) return;
  bool current = it == queue_.begin();
  queue_.erase(it);
  if (current) {
    field_ = 0;
    values_ = Json::object();
    ResetField();
  }
}

void QuestionModal::ResetField() {
  selected_ = 0;
  picked_.clear();
  typed_.clear();
  problem_.clear();
  if (queue_.empty()) return;
  const auto& f = field();
  if (f.kind == Kind::kBoolean && f.default_value == false) selected_ = 1;
  if (f.kind == Kind::kChoice && f.default_value.is_string())
    for (size_t i = 0; i < f.options.size(); ++i)
      if (f.options[i].label == f.default_value.get<std::string>()) selected_ = i;
}

size_t QuestionModal::Rows() const {
  const auto& f = field();
  if (f.kind == Kind::kChoice) return f.options.size();
  if (f.kind == Kind::kBoolean) return 2;
  return 0;
}

std::optional<QuestionModal::Answer> QuestionModal::Finish(bool declined) {
  Answer a{queue_.front().question.id, declined, declined ? Json::object() : values_};
  queue_.erase(queue_.begin());
  field_ = 0;
  values_ = Json::object();
  ResetField();
  return a;
}

std::optional<QuestionModal::Answer> QuestionModal::Take(std::optional<Json> v) {
  const auto& f = field();
  if (v) {
    agent::Question one;
    one.fields.push_back(f);
    auto checked = agent::CheckAnswer(one, {{f.name, *v}});
    if (!checked.ok()) {
      problem_ = checked.error().message;
      return std::nullopt;
    }
    values_[f.name] = *v;
  } else if (!f.default_value.is_null()) {
    values_[f.name] = f.default_value;
  } else if (f.required) {
    problem_ = "an answer is required (Esc declines the question)";
    return std::nullopt;
  }
  if (++field_ < queue_.front().question.fields.size()) {
    ResetField();
    return std::nullopt;
  }
  return Finish(false);
}

std::optional<QuestionModal::Answer> QuestionModal::Handle(const InputEvent& e) {
  if (queue_.empty()) return std::nullopt;
  const auto& f = field();
  const bool types = f.kind == Kind::kText || f.kind == Kind::kNumber || f.kind == Kind::kInteger ||
                     (f.kind == Kind::kChoice && f.allow_other);
  if (e.type == InputEvent::Type::kPaste) {
    if (types) typed_ += SanitizeUtf8(e.text.substr(0, 10000));
    return std::nullopt;
  }
  const size_t rows = Rows();
  switch (e.key) {
    case Key::kEscape: return Finish(true);
    case Key::kUp:
      if (rows) selected_ = (selected_ + rows - 1) % rows;
      return std::nullopt;
    case Key::kDown:
    case Key::kTab:
      if (rows) selected_ = (selected_ + 1) % rows;
      return std::nullopt;
    case Key::kBackspace:
      if (!typed_.empty()) {
        size_t cut = typed_.size() - 1;
        while (cut > 0 && (static_cast<unsigned char>(typed_[cut]) & 0xC0) == 0x80) --cut;
        typed_.erase(cut);
      }
      return std::nullopt;
    case Key::kEnter: {
      problem_.clear();
      if (f.kind == Kind::kBoolean) return Take(Json(selected_ == 0));
      if (f.kind == Kind::kChoice && !typed_.empty()) {
        return Take(f.multiple ? Json::array({typed_}) : Json(typed_));
      }
      if (f.kind == Kind::kChoice && f.multiple) {
        Json picked = Json::array();
        for (size_t i : picked_) picked.push_back(f.options[i].label);
        if (picked.empty()) return Take(std::nullopt);
        return Take(picked);
      }
      if (f.kind == Kind::kChoice) return Take(Json(f.options[selected_].label));
      if (typed_.empty()) return Take(std::nullopt);
      if (f.kind == Kind::kText) return Take(Json(typed_));
      agent::Question one;
      one.fields.push_back(f);
      auto v = agent::ValuesFromStrings(one, Json::array({Json::array({typed_})}));
      if (!v.ok()) {
        problem_ = v.error().message;
        return std::nullopt;
      }
      return Take((*v)[f.name]);
    }
    case Key::kChar: break;
    default: return std::nullopt;
  }
  if (e.mods & (kCtrl | kAlt)) return std::nullopt;
  const char32_t c = e.codepoint;
  if (f.kind == Kind::kBoolean) {
    if (c == 'y') return Take(Json(true));
    if (c == 'n') return Take(Json(false));
    return std::nullopt;
  }
  if (f.kind == Kind::kChoice && typed_.empty()) {
    if (f.multiple && c == ' ') {
      if (!picked_.erase(selected_)) picked_.insert(selected_);
      return std::nullopt;
    }
    if (!f.multiple && c >= '1' && c <= '9' && static_cast<size_t>(c - '1') < f.options.size())
      return Take(Json(f.options[c - '1'].label));
  }
  if (types && c >= 0x20 && c != 0x7f && typed_.size() < 10000) AppendUtf8(c, &typed_);
  return std::nullopt;
}

std::vector<Line> QuestionModal::Render() const {
  std::vector<Line> out;
  if (queue_.empty()) return out;
  const agent::Question& q = queue_.front().question;
  const auto& f = field();
  std::string title = "Question" + std::string(q.source.rfind("mcp:", 0) == 0 ? " from MCP server " + q.source.substr(4) : "");
  if (queue_.size() > 1) title += " (1 of " + std::to_string(queue_.size()) + ")";
  out.push_back(Line{}.Add(Sanitize(title), kTitleStyle));
  for (auto& l : LinesFromText("  " + q.prompt)) out.push_back(std::move(l));
  std::string head = f.title.empty() ? f.name : f.title;
  if (!f.description.empty() && f.description != q.prompt && f.description != head) head += ": " + f.description;
  if (q.fields.size() > 1)
    head = "(" + std::to_string(field_ + 1) + "/" + std::to_string(q.fields.size()) + ") " + head;
  if (q.fields.size() > 1 || head != q.prompt) out.push_back(Line{}.Add("  " + Sanitize(head)));
  if (f.kind == Kind::kChoice) {
    for (size_t i = 0; i < f.options.size(); ++i) {
      Line l;
      bool here = i == selected_ && typed_.empty();
      l.Add(here ? " \u203a " : "   ");
      std::string mark = f.multiple ? (picked_.count(i) ? "[x] " : "[ ] ") : std::to_string(i + 1) + ". ";
      l.Add(Sanitize(mark + f.options[i].label), here ? kSelectedStyle : Style{});
      if (!f.options[i].description.empty()) l.Add(Sanitize("  " + f.options[i].description), kDimStyle);
      out.push_back(std::move(l));
    }
  } else if (f.kind == Kind::kBoolean) {
    for (size_t i = 0; i < 2; ++i) {
      Line l;
      l.Add(i == selected_ ? " \u203a " : "   ");
      l.Add(i == 0 ? "yes" : "no", i == selected_ ? kSelectedStyle : Style{});
      out.push_back(std::move(l));
    }
  }
  const bool types = f.kind == Kind::kText || f.kind == Kind::kNumber || f.kind == Kind::kInteger ||
                     (f.kind == Kind::kChoice && f.allow_other);
  if (types) {
    Line l;
    l.Add(f.kind == Kind::kChoice ? "  or type: " : "  > ", kDimStyle).Add(Sanitize(typed_)).Add("\u2588", kDimStyle);
    if (typed_.empty() && !f.default_value.is_null()) l.Add(Sanitize("  (Enter: " + Shown(f.default_value) + ")"), kDimStyle);
    out.push_back(std::move(l));
  }
  if (!problem_.empty()) out.push_back(Line{}.Add("  " + Sanitize(problem_), kProblemStyle));
  std::string hint = f.kind == Kind::kChoice
                         ? (f.multiple ? "  Up/Down, Space to pick, Enter to answer" : "  1-9 or Up/Down and Enter")
                     : f.kind == Kind::kBoolean ? "  y/n or Up/Down and Enter"
                                                : "  type, Enter to answer";
  out.push_back(Line{}.Add(hint + ", Esc declines", kDimStyle));
  return out;
}

}  // namespace sepp::front::tui
