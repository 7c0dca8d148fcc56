#include "front/serve/agent_catalog.h"

#include <unistd.h>

#include "base/clock.h"
#include "base/file.h"
#include "base/paths.h"
#include "base/strings.h"
#include "base/toml.h"

namespace sepp::front::serve {

namespace fs = std::filesystem;

namespace {

// The default policies, as examples/policies/ID.toml has them (a test
// compares the two). On top of each, the launcher (agent_launch.h) adds the
// agent's private home (read and write, its HOME) and its installation
// (read); "${AGENT_HOME}" in a value is that home.
constexpr const char* kClaudePolicy = R"(# sepp serve's default policy for the external agent "claude"
# (@zed-industries/claude-agent-acp, which runs Claude Code).
#
# On top of this, sepp serve gives the agent a private home (its HOME, with
# ~/.claude in it; read and write) and read access to its installation.
# Change it with [[serve.agents]] name = "claude", policy = "this-file.toml"
# in ~/.sepp/settings.toml (docs/serve.md).
base = "default"

[network]
# Only Anthropic's API, through sepp's filtering proxy.
mode = "proxy"
allow_domains = ["api.anthropic.com"]

[environment]
pass = ["ANTHROPIC_BASE_URL", "ANTHROPIC_MODEL"]
# The one secret it needs; every other secret-looking variable is removed.
pass_secrets = ["ANTHROPIC_API_KEY"]
set = { IS_SANDBOX = "1", DISABLE_TELEMETRY = "1", DISABLE_AUTOUPDATER = "1", DISABLE_ERROR_REPORTING = "1", CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC = "1" }

[limits]
processes = 512
open_files = 4096
)";

constexpr const char* kCodexPolicy = R"(# sepp serve's default policy for the external agent "codex"
# (@zed-industries/codex-acp, which runs Codex).
#
# On top of this, sepp serve gives the agent a private home (its HOME, with
# ~/.codex in it, which is also CODEX_HOME; read and write) and read access
# to its installation. Codex reads its provider from ~/.codex/config.toml
# in that home. sepp starts it with -c sandbox_mode="danger-full-access":
# Codex's own sandbox (bubblewrap) cannot start inside sepp's, which is the
# one that confines it. Change it with [[serve.agents]] name = "codex",
# policy = "this-file.toml" in ~/.sepp/settings.toml (docs/serve.md).
base = "default"

[network]
# Only OpenAI's API, through sepp's filtering proxy.
mode = "proxy"
allow_domains = ["api.openai.com"]

[environment]
pass = ["OPENAI_BASE_URL"]
# The one secret it needs; every other secret-looking variable is removed.
pass_secrets = ["OPENAI_API_KEY"]
set = { CODEX_HOME = "${AGENT_HOME}/.codex" }

[limits]
processes = 512
open_files = 4096
)";

constexpr const char* kPiPolicy = R"(# sepp serve's default policy for the external agent "pi"
# (pi-acp, which drives pi's RPC mode).
#
# On top of this, sepp serve gives the agent a private home (its HOME, with
# ~/.pi in it; read and write) and read access to its installation.
# Change it with [[serve.agents]] name = "pi", policy = "this-file.toml"
# in ~/.sepp/settings.toml (docs/serve.md).
base = "default"

[network]
# Only the providers pi is set up for, through sepp's filtering proxy.
mode = "proxy"
allow_domains = ["api.anthropic.com", "api.openai.com"]

[environment]
pass = ["ANTHROPIC_BASE_URL", "OPENAI_BASE_URL", "PI_CODING_AGENT_DIR"]
pass_secrets = ["ANTHROPIC_API_KEY", "OPENAI_API_KEY"]

[limits]
processes = 512
open_files = 4096
)";

// Each entry of PATH, in order.
std::vector<fs::path> PathDirs(const std::string& path_env) {
  std::vector<fs::path> out;
  for (const auto& d : Split(path_env, ':'))
    if (!d.empty()) out.emplace_back(d);
  return out;
}

bool Executable(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec) && access(p.c_str(), X_OK) == 0;
}

