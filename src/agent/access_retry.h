// retry_with_access: the model's way to ask for a specific widening of the
// sandbox after a call was refused (permission_gate.h). The agent offers it
// as a tool whenever a permission gate is configured.
//
// The model names the earlier call (by id) and exactly what it needs —
// domains, paths to write, paths to read — with a justification. The gate
// asks (or answers from grants and flags); if allowed, the same tool runs
// again with the same arguments under the widened policy, once, in its own
// sandbox; the base policy of the session is never changed by a retry.
// Too-broad requests ("*", "/", a bare top-level domain) are refused before
// anyone is asked.
#pragma once
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "agent/permission_gate.h"
#include "base/json.h"
#include "base/result.h"
#include "tools/tool.h"

namespace sepp::agent {

inline constexpr char kRetryWithAccessTool[] = "retry_with_access";

std::string RetryWithAccessDescription();
Json RetryWithAccessParameters();

// What the model asked for, checked: at least one widening, each specific,
// paths absolute (relative ones resolve against cwd), a justification.
struct AccessRequest {
  std::string call_id;
  std::vector<Widening> widenings;
  std::string justification;
};
Result<AccessRequest> ParseAccessRequest(const Json& args, const std::filesystem::path& cwd);

// The calls a retry may name: tool and arguments by call id (the last 512).
class CallMemory {
 public:
  struct Call {
    std::string tool;
    Json args;
    std::vector<sandbox::Denial> denials;
  };
  void Remember(const std::string& id, Call call);
  bool Find(const std::string& id, Call* out) const;

 private:
  mutable std::mutex mu_;
  std::unordered_map<std::string, Call> calls_;
  std::vector<std::string> order_;
};

// "network access to api.example.com, writing to /tmp/x"
std::string DescribeWidenings(const std::vector<Widening>& w);

}  // namespace sepp::agent
