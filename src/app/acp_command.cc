// `sepp --acp`: sepp as an Agent Client Protocol agent on stdin/stdout, for
// editors (Zed, ...) and ACP hosts (sandbox-agent). Only wiring: the
// protocol is front/acp, the sessions are runtime::AgentSession.
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <unistd.h>

#include <CLI/CLI.hpp>

#include "app/commands.h"
#include "base/secrets.h"
#include "base/terminal_text.h"
#include "front/acp/acp_server.h"
#include "llm/models.h"
#include "llm/provider.h"
#include "runtime/settings.h"
#include "sandbox/defaults.h"
#include "session/store.h"

namespace sepp::app {

int RunAcpCommand(int argc, char** argv) {
  bool acp = false;
  std::string provider, model, sandbox = "on";
  int max_turns = 100, thinking = 0;
  double fs_timeout = 30;
  bool no_stream = false;
  CLI::App cli{"sepp --acp: an Agent Client Protocol agent on stdin/stdout (docs/acp.md)", "sepp"};
  cli.add_flag("--acp", acp, "speak ACP (JSON-RPC 2.0, one message per line) on stdin/stdout");
  cli.add_option("--provider", provider, "anthropic | openai | openai-responses | local")
      ->check(CLI::IsMember({"anthropic", "openai", "openai-responses", "local"}));
  cli.add_option("-m,--model", model, "model id (default: the provider's default)");
  cli.add_option("--max-turns", max_turns, "stop a prompt after this many model calls")
      ->check(CLI::PositiveNumber);
  cli.add_option("--sandbox", sandbox, "on | off (off runs tools unconfined)")
      ->check(CLI::IsMember({"on", "off"}));
  cli.add_option("--thinking", thinking, "extended-thinking token budget (0: off)");
  cli.add_flag("--no-stream", no_stream, "ask the provider for whole answers");
  cli.add_option("--fs-timeout", fs_timeout,
                 "seconds a file tool waits for the editor's fs/* answer (default 30)")
      ->check(CLI::Range(0.05, 3600.0));
  try {
    cli.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = cli.exit(e);
    return code == 0 ? 0 : 2;
  }
  // stdout is the protocol: a closed client must not kill us mid-write.
  signal(SIGPIPE, SIG_IGN);
  RegisterSecretsFromEnvironment();

  auto config = llm::ConfigFromEnvironment(provider);
  if (!config.ok()) {
    std::fprintf(stderr, "sepp: %s\n", config.error().message.c_str());
    return config.error().kind == "usage" ? 2 : 1;
  }
  front::acp::AcpOptions o;
  o.base.provider = *config;
  o.base.model = model;
  o.base.max_turns = max_turns;
  o.base.thinking_budget = thinking;
  o.base.stream = !no_stream;
  o.fs_timeout = std::chrono::milliseconds(static_cast<int64_t>(fs_timeout * 1000));
  o.base.on_warning = [](const std::string& w) {  // quotes project files: never obeyed
    std::fprintf(stderr, "sepp: %s\n", VisibleControls(w).c_str());
  };
  bool unconfined = sandbox == "off";
  if (unconfined)
    std::fprintf(stderr,
                 "sepp: WARNING: --sandbox off: commands the model runs are NOT confined; "
                 "they can read your secrets, write anywhere and use the network\n");
  o.policy_for = [unconfined](const std::filesystem::path& cwd) {
    sandbox::Policy p = sandbox::DefaultToolPolicy(cwd);
    if (unconfined) p.enabled = false;
    return p;
  };
  o.list_sessions = [](const std::optional<std::string>& cwd)
      -> Result<std::vector<session::SessionSummary>> {
    auto settings = runtime::LoadSettings(cwd ? std::filesystem::path(*cwd)
                                              : std::filesystem::current_path());
    if (!settings.ok()) return settings.error();
    auto store = session::OpenStore(settings->session_store, session::DefaultSessionsRoot());
    if (!store.ok()) return store.error();
    return (*store)->List(cwd);
  };
  o.models = {llm::DefaultModel(config->name)};
  o.version = SEPP_VERSION;
  // stdout carries only the protocol: it moves to its own descriptor and fd
  // 1 points at stderr, so a stray print anywhere below cannot corrupt it.
  int proto = dup(STDOUT_FILENO);
  if (proto < 0 || dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
    std::fprintf(stderr, "sepp: cannot set up stdout for --acp\n");
    return 1;
  }
  return front::acp::RunAcpServer(STDIN_FILENO, proto, std::move(o));
}

}  // namespace sepp::app
