// A sepp question (agent/question.h) over ACP, which has no elicitation in
// v1: a question of one single choice is asked as session/request_permission
// with its options (kind allow_once, one per option) and a "Decline"
// (reject_once); the picked option is the answer. Any other question (free
// text, several fields, a multiple choice) cannot be asked in ACP and is
// declined at once; the model reads that no answer came (docs/acp.md).
#pragma once
#include <optional>
#include <string>

#include "agent/question.h"
#include "base/json.h"

namespace sepp::front::acp {

// params of session/request_permission for q, or none when ACP cannot ask it.
std::optional<Json> QuestionPermissionParams(const std::string& session_id, const agent::Question& q);

// The client's answer to those params: the values to answer q with, or none
// (dismissed, an error, an option that was not offered): decline.
std::optional<Json> QuestionValuesFromClient(const agent::Question& q, const Json& result, const Json& error);

}  // namespace sepp::front::acp
