#include "runtime/project_trust_prompt.h"

namespace sepp::runtime {
namespace {

// What a keyed file is, in the words the front ends show.
std::string DetailOf(const std::string& rel) {
  auto under = [&](const char* dir) { return rel.rfind(dir, 0) == 0; };
  if (under(".sepp/hooks/")) return rel.size() > 4 && rel.ends_with(".lua") ? "lua-hook" : "hook file";
  if (rel == ".sepp/hooks.json" || rel == ".claude/settings.json") return "hooks-json";
  if (under(".claude/hooks/")) return "hook script";
  if (under(".sepp/plugins/")) return "plugin";
  if (rel == ".sepp/mcp.toml" || rel == ".mcp.json") return "mcp-servers";
  if (under(".sepp/agents/") || under(".claude/agents/")) return "agent definition";
  if (rel == ".sepp/policy.toml") return "sandbox policy";
  if (rel == ".sepp/settings.toml") return "settings";
  return "configuration";
}

}  // namespace

bool ProjectTrustNeeded(const ProjectConfig& config, bool extensions) {
  if (!config.problem.empty() || !HasProjectCode(config, extensions)) return false;
  TrustState s = ProjectTrustOf(config);
  return s == TrustState::kUntrusted || s == TrustState::kChanged;
}

agent::PermissionRequest ProjectTrustRequest(const ProjectConfig& config) {
  agent::PermissionRequest r;
  r.kind = agent::RequestKind::kProjectTrust;
  r.subject = config.root.string();
  for (size_t i = 0; i < config.files.size(); ++i) {
    std::string rel = config.files[i].lexically_relative(config.root).string();
    r.items.push_back({config.files[i].string(),
                       i < config.file_hashes.size() ? config.file_hashes[i] : "", DetailOf(rel),
                       {}});
  }
  r.justification = (ProjectTrustOf(config) == TrustState::kChanged
                         ? "This project's configuration changed since you trusted it. "
                         : "This project carries code of its own. ") +
                    std::string("Allow runs its hooks from this prompt on (plugins and MCP servers "
                                "from the next session) and remembers this exact content; any "
                                "change asks again. Deny runs none of it.");
  return r;
}

ProjectTrustOutcome SettleProjectTrust(const ProjectConfig& asked,
                                       const agent::PermissionAnswer& answer) {
  ProjectTrustOutcome out;
  const std::string root = asked.root.string();
  if (!agent::IsAllow(answer.choice)) {
    std::string why = answer.source == "timeout"
                          ? "no answer came to the trust question"
                          : answer.source == "cancelled" ? "the trust question was cancelled"
                                                         : "the user denied trust in a session";
    (void)RecordProjectRefusal(asked, why);
    out.note = "the project's code does not run: " + why + " (review the files and run `sepp trust " +
               root + "` to trust it)";
    return out;
  }
  ProjectConfig now = ReadProjectConfig(asked.root);
  if (now.key != asked.key || !now.problem.empty()) {
    out.note = "the project's configuration changed while you were asked: nothing was trusted and "
               "its code does not run; the next session asks again";
    return out;
  }
  if (auto st = TrustProject(now); !st.ok()) {
    out.note = "cannot record the trust: " + st.error().message + "; the project's code does not run";
    return out;
  }
  out.trusted = true;
  out.note = "trusted the project " + root + " as it is now (" + std::to_string(now.files.size()) +
             " file" + (now.files.size() == 1 ? "" : "s") + ")";
  return out;
}

}  // namespace sepp::runtime
