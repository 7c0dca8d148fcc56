// `sepp [-p PROMPT] [options]`: the agent with a front end. Only the one-shot
// print mode exists so far; without -p and without piped input sepp says so.
#include <atomic>
#include <csignal>
#include <cstdlib>
#include <functional>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <pthread.h>
#include <thread>
#include <unistd.h>

#include <CLI/CLI.hpp>

#include "agent/agent.h"
#include "app/commands.h"
#include "app/mcp_sessions.h"
#include "app/extension_confirmations.h"
#include "base/clock.h"
#include "base/fd.h"
#include "base/paths.h"
#include "base/secrets.h"
#include "front/print_mode.h"
#include "front/rpc/rpc_mode.h"
#include "front/tui/tui_mode.h"
#include "llm/provider.h"
#include "llm/provider_source.h"
#include "runtime/agent_session.h"
#include "runtime/settings.h"
#include "ext/plugins/plugins.h"
#include "sandbox/defaults.h"

namespace sepp::app {
namespace {

struct Options {
  std::string prompt;
  bool print = false;
  std::string provider;
  std::string model;
  std::string output = "text";
  bool continue_latest = false;
  std::string resume;
  std::string branch;
  std::string fork;
  bool no_session = false;
  int max_turns = 100;
  std::string sandbox = "on";
  int thinking = 0;
  bool no_stream = false;
  bool trust = false;
  std::string record;
  std::string replay;
  std::string replay_mode = "strict";
  std::vector<std::string> allow_domains;
  std::vector<std::string> allow_writes;
  std::vector<std::string> hooks;  // --hook FILE (Lua), repeatable
  bool rpc = false;
  std::string mode;      // pi's spelling: --mode rpc
  bool no_themes = false;  // pi's flag, passed by pi-acp; sepp has no themes in rpc output
  std::string session;   // pi's --session FILE|ID: resume it
};

// SIGINT/SIGTERM are blocked in every thread and taken by one waiter thread,
// which aborts the run: no async-signal-safety puzzles, and the cancel
// callbacks (close sockets, kill process groups) run on a normal thread.
class SignalCanceller {
 public:
  explicit SignalCanceller(std::function<void()> abort) {
    sigemptyset(&set_);
    sigaddset(&set_, SIGINT);
    sigaddset(&set_, SIGTERM);
    sigaddset(&set_, SIGHUP);
    sigaddset(&set_, SIGUSR2);  // our own wake-up for shutdown
    pthread_sigmask(SIG_BLOCK, &set_, nullptr);
    thread_ = std::thread([this, abort = std::move(abort)] {
      int sig = 0;
      while (sigwait(&set_, &sig) == 0) {
        if (sig == SIGUSR2) return;  // shutdown
        signal_ = sig;
        abort();
      }
    });
  }
  ~SignalCanceller() {
    pthread_kill(thread_.native_handle(), SIGUSR2);
    thread_.join();
  }
  int signal() const { return signal_; }

