// What /permissions shows: the tools' sandbox policy in effect (what the
// model's commands may read, write and reach) and the grants the
// permission gate answers with, the project's and this session's.
#pragma once
#include <string>
#include <vector>

#include "runtime/agent_session.h"
#include "sandbox/policy.h"

namespace sepp::front::tui {

// Plain text, one line a fact (the UI sanitizes it when it shows it).
std::string PolicySummary(const sandbox::Policy& policy, const std::vector<runtime::PermissionGrant>& grants);

}  // namespace sepp::front::tui
