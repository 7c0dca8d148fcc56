#include "front/tui/policy_summary.h"

namespace sepp::front::tui {
namespace {

std::string List(const std::vector<std::string>& items, size_t max = 8) {
  if (items.empty()) return "none";
  std::string out;
  for (size_t i = 0; i < items.size() && i < max; ++i) out += (i ? ", " : "") + items[i];
  if (items.size() > max) out += ", \u2026 " + std::to_string(items.size() - max) + " more";
  return out;
}

}  // namespace

std::string PolicySummary(const sandbox::Policy& policy, const std::vector<runtime::PermissionGrant>& grants) {
  std::string out;
  if (!policy.enabled) {
    out += "sandbox: OFF (--sandbox off): the model's commands run unconfined, with your rights\n";
  } else {
    out += "sandbox: on (Landlock, namespaces, seccomp); the model's commands may\n";
    out += "  read:  " + List(policy.read_roots) + "\n";
    out += "  write: " + List(policy.write_roots) + "\n";
    if (!policy.protected_paths.empty()) out += "  not write (protected): " + List(policy.protected_paths) + "\n";
    if (!policy.deny_paths.empty()) out += "  not see: " + List(policy.deny_paths) + "\n";
    switch (policy.net) {
      case sandbox::NetMode::kOff: out += "  network: none\n"; break;
      case sandbox::NetMode::kProxy: out += "  network: through the proxy, to " + List(policy.allow_domains) + "\n"; break;
      case sandbox::NetMode::kHost: out += "  network: the host's, unfiltered\n"; break;
    }
  }
  std::vector<std::string> project, session;
  for (const auto& g : grants)
    (g.for_project ? project : session).push_back(std::string(agent::ToString(g.widening.kind)) + " " + g.widening.target);
  out += "granted for this project (asked once, kept): " + List(project, 20) + "\n";
  out += "granted for this session: " + List(session, 20);
  if (!session.empty()) out += "\n(/permissions revoke KIND TARGET withdraws one; /permissions alone picks it)";
  return out;
}

}  // namespace sepp::front::tui