 private:
  sigset_t set_;
  std::thread thread_;
  std::atomic<int> signal_{0};
};

// The configured MCP servers (docs/mcp.md, app/mcp_sessions.h). A broken
// user configuration is a usage error; a server that cannot start (or is
// not confirmed) is a warning.
int StartMcpServers(runtime::SessionOptions* so) {
  auto warn = [](const std::string& w) { std::fprintf(stderr, "sepp: %s\n", w.c_str()); };
  if (auto st = AddMcpServers(so, {}, warn); !st.ok()) {
    warn(st.error().message);
    return 2;
  }
  return 0;
}

// The runtime's options from the command line; 0, or the exit status of a
// usage error (already reported).
// source: where the providers come from (live, recording or replaying,
// docs/replay.md); it must outlive the session.
int BuildSessionOptions(const Options& o, runtime::SessionOptions* so,
                        std::shared_ptr<llm::ProviderSource>* source) {
  std::filesystem::path cwd = std::filesystem::current_path();
  auto opened = llm::ProviderSource::Open(
      {o.provider, o.record, o.replay,
       o.replay_mode == "lenient" ? llm::ReplayMode::kLenient : llm::ReplayMode::kStrict,
       cwd.string(), TodayLocal()});
  if (!opened.ok()) {
    std::fprintf(stderr, "sepp: %s\n", opened.error().message.c_str());
    return opened.error().kind == "usage" ? 2 : 1;
  }
  *source = std::move(opened).value();

  if (!o.no_session && (!o.branch.empty() || !o.fork.empty()) && !o.continue_latest &&
      o.resume.empty()) {
    std::fprintf(stderr, "sepp: --branch and --fork need the session: add -c or -r ID\n");
    return 2;
  }
  if (o.no_session && (o.continue_latest || !o.resume.empty())) {
    std::fprintf(stderr, "sepp: -c/-r cannot be combined with --no-session\n");
    return 2;
  }

  so->provider = (*source)->config();
  so->make_provider = [src = *source] { return src->New(); };
  so->model = o.model;
  so->cwd = cwd;
  // The user's defaults from settings.toml (the TUI's /settings saves them);
  // -m, SEPP_MODEL and --thinking win. A broken file is reported where the
  // settings are needed (the session store), not here.
  int settings_thinking = 0;
  if (auto settings = runtime::LoadSettings(cwd); settings.ok()) {
    const char* env_model = std::getenv("SEPP_MODEL");
    if (so->model.empty() && !(env_model && *env_model)) so->model = settings->model;
    runtime::ThinkingLevel level;
    if (runtime::ParseThinkingLevel(settings->thinking, &level)) settings_thinking = runtime::ThinkingBudget(level);
  }
  if (o.trust && TrustCurrentProject(cwd) != 0) return 1;
  so->policy = sandbox::DefaultToolPolicy(so->cwd);
  if (o.sandbox == "off") {
    so->policy.enabled = false;
    std::fprintf(stderr,
                 "sepp: WARNING: --sandbox off: commands the model runs are NOT confined; "
                 "they can read your secrets, write anywhere and use the network\n");
  }
  if (int rc = StartMcpServers(so); rc != 0) return rc;
  AddPlugins(so, [](const std::string& w) { std::fprintf(stderr, "sepp: %s\n", w.c_str()); });
  so->loads_extensions = true;
  so->no_session = o.no_session;
  so->continue_latest = o.continue_latest;
  so->resume = o.resume;
  so->branch_entry = o.branch;
  so->fork_entry = o.fork;
  so->max_turns = o.max_turns;
  so->thinking_budget = o.thinking ? o.thinking : settings_thinking;
  so->stream = !o.no_stream;
  so->permissions.allow_domains = o.allow_domains;
  for (const auto& h : o.hooks) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(h, ec)) {
      std::fprintf(stderr, "sepp: --hook %s: no such file (give the path of a .lua hook)\n",
                   h.c_str());
      return 2;
    }
    so->hook_files.push_back(std::filesystem::absolute(h));
  }
  for (const auto& w : o.allow_writes)
    so->permissions.allow_writes.push_back(ResolveAgainst(so->cwd, ExpandUser(w).string()).string());
  so->permissions.ask_front_end = false;  // headless: the flags answer, else deny

  return 0;
}

std::string ReadStdinIfPiped() {
  if (isatty(0)) return {};
  auto data = ReadAll(0);
  return data.ok() ? *data : std::string();
}

// `sepp --rpc`: the runtime behind pi's RPC protocol on stdin/stdout.
int RunRpc(const Options& o) {
  runtime::SessionOptions so;
  std::shared_ptr<llm::ProviderSource> source;
  if (int rc = BuildSessionOptions(o, &so, &source); rc != 0) return rc;
  so.permissions.ask_front_end = true;  // the client answers (extension UI dialogs)
  so.questions.ask_front_end = true;    // questions too (rpc/question_dialogs.h)
  // stdout carries the protocol only: anything else that would print there
  // (a stray log line, a library's message) goes to stderr instead.
  int proto = dup(1);
  if (proto < 0 || dup2(2, 1) < 0) {
    std::fprintf(stderr, "sepp: cannot set up stdout for --rpc\n");
    return 1;
  }
  auto stop = MakePipe();
  if (!stop.ok()) {
    std::fprintf(stderr, "sepp: %s\n", stop.error().message.c_str());
    return 1;
  }
  int stop_w = stop->second.get();
  // SIGTERM/SIGHUP (or SIGINT) start an orderly shutdown, as in pi; a second
  // signal exits at once.
  std::atomic<int> signals_seen{0};
  SignalCanceller signals([&] {
    if (signals_seen++ > 0) _exit(128 + SIGTERM);
    char c = 1;
    (void)!write(stop_w, &c, 1);
  });
  auto opened = runtime::AgentSession::Open(std::move(so));
  if (!opened.ok()) {
    std::fprintf(stderr, "sepp: %s\n", opened.error().message.c_str());
    return 1;
  }
  front::rpc::RpcOptions ro;
  ro.in_fd = 0;
  ro.out_fd = proto;
  ro.stop_fd = stop->first.get();
  int rc = front::rpc::RunRpcMode(**opened, ro);
  opened->reset();
  close(proto);
  // A cassette that did not fit the run (docs/replay.md).
  if (std::string problems = source->Problems(); !problems.empty()) {
    std::fprintf(stderr, "sepp: %s", problems.c_str());
    return 3;
  }
  return rc;
}

