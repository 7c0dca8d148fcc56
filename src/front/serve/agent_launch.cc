#include "front/serve/agent_launch.h"

#include <algorithm>

#include "base/paths.h"
#include "base/strings.h"
#include "sandbox/policy_toml.h"
#include "sandbox/proxy.h"

namespace sepp::front::serve {

namespace fs = std::filesystem;

namespace {

void ReplaceAll(std::string* s, const std::string& from, const std::string& to) {
  for (size_t at = s->find(from); at != std::string::npos; at = s->find(from, at + to.size()))
    s->replace(at, from.size(), to);
}

void AddUnique(std::vector<std::string>* v, const std::string& s) {
  if (std::find(v->begin(), v->end(), s) == v->end()) v->push_back(s);
}

}  // namespace

Result<sandbox::Policy> AgentPolicy(const AgentSpec& spec, const AgentLocation& where,
                                    const fs::path& data_dir, const std::vector<fs::path>& workspaces) {
  if (workspaces.empty()) return Error::Make("the server has no workspace", "usage");
  const fs::path& workspace = workspaces[0];
  auto parsed = spec.policy_file.empty()
                    ? sandbox::ParsePolicyToml(spec.default_policy, "the built-in policy of " + spec.id,
                                               workspace)
                    : sandbox::LoadPolicyFile(spec.policy_file, workspace);
  if (!parsed.ok()) return parsed.error();
  sandbox::Policy p = std::move(*parsed);
  const fs::path home = data_dir / "home" / spec.id;
  std::error_code ec;
  fs::create_directories(home, ec);
  if (ec) return Error::Make("cannot make the home of agent " + spec.id + " (" + home.string() + "): " + ec.message());
  for (const auto& d : spec.config_dirs) fs::create_directories(home / d, ec);

  // sepp's folder is denied whole by the defaults; the agent's own parts
  // of it are shown instead (a mask over the folder would hide them too).
  // The rest stays out of reach: no read root contains it.
  const std::string sepp_home = SeppHome().string();
  std::erase(p.deny_paths, sepp_home);
  for (size_t i = 1; i < workspaces.size(); ++i) {
    AddUnique(&p.read_roots, workspaces[i].string());
    AddUnique(&p.write_roots, workspaces[i].string());
  }
  AddUnique(&p.read_roots, home.string());
  AddUnique(&p.write_roots, home.string());
  if (!where.package_root.empty()) AddUnique(&p.read_roots, where.package_root.string());
  else if (!where.program.empty()) AddUnique(&p.read_roots, where.program.parent_path().string());

  p.env_set["HOME"] = home.string();
  for (auto& [name, value] : p.env_set) ReplaceAll(&value, "${AGENT_HOME}", home.string());
  for (const auto& e : spec.env) {
    size_t eq = e.find('=');
    if (eq == std::string::npos) AddUnique(&p.env_allow, e);
    else p.env_set[e.substr(0, eq)] = e.substr(eq + 1);
  }
  for (const auto& c : spec.credentials) AddUnique(&p.env_allow_secrets, c);
  if (!spec.allow_domains.empty()) {
    auto extra = sandbox::NormalizeAllowlist(spec.allow_domains);
    if (!extra.ok())
      return Error::Make("agent " + spec.id + " (" + spec.source + "): " + extra.error().message, "usage");
    for (const auto& d : *extra) AddUnique(&p.allow_domains, d);
    if (p.net == sandbox::NetMode::kOff) p.net = sandbox::NetMode::kProxy;
  }
  return p;
}

Result<std::unique_ptr<sandbox::HeldChild>> LaunchAgent(const AgentCatalog& catalog,
                                                        const AgentSpec& spec,
                                                        const std::vector<fs::path>& workspaces,
                                                        bool unconfined) {
  AgentLocation where = catalog.Locate(spec);
  if (!where.installed) {
    std::string how = spec.package.empty()
                          ? "check the command of [[serve.agents]] name = \"" + spec.id + "\" (" + spec.source + ")"
                          : "run `sepp serve install-agent " + spec.id + "` (or POST /v1/agents/" + spec.id +
                                "/install), or put " + spec.command[0] + " on the server's PATH";
    return Error::Make("agent " + spec.id + " is not installed: " + spec.command[0] +
                           " is neither in " + (catalog.data_dir() / "npm").string() +
                           " nor on PATH; " + how,
                       "not_installed");
  }
  auto policy = AgentPolicy(spec, where, catalog.data_dir(), workspaces);
  if (!policy.ok()) return policy.error();
  if (unconfined) policy->enabled = false;
  sandbox::HeldSpec hs;
  hs.argv = spec.command;
  hs.argv[0] = where.program.string();
  hs.cwd = workspaces.at(0);
  auto child = sandbox::HeldChild::Start(hs, *policy);
  if (!child.ok())
    return Error::Make("cannot start agent " + spec.id + ": " + child.error().message, child.error().kind);
  return child;
}

}  // namespace sepp::front::serve