// The npm package a bin link belongs to: node_modules/.bin/X points into
// node_modules/<package>/...; the package root is the first folder upward
// holding a package.json with that name.
void FillPackage(const AgentSpec& spec, AgentLocation* loc) {
  std::error_code ec;
  fs::path real = fs::canonical(loc->program, ec);
  if (ec) return;
  for (fs::path d = real.parent_path(); !d.empty() && d != d.root_path(); d = d.parent_path()) {
    fs::path pj = d / "package.json";
    if (!fs::exists(pj, ec)) continue;
    auto text = ReadBoundedFile(pj, 1 << 20, "package.json");
    if (!text.ok()) return;
    auto j = ParseJson(*text);
    if (!j.ok() || !j->is_object()) return;
    std::string name = j->value("name", "");
    if (spec.package.empty() || name == spec.package) {
      loc->version = j->value("version", "");
      loc->package_root = d;
      // A package's dependencies lie beside it in node_modules (or in its own).
      fs::path nm = d.parent_path();
      if (nm.filename().string().starts_with("@")) nm = nm.parent_path();
      if (nm.filename() == "node_modules") loc->package_root = nm;
      return;
    }
  }
}

std::optional<std::vector<std::string>> Strings(const toml::node* n) {
  if (!n) return std::nullopt;
  const auto* a = n->as_array();
  if (!a) return std::nullopt;
  std::vector<std::string> out;
  for (const auto& e : *a) {
    const auto* s = e.as_string();
    if (!s) return std::nullopt;
    out.push_back(s->get());
  }
  return out;
}

bool ValidAgentId(const std::string& id) {
  if (id.empty() || id.size() > 64) return false;
  for (char c : id)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.')) return false;
  return id != "." && id != "..";
}

}  // namespace

fs::path AgentsDataDir() { return SeppHome() / "agents"; }

std::vector<AgentSpec> BuiltinAgents() {
  std::vector<AgentSpec> out;
  AgentSpec claude;
  claude.id = "claude";
  claude.package = "@zed-industries/claude-agent-acp";
  claude.version = "0.23.1";
  claude.command = {"claude-agent-acp"};
  claude.credentials = {"ANTHROPIC_API_KEY"};
  claude.config_dirs = {".claude"};
  claude.default_policy = kClaudePolicy;
  claude.source = "built in";
  out.push_back(claude);
  AgentSpec codex;
  codex.id = "codex";
  codex.package = "@zed-industries/codex-acp";
  codex.version = "0.16.0";
  // Codex's own sandbox (bubblewrap) cannot make namespaces inside sepp's,
  // so every command would fail; sepp's sandbox is the confinement. Its
  // approvals (permission requests) are unchanged.
  codex.command = {"codex-acp", "-c", "sandbox_mode=\"danger-full-access\""};
  codex.credentials = {"OPENAI_API_KEY"};
  codex.config_dirs = {".codex"};
  codex.default_policy = kCodexPolicy;
  codex.source = "built in";
  out.push_back(codex);
  AgentSpec pi;
  pi.id = "pi";
  pi.package = "pi-acp";
  pi.version = "0.0.34";
  pi.command = {"pi-acp"};
  pi.credentials = {"ANTHROPIC_API_KEY", "OPENAI_API_KEY"};
  pi.config_dirs = {".pi"};
  pi.default_policy = kPiPolicy;
  pi.source = "built in";
  out.push_back(pi);
  return out;
}

