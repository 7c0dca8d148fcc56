// The `question` tool: the model asks the user one to four questions, each
// a choice among options (one, or several with multiSelect; the user may
// always type another answer) or, without options, free text. The input is
// Claude Code's AskUserQuestion ({questions: [{question, header, options:
// [{label, description}], multiSelect}]}), so models trained on it call it
// right the first time. The questions go through the session's ask-the-user
// path (question.h); in a run with no user (-p) the answer is at once "no
// user available", and the model goes on by itself.
#pragma once
#include <memory>

#include "agent/question.h"
#include "tools/tool.h"

namespace sepp::agent {

// asker must outlive the tool (the session's QuestionBroker).
std::unique_ptr<tools::Tool> MakeQuestionTool(QuestionAsker* asker);

// The question a call asks (exposed for tests); the error says what is
// wrong with the arguments.
Result<Question> QuestionFromToolArgs(const Json& args);

}  // namespace sepp::agent