// `sepp` on a terminal: the interactive UI (docs/tui.md).
int RunTui(const Options& o) {
  runtime::SessionOptions so;
  std::shared_ptr<llm::ProviderSource> source;
  if (int rc = BuildSessionOptions(o, &so, &source); rc != 0) return rc;
  so.permissions.ask_front_end = true;  // the permission modal answers
  so.questions.ask_front_end = true;    // and the question modal (tui/question_modal.h)
  // The UI takes SIGWINCH, SIGTERM, SIGHUP and SIGINT through a signalfd;
  // they are blocked before the runtime starts threads, so none of those
  // threads takes one instead.
  sigset_t set;
  sigemptyset(&set);
  for (int sig : {SIGWINCH, SIGTERM, SIGHUP, SIGINT}) sigaddset(&set, sig);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  auto opened = runtime::AgentSession::Open(std::move(so));
  if (!opened.ok()) {
    std::fprintf(stderr, "sepp: %s\n", opened.error().message.c_str());
    return 1;
  }
  front::tui::TuiOptions to;
  int rc = front::tui::RunTui(**opened, to);
  opened->reset();
  return rc;
}

}  // namespace

int RunAgentCommand(int argc, char** argv) {
  Options o;
  CLI::App cli{"sepp: a sandboxed coding agent", "sepp"};
  cli.set_version_flag("-V,--version", std::string("sepp ") + SEPP_VERSION);
  cli.footer(
      "\nOther commands (each has --help):\n"
      "  sepp sandbox [options] -- CMD ARGS...   run any command confined by the kernel sandbox\n"
      "  sepp doctor                             what this machine's kernel supports\n"
      "  sepp sessions list|show|tree|export|rm  sessions of this folder (see docs/sessions.md)\n"
      "  sepp trust [DIR]                        trust a project's configuration as it is now\n"
      "  sepp wasm run|validate|spec             the WebAssembly engine\n"
      "  sepp replay show FILE                   print a cassette written by --record\n"
      "\nEnvironment: ANTHROPIC_API_KEY, OPENAI_API_KEY, ANTHROPIC_BASE_URL, OPENAI_BASE_URL,\n"
      "SEPP_PROVIDER, SEPP_MODEL, SEPP_HOME (default ~/.sepp), SEPP_LOG.");
  auto* print = cli.add_option("-p,--print", o.prompt,
                               "one-shot: run this task, stream the answer to stdout, exit");
  cli.add_option("--provider", o.provider, "anthropic | openai | openai-responses | local")
      ->check(CLI::IsMember({"anthropic", "openai", "openai-responses", "local"}));
  cli.add_option("-m,--model", o.model, "model id (default: the provider's default)");
  cli.add_option("--output", o.output, "text | json | stream-json")
      ->check(CLI::IsMember({"text", "json", "stream-json"}));
  cli.add_flag("-c,--continue", o.continue_latest, "continue the latest session of this directory");
  cli.add_option("-r,--resume", o.resume, "resume the session with this id (or unique prefix)");
  auto* branch = cli.add_option("--branch", o.branch,
                 "with -c/-r: go on from this earlier entry as a new branch of the session");
  cli.add_option("--fork", o.fork,
                 "with -c/-r: go on from this entry in a new session (a copy of the path to it)")
      ->excludes(branch);
  cli.add_flag("--no-session", o.no_session, "save nothing");
  cli.add_option("--max-turns", o.max_turns, "stop after this many model calls")
      ->check(CLI::PositiveNumber);
  cli.add_option("--sandbox", o.sandbox, "on | off (off runs tools unconfined)")
      ->check(CLI::IsMember({"on", "off"}));
  cli.add_option("--thinking", o.thinking, "extended-thinking token budget (0: off)");
  cli.add_flag("--no-stream", o.no_stream, "ask the provider for whole answers");
  cli.add_flag("--trust", o.trust,
               "trust this folder's project configuration as it is now (as `sepp trust` does)");
  cli.add_option("--record", o.record, "write every provider exchange to this cassette (docs/replay.md)");
  auto* replay = cli.add_option("--replay", o.replay, "answer from this cassette: no network, no key");
  cli.add_option("--replay-mode", o.replay_mode, "strict (requests must match) | lenient (by position)")
      ->check(CLI::IsMember({"strict", "lenient"}))
      ->needs(replay);
  cli.add_flag("--rpc", o.rpc,
               "serve pi's RPC protocol on stdin/stdout (JSONL; see docs/rpc.md)");
  cli.add_option("--mode", o.mode, "pi's spelling: --mode rpc is --rpc")
      ->check(CLI::IsMember({"rpc"}));
  cli.add_flag("--no-themes", o.no_themes, "accepted for pi compatibility (no effect)");
  cli.add_option("--session", o.session,
                 "resume this session (a session file's path, an id or a unique prefix); "
                 "pi's spelling of -r");
  cli.add_option("--hook", o.hooks, "load this Lua hook file (repeatable; docs/extensions.md)");
  cli.add_option("--allow-domain", o.allow_domains,
                 "when the model asks to retry a refused command with network access to this "
                 "domain (\"*.example.com\" too), allow it (headless: otherwise it is denied)");
  cli.add_option("--allow-write", o.allow_writes,
                 "when the model asks to retry a refused command with write access to this path "
                 "(and below), allow it");
  try {
    cli.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = cli.exit(e);
    return code == 0 ? 0 : 2;
  }
  o.print = print->count() > 0;
  if (o.mode == "rpc") o.rpc = true;
  if (!o.session.empty()) {
    if (!o.resume.empty()) {
      std::fprintf(stderr, "sepp: give the session once: --session or -r, not both\n");
      return 2;
    }
    o.resume = o.session;
  }

  signal(SIGPIPE, SIG_IGN);
  RegisterSecretsFromEnvironment();
  if (o.rpc) {
    if (o.print) {
      std::fprintf(stderr, "sepp: --rpc takes its prompts on stdin: drop -p\n");
      return 2;
    }
    return RunRpc(o);
  }

  std::string piped = ReadStdinIfPiped();
  if (!o.print && piped.empty()) {
    if (isatty(0) && isatty(1)) return RunTui(o);
    std::fprintf(stderr,
                 "sepp: the interactive terminal UI needs a terminal on stdin and stdout; give a "
                 "task with -p \"...\" or pipe one on stdin (sepp --help lists the options)\n");
    return 2;
  }
  std::string prompt = o.prompt;
  if (!piped.empty()) prompt = prompt.empty() ? piped : prompt + "\n\n" + piped;
  if (prompt.empty()) {
    std::fprintf(stderr, "sepp: the prompt is empty: give a task with -p \"...\"\n");
    return 2;
  }

  front::OutputFormat format;
  front::ParseOutputFormat(o.output, &format);

  runtime::SessionOptions so;
  std::shared_ptr<llm::ProviderSource> source;
  if (int rc = BuildSessionOptions(o, &so, &source); rc != 0) return rc;

  // Signals are blocked before the runtime starts its threads, so that only
  // the waiter takes them.
  std::atomic<runtime::AgentSession*> live{nullptr};
  SignalCanceller signals([&live] {
    if (runtime::AgentSession* s = live.load()) s->Abort();
  });
  auto opened = runtime::AgentSession::Open(std::move(so));
  if (!opened.ok()) {
    std::fprintf(stderr, "sepp: %s\n", opened.error().message.c_str());
    return 1;
  }
  std::unique_ptr<runtime::AgentSession> session = std::move(opened).value();
  // Print mode is this session's only reader, and losing its output would be
  // worse than holding it: its queue is effectively unbounded.
  auto events = session->Subscribe(size_t{1} << 40);
  std::string session_id = session->GetState().session_id;

  front::PrintMode view(format, stdout, stderr);
  live = session.get();
  {
    if (auto st = session->Prompt(prompt); !st.ok()) {
      std::fprintf(stderr, "sepp: %s\n", st.error().message.c_str());
      return 1;
    }
    agent::Event e(agent::EventType::kError);
    while (events->Pop(&e) == runtime::Subscription::Next::kEvent) {
      view.OnEvent(e);
      if (e.type == agent::EventType::kAgentSettled) break;
    }
    session->Close();  // publishes session.ended
    while (events->Pop(&e) == runtime::Subscription::Next::kEvent) view.OnEvent(e);
  }
  live = nullptr;
  agent::Outcome outcome = session->LastOutcome();
  view.Finish(outcome, session_id);
  // A cassette that did not fit the run (docs/replay.md); after an abort the
  // unasked exchanges are expected.
  std::string problems = source->Problems();
  if (!problems.empty() && outcome.status != agent::Outcome::Status::kAborted) {
    std::fprintf(stderr, "sepp: %s", problems.c_str());
    return 3;
  }
  switch (outcome.status) {
    case agent::Outcome::Status::kDone: return 0;
    case agent::Outcome::Status::kAborted:
      std::fprintf(stderr, "sepp: aborted%s\n",
                   session_id.empty() ? "" : "; continue with sepp -c");
      return 130;
    default: return 1;
  }
}

}  // namespace sepp::app
