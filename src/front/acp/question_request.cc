#include "front/acp/question_request.h"

namespace sepp::front::acp {

namespace {
constexpr const char* kOptionPrefix = "answer-";
constexpr const char* kAcpLimit =
    "the client is an ACP front end, and ACP can show only a question of one field with a single "
    "choice among listed options";
}  // namespace

std::string WhyAcpCannotAsk(const agent::Question& q) {
  if (q.fields.size() != 1)
    return std::string(kAcpLimit) + "; this one has " + std::to_string(q.fields.size()) + " fields";
  const agent::QuestionField& f = q.fields[0];
  if (f.kind != agent::QuestionField::Kind::kChoice)
    return std::string(kAcpLimit) + "; this one asks for " +
           (f.kind == agent::QuestionField::Kind::kText ? "free text" : "a value") + ", not a choice";
  if (f.options.empty()) return std::string(kAcpLimit) + "; this one lists no options";
  if (f.multiple) return std::string(kAcpLimit) + "; this one lets several options be picked";
  return "";
}

std::optional<Json> QuestionPermissionParams(const std::string& session_id, const agent::Question& q) {
  if (!WhyAcpCannotAsk(q).empty()) return std::nullopt;
  const agent::QuestionField& f = q.fields[0];
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

ClientAnswer QuestionAnswerFromClient(const agent::Question& q, const Json& result, const Json& error) {
  if (!error.is_null()) {
    std::string what = error.is_object() ? error.value("message", "") : error.is_string() ? error.get<std::string>() : "";
    return {std::nullopt, "the ACP client failed to show it" + (what.empty() ? std::string() : " (" + what + ")")};
  }
  const char* bad = "the ACP client answered with something other than one of the options offered";
  if (!result.is_object() || q.fields.size() != 1) return {std::nullopt, bad};
  Json outcome = result.value("outcome", Json());
  if (!outcome.is_object()) return {std::nullopt, bad};
  if (outcome.value("outcome", "") == "cancelled") return {};  // the prompt was cancelled: the user's doing
  if (outcome.value("outcome", "") != "selected") return {std::nullopt, bad};
  const std::string option = outcome.value("optionId", "");
  if (option == "decline") return {};
  if (option.rfind(kOptionPrefix, 0) != 0) return {std::nullopt, bad};
  const std::string index = option.substr(std::string(kOptionPrefix).size());
  if (index.empty() || index.size() > 4 || index.find_first_not_of("0123456789") != std::string::npos)
    return {std::nullopt, bad};
  size_t i = std::stoul(index);
  const agent::QuestionField& f = q.fields[0];
  if (i >= f.options.size()) return {std::nullopt, bad};
  return {Json{{f.name, f.options[i].label}}, ""};
}

}  // namespace sepp::front::acp
