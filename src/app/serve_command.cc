// `sepp serve`: sepp's agent over HTTP + SSE (docs/serve.md). Only wiring:
// the server is front/serve, each ACP connection an in-process front/acp
// agent, the event log session::EventLog beside the session store.
#include <signal.h>
#include <sys/random.h>

#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <filesystem>

#include <CLI/CLI.hpp>

#include "app/commands.h"
#include "app/mcp_sessions.h"
#include "base/clock.h"
#include "base/paths.h"
#include "base/secrets.h"
#include "base/terminal_text.h"
#include "front/serve/agent_catalog.h"
#include "front/serve/agent_install.h"
#include "front/serve/deferred_event_log.h"
#include "front/serve/guard.h"
#include "front/serve/serve_server.h"
#include "llm/models.h"
#include "llm/provider.h"
#include "llm/provider_source.h"
#include "runtime/settings.h"
#include "sandbox/defaults.h"
#include "session/event_log.h"
#include "session/store.h"

namespace sepp::app {
namespace {

namespace fs = std::filesystem;

// 24 random bytes as hex, as sandbox-agent's SDK makes its tokens.
std::string NewToken() {
  unsigned char bytes[24];
  size_t got = 0;
  while (got < sizeof bytes) {
    ssize_t n = getrandom(bytes + got, sizeof bytes - got, 0);
    if (n > 0) got += static_cast<size_t>(n);
  }
  static const char* hex = "0123456789abcdef";
  std::string out;
  for (unsigned char b : bytes) {
    out += hex[b >> 4];
    out += hex[b & 15];
  }
  return out;
}

// `sepp serve install-agent NAME`: the agent's npm package into sepp's data
// folder (front/serve/agent_install.h).
int RunInstallAgent(int argc, char** argv) {
  std::string name, from;
  bool reinstall = false;
  CLI::App cli{"sepp serve install-agent: install an external agent's ACP adapter with npm into " +
                   front::serve::AgentsDataDir().string() + "/npm (docs/serve.md)",
               "sepp serve install-agent"};
  cli.add_option("name", name, "the agent: claude, codex, pi (or one of [[serve.agents]])")->required();
  cli.add_flag("--reinstall", reinstall, "install even when the agent is found already");
  cli.add_option("--from", from, "a package folder or tarball to install instead of the registry's");
  try {
    cli.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = cli.exit(e);
    return code == 0 ? 0 : 2;
  }
  auto specs = front::serve::LoadAgentSpecs(SeppHome() / "settings.toml");
  if (!specs.ok()) {
    std::fprintf(stderr, "sepp serve install-agent: %s\n", specs.error().message.c_str());
    return 2;
  }
  const char* path = std::getenv("PATH");
  front::serve::AgentCatalog catalog(std::move(*specs), front::serve::AgentsDataDir(), path ? path : "");
  const front::serve::AgentSpec* spec = catalog.Find(name);
  if (!spec) {
    std::string known;
    for (const auto& s : catalog.specs()) known += (known.empty() ? "" : ", ") + s.id;
    std::fprintf(stderr, "sepp serve install-agent: no agent \"%s\"; the agents are %s\n",
                 VisibleControls(name).c_str(), known.c_str());
    return 2;
  }
  front::serve::InstallRequest req;
  req.reinstall = reinstall;
  if (!from.empty()) req.from = fs::absolute(from).string();
  auto done = front::serve::InstallAgent(catalog, *spec, req);
  if (!done.ok()) {
    std::fprintf(stderr, "sepp serve install-agent: %s\n", done.error().message.c_str());
    return done.error().kind == "usage" ? 2 : 1;
  }
  const Json& a = (*done)["artifacts"][0];
  std::printf("%s %s %s: %s\n", spec->id.c_str(),
              (*done)["already_installed"].get<bool>() ? "already installed" : "installed",
              a.value("version", "").c_str(), a.value("path", "").c_str());
  return 0;
}

}  // namespace

int RunServeCommand(int argc, char** argv) {
  if (argc >= 2 && std::string_view(argv[1]) == "install-agent") return RunInstallAgent(argc - 1, argv + 1);
  std::string host = "127.0.0.1", token, provider, model, sandbox = "on", store = "sqlite";
  std::string record, replay, replay_mode = "strict";
  int port = 2468, max_turns = 100;
  bool no_token = false;
  std::vector<std::string> workspaces, cors;
  double request_timeout = 120, heartbeat = 15, question_timeout = 300;
  CLI::App cli{"sepp serve: sepp's agent over HTTP + SSE, compatible with sandbox-agent 0.4 clients "
               "(docs/serve.md)",
               "sepp serve"};
  cli.add_option("-H,--host", host, "address to listen on (default 127.0.0.1)");
  cli.add_option("-p,--port", port, "port (default 2468; 0 picks a free one)")
      ->check(CLI::Range(0, 65535));
  auto* tok = cli.add_option("-t,--token", token,
                             "the bearer token clients must send (default: a new one, printed once)");
  cli.add_flag("-n,--no-token", no_token, "no token (loopback addresses only)")->excludes(tok);
  cli.add_option("--workspace", workspaces,
                 "folder sessions may work in (repeatable; default: the current folder)")
      ->check(CLI::ExistingDirectory);
  cli.add_option("-O,--cors-allow-origin", cors,
                 "a web origin allowed to call the API from a browser (repeatable)");
  cli.add_option("--request-timeout", request_timeout,
                 "seconds an ACP request may wait for the agent before 504 (default 120)")
      ->check(CLI::Range(0.05, 86400.0));
  cli.add_option("--question-timeout", question_timeout,
                 "seconds a question to the user waits for its reply before it is declined (default 300)")
      ->check(CLI::Range(0.05, 86400.0));
  cli.add_option("--heartbeat", heartbeat, "seconds between SSE heartbeats (default 15)")
      ->check(CLI::Range(0.05, 3600.0));
  cli.add_option("--provider", provider, "anthropic | openai | openai-responses | local")
      ->check(CLI::IsMember({"anthropic", "openai", "openai-responses", "local"}));
  cli.add_option("-m,--model", model, "model id (default: the provider's default)");
  cli.add_option("--record", record,
                 "write every provider exchange of every session to this cassette (docs/replay.md)");
  auto* replay_opt = cli.add_option("--replay", replay, "answer from this cassette: no network, no key");
  cli.add_option("--replay-mode", replay_mode, "strict (requests must match) | lenient (by position)")
      ->check(CLI::IsMember({"strict", "lenient"}))
      ->needs(replay_opt);
  cli.add_option("--max-turns", max_turns, "stop a prompt after this many model calls")
      ->check(CLI::PositiveNumber);
  cli.add_option("--store", store,
                 "where the event log and session records live: sqlite (default, in "
                 "$SEPP_HOME/sessions) or postgres://user@host:port/database, which several "
                 "servers can share (password from PGPASSWORD; docs/serve.md)");
  cli.add_option("--sandbox", sandbox, "on | off (off runs tools unconfined)")
      ->check(CLI::IsMember({"on", "off"}));
  try {
    cli.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = cli.exit(e);
    return code == 0 ? 0 : 2;
  }
  if (no_token && !front::serve::IsLoopback(host)) {
    std::fprintf(stderr,
                 "sepp serve: --no-token is only allowed on a loopback address (127.0.0.1, ::1): "
                 "on %s anyone who can reach the port would run commands as you\n",
                 VisibleControls(host).c_str());
    return 2;
  }
  // A client that goes away mid-write must not kill the server; SIGINT and
  // SIGTERM are taken by sigwait below (blocked before any thread starts,
  // so every thread inherits the mask).
  signal(SIGPIPE, SIG_IGN);
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  RegisterSecretsFromEnvironment();

  // Live, recording or replaying (docs/replay.md), as `sepp --acp`: one
  // source for every session of the server and their sub-agents.
  auto source_opened = llm::ProviderSource::Open(
      {provider, record, replay,
       replay_mode == "lenient" ? llm::ReplayMode::kLenient : llm::ReplayMode::kStrict,
       fs::current_path().string(), TodayLocal()});
  if (!source_opened.ok()) {
    std::fprintf(stderr, "sepp serve: %s\n", source_opened.error().message.c_str());
    return source_opened.error().kind == "usage" ? 2 : 1;
  }
  std::shared_ptr<llm::ProviderSource> source = std::move(source_opened).value();
  const llm::ProviderConfig* config = &source->config();
  // The SQLite log opens (in a fresh home: is created, with its fsyncs)
  // beside the start, so the first /v1/health does not wait for it; the
  // routes that need it wait (front/serve/deferred_event_log.h).
  std::unique_ptr<session::EventLog> opened;
  front::serve::DeferredEventLog* deferred = nullptr;
  if (store.empty() || store == "sqlite") {
    auto d = std::make_unique<front::serve::DeferredEventLog>(
        "sqlite", [] { return session::EventLog::Open(session::DefaultSessionsRoot()); });
    deferred = d.get();
    opened = std::move(d);
  } else {
    auto log = session::OpenEventLog(store, session::DefaultSessionsRoot());
    if (!log.ok()) {
      std::fprintf(stderr, "sepp serve: %s\n", log.error().message.c_str());
      return 1;
    }
    opened = std::move(log).value();
  }
  // With PostgreSQL the agents' session trees live there too, so every
  // server on the database reads them; else in the settings' store.
  std::shared_ptr<session::Store> tree_store;
  if (!deferred && opened->kind() == "postgres") {
    auto trees = session::OpenUrlStore(store);
    if (!trees.ok()) {
      std::fprintf(stderr, "sepp serve: %s\n", trees.error().message.c_str());
      return 1;
    }
    tree_store = std::move(*trees);
  }

  front::serve::ServeOptions o;
  o.host = host;
  o.port = port;
  bool generated = !no_token && token.empty();
  if (generated) token = NewToken();
  o.token = no_token ? "" : token;
  // Should the token ever reach a log line, a tool's output or a session
  // file, it is masked there like a provider key.
  if (!o.token.empty()) RegisterSecret(o.token);
  o.cors_origins = cors;
  o.version = SEPP_VERSION;
  o.credentials_available = !config->api_key.empty() || config->name == "local";
  if (workspaces.empty()) workspaces.push_back(fs::current_path().string());
  for (const auto& w : workspaces) o.hub.workspaces.push_back(fs::absolute(w).lexically_normal());
  o.hub.log = opened.get();
  o.hub.request_timeout = std::chrono::milliseconds(static_cast<int64_t>(request_timeout * 1000));
  o.hub.heartbeat = std::chrono::milliseconds(static_cast<int64_t>(heartbeat * 1000));

  // The external agents: the built-ins and the user's [[serve.agents]].
  auto agent_specs = front::serve::LoadAgentSpecs(SeppHome() / "settings.toml");
  if (!agent_specs.ok()) {
    std::fprintf(stderr, "sepp serve: %s\n", agent_specs.error().message.c_str());
    return 2;
  }
  const char* path_env = std::getenv("PATH");
  front::serve::AgentCatalog agents(std::move(*agent_specs), front::serve::AgentsDataDir(),
                                    path_env ? path_env : "");
  o.hub.agents = &agents;
  o.hub.agents_unconfined = sandbox == "off";

  front::acp::AcpOptions& a = o.hub.agent;
  a.base.provider = *config;
  a.base.make_provider = [source] { return source->New(); };
  a.base.model = model;
  a.base.max_turns = max_turns;
  a.base.questions.timeout_s = question_timeout;
  a.base.on_warning = [](const std::string& w) {  // quotes project files: never obeyed
    std::fprintf(stderr, "sepp serve: %s\n", VisibleControls(w).c_str());
  };
  bool unconfined = sandbox == "off";
  if (unconfined)
    std::fprintf(stderr,
                 "sepp serve: WARNING: --sandbox off: commands the model runs are NOT confined\n");
  a.add_mcp_servers = [](std::vector<ext::mcp::ServerConfig> given, runtime::SessionOptions* so) {
    Status st = AddMcpServers(so, std::move(given), so->on_warning);
    if (st.ok()) AddPlugins(so, so->on_warning);
    return st;
  };
  a.policy_for = [unconfined](const fs::path& cwd) {
    sandbox::Policy p = sandbox::DefaultToolPolicy(cwd);
    if (unconfined) p.enabled = false;
    return p;
  };
  a.base.store = tree_store;
  a.list_sessions = [tree_store](const std::optional<std::string>& cwd)
      -> Result<std::vector<session::SessionSummary>> {
    if (tree_store) return tree_store->List(cwd);
    auto settings = runtime::LoadSettings(cwd ? fs::path(*cwd) : fs::current_path());
    if (!settings.ok()) return settings.error();
    auto store = session::OpenStore(settings->session_store, session::DefaultSessionsRoot());
    if (!store.ok()) return store.error();
    return (*store)->List(cwd);
  };
  a.models = {llm::DefaultModel(config->name)};
  a.version = SEPP_VERSION;

  front::serve::ServeServer server(std::move(o));
  if (Status s = server.Start(); !s.ok()) {
    std::fprintf(stderr, "sepp serve: %s\n", s.error().message.c_str());
    return 1;
  }
  std::string shown_host = host.find(':') != std::string::npos ? "[" + host + "]" : host;
  std::printf("sepp serve: listening on http://%s:%d\n", shown_host.c_str(), server.port());
  if (opened->kind() != "sqlite")
    std::printf("sepp serve: store %s\n", opened->location().c_str());
  if (generated) std::printf("sepp serve: token %s (shown once; clients send it as Bearer)\n", token.c_str());
  if (no_token) std::printf("sepp serve: no token: any local process can use this server\n");
  // The inspector's address; a generated token rides in the fragment, which
  // the browser never sends and the page moves into the tab's storage.
  std::string ui = "http://" + shown_host + ":" + std::to_string(server.port()) + "/ui/";
  if (generated)
    std::printf("sepp serve: inspector %s#token=%s\n", ui.c_str(), token.c_str());
  else
    std::printf("sepp serve: inspector %s%s\n", ui.c_str(), no_token ? "" : " (it asks for your --token)");
  std::fflush(stdout);
  // A store that cannot be opened stops the server, as it did when it was
  // opened before listening: the requests meanwhile answered 503.
  std::atomic<bool> store_failed{false};
  std::thread store_watch;
  if (deferred)
    store_watch = std::thread([&] {
      if (Status st = deferred->Ready(); !st.ok()) {
        std::fprintf(stderr, "sepp serve: %s\n", st.error().message.c_str());
        store_failed = true;
        kill(getpid(), SIGTERM);
      }
    });
  int sig = 0;
  sigwait(&stop_signals, &sig);
  server.Stop();
  if (store_watch.joinable()) store_watch.join();
  return store_failed ? 1 : 0;
}

}  // namespace sepp::app
