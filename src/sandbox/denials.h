// Denials in plain words: after a sandboxed command ends, look at how it
// ended and at the tail of its output for the tell-tale errors of a policy
// refusal, and explain each once ("network access is off for this command:
// the net capability was not granted"). Heuristic by nature: it explains
// likely causes, it does not invent refusals for commands that succeeded.
// Each explanation is typed here, where its cause is known (denial.h).
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "sandbox/denial.h"
#include "sandbox/policy.h"

namespace sepp::sandbox {

struct RunFacts {
  int exit_code = 0;
  int term_signal = 0;
  bool timed_out = false;
  double timeout_s = 0;
  uint64_t refused_forks = 0;  // from the pids cgroup, when one was used
};

std::vector<Denial> ExplainDenials(const Policy& policy, const RunFacts& facts,
                                   std::string_view output_tail);

}  // namespace sepp::sandbox
