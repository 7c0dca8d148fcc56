// MCP elicitation (form mode) on sepp's ask-the-user path (agent/question.h):
// a server's elicitation/create becomes a Question with one field per
// property of its requestedSchema (string, number, integer, boolean, a
// single-select enum, a multi-select array), answered by whichever front end
// is attached. The answer is sent back with the schema's defaults for every
// field the user left out (SEP-1034). Accepted -> "accept" with content;
// declined, timed out, or no front end -> "decline"; cancelled -> "cancel".
// URL mode and schemas outside the spec's flat primitive subset are
// declined (with the reason in sepp's log).
#pragma once
#include <string>

#include "agent/question.h"
#include "base/json.h"
#include "base/result.h"

namespace sepp::ext::mcp {

// The question params ask; the error says which property is unsupported.
Result<agent::Question> QuestionFromElicitation(const std::string& server, const Json& params);
// The elicitation/create result for answer.
Json ElicitationResult(const agent::QuestionAnswer& answer);
// Asks and answers: the handler ClientHooks::on_elicitation wants. why (may
// be null) gets the reason of a decline sepp made itself.
Json Elicit(agent::QuestionAsker& asker, const std::string& server, const Json& params,
            std::string* why = nullptr);

}  // namespace sepp::ext::mcp
