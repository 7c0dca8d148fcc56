// A sepp question (agent/question.h) over ACP, which has no elicitation in
// v1: a question of one single choice is asked as session/request_permission
// with its options (kind allow_once, one per option) and a "Decline"
// (reject_once); the picked option is the answer. Any other question (free
// text, several fields, a multiple choice) cannot be asked in ACP and is
// declined at once, and the model reads why: the client cannot show it, not
// that the user said no (docs/acp.md).
#pragma once
#include <optional>
#include <string>

#include "agent/question.h"
#include "base/json.h"

namespace sepp::front::acp {

// Why ACP cannot ask q ("" when it can), in words the model reads.
std::string WhyAcpCannotAsk(const agent::Question& q);

// params of session/request_permission for q, or none when ACP cannot ask it.
std::optional<Json> QuestionPermissionParams(const std::string& session_id, const agent::Question& q);

// What the client's answer to those params means: the values to answer q
// with; or a decline, by the user (why empty: "Decline" picked, the prompt
// cancelled) or by the client (why says what went wrong: an error, an
// option that was not offered).
struct ClientAnswer {
  std::optional<Json> values;
  std::string why;
};
ClientAnswer QuestionAnswerFromClient(const agent::Question& q, const Json& result, const Json& error);

}  // namespace sepp::front::acp