Result<std::vector<AgentSpec>> LoadAgentSpecs(const fs::path& settings_file) {
  std::vector<AgentSpec> specs = BuiltinAgents();
  std::error_code ec;
  if (!fs::exists(settings_file, ec)) return specs;
  auto text = ReadBoundedFile(settings_file, kMaxConfigFileBytes, "settings");
  if (!text.ok()) return Error::Make("cannot read " + settings_file.string() + ": " + text.error().message, "usage");
  auto parsed = ParseToml(*text, settings_file.string());
  if (!parsed.ok()) return Error::Make(parsed.error().message, "usage");
  const toml::node* agents = (*parsed)["serve"]["agents"].node();
  if (!agents) return specs;
  const std::string file = settings_file.string();
  auto at = [&](const toml::node& n, const std::string& what) {
    return Error::Make(file + ":" + std::to_string(n.source().begin.line) + ": serve.agents: " + what,
                       "usage");
  };
  const auto* list = agents->as_array();
  if (!list) return at(*agents, "write each agent as a [[serve.agents]] table");
  for (const auto& entry : *list) {
    const auto* t = entry.as_table();
    if (!t) return at(entry, "write each agent as a [[serve.agents]] table");
    for (const auto& [k, v] : *t) {
      std::string key(k.str());
      if (key != "name" && key != "command" && key != "env" && key != "credentials" &&
          key != "allow_domains" && key != "policy")
        return at(v, "unknown key \"" + key +
                         "\" (the keys are name, command, env, credentials, allow_domains, policy)");
    }
    const auto* name_node = t->get("name");
    const auto* name = name_node ? name_node->as_string() : nullptr;
    if (!name || !ValidAgentId(name->get()))
      return at(entry, "each agent needs a name of 1-64 letters, digits, '-', '_' or '.'");
    if (name->get() == "sepp") return at(entry, "\"sepp\" is the built-in agent and cannot be changed here");
    AgentSpec* spec = nullptr;
    for (auto& s : specs)
      if (s.id == name->get()) spec = &s;
    if (!spec) {
      specs.push_back({});
      spec = &specs.back();
      spec->id = name->get();
      spec->default_policy = "base = \"default\"\n";  // no network, no secrets
    }
    spec->source = file;
    if (const auto* n = t->get("command")) {
      auto argv = Strings(n);
      if (!argv || argv->empty() || (*argv)[0].empty())
        return at(*n, spec->id + ".command must be a non-empty list of strings (the program, then its arguments)");
      spec->command = *argv;
      spec->package.clear();  // a command of the user's: not the npm package
    }
    if (spec->command.empty()) return at(entry, spec->id + " needs a command = [\"program\", \"args\"...]");
    struct ListKey {
      const char* key;
      std::vector<std::string>* dst;
    };
    for (ListKey lk : {ListKey{"env", &spec->env}, ListKey{"credentials", &spec->credentials},
                       ListKey{"allow_domains", &spec->allow_domains}}) {
      const auto* n = t->get(lk.key);
      if (!n) continue;
      auto v = Strings(n);
      if (!v) return at(*n, spec->id + "." + lk.key + " must be a list of strings");
      lk.dst->insert(lk.dst->end(), v->begin(), v->end());
    }
    if (const auto* n = t->get("policy")) {
      const auto* s = n->as_string();
      if (!s || s->get().empty()) return at(*n, spec->id + ".policy must be the path of a policy file");
      spec->policy_file = ResolveAgainst(settings_file.parent_path(), ExpandUser(s->get()).string());
    }
  }
  return specs;
}

AgentLocation LocateAgent(const AgentSpec& spec, const fs::path& data_dir, const std::string& path_env) {
  AgentLocation loc;
  if (spec.command.empty()) return loc;
  const std::string& prog = spec.command[0];
  if (prog.find('/') != std::string::npos) {
    loc.program = ExpandUser(prog);
    loc.installed = Executable(loc.program);
  } else {
    fs::path in_data = data_dir / "npm" / "node_modules" / ".bin" / prog;
    if (Executable(in_data)) {
      loc.program = in_data;
      loc.found_in = "data folder";
      loc.installed = true;
    } else {
      for (const auto& d : PathDirs(path_env))
        if (Executable(d / prog)) {
          loc.program = d / prog;
          loc.found_in = "PATH";
          loc.installed = true;
          break;
        }
    }
  }
  if (loc.installed) FillPackage(spec, &loc);
  return loc;
}

AgentCatalog::AgentCatalog(std::vector<AgentSpec> specs, fs::path data_dir, std::string path_env)
    : specs_(std::move(specs)), data_dir_(std::move(data_dir)), path_env_(std::move(path_env)) {}

const AgentSpec* AgentCatalog::Find(const std::string& id) const {
  for (const auto& s : specs_)
    if (s.id == id) return &s;
  return nullptr;
}

void AgentCatalog::Remember(const std::string& id, const std::string& method, const Json& result) {
  std::lock_guard lock(mu_);
  Json& j = seen_[id];
  if (!j.is_object()) j = Json::object();
  j[method == "initialize" ? "initialize" : "sessionNew"] = result;
  j["atMs"] = NowMs();
}

Json AgentCatalog::Remembered(const std::string& id) const {
  std::lock_guard lock(mu_);
  auto it = seen_.find(id);
  return it == seen_.end() ? Json() : it->second;
}

}  // namespace sepp::front::serve
