#include "front/acp/question_request.h"

namespace sepp::front::acp {

namespace {
constexpr const char* kOptionPrefix = "answer-";
}

std::optional<Json> QuestionPermissionParams(const std::string& session_id, const agent::Question& q) {
  if (q.fields.size() != 1) return std::nullopt;
  const agent::QuestionField& f = q.fields[0];
  if (f.kind != agent::QuestionField::Kind::kChoice || f.multiple || f.options.empty()) return std::nullopt;
  Json options = Json::array();
  for (size_t i = 0; i < f.options.size(); ++i)
    options.push_back({{"optionId", kOptionPrefix + std::to_string(i)},
                       {"name", f.options[i].label},
                       {"kind", "allow_once"}});
  options.push_back({{"optionId", "decline"}, {"name", "Decline"}, {"kind", "reject_once"}});
  std::string text = q.prompt;
  for (const auto& o : f.options)
    if (!o.description.empty()) text += "\n- " + o.label + ": " + o.description;
  Json tool_call = {{"toolCallId", q.call_id.empty() ? q.id : q.call_id},
                    {"title", f.title.empty() ? q.prompt : f.title + ": " + q.prompt},
                    {"kind", "other"},
                    {"status", "pending"},
                    {"content", {{{"type", "content"}, {"content", {{"type", "text"}, {"text", text}}}}}},
                    {"_meta", {{"sepp", {{"question", agent::ToJson(q)}}}}}};
  return Json{{"sessionId", session_id}, {"toolCall", std::move(tool_call)}, {"options", std::move(options)}};
}

std::optional<Json> QuestionValuesFromClient(const agent::Question& q, const Json& result, const Json& error) {
  if (!error.is_null() || !result.is_object() || q.fields.size() != 1) return std::nullopt;
  Json outcome = result.value("outcome", Json());
  if (!outcome.is_object() || outcome.value("outcome", "") != "selected") return std::nullopt;
  const std::string option = outcome.value("optionId", "");
  if (option.rfind(kOptionPrefix, 0) != 0) return std::nullopt;
  const std::string index = option.substr(std::string(kOptionPrefix).size());
  if (index.empty() || index.size() > 4 || index.find_first_not_of("0123456789") != std::string::npos)
    return std::nullopt;
  size_t i = std::stoul(index);
  const agent::QuestionField& f = q.fields[0];
  if (i >= f.options.size()) return std::nullopt;
  return Json{{f.name, f.options[i].label}};
}

}  // namespace sepp::front::acp
