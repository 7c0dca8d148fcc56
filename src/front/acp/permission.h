// A sepp permission request (a sandbox widening the model asks for, from
// the runtime's gate) as ACP's session/request_permission, and the client's
// answer back as the gate's answer.
#pragma once
#include <filesystem>
#include <string>

#include "agent/permission_gate.h"
#include "base/json.h"

namespace sepp::front::acp {

// params of session/request_permission for the permission.requested event
// data (agent::ToJson(PermissionRequest) plus request_id).
Json PermissionRequestParams(const std::string& session_id, const Json& request,
                             const std::filesystem::path& cwd);

// The client's answer: a JSON-RPC result {outcome: {outcome: "selected",
// optionId} | {outcome: "cancelled"}}, or an error (result null). Anything
// that is not a clear allow is a denial.
agent::PermissionAnswer AnswerFromClient(const Json& result, const Json& error);

}  // namespace sepp::front::acp
