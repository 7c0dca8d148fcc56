// `sepp [-p PROMPT] [options]`: the agent with a front end. Only the one-shot
// print mode exists so far; without -p and without piped input sepp says so.
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <pthread.h>
#include <thread>
#include <unistd.h>

#include <CLI/CLI.hpp>

#include "agent/agent.h"
#include "agent/agent_definitions.h"
#include "agent/subagent_tool.h"
#include "agent/system_prompt.h"
#include "app/commands.h"
#include "app/session_binding.h"
#include "base/clock.h"
#include "base/fd.h"
#include "base/secrets.h"
#include "front/print_mode.h"
#include "base/terminal_text.h"
#include "llm/models.h"
#include "llm/provider.h"
#include "llm/provider_source.h"
#include "sandbox/defaults.h"
#include "tools/tool.h"
#include "tools/tool_worker.h"

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
};

// SIGINT/SIGTERM are blocked in every thread and taken by one waiter thread,
// which cancels the run: no async-signal-safety puzzles, and the cancel
// callbacks (close sockets, kill process groups) run on a normal thread.
class SignalCanceller {
 public:
  explicit SignalCanceller(CancelToken& token) {
    sigemptyset(&set_);
    sigaddset(&set_, SIGINT);
    sigaddset(&set_, SIGTERM);
    sigaddset(&set_, SIGHUP);
    sigaddset(&set_, SIGUSR2);  // our own wake-up for shutdown
    pthread_sigmask(SIG_BLOCK, &set_, nullptr);
    thread_ = std::thread([this, &token] {
      int sig = 0;
      while (sigwait(&set_, &sig) == 0) {
        if (sig == SIGUSR2) return;  // shutdown
        signal_ = sig;
        token.Cancel();
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

std::string ReadStdinIfPiped() {
  if (isatty(0)) return {};
  auto data = ReadAll(0);
  return data.ok() ? *data : std::string();
}

}  // namespace

int RunAgentCommand(int argc, char** argv) {
  // Every session's tools run in a sandbox whose worker is this binary.
  tools::SetToolWorkerExecutable("/proc/self/exe");
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
  try {
    cli.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = cli.exit(e);
    return code == 0 ? 0 : 2;
  }
  o.print = print->count() > 0;

  signal(SIGPIPE, SIG_IGN);
  RegisterSecretsFromEnvironment();

  std::string piped = ReadStdinIfPiped();
  if (!o.print && piped.empty()) {
    std::fprintf(stderr,
                 "sepp: the interactive terminal UI is not built yet; give a task with "
                 "-p \"...\" or pipe one on stdin (sepp --help lists the options)\n");
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

  std::filesystem::path cwd = std::filesystem::current_path();
  std::string today = TodayLocal();
  auto source = llm::ProviderSource::Open(
      {o.provider, o.record, o.replay,
       o.replay_mode == "lenient" ? llm::ReplayMode::kLenient : llm::ReplayMode::kStrict, cwd.string(), today});
  if (!source.ok()) {
    std::fprintf(stderr, "sepp: %s\n", source.error().message.c_str());
    return source.error().kind == "usage" ? 2 : 1;
  }
  const llm::ProviderConfig* config = &(*source)->config();
  std::string model = o.model;
  if (model.empty()) {
    if (const char* m = getenv("SEPP_MODEL"); m && *m) model = m;
    else model = llm::DefaultModel(config->name);
  }
  auto provider = (*source)->New();

  if (o.trust && TrustCurrentProject(cwd) != 0) return 1;
  sandbox::Policy policy = sandbox::DefaultToolPolicy(cwd);
  if (o.sandbox == "off") {
    policy.enabled = false;
    std::fprintf(stderr,
                 "sepp: WARNING: --sandbox off: commands the model runs are NOT confined; "
                 "they can read your secrets, write anywhere and use the network\n");
  }

  SessionBinding session;
  if (!o.no_session) {
    if ((!o.branch.empty() || !o.fork.empty()) && !o.continue_latest && o.resume.empty()) {
      std::fprintf(stderr, "sepp: --branch and --fork need the session: add -c or -r ID\n");
      return 2;
    }
    SessionRequest req{cwd, config->name, model, o.continue_latest, o.resume, o.branch, o.fork};
    if (auto st = session.Open(req); !st.ok()) {
      std::fprintf(stderr, "sepp: %s\n", st.error().message.c_str());
      return 1;
    }
  } else if (o.continue_latest || !o.resume.empty()) {
    std::fprintf(stderr, "sepp: -c/-r cannot be combined with --no-session\n");
    return 2;
  }

  agent::AgentConfig ac;
  ac.model = model;
  ac.cwd = cwd;
  ac.policy = &policy;
  ac.max_turns = o.max_turns;
  ac.thinking_budget = o.thinking;
  ac.stream = !o.no_stream;
  ac.context_window = llm::LookupModel(config->name, model).context_window;

  std::vector<std::string> warnings;
  auto runtime = std::make_shared<agent::SubagentRuntime>();
  runtime->make_provider = [src = source->get()] { return src->New(); };
  runtime->make_tools = [] { return tools::MakeBuiltinTools(); };
  if (!o.no_session)
    runtime->open_child_session = [&session](const std::string& task, const std::string& name) {
      return session.OpenChild(task, name);
    };
  runtime->parent = ac;
  runtime->definitions = agent::LoadAgentDefinitions(cwd, &warnings);
  runtime->date = today;
  for (const auto& w : warnings)  // quotes project files: shown, never obeyed by the terminal
    std::fprintf(stderr, "sepp: %s\n", VisibleControls(w).c_str());

  auto registry = tools::MakeBuiltinTools();
  registry->Add(std::make_unique<agent::SubagentTool>(runtime, 0));
  std::vector<agent::ToolLine> tool_lines;
  for (tools::Tool* t : registry->All()) tool_lines.push_back({t->name(), t->description()});
  ac.system_prompt = agent::BuildSystemPrompt(cwd, runtime->date, tool_lines,
                                              agent::FindContextFiles(cwd));

  front::PrintMode view(format, stdout, stderr);
  agent::Agent agent(
      ac, *provider, *registry,
      [&](const agent::Event& e) {
        view.OnEvent(e);
        if (e.type == agent::EventType::kToolFinished && e.denied)
          session.RecordDenial(e.call_id, e.tool,
                               e.data.contains("details") ? e.data["details"].value("denials", Json())
                                                          : Json());
      },
      [&](const llm::Message& m) { session.Record(m); });
  agent.set_compaction_recorder(
      [&](const agent::CompactionResult& r) { session.RecordCompaction(r); });
  agent.SetHistory(session.history());

  CancelToken cancel;
  agent::Outcome outcome;
  {
    SignalCanceller signals(cancel);
    agent::Event started(agent::EventType::kSessionStarted);
    started.data = {{"session_id", session.id()}, {"model", model}, {"provider", config->name},
                    {"cwd", cwd.string()}};
    view.OnEvent(started);
    outcome = agent.Prompt(prompt, cancel);
    agent::Event ended(agent::EventType::kSessionEnded);
    ended.data = {{"reason", agent::ToString(outcome.status)}};
    view.OnEvent(ended);
  }
  view.Finish(outcome, session.id());
  // A cassette that did not fit the run (docs/replay.md); after an abort the
  // unasked exchanges are expected.
  std::string problems = (*source)->Problems();
  if (!problems.empty() && outcome.status != agent::Outcome::Status::kAborted) {
    std::fprintf(stderr, "sepp: %s", problems.c_str());
    return 3;
  }
  switch (outcome.status) {
    case agent::Outcome::Status::kDone: return 0;
    case agent::Outcome::Status::kAborted:
      std::fprintf(stderr, "sepp: aborted%s\n",
                   session.id().empty() ? "" : "; continue with sepp -c");
      return 130;
    default: return 1;
  }
}

}  // namespace sepp::app
