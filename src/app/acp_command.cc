// `sepp --acp`: sepp as an Agent Client Protocol agent on stdin/stdout, for
// editors (Zed, ...) and ACP hosts (sandbox-agent). Only wiring: the
// protocol is front/acp, the sessions are runtime::AgentSession.
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <unistd.h>

#include <CLI/CLI.hpp>

#include "app/commands.h"
#include "app/mcp_sessions.h"
#include "base/clock.h"
#include "base/secrets.h"
#include "base/terminal_text.h"
#include "front/acp/acp_server.h"
#include "llm/models.h"
#include "llm/provider.h"
#include "llm/provider_source.h"
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
  std::string record, replay, replay_mode = "strict";
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
  cli.add_option("--record", record,
                 "write every provider exchange of every session to this cassette (docs/replay.md)");
  auto* replay_opt =
      cli.add_option("--replay", replay, "answer from this cassette: no network, no key");
  cli.add_option("--replay-mode", replay_mode, "strict (requests must match) | lenient (by position)")
      ->check(CLI::IsMember({"strict", "lenient"}))
      ->needs(replay_opt);
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

  // Live, recording or replaying (docs/replay.md): one source for every
  // session of this process and their sub-agents. Volatile values are
  // scrubbed against the directory sepp was started in.
  auto opened = llm::ProviderSource::Open(
      {provider, record, replay,
       replay_mode == "lenient" ? llm::ReplayMode::kLenient : llm::ReplayMode::kStrict,
       std::filesystem::current_path().string(), TodayLocal()});
  if (!opened.ok()) {
    std::fprintf(stderr, "sepp: %s\n", opened.error().message.c_str());
    return opened.error().kind == "usage" ? 2 : 1;
  }
  std::shared_ptr<llm::ProviderSource> source = std::move(opened).value();
  const llm::ProviderConfig* config = &source->config();
  front::acp::AcpOptions o;
  o.base.provider = *config;
  o.base.make_provider = [source] { return source->New(); };
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
  o.add_mcp_servers = [](std::vector<ext::mcp::ServerConfig> given, runtime::SessionOptions* so) {
    Status st = AddMcpServers(so, std::move(given), so->on_warning);
    if (st.ok()) AddPlugins(so, so->on_warning);
    return st;
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
  int rc = front::acp::RunAcpServer(STDIN_FILENO, proto, std::move(o));
  // A cassette that did not fit the run (docs/replay.md).
  if (std::string problems = source->Problems(); !problems.empty()) {
    std::fprintf(stderr, "sepp: %s", problems.c_str());
    return 3;
  }
  return rc;
}

}  // namespace sepp::app
