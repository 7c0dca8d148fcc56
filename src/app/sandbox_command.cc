// `sepp sandbox [options] [--] CMD ARGS...`: run any command (another agent,
// a build, a script) under a sandbox policy.
//
// The policy is the built-in tool default for the current folder, or
// --policy FILE, then widened by the flags. The command keeps the terminal
// (stdin and stdout); its stderr passes through sepp, which explains any
// refusal in plain words afterwards ("sepp sandbox: network access is off
// ..."). Exit status: the command's own; 128+N if a signal ended it;
// 124 when the sandbox's time limit stopped it; 125 when the sandbox refused
// to run it or could not be set up (the message says why).
#include <CLI/CLI.hpp>

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "app/commands.h"
#include "base/fd.h"
#include "base/paths.h"
#include "sandbox/defaults.h"
#include "sandbox/policy_toml.h"
#include "sandbox/run.h"

namespace sepp::app {
namespace {

constexpr int kExitRefused = 125;
constexpr int kExitTimedOut = 124;

void Say(const std::string& text) {
  std::string line = "sepp sandbox: " + text + "\n";
  (void)WriteAll(2, line);
}

}  // namespace

int RunSandboxCommand(int argc, char** argv) {
  CLI::App app{"Run a command confined by the kernel sandbox: no secrets, no writes outside the "
               "workspace, no network unless allowed, nothing outlives it.",
               "sepp sandbox"};
  std::string policy_file, net, workspace;
  std::vector<std::string> allow_read, allow_write, allow_domain, pass_env;
  double timeout = 0;
  bool init = false;
  app.add_option("--policy", policy_file, "policy file (TOML, see docs/policy.md)");
  app.add_option("--allow-read", allow_read, "also allow reading this path")->take_all();
  app.add_option("--allow-write", allow_write, "also allow writing this path")->take_all();
  app.add_option("--net", net, "network: off, proxy or host")
      ->check(CLI::IsMember({"off", "proxy", "host"}));
  app.add_option("--allow-domain", allow_domain, "reachable through the proxy (implies --net proxy)")
      ->take_all();
  app.add_option("--pass-env", pass_env, "pass this environment variable through")->take_all();
  app.add_option("--timeout", timeout, "wall-clock limit in seconds")->check(CLI::NonNegativeNumber);
  app.add_option("--workspace", workspace, "the workspace (default: the current folder)");
  app.add_flag("--init", init,
               "run a minimal init as pid 1 that reaps orphans (for long-running programs "
               "such as other agents)");
  app.prefix_command();
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  std::vector<std::string> command = app.remaining();
  if (!command.empty() && command.front() == "--") command.erase(command.begin());
  if (command.empty()) {
    std::fprintf(stderr, "%s", app.help().c_str());
    std::fprintf(stderr, "\nsepp sandbox: no command given (usage: sepp sandbox [options] -- CMD ARGS...)\n");
    return 2;
  }

  std::error_code ec;
  std::filesystem::path cwd = std::filesystem::current_path(ec);
  std::filesystem::path ws = workspace.empty() ? cwd : ResolveAgainst(cwd, workspace);
  sandbox::Policy policy;
  if (!policy_file.empty()) {
    auto p = sandbox::LoadPolicyFile(ResolveAgainst(cwd, policy_file), ws);
    if (!p.ok()) {
      Say(p.error().message);
      return kExitRefused;
    }
    policy = std::move(*p);
  } else {
    policy = sandbox::DefaultToolPolicy(ws);
  }
  for (const auto& r : allow_read) policy.read_roots.push_back(ResolveAgainst(cwd, ExpandUser(r).string()).string());
  for (const auto& w : allow_write) {
    std::string p = ResolveAgainst(cwd, ExpandUser(w).string()).string();
    policy.read_roots.push_back(p);
    policy.write_roots.push_back(p);
  }
  for (const auto& d : allow_domain) policy.allow_domains.push_back(d);
  if (!allow_domain.empty() && net.empty()) net = "proxy";
  if (net == "off") policy.net = sandbox::NetMode::kOff;
  if (net == "proxy") policy.net = sandbox::NetMode::kProxy;
  if (net == "host") policy.net = sandbox::NetMode::kHost;
  if (!pass_env.empty()) {
    if (policy.env_allow.empty())
      policy.env_allow = {"PATH", "HOME", "USER", "LOGNAME", "LANG", "LC_ALL", "LC_CTYPE",
                          "TERM", "TZ", "SHELL", "TMPDIR"};
    for (const auto& n : pass_env) {
      policy.env_allow.push_back(n);
      policy.env_allow_secrets.push_back(n);  // named explicitly on the command line
    }
  }
  if (timeout > 0) policy.limits.timeout_s = timeout;

  sandbox::RunSpec spec;
  spec.argv = command;
  spec.cwd = cwd;
  spec.inherit_stdio = true;
  spec.init = init;
  std::string tail;
  auto result = sandbox::Run(
      spec, policy,
      [&](std::string_view s) {
        (void)WriteAll(2, s);
      },
      nullptr);
  if (!result.ok()) {
    Say(result.error().message);
    return kExitRefused;
  }
  for (const auto& d : result->denials) Say(d);
  if (result->timed_out) return kExitTimedOut;
  if (result->term_signal) return 128 + result->term_signal;
  return result->exit_code;
}

}  // namespace sepp::app
