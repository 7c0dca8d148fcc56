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
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "app/commands.h"
#include "base/fd.h"
#include "base/paths.h"
#include "base/result.h"
#include "sandbox/defaults.h"
#include "sandbox/policy_toml.h"
#include "sandbox/run.h"

namespace sepp::app {
namespace {

constexpr int kExitRefused = 125;
constexpr int kExitTimedOut = 124;

// Writing the home folder (or a folder above it) lets the command change
// what runs outside the sandbox later: shell start-up files, editor and git
// configuration. Allowed, since running sepp in ~ is legitimate, but said.
void WarnIfWritingHome(const std::string& given, const std::string& path) {
  std::error_code ec;
  auto home = std::filesystem::weakly_canonical(HomeDir(), ec);
  auto p = std::filesystem::weakly_canonical(path, ec);
  if (ec || home.empty() || p == "/") return;  // "/" is refused by the mount plan
  auto rel = home.lexically_relative(p);
  if (rel.empty() || *rel.begin() == "..") return;  // p is not home or above it
  std::fprintf(stderr,
               "sepp sandbox: warning: --allow-write %s lets the command change your home folder (%s): "
               "its shell start-up files (.bashrc, .profile), .gitconfig and the like run outside the sandbox "
               "later. The usual secret files stay hidden. Prefer a narrower folder.\n",
               given.c_str(), home.c_str());
}

void Say(const std::string& text) {
  std::string line = "sepp sandbox: " + text + "\n";
  (void)WriteAll(2, line);
}

const char kUsage[] =
    "Run a command confined by the kernel sandbox: no secrets, no writes outside the\n"
    "workspace, no network unless allowed, nothing outlives it.\n"
    "\n"
    "usage: sepp sandbox [options] [--] CMD ARGS...\n"
    "\n"
    "options (each takes one value; repeat the ones marked ... for more):\n"
    "  --policy FILE         policy file (TOML, see docs/policy.md); default: the\n"
    "                        bash tool's policy for the current folder\n"
    "  --allow-read PATH...  also allow reading this path\n"
    "  --allow-write PATH... also allow reading and writing this path\n"
    "  --net MODE            network: off, proxy or host\n"
    "  --allow-domain D...   reachable through the proxy (implies --net proxy)\n"
    "  --pass-env NAME...    pass this environment variable through\n"
    "  --timeout SECONDS     wall-clock limit\n"
    "  --workspace DIR       the workspace (default: the current folder)\n"
    "  --init                run a minimal init as pid 1 that reaps orphans (for\n"
    "                        long-running programs such as other agents)\n"
    "  -h, --help            this text\n"
    "\n"
    "exit status: the command's; 128+N if signal N ended it; 124 when the time\n"
    "limit stopped it; 125 when the sandbox refused to run it or could not be set\n"
    "up; 2 for a usage error.\n";

struct Args {
  std::string policy_file, net, workspace;
  std::vector<std::string> allow_read, allow_write, allow_domain, pass_env, command;
  double timeout = 0;
  bool init = false;
  bool help = false;
};

// Options come first, each with one value ("--net off" or "--net=off"); the
// command starts after "--" or at the first word that is not an option. A
// hand-written parser: building a CLI11 App cost more than a tenth of a
// millisecond of the command's start-up.
Result<Args> ParseArgs(int argc, char** argv) {
  Args a;
  int i = 1;
  for (; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (arg == "--") {
      ++i;
      break;
    }
    if (arg.size() < 2 || arg[0] != '-') break;  // the command
    if (arg == "-h" || arg == "--help") {
      a.help = true;
      return a;
    }
    if (arg == "--init") {
      a.init = true;
      continue;
    }
    std::string name(arg), value;
    bool has_value = false;
    if (size_t eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name.resize(eq);
      has_value = true;
    }
    std::string* one = nullptr;
    std::vector<std::string>* many = nullptr;
    bool timeout = name == "--timeout";
    if (name == "--policy") one = &a.policy_file;
    else if (name == "--net") one = &a.net;
    else if (name == "--workspace") one = &a.workspace;
    else if (name == "--allow-read") many = &a.allow_read;
    else if (name == "--allow-write") many = &a.allow_write;
    else if (name == "--allow-domain") many = &a.allow_domain;
    else if (name == "--pass-env") many = &a.pass_env;
    else if (!timeout) return Error::Make("unknown option " + name, "usage");
    if (!has_value) {
      if (i + 1 >= argc) return Error::Make(name + " needs a value", "usage");
      value = argv[++i];
    }
    if (value.empty()) return Error::Make(name + " needs a non-empty value", "usage");
    if (many) many->push_back(value);
    if (one) *one = value;
    if (name == "--net" && value != "off" && value != "proxy" && value != "host")
      return Error::Make("--net must be off, proxy or host, not \"" + value + "\"", "usage");
    if (timeout) {
      char* end = nullptr;
      errno = 0;
      a.timeout = std::strtod(value.c_str(), &end);
      if (errno != 0 || end == value.c_str() || *end != '\0' || !std::isfinite(a.timeout) ||
          a.timeout < 0)
        return Error::Make("--timeout takes a number of seconds (0 or more), not \"" + value + "\"",
                           "usage");
    }
  }
  for (; i < argc; ++i) a.command.push_back(argv[i]);
  return a;
}

}  // namespace

int RunSandboxCommand(int argc, char** argv) {
  auto parsed = ParseArgs(argc, argv);
  if (!parsed.ok()) {
    std::fprintf(stderr, "sepp sandbox: %s\n(usage: sepp sandbox [options] -- CMD ARGS...; "
                 "see sepp sandbox --help)\n", parsed.error().message.c_str());
    return 2;
  }
  Args& a = *parsed;
  if (a.help) {
    std::fputs(kUsage, stdout);
    return 0;
  }
  if (a.command.empty()) {
    std::fprintf(stderr, "%s\nsepp sandbox: no command given\n", kUsage);
    return 2;
  }
  std::error_code ec;
  std::filesystem::path cwd = std::filesystem::current_path(ec);
  std::filesystem::path ws = a.workspace.empty() ? cwd : ResolveAgainst(cwd, a.workspace);
  sandbox::Policy policy;
  if (!a.policy_file.empty()) {
    auto p = sandbox::LoadPolicyFile(ResolveAgainst(cwd, a.policy_file), ws);
    if (!p.ok()) {
      Say(p.error().message);
      return kExitRefused;
    }
    policy = std::move(*p);
  } else {
    policy = sandbox::DefaultToolPolicy(ws);
  }
  for (const auto& r : a.allow_read)
    policy.read_roots.push_back(ResolveAgainst(cwd, ExpandUser(r).string()).string());
  for (const auto& w : a.allow_write) {
    std::string p = ResolveAgainst(cwd, ExpandUser(w).string()).string();
    WarnIfWritingHome(w, p);
    policy.read_roots.push_back(p);
    policy.write_roots.push_back(p);
  }
  for (const auto& d : a.allow_domain) policy.allow_domains.push_back(d);
  if (!a.allow_domain.empty() && a.net.empty()) a.net = "proxy";
  if (a.net == "off") policy.net = sandbox::NetMode::kOff;
  if (a.net == "proxy") policy.net = sandbox::NetMode::kProxy;
  if (a.net == "host") policy.net = sandbox::NetMode::kHost;
  if (!a.pass_env.empty()) {
    if (policy.env_allow.empty())
      policy.env_allow = {"PATH", "HOME", "USER", "LOGNAME", "LANG", "LC_ALL", "LC_CTYPE",
                          "TERM", "TZ", "SHELL", "TMPDIR"};
    for (const auto& n : a.pass_env) {
      policy.env_allow.push_back(n);
      policy.env_allow_secrets.push_back(n);  // named explicitly on the command line
    }
  }
  if (a.timeout > 0) policy.limits.timeout_s = a.timeout;

  sandbox::RunSpec spec;
  spec.argv = a.command;
  spec.cwd = cwd;
  spec.inherit_stdio = true;
  spec.init = a.init;
  auto result = sandbox::Run(
      spec, policy, [](std::string_view s) { (void)WriteAll(2, s); }, nullptr);
  if (!result.ok()) {
    Say(result.error().message);
    return kExitRefused;
  }
  for (const auto& d : result->denials) Say(d.text);
  if (result->timed_out) return kExitTimedOut;
  if (result->term_signal) return 128 + result->term_signal;
  return result->exit_code;
}

}  // namespace sepp::app
