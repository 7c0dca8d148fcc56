#include "runtime/agent_session.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <mutex>
#include <set>
#include <thread>

#include "agent/agent_definitions.h"
#include "ext/capabilities.h"
#include "ext/hook_loader.h"
#include "agent/subagent_tool.h"
#include "agent/system_prompt.h"
#include "base/terminal_text.h"
#include "base/clock.h"
#include "base/file.h"
#include "base/paths.h"
#include "base/strings.h"
#include "ext/resources.h"
#include "ext/skills/skill_folders.h"
#include "ext/skills/skill_tool.h"
#include "llm/models.h"
#include "runtime/permission_broker.h"
#include "runtime/recall.h"
#include "runtime/project_trust_prompt.h"
#include "agent/question_tool.h"
#include "runtime/session_binding.h"
#include "runtime/user_bash.h"
#include "tools/git_egress.h"
#include "tools/process_tools.h"
#include "tools/search_tools.h"
#include "tools/tool.h"
#include "tools/web_tools.h"

namespace sepp::runtime {

const char* ToString(ThinkingLevel l) {
  switch (l) {
    case ThinkingLevel::kOff: return "off";
    case ThinkingLevel::kMinimal: return "minimal";
    case ThinkingLevel::kLow: return "low";
    case ThinkingLevel::kMedium: return "medium";
    case ThinkingLevel::kHigh: return "high";
    case ThinkingLevel::kXHigh: return "xhigh";
  }
  return "off";
}

bool ParseThinkingLevel(const std::string& s, ThinkingLevel* out) {
  for (ThinkingLevel l : AllThinkingLevels())
    if (s == ToString(l)) {
      *out = l;
      return true;
    }
  return false;
}

int ThinkingBudget(ThinkingLevel l) {
  switch (l) {
    case ThinkingLevel::kOff: return 0;
    case ThinkingLevel::kMinimal: return 1024;
    case ThinkingLevel::kLow: return 4096;
    case ThinkingLevel::kMedium: return 10240;
    case ThinkingLevel::kHigh: return 32768;
    case ThinkingLevel::kXHigh: return 65536;
  }
  return 0;
}

ThinkingLevel LevelForBudget(int budget) {
  if (budget <= 0) return ThinkingLevel::kOff;
  ThinkingLevel best = ThinkingLevel::kMinimal;
  for (ThinkingLevel l : AllThinkingLevels()) {
    if (l == ThinkingLevel::kOff) continue;
    if (std::abs(ThinkingBudget(l) - budget) < std::abs(ThinkingBudget(best) - budget)) best = l;
  }
  return best;
}

std::vector<ThinkingLevel> AllThinkingLevels() {
  return {ThinkingLevel::kOff, ThinkingLevel::kMinimal, ThinkingLevel::kLow,
          ThinkingLevel::kMedium, ThinkingLevel::kHigh, ThinkingLevel::kXHigh};
}

struct AgentSession::Impl {
  SessionOptions opts;
  std::string provider_name;
  std::unique_ptr<llm::Provider> provider;
  // The session's hooks; declared before the registry and the agent, which
  // use them, so they outlive both.
  ext::LoadedHooks hooks;
  // A project's hooks added once the user trusted it in this session.
  std::vector<ext::LoadedHooks> late_hooks;
  bool trust_pending = false;  // ask at the first prompt (worker only)
  bool extensions_pending = false;  // opts.extensions_to_confirm, likewise

  // The idle_prompt notification (SessionOptions::idle_notification_s): a
  // thread that waits while the agent is idle and tells the hooks once.
  std::thread idle_thread;
  std::mutex idle_mu;
  std::condition_variable idle_wake;
  bool idle_armed = false, idle_stop = false;
  uint64_t idle_epoch = 0;
  std::chrono::steady_clock::time_point idle_since;

  void ArmIdle(bool armed) {
    if (!idle_thread.joinable()) return;
    {
      std::lock_guard<std::mutex> lock(idle_mu);
      idle_armed = armed;
      idle_since = std::chrono::steady_clock::now();
      ++idle_epoch;
    }
    idle_wake.notify_all();
  }

  void IdleLoop() {
    auto wait = std::chrono::duration_cast<std::chrono::steady_clock::duration>(
        std::chrono::duration<double>(opts.idle_notification_s));
    std::unique_lock<std::mutex> lock(idle_mu);
    for (;;) {
      idle_wake.wait(lock, [&] { return idle_stop || idle_armed; });
      if (idle_stop) return;
      uint64_t epoch = idle_epoch;
      if (idle_wake.wait_until(lock, idle_since + wait,
                               [&] { return idle_stop || idle_epoch != epoch; }))
        continue;  // input came (or the session closes): not idle
      idle_armed = false;
      lock.unlock();
      agent_config.hooks->OnNotification({"idle_prompt", "sepp is waiting for your input"});
      lock.lock();
    }
  }
  std::unique_ptr<tools::ToolRegistry> registry;
  SessionRecall recall;  // the output sidecar and durable memory (recall.h)
  std::shared_ptr<agent::SubagentRuntime> subagents;
  ext::SlashCommands commands;  // set at Open, read-only after
  // A command a Lua hook registered (sepp.register_command): "/name args"
  // runs its function instead of going to the model.
  struct HookCommand {
    std::string name;
    std::shared_ptr<ext::LuaHookFile> file;
  };
  std::vector<HookCommand> hook_commands;     // set at Open, read-only after
  std::vector<ext::CommandInfo> command_list;  // templates, skills, hooks' commands
  // The extension tools in the registry (opts.extra_tools) and the version
  // of their source they were made at; the worker's alone.
  std::set<std::string> extra_tool_names;
  uint64_t extra_tools_seen = 0;
  agent::AgentConfig agent_config;
  // The current session; replaced by new/switch/fork on the worker, read
  // from any thread: always through Bind().
  mutable std::mutex bind_mu;
  std::shared_ptr<SessionBinding> binding_;
  std::unique_ptr<agent::Agent> agent;
  EventBus bus;
  std::unique_ptr<PermissionBroker> gate;
  std::unique_ptr<QuestionBroker> questions;

  // The worker and what it works on.
  std::thread worker;
  mutable std::mutex mu;
  std::condition_variable cv;      // jobs arrived / stopping
  std::condition_variable idle_cv;  // busy became false
  std::deque<std::function<void()>> jobs;
  std::deque<std::string> steering, follow_up;
  std::vector<std::string> next_turn;  // hooks' messages for the next prompt
  bool busy = false;        // a prompt (or a job) is running or queued
  bool compacting = false;
  bool stopping = false;
  bool closed = false;
  std::shared_ptr<CancelToken> cancel;  // of the running prompt

  // The user's commands running now (RunBash), each with its token.
  std::mutex bash_mu;
  std::condition_variable bash_cv;  // one ended
  std::vector<std::shared_ptr<CancelToken>> bashes;
  bool bash_closed = false;  // Close(): no new ones
  // The user's commands that go into the model's context at the next prompt
  // (user_bash.h); guarded by mu. One that ended while a prompt ran is
  // recorded then too (recorded false), so the session file keeps it after
  // that prompt's messages, where the context has it.
  struct PendingBash {
    UserBash run;
    bool recorded = false;
  };
  std::vector<PendingBash> pending_bash;

  // What queries read without touching the Agent (which the worker owns;
  // its context, Messages(), it guards itself).
  mutable std::mutex snap_mu;
  agent::Outcome last_outcome;
  std::string last_text;
  std::string model;
  ThinkingLevel thinking = ThinkingLevel::kOff;
  llm::Usage total_usage;
  agent::Event started{agent::EventType::kSessionStarted};

  std::shared_ptr<SessionBinding> Bind() const {
    std::lock_guard<std::mutex> lock(bind_mu);
    return binding_;
  }
  void SetBinding(std::shared_ptr<SessionBinding> b) {
    std::lock_guard<std::mutex> lock(bind_mu);
    binding_ = std::move(b);
  }

  void Warn(const std::string& w) {
    if (opts.on_warning) opts.on_warning(w);
    else  // quotes project files: shown, never obeyed by the terminal
      std::fprintf(stderr, "sepp: %s\n", VisibleControls(w).c_str());
  }

  void Publish(agent::Event e) { bus.Publish(std::move(e)); }

  // A hook's sepp.send_message: steer and follow_up as the front ends'
  // (starting a prompt when idle), next_turn with the next prompt.
  // The hook command "/name args" names, or null.
  const HookCommand* FindHookCommand(std::string_view text, std::string* args) const {
    if (text.size() < 2 || text[0] != '/' || hook_commands.empty()) return nullptr;
    size_t end = text.find_first_of(" \t\n");
    std::string_view name = text.substr(1, end == std::string_view::npos ? end : end - 1);
    for (const HookCommand& c : hook_commands)
      if (c.name == name) {
        *args = end == std::string_view::npos ? std::string() : std::string(Trim(text.substr(end + 1)));
        return &c;
      }
    return nullptr;
  }

  // Runs a hook command: while a prompt runs, at once on the caller's
  // thread (its file's lock keeps it apart from the file's handlers);
  // when idle, as the worker's job, which settles like a prompt (a message
  // the command sent with sepp.send_message then starts the prompt).
  Status StartHookCommand(const HookCommand& c, std::string args) {
    {
      std::lock_guard<std::mutex> lock(mu);
      if (closed) return Error::Make("the session is closed", "closed");
      if (!busy) {
        busy = true;
        jobs.push_back([this, &c, args] { RunHookCommand(c, args); });
        cv.notify_one();
        return Ok();
      }
    }
    return c.file->RunCommand(c.name, args);
  }

  void RunHookCommand(const HookCommand& c, const std::string& args) {
    agent::Outcome outcome;
    Status st = c.file->RunCommand(c.name, args);
    if (!st.ok()) {
      agent::Event e(agent::EventType::kError);
      e.text = st.error().message;
      e.kind = "hook_command";
      Publish(e);
      outcome.status = agent::Outcome::Status::kError;
      outcome.error = Error::Make(e.text, e.kind);
    }
    std::string sent;
    {
      std::lock_guard<std::mutex> lock(mu);
      std::deque<std::string>& q = !steering.empty() ? steering : follow_up;
      if (!q.empty()) {
        sent = std::move(q.front());
        q.pop_front();
      }
    }
    if (!sent.empty()) return RunPrompt(sent);
    {
      std::lock_guard<std::mutex> lock(snap_mu);
      last_outcome = outcome;
    }
    PublishSettled(outcome);
    ArmIdle(true);
  }

  // The hooks' commands join the list after templates and skills; a name
  // taken already is refused, as a hook's tool is.
  void AddHookCommands() {
    // mcp__ is the MCP servers' prefix (ext/prompts/command_source.h).
    auto reserved = [](const std::string& name) { return name.rfind(ext::kMcpCommandPrefix, 0) == 0; };
    for (const ext::CommandInfo& c : commands.List()) {
      if (reserved(c.name)) {
        Warn(c.path.string() + ": the command /" + c.name + " is not offered: names starting with " +
             ext::kMcpCommandPrefix + " are the MCP servers' prompts; rename it");
        continue;
      }
      command_list.push_back(c);
    }
    for (const auto& file : hooks.lua_files)
      for (const ext::LuaCommand& c : file->commands()) {
        if (reserved(c.name)) {
          Warn("hook " + file->path().string() + ": the command /" + c.name + " is not offered: names "
               "starting with " + ext::kMcpCommandPrefix + " are the MCP servers' prompts; rename it");
          continue;
        }
        bool taken = std::any_of(command_list.begin(), command_list.end(),
                                 [&](const ext::CommandInfo& o) { return o.name == c.name; });
        if (taken) {
          Warn("hook " + file->path().string() + ": a command named /" + c.name +
               " exists already (a prompt template, a skill or another hook's); its command was "
               "not added");
          continue;
        }
        std::string path = file->path().string(), cwd = opts.cwd.string();
        bool project = path.rfind(cwd + "/", 0) == 0;
        command_list.push_back({c.name, c.description, "", "extension",
                                project ? "project" : "user", file->path()});
        hook_commands.push_back({c.name, file});
      }
  }

  void HookMessage(const std::string& text, const std::string& deliver) {
    {
      std::lock_guard<std::mutex> lock(mu);
      if (closed) return;
      if (deliver == "next_turn") {
        next_turn.push_back(text);
        return;
      }
      if (busy) {
        (deliver == "steer" ? steering : follow_up).push_back(text);
      } else {
        busy = true;
        jobs.push_back([this, text] { RunPrompt(text); });
      }
    }
    cv.notify_one();
  }

  // Loads the hooks (ext/hook_loader.h), adds the tools they register, and
  // gives each Lua file back the ctx.state the session kept.
  ext::LoadedHooks LoadHookFiles(bool project_only) {
    ext::LuaHost host;
    host.cwd = opts.cwd;
    host.send_message = [this](const std::string& t, const std::string& d) { HookMessage(t, d); };
    host.notify = [this](const std::string& level, const std::string& t) {
      Warn("hook " + level + ": " + t);
    };
    host.report = [this](const std::string& problem) { Warn("hook failed: " + problem); };
    host.save_state = [this](const std::filesystem::path& file, const Json& state) {
      if (auto b = Bind()) b->RecordEntry("hook_state", {{"file", file.string()}, {"state", state}});
    };
    ext::CommandHost commands;  // hooks.json: the tools' sandbox, in the project
    commands.cwd = opts.cwd;
    commands.policy = opts.policy;
    commands.session_id = [this] { auto b = Bind(); return b ? b->id() : std::string(); };
    ext::HookSources sources{opts.cwd, "", opts.hook_files, ""};
    sources.project_only = project_only;
    return ext::LoadHooks(sources, host, std::move(commands));
  }

  // Gives each Lua file back the ctx.state the session kept.
  void RestoreHookState(const std::vector<std::shared_ptr<ext::LuaHookFile>>& files) {
    Json entries = Bind() ? Bind()->Entries() : Json::array();
    for (auto& file : files)
      for (auto it = entries.rbegin(); it != entries.rend(); ++it)
        if (it->value("type", "") == "hook_state" && it->value("file", "") == file->path().string()) {
          file->RestoreState(it->value("state", Json::object()));
          break;
        }
  }

  void LoadHooks() {
    hooks = LoadHookFiles(false);
    for (const auto& w : hooks.warnings) Warn(w);
    RestoreHookState(hooks.lua_files);
    for (auto& file : hooks.lua_files) {
      for (auto& t : file->TakeTools()) {
        if (registry->Find(t->name())) {
          Warn("hook " + file->path().string() + ": a tool named \"" + t->name() +
               "\" exists already; its tool was not added");
          continue;
        }
        registry->Add(std::move(t));
      }
    }
  }

  // At the first prompt, on the worker (the agent is not running): each
  // unconfirmed extension is asked about; a confirmed one starts and its
  // tools join the registry before the model's first call sees the tools.
  void AskExtensions(CancelToken& cancel) {
    for (ExtensionToConfirm& x : opts.extensions_to_confirm) {
      if (cancel.cancelled()) return;
      agent::PermissionRequest r;
      r.kind = agent::RequestKind::kExtension;
      r.subject = x.name;
      r.items.push_back({x.source, x.sha256, x.kind, x.capabilities});
      if (!x.runs.empty()) r.items.back().capabilities.insert(r.items.back().capabilities.begin(), "runs " + x.runs);
      r.justification = std::string(x.changed ? "Its binary, command or capabilities changed since you "
                                                "confirmed them. "
                                              : "It has not been confirmed yet. ") +
                        "Allow starts it with exactly these capabilities and remembers them; any "
                        "change asks again. Deny keeps it off.";
      agent::PermissionAnswer a = gate->Ask(r, cancel);
      if (!agent::IsAllow(a.choice)) {
        std::string why = a.source == "timeout"     ? "no answer came to the confirmation question"
                          : a.source == "cancelled" ? "the confirmation question was cancelled"
                                                    : "the user refused it in a session";
        (void)ext::RecordRefusal(x.confirm_name, x.key, why);
        Warn(x.kind + " " + x.name + " not loaded: " + why);
        continue;
      }
      if (auto st = ext::Confirm(x.confirm_name, x.key); !st.ok()) {
        Warn(x.kind + " " + x.name + " not loaded: cannot record the confirmation: " + st.error().message);
        continue;
      }
      using ToolList = std::vector<std::unique_ptr<tools::Tool>>;
      Result<ToolList> made = x.start ? x.start() : Result<ToolList>(ToolList());
      if (!made.ok()) {
        Warn(x.kind + " " + x.name + " was confirmed but did not load: " + made.error().message);
        continue;
      }
      for (auto& t : *made) {
        if (registry->Find(t->name())) {
          Warn(x.kind + " " + x.name + ": a tool named \"" + t->name() + "\" exists already; not added");
          continue;
        }
        registry->Add(std::move(t));
      }
    }
  }

  // At the first prompt of a session whose project has untrusted code
  // (project_trust_prompt.h): ask through the gate, on the worker, before
  // the agent runs. Trusted: the project's hooks join the running chain
  // (HookChain::Add is safe beside parallel tool calls) and act from this
  // prompt on. Their tools and commands would change the registry and the
  // command list, which other threads read unguarded: those wait for the
  // next session, which loads the project as trusted from the start.
  void AskProjectTrust(CancelToken& cancel) {
    ProjectConfig config = ReadProjectConfig(opts.cwd);
    if (ProjectTrustOf(config) != TrustState::kTrusted) {
      if (!ProjectTrustNeeded(config, opts.loads_extensions)) return;
      agent::PermissionAnswer a = gate->Ask(ProjectTrustRequest(config), cancel);
      ProjectTrustOutcome outcome = SettleProjectTrust(config, a);
      Warn(outcome.note);
      if (!outcome.trusted) return;
    }
    ext::LoadedHooks late = LoadHookFiles(true);
    for (const auto& w : late.warnings) Warn(w);
    RestoreHookState(late.lua_files);
    for (auto& file : late.lua_files) {
      if (!file->TakeTools().empty() || !file->commands().empty())
        Warn("hook " + file->path().string() + ": its tools and commands take effect from the "
             "next session (the project was trusted while this one ran)");
    }
    if (late.chain->empty()) return;
    auto binding = Bind();
    agent::SessionInfo info;
    info.source = "startup";
    info.session_id = binding ? binding->id() : "";
    agent::SessionStartVerdict v = late.chain->OnSessionStart(info);
    if (!v.context.empty()) {
      std::lock_guard<std::mutex> lock(mu);
      next_turn.push_back("<system-reminder>\n" + v.context + "\n</system-reminder>");
    }
    hooks.chain->Add(late.chain);
    late_hooks.push_back(std::move(late));
  }

  void PublishQueue() {
    agent::Event e(agent::EventType::kQueueUpdated);
    {
      std::lock_guard<std::mutex> lock(mu);
      e.data = {{"steering", Json(std::vector<std::string>(steering.begin(), steering.end()))},
                {"follow_up", Json(std::vector<std::string>(follow_up.begin(), follow_up.end()))}};
      bus.Publish(std::move(e), false);
    }
    bus.CallListeners();
  }

  // The agent's event sink (its thread, or a tool thread; serialised by
  // the agent).
  void OnAgentEvent(const agent::Event& e) {
    auto binding = Bind();
    if (e.type == agent::EventType::kToolFinished && e.denied && binding)
      binding->RecordDenial(e.call_id, e.tool, e.denials);
    if (e.type == agent::EventType::kUsage) {
      std::lock_guard<std::mutex> lock(snap_mu);
      total_usage = e.total;
    }
    Publish(e);
  }

  void OnMessage(const llm::Message& m) {
    if (auto binding = Bind()) binding->Record(m);
    if (m.role != llm::Role::kAssistant || m.Text().empty()) return;
    std::lock_guard<std::mutex> lock(snap_mu);
    last_text = m.Text();
  }

  // Publishes session.started for the current binding and remembers it for
  // late subscribers.
  void PublishStarted() {
    agent::Event e(agent::EventType::kSessionStarted);
    auto binding = Bind();
    std::string id = binding ? binding->id() : std::string();
    bus.set_session_id(id);
    e.data = {{"session_id", id},
              {"model", agent->model()},
              {"provider", provider_name},
              {"cwd", opts.cwd.string()}};
    if (binding && !binding->location().empty()) e.data["session_file"] = binding->location();
    e.session_id = id;
    uint64_t seq = bus.Publish(e);
    e.seq = seq;
    e.time_ms = NowMs();
    std::lock_guard<std::mutex> lock(snap_mu);
    started = e;
  }

  void PublishEnded() {
    agent::Event e(agent::EventType::kSessionEnded);
    agent::Outcome o;
    {
      std::lock_guard<std::mutex> lock(snap_mu);
      o = last_outcome;
    }
    e.data = {{"reason", agent::ToString(o.status)}, {"outcome", agent::ToJson(o)}};
    Publish(e);
  }

  // On the worker, between prompts: the user's commands since the last
  // one are recorded (if not yet) and enter the agent's context.
  void FlushUserBash() {
    std::vector<PendingBash> pending;
    {
      std::lock_guard<std::mutex> lock(mu);
      pending.swap(pending_bash);
    }
    if (pending.empty()) return;
    auto binding = Bind();
    for (const PendingBash& p : pending) {
      if (!p.recorded && binding) binding->RecordEntry("bash_execution", UserBashEntry(p.run));
      if (p.run.exclude_from_context) continue;
      agent->AddContext(UserBashMessage(p.run));
    }
  }

  // Hands the current binding's history to the agent.
  void LoadHistory() {
    {
      // Another session's commands stay in that session.
      std::lock_guard<std::mutex> lock(mu);
      pending_bash.clear();
    }
    auto binding = Bind();
    std::vector<llm::Message> h = binding ? binding->history() : std::vector<llm::Message>();
    std::string text;
    for (auto it = h.rbegin(); it != h.rend(); ++it)
      if (it->role == llm::Role::kAssistant && !it->Text().empty()) {
        text = it->Text();
        break;
      }
    agent->SetHistory(std::move(h));
    std::lock_guard<std::mutex> lock(snap_mu);
    last_outcome = agent::Outcome();
    last_text = std::move(text);
  }

  std::vector<std::string> TakeSteering() {
    std::vector<std::string> out;
    {
      std::lock_guard<std::mutex> lock(mu);
      out.assign(steering.begin(), steering.end());
      steering.clear();
    }
    if (!out.empty()) PublishQueue();
    for (const auto& f : subagents->background->TakeFinished())
      out.push_back(agent::BackgroundReportMessage(f));
    return out;
  }

  // "/name args": an MCP server's prompt (fetched now), a template or a
  // skill expanded; anything else as written. A name under the MCP prefix
  // that no server offers goes as written, never to a template.
  Result<std::string> ExpandCommand(const std::string& raw) {
    if (raw.rfind(std::string("/") + ext::kMcpCommandPrefix, 0) == 0) {
      if (opts.extra_commands)
        if (auto r = opts.extra_commands->Expand(raw)) return std::move(*r);
      return raw;
    }
    return commands.Expand(raw).value_or(raw);
  }

  // The extension tools made again when their source says they changed (an
  // MCP server's list_changed). Only here, on the worker as a prompt
  // starts, when no tool call runs; and not while a user's command runs
  // (RunBash looks its tool up in the registry): then at the next prompt.
  void RefreshExtraTools() {
    if (!opts.extra_tools || !opts.extra_tools_version) return;
    uint64_t now = opts.extra_tools_version();
    if (now == extra_tools_seen) return;
    std::lock_guard<std::mutex> lock(bash_mu);
    if (!bashes.empty()) return;
    // Made while the old ones live: a new tool never takes an old one's
    // address, by which the agent tells that its tool specs are stale.
    auto fresh = opts.extra_tools();
    std::vector<std::string> keep;
    for (tools::Tool* t : registry->All())
      if (!extra_tool_names.count(t->name())) keep.push_back(t->name());
    registry->Retain(keep);
    AddExtraTools(std::move(fresh));
    extra_tools_seen = now;
  }
  void AddExtraTools(std::vector<std::unique_ptr<tools::Tool>> made) {
    extra_tool_names.clear();
    for (auto& t : made) {
      if (registry->Find(t->name())) continue;
      extra_tool_names.insert(t->name());
      registry->Add(std::move(t));
    }
  }

  // One busy period: the prompt, then steering left over and follow-ups.
  // announced: its agent.started is out already (AnnounceLocked).
  void RunPrompt(std::string text, bool announced = false) {
    auto token = std::make_shared<CancelToken>();
    {
      std::lock_guard<std::mutex> lock(mu);
      cancel = token;
      if (!announced) AnnounceLocked(text);
    }
    if (!announced) bus.CallListeners();
    ArmIdle(false);
    if (trust_pending) {
      trust_pending = false;
      AskProjectTrust(*token);
    }
    if (extensions_pending) {
      extensions_pending = false;
      AskExtensions(*token);
    }
    agent::Outcome outcome;
    {
      // A hook's next_turn messages go in with the user's next prompt.
      std::lock_guard<std::mutex> lock(mu);
      for (auto it = next_turn.rbegin(); it != next_turn.rend(); ++it) text = *it + "\n\n" + text;
      next_turn.clear();
    }
    // Reports of background sub-agents that ended while the session was idle.
    {
      auto reports = subagents->background->TakeFinished();
      for (auto it = reports.rbegin(); it != reports.rend(); ++it)
        text = agent::BackgroundReportMessage(*it) + "\n\n" + text;
    }
    for (;;) {
      FlushUserBash();
      RefreshExtraTools();  // between the prompts of one busy period too
      outcome = agent->Prompt(text, *token);
      {
        std::lock_guard<std::mutex> lock(snap_mu);
        last_outcome = outcome;
      }
      if (outcome.status == agent::Outcome::Status::kAborted || token->cancelled()) break;
      // Steering that came after the last tool boundary, then follow-ups.
      {
        std::lock_guard<std::mutex> lock(mu);
        std::deque<std::string>& q = !steering.empty() ? steering : follow_up;
        if (q.empty()) break;
        text = std::move(q.front());
        q.pop_front();
      }
      PublishQueue();
    }
    {
      std::lock_guard<std::mutex> lock(mu);
      cancel.reset();
    }
    FlushUserBash();  // what ran during the prompt is recorded after it
    PublishSettled(outcome);
    ArmIdle(true);
  }

  // Idle before the world hears it: a client that prompts as soon as it
  // sees agent.settled must not be told "busy". Both under mu, as the next
  // prompt's agent.started is published (AnnounceLocked): that one can
  // never come before this agent.settled.
  void PublishSettled(const agent::Outcome& outcome) {
    agent::Event settled(agent::EventType::kAgentSettled);
    settled.data = {{"outcome", agent::ToJson(outcome)}};
    {
      std::lock_guard<std::mutex> lock(mu);
      if (jobs.empty()) busy = false;
      bus.Publish(std::move(settled), false);
    }
    idle_cv.notify_all();
    bus.CallListeners();
  }

  // agent.started for a prompt about to be queued, published by the
  // submitting thread (the caller holds mu, and calls bus.CallListeners()
  // once it let go of it): a front end that delivers on the publisher's
  // thread writes it before the worker has even woken up.
  void AnnounceLocked(const std::string& text) {
    agent::Event e(agent::EventType::kAgentStarted);
    e.text = text;
    bus.Publish(std::move(e), false);
  }

  void WorkerLoop() {
    for (;;) {
      std::function<void()> job;
      {
        std::unique_lock<std::mutex> lock(mu);
        cv.wait(lock, [&] { return stopping || !jobs.empty(); });
        if (jobs.empty()) return;  // stopping and drained
        job = std::move(jobs.front());
        jobs.pop_front();
      }
      job();
      {
        std::lock_guard<std::mutex> lock(mu);
        if (jobs.empty()) busy = false;
      }
      idle_cv.notify_all();
    }
  }

  // Called by a job before it reports its result: whoever it wakes must
  // find the agent idle, not a stale "busy".
  void MarkIdleIfDone() {
    {
      std::lock_guard<std::mutex> lock(mu);
      if (jobs.empty()) busy = false;
    }
    idle_cv.notify_all();
  }

  // Queues work for the worker; busy until it is done.
  void Submit(std::function<void()> job) {
    {
      std::lock_guard<std::mutex> lock(mu);
      busy = true;
      jobs.push_back(std::move(job));
    }
    cv.notify_one();
  }

  // Runs fn on the worker if the agent is idle and waits for it: the
  // session-changing operations.
  Status RunWhenIdle(const std::function<Status()>& fn) {
    std::promise<Status> done;
    auto fut = done.get_future();
    {
      std::lock_guard<std::mutex> lock(mu);
      if (closed) return Error::Make("the session is closed", "closed");
      if (busy)
        return Error::Make("the agent is busy with a prompt: abort it first (or wait until it settles)",
                           "busy");
      busy = true;
      jobs.push_back([&] {
        Status st = fn();
        MarkIdleIfDone();
        done.set_value(std::move(st));
      });
    }
    cv.notify_one();
    return fut.get();
  }

  Status OpenBinding(const SessionRequest& req) {
    auto b = std::make_shared<SessionBinding>();
    if (auto st = b->Open(req); !st.ok()) return st;
    SetBinding(std::move(b));
    return Ok();
  }

  // Leaves the current session for another one (new/switch/fork). The
  // current one is let go first (its writer lock: switching to the session
  // itself, or forking from it, reopens it); if the new one cannot be
  // opened, the old one is taken up again and nothing is published.
  Status ChangeSession(const SessionRequest& req) {
    if (opts.no_session || !Bind()) return Error::Make("sessions are off (--no-session)", "usage");
    std::string old_id = Bind()->id();
    SetBinding(nullptr);
    auto b = std::make_shared<SessionBinding>();
    if (auto st = b->Open(req); !st.ok()) {
      SessionRequest back = BaseRequest();
      back.resume_id = old_id;
      if (auto again = OpenBinding(back); !again.ok())
        Warn("cannot reopen session " + old_id + ": " + again.error().message);
      return st;
    }
    // Its sub-agents in the background end with it (their reports with them).
    subagents->background->StopAll();
    PublishEnded();
    SetBinding(std::move(b));
    LoadHistory();
    PublishStarted();
    return Ok();
  }

  SessionRequest BaseRequest() const {
    SessionRequest r;
    r.cwd = opts.cwd;
    r.provider = provider_name;
    r.model = agent ? agent->model() : opts.model;
    r.store = opts.store;
    return r;
  }
};

AgentSession::AgentSession(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

AgentSession::~AgentSession() { Close(); }

Result<std::unique_ptr<AgentSession>> AgentSession::Open(SessionOptions options) {
  auto impl = std::make_unique<Impl>();
  Impl& s = *impl;
  s.opts = std::move(options);
  const SessionOptions& o = s.opts;
  if (o.cwd.empty()) s.opts.cwd = std::filesystem::current_path();
  // The git remotes the sandbox may reach (SEPP_HTTP_ALLOWED_HOSTS,
  // SEPP_SSH_HOSTS, [git] in the user's settings; tools/git_egress.h).
  auto egress = tools::LoadGitEgress(SeppHome() / "settings.toml");
  if (!egress.ok()) return egress.error();
  tools::ApplyGitEgress(*egress, &s.opts.policy);

  if (o.make_provider) {
    s.provider = o.make_provider();
    s.provider_name = s.provider->name();
  } else {
    s.provider = llm::MakeProvider(o.provider);
    s.provider_name = o.provider.name;
  }
  std::string model = o.model;
  if (model.empty()) {
    if (const char* m = getenv("SEPP_MODEL"); m && *m) model = m;
    else model = llm::DefaultModel(s.provider_name);
  }

  if (!o.no_session) {
    if ((!o.branch_entry.empty() || !o.fork_entry.empty()) && !o.continue_latest && o.resume.empty())
      return Error::Make("--branch and --fork need the session: add -c or -r ID", "usage");
    SessionRequest req{o.cwd, s.provider_name, model, o.continue_latest, o.resume,
                       o.branch_entry, o.fork_entry, o.store};
    if (auto st = s.OpenBinding(req); !st.ok()) return st.error();
  } else if (o.continue_latest || !o.resume.empty()) {
    return Error::Make("-c/-r cannot be combined with --no-session", "usage");
  }

  agent::AgentConfig& ac = s.agent_config;
  ac.model = model;
  ac.cwd = o.cwd;
  ac.policy = &s.opts.policy;
  ac.file_access = s.opts.file_access.get();
  ac.max_turns = o.max_turns;
  ac.thinking_budget = o.thinking_budget;
  ac.stream = o.stream;
  ac.context_window = llm::LookupModel(s.provider_name, model).context_window;
  ac.compaction = o.compaction;

  s.gate = std::make_unique<PermissionBroker>(o.permissions, o.cwd, [&s](agent::Event e) {
    // A question that goes to the user is what Claude's Notification
    // hook ("permission_prompt") reports.
    if (e.type == agent::EventType::kPermissionRequested && s.agent_config.hooks)
      s.agent_config.hooks->OnNotification(
          {"permission_prompt", e.tool.empty() ? "sepp asks you to confirm " + e.data.value("subject", std::string())
                                               : "sepp needs your permission to use " + e.tool});
    s.Publish(std::move(e));
  });
  ac.permission_gate = s.gate.get();
  s.questions = std::make_unique<QuestionBroker>(o.questions, [&s](agent::Event e) {
    if (e.type == agent::EventType::kQuestionRequested && s.agent_config.hooks)
      s.agent_config.hooks->OnNotification({"elicitation_dialog", "sepp has a question for you"});
    s.Publish(std::move(e));
  });

  std::vector<std::string> warnings;
  s.subagents = std::make_shared<agent::SubagentRuntime>();
  if (o.make_provider) s.subagents->make_provider = o.make_provider;
  else s.subagents->make_provider = [cfg = o.provider] { return llm::MakeProvider(cfg); };
  s.recall = OpenRecall(o.cwd, s.opts.policy, [&s] {
    auto b = s.Bind();
    return b ? b->id() : std::string();
  });
  for (const auto& w : s.recall.warnings) s.Warn(w);
  ac.sidecar = s.recall.sidecar.get();
  s.subagents->make_tools = [recall = s.recall] {
    auto r = tools::MakeBuiltinTools();
    tools::AddSearchTools(*r);
    AddRecallTools(*r, recall);
    tools::AddProcessTools(*r);
    return r;
  };
  if (!o.no_session)
    s.subagents->open_child_session = [&s](const std::string& task, const std::string& name) {
      auto binding = s.Bind();
      return binding ? binding->OpenChild(task, name) : agent::ChildSession();
    };
  // A sub-agent's events reach the front ends nested under the parent's
  // call; its denials land in the parent's audit trail too.
  s.subagents->on_child_event = [&s](const agent::Event& e) { s.Publish(e); };
  // Sub-agents the user sends to the background: their reports are told
  // at once and reach the model at the next turn boundary (TakeSteering)
  // or with the next prompt.
  s.subagents->background = std::make_shared<agent::BackgroundAgents>();
  s.subagents->background->on_finished = [&s](const agent::BackgroundAgents::Finished& f) {
    agent::Event e(agent::EventType::kBackgroundFinished);
    e.call_id = f.call_id;
    e.tool = "agent";
    e.result = f.text;
    e.is_error = f.is_error;
    e.child_session_id = f.child_session_id;
    e.data = {{"details", f.details}};
    s.Publish(std::move(e));
  };
  s.subagents->record_child_denial = [&s](const std::string& child, const std::string& call_id,
                                          const std::string& tool,
                                          const std::vector<sandbox::Denial>& denials) {
    if (auto binding = s.Bind()) binding->RecordChildDenial(child, call_id, tool, denials);
  };
  s.subagents->parent = ac;
  s.subagents->definitions = agent::LoadAgentDefinitions(o.cwd, &warnings);
  s.subagents->date = TodayLocal();
  for (const auto& w : warnings) s.Warn("skipped an agent definition: " + w);

  s.registry = tools::MakeBuiltinTools();
  for (auto& t : tools::MakeWebTools()) s.registry->Add(std::move(t));
  tools::AddSearchTools(*s.registry);
  AddRecallTools(*s.registry, s.recall);
  tools::AddProcessTools(*s.registry);
  s.registry->Add(std::make_unique<agent::SubagentTool>(s.subagents, 0));
  s.registry->Add(agent::MakeQuestionTool(s.questions.get()));
  // Tier 1: skills (the skill tool and their catalog) and slash commands.
  ext::Resources resources = ext::LoadResources(o.cwd);
  const std::string skill_catalog = ext::SkillCatalogPrompt(*resources.skills);
  for (const auto& w : resources.warnings) s.Warn(w);
  if (!resources.skills->skills.empty()) {
    s.registry->Add(ext::MakeSkillTool(resources.skills));
    // Sub-agents get the same skills: the tool and its catalog.
    s.subagents->make_tools = [skills = resources.skills, recall = s.recall] {
      auto registry = tools::MakeBuiltinTools();
      AddRecallTools(*registry, recall);
      registry->Add(ext::MakeSkillTool(skills));
      return registry;
    };
    s.subagents->tool_prompts.push_back({"skill", skill_catalog});
    for (const auto& w : ext::LetCommandsReadSkillFolders(*resources.skills, &s.opts.policy))
      s.Warn(w);
  }
  s.commands = std::move(resources.commands);
  if (o.extra_tools) {
    if (o.extra_tools_version) s.extra_tools_seen = o.extra_tools_version();
    s.AddExtraTools(o.extra_tools());
  }
  s.LoadHooks();
  s.AddHookCommands();
  // Only a front end that answers is asked; headless runs keep --trust.
  s.trust_pending =
      o.permissions.ask_front_end && ProjectTrustNeeded(ReadProjectConfig(o.cwd), o.loads_extensions);
  s.extensions_pending = o.permissions.ask_front_end && !o.extensions_to_confirm.empty();
  if (!s.hooks.chain->empty() || s.trust_pending) {
    ac.hooks = s.hooks.chain.get();
    s.subagents->parent.hooks = ac.hooks;
  }
  std::vector<agent::ToolLine> tool_lines;
  for (tools::Tool* t : s.registry->All()) tool_lines.push_back({t->name(), t->description()});
  ac.system_prompt = agent::BuildSystemPrompt(o.cwd, s.subagents->date, tool_lines,
                                              agent::FindContextFiles(o.cwd)) +
                     skill_catalog;

  s.agent = std::make_unique<agent::Agent>(
      ac, *s.provider, *s.registry, [&s](const agent::Event& e) { s.OnAgentEvent(e); },
      [&s](const llm::Message& m) { s.OnMessage(m); });
  s.agent->set_compaction_recorder([&s](const agent::CompactionResult& r) {
    if (auto binding = s.Bind()) binding->RecordCompaction(r);
  });
  s.agent->set_steering_source([&s] { return s.TakeSteering(); });
  s.thinking = LevelForBudget(o.thinking_budget);
  s.model = model;
  s.LoadHistory();
  s.PublishStarted();
  if (ac.hooks) {
    // SessionStart context reaches the model with the first prompt.
    auto binding = s.Bind();
    agent::SessionInfo info;
    info.source = o.continue_latest || !o.resume.empty() ? "resume" : "startup";
    info.session_id = binding ? binding->id() : "";
    agent::SessionStartVerdict v = ac.hooks->OnSessionStart(info);
    if (!v.context.empty())
      s.next_turn.push_back("<system-reminder>\n" + v.context + "\n</system-reminder>");
  }
  // Before the worker, which arms it.
  if (ac.hooks && o.permissions.ask_front_end && o.idle_notification_s > 0)
    s.idle_thread = std::thread([&s] { s.IdleLoop(); });
  s.worker = std::thread([&s] { s.WorkerLoop(); });
  if (o.question_relay) o.question_relay->Attach(s.questions.get());
  return std::unique_ptr<AgentSession>(new AgentSession(std::move(impl)));
}

void AgentSession::Close() {
  Impl& s = *impl_;
  {
    std::lock_guard<std::mutex> lock(s.mu);
    if (s.closed) return;
    s.closed = true;
    s.stopping = true;
    s.steering.clear();
    s.follow_up.clear();
    if (s.cancel) s.cancel->Cancel();
  }
  s.gate->CancelAll();
  s.questions->CancelAll();
  if (s.opts.question_relay) s.opts.question_relay->Detach();
  s.cv.notify_all();
  {  // the user's commands use the agent's sandbox: end them before it goes
    std::unique_lock<std::mutex> lock(s.bash_mu);
    s.bash_closed = true;
    for (auto& t : s.bashes) t->Cancel();
    s.bash_cv.wait(lock, [&] { return s.bashes.empty(); });
  }
  if (s.worker.joinable()) s.worker.join();
  // The sub-agents sent to the background die with the session: each is
  // cancelled, and waited for until its sandbox is gone.
  s.subagents->background->Close();
  if (s.idle_thread.joinable()) {
    {
      std::lock_guard<std::mutex> lock(s.idle_mu);
      s.idle_stop = true;
    }
    s.idle_wake.notify_all();
    s.idle_thread.join();
  }
  if (s.agent_config.hooks) {
    auto binding = s.Bind();
    s.agent_config.hooks->OnSessionEnd({"", "other", binding ? binding->id() : ""});
  }
  s.PublishEnded();
  s.bus.CloseAll();
}

std::shared_ptr<Subscription> AgentSession::Subscribe(size_t capacity) {
  agent::Event first(agent::EventType::kSessionStarted);
  {
    std::lock_guard<std::mutex> lock(impl_->snap_mu);
    first = impl_->started;
  }
  return impl_->bus.Subscribe(capacity, &first);
}

Status AgentSession::Prompt(const std::string& raw) {
  Impl& s = *impl_;
  std::string args;
  if (const auto* c = s.FindHookCommand(raw, &args)) return s.StartHookCommand(*c, std::move(args));
  auto expanded = s.ExpandCommand(raw);
  if (!expanded.ok()) return expanded.error();
  const std::string text = std::move(*expanded);
  {
    std::lock_guard<std::mutex> lock(s.mu);
    if (s.closed) return Error::Make("the session is closed", "closed");
    if (s.busy)
      return Error::Make("the agent is already working on a prompt: send it as a steer or a "
                         "follow-up, or abort first",
                         "busy");
    s.busy = true;
    s.AnnounceLocked(text);
    s.jobs.push_back([&s, text] { s.RunPrompt(text, true); });
  }
  s.cv.notify_one();
  s.bus.CallListeners();
  return Ok();
}

namespace {

Status Enqueue(AgentSession::Impl& s, std::deque<std::string>& queue, const std::string& text,
               bool* start_now) {
  std::lock_guard<std::mutex> lock(s.mu);
  if (s.closed) return Error::Make("the session is closed", "closed");
  *start_now = !s.busy;
  if (*start_now) {
    s.busy = true;
    s.AnnounceLocked(text);
    s.jobs.push_back([&s, text] { s.RunPrompt(text, true); });
    return Ok();
  }
  if (s.steering.size() + s.follow_up.size() >= s.opts.max_queued_messages)
    return Error::Make("too many queued messages (" + std::to_string(s.opts.max_queued_messages) +
                           "): wait for the agent, or clear the queue",
                       "queue_full");
  queue.push_back(text);
  return Ok();
}

}  // namespace

Status AgentSession::Steer(const std::string& raw) {
  std::string args;
  if (const auto* c = impl_->FindHookCommand(raw, &args))
    return impl_->StartHookCommand(*c, std::move(args));
  auto expanded = impl_->ExpandCommand(raw);
  if (!expanded.ok()) return expanded.error();
  bool now = false;
  Status st = Enqueue(*impl_, impl_->steering, *expanded, &now);
  if (!st.ok()) return st;
  if (!now) {
    impl_->PublishQueue();
    return Ok();
  }
  impl_->cv.notify_one();
  impl_->bus.CallListeners();  // its agent.started
  return Ok();
}

Status AgentSession::FollowUp(const std::string& raw) {
  std::string args;
  if (const auto* c = impl_->FindHookCommand(raw, &args))
    return impl_->StartHookCommand(*c, std::move(args));
  auto expanded = impl_->ExpandCommand(raw);
  if (!expanded.ok()) return expanded.error();
  bool now = false;
  Status st = Enqueue(*impl_, impl_->follow_up, *expanded, &now);
  if (!st.ok()) return st;
  if (!now) {
    impl_->PublishQueue();
    return Ok();
  }
  impl_->cv.notify_one();
  impl_->bus.CallListeners();  // its agent.started
  return Ok();
}

QueueState AgentSession::ClearQueue() {
  QueueState q;
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    q.steering.assign(impl_->steering.begin(), impl_->steering.end());
    q.follow_up.assign(impl_->follow_up.begin(), impl_->follow_up.end());
    impl_->steering.clear();
    impl_->follow_up.clear();
  }
  if (!q.steering.empty() || !q.follow_up.empty()) impl_->PublishQueue();
  return q;
}

QueueState AgentSession::Abort() {
  QueueState q = ClearQueue();
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    if (impl_->cancel) impl_->cancel->Cancel();
  }
  // The abort reaches the sub-agents in the background too.
  impl_->subagents->background->AbortAll();
  // Then the questions asked for the prompt outside its token (an MCP
  // server's elicitation, on the server's connection): after the token, so
  // the call they end already sees the turn aborted.
  impl_->questions->CancelWaiting();
  return q;
}

Status AgentSession::AbortCall(const std::string& call_id) {
  if (impl_->agent->AbortCall(call_id)) return Ok();
  if (impl_->subagents->background->Abort(call_id)) return Ok();  // a sub-agent in the background
  return Error::Make("no running tool call has the id \"" + call_id + "\" (it may have finished)",
                     "not_found");
}

Status AgentSession::BackgroundCall(const std::string& call_id) {
  // An "agent" call goes on its own thread; a bash call in the sandbox.
  if (impl_->subagents->background->Detach(call_id).ok()) return Ok();
  return impl_->agent->BackgroundCall(call_id);
}

bool AgentSession::WaitIdle(double timeout_s) {
  std::unique_lock<std::mutex> lock(impl_->mu);
  auto idle = [&] { return !impl_->busy; };
  if (timeout_s < 0) {
    impl_->idle_cv.wait(lock, idle);
    return true;
  }
  return impl_->idle_cv.wait_for(lock, std::chrono::duration<double>(timeout_s), idle);
}

Status AgentSession::SetModel(const std::string& model) {
  if (model.empty()) return Error::Make("the model id is empty", "usage");
  impl_->agent->SetModel(model);
  if (auto binding = impl_->Bind()) binding->RecordEntry("model_change", {{"model", model}});
  std::lock_guard<std::mutex> lock(impl_->snap_mu);
  impl_->model = model;
  return Ok();
}

Status AgentSession::SetThinking(ThinkingLevel level) {
  impl_->agent->SetThinkingBudget(ThinkingBudget(level));
  std::lock_guard<std::mutex> lock(impl_->snap_mu);
  impl_->thinking = level;
  return Ok();
}

std::future<Result<agent::CompactionResult>> AgentSession::Compact(const std::string& focus) {
  Impl& s = *impl_;
  auto done = std::make_shared<std::promise<Result<agent::CompactionResult>>>();
  auto fut = done->get_future();
  {
    std::lock_guard<std::mutex> lock(s.mu);
    if (s.closed) {
      done->set_value(Error::Make("the session is closed", "closed"));
      return fut;
    }
  }
  s.Submit([&s, focus, done] {
    {
      std::lock_guard<std::mutex> lock(s.mu);
      s.compacting = true;
    }
    CancelToken token;
    auto r = s.agent->Compact(focus, token);
    {
      std::lock_guard<std::mutex> lock(s.mu);
      s.compacting = false;
    }
    s.MarkIdleIfDone();
    done->set_value(std::move(r));
  });
  return fut;
}

Status AgentSession::NewSession() {
  Impl& s = *impl_;
  return s.RunWhenIdle([&s] { return s.ChangeSession(s.BaseRequest()); });
}

Status AgentSession::SwitchSession(const std::string& id_or_path) {
  Impl& s = *impl_;
  return s.RunWhenIdle([&s, id_or_path] {
    SessionRequest r = s.BaseRequest();
    r.resume_id = id_or_path;
    return s.ChangeSession(r);
  });
}

Status AgentSession::Branch(const std::string& entry_id) {
  Impl& s = *impl_;
  return s.RunWhenIdle([&s, entry_id]() -> Status {
    auto binding = s.Bind();
    if (!binding) return Error::Make("sessions are off (--no-session)", "usage");
    if (auto st = binding->Branch(entry_id); !st.ok()) return st;
    s.LoadHistory();
    return Ok();
  });
}

Result<std::string> AgentSession::Fork(const std::string& entry_id) {
  Impl& s = *impl_;
  std::string id;
  Status st = s.RunWhenIdle([&s, &id, entry_id]() -> Status {
    auto binding = s.Bind();
    if (!binding) return Error::Make("sessions are off (--no-session)", "usage");
    SessionRequest r = s.BaseRequest();
    r.resume_id = binding->id();
    r.fork_entry = entry_id;
    binding.reset();
    if (auto st2 = s.ChangeSession(r); !st2.ok()) return st2;
    id = s.Bind()->id();
    return Ok();
  });
  if (!st.ok()) return st.error();
  return id;
}

void AgentSession::SetAutoCompaction(bool enabled) { impl_->agent->SetAutoCompaction(enabled); }
void AgentSession::SetAutoRetry(bool enabled) { impl_->agent->SetAutoRetry(enabled); }

bool AgentSession::AbortRetry() { return impl_->agent->AbortRetry(); }

Result<BashRun> AgentSession::RunBash(const std::string& command, bool exclude_from_context,
                                      std::function<void(std::string_view)> on_output) {
  Impl& s = *impl_;
  if (command.empty()) return Error::Make("\"command\" is empty: say what to run", "usage");
  auto token = std::make_shared<CancelToken>();
  {
    std::lock_guard<std::mutex> lock(s.bash_mu);
    if (s.bash_closed) return Error::Make("the session is closed", "closed");
    s.bashes.push_back(token);
  }
  tools::ToolResult r = s.agent->RunUserBash(command, *token, std::move(on_output));
  {
    std::lock_guard<std::mutex> lock(s.bash_mu);
    std::erase(s.bashes, token);
  }
  s.bash_cv.notify_all();
  BashRun run;
  const Json& d = r.details;
  if (!d.is_object()) return Error::Make(r.text, "tool");  // not run at all (no sandbox, ...)
  run.exit_code = d.value("exit_code", -1);
  run.cancelled = d.value("cancelled", false) || token->cancelled();
  run.truncated = r.truncated;
  run.full_output_path = d.value("full_output_path", "");
  // The tool's text is the output, then its outcome line ("exit code 1"),
  // which the fields above carry.
  run.output = r.text.substr(0, r.text.rfind('\n') + 1);
  if (run.output == "(no output)\n") run.output.clear();
  UserBash entry{command,        run.output,           run.exit_code,       run.cancelled,
                 run.truncated,  run.full_output_path, exclude_from_context};
  {
    // Idle: recorded now, in the context from the next prompt. During a
    // prompt: both once it ends (FlushUserBash), as pi does. Under mu, so
    // a prompt cannot start in between and be recorded first.
    std::lock_guard<std::mutex> lock(s.mu);
    bool now = !s.busy;
    if (now)
      if (auto binding = s.Bind()) binding->RecordEntry("bash_execution", UserBashEntry(entry));
    if (!now || !exclude_from_context) s.pending_bash.push_back({std::move(entry), now});
  }
  return run;
}

void AgentSession::AbortBash() {
  std::lock_guard<std::mutex> lock(impl_->bash_mu);
  for (auto& t : impl_->bashes) t->Cancel();
}

Result<std::string> AgentSession::ExportHtml(const std::string& output_path) {
  auto binding = impl_->Bind();
  if (!binding || binding->location().empty())
    return Error::Make("sessions are off (--no-session): there is nothing to export", "usage");
  std::filesystem::path out = output_path;
  if (out.empty())
    out = impl_->opts.cwd / ("sepp-session-" + std::filesystem::path(binding->location()).stem().string() +
                             ".html");
  else if (out.is_relative())
    out = impl_->opts.cwd / out;
  if (Status w = WriteFileAtomic(out, binding->ExportHtml(), 0644); !w.ok()) return w.error();
  return out.string();
}

Status AgentSession::Label(const std::string& entry_id, const std::string& label) {
  auto binding = impl_->Bind();
  if (!binding) return Error::Make("sessions are off (--no-session)", "usage");
  return binding->Label(entry_id, label);
}

Status AgentSession::SetSessionName(const std::string& name) {
  auto binding = impl_->Bind();
  if (!binding) return Error::Make("sessions are off (--no-session)", "usage");
  binding->RecordEntry("session_info", {{"name", name}});
  return Ok();
}

SessionState AgentSession::GetState() const {
  const Impl& s = *impl_;
  SessionState st;
  {
    std::lock_guard<std::mutex> lock(s.mu);
    st.busy = s.busy;
    st.compacting = s.compacting;
    st.queue.steering.assign(s.steering.begin(), s.steering.end());
    st.queue.follow_up.assign(s.follow_up.begin(), s.follow_up.end());
  }
  if (auto binding = s.Bind()) {
    st.session_id = binding->id();
    st.session_file = binding->location();
    st.session_name = binding->name();
  }
  st.provider = s.provider_name;
  st.cwd = s.opts.cwd;
  st.auto_compaction = s.agent->auto_compaction();
  st.auto_retry = s.agent->auto_retry();
  st.sandbox_enabled = s.opts.policy.enabled;
  st.sandbox_pid = s.agent->sandbox_pid();
  st.message_count = s.agent->message_count();
  std::lock_guard<std::mutex> lock(s.snap_mu);
  st.model = s.model;
  st.thinking = s.thinking;
  st.total_usage = s.total_usage;
  return st;
}

std::vector<llm::Message> AgentSession::Messages() const {
  return impl_->agent->messages();
}

Json AgentSession::Entries() const {
  auto binding = impl_->Bind();
  return binding ? binding->Entries() : Json::array();
}

Json AgentSession::Tree() const {
  auto binding = impl_->Bind();
  return binding ? binding->Tree() : Json{{"leaf", ""}, {"nodes", Json::array()}};
}

std::string AgentSession::LastAssistantText() const {
  std::lock_guard<std::mutex> lock(impl_->snap_mu);
  return impl_->last_text;
}

std::vector<ext::CommandInfo> AgentSession::Commands() const {
  std::vector<ext::CommandInfo> out = impl_->command_list;
  if (impl_->opts.extra_commands)
    for (auto& c : impl_->opts.extra_commands->List()) out.push_back(std::move(c));
  return out;
}

agent::Outcome AgentSession::LastOutcome() const {
  std::lock_guard<std::mutex> lock(impl_->snap_mu);
  return impl_->last_outcome;
}

std::vector<PendingPermission> AgentSession::PendingPermissions() const {
  return impl_->gate->Pending();
}

llm::Request AgentSession::RequestPreamble() const { return impl_->agent->RequestPreamble(); }

std::vector<PermissionGrant> AgentSession::PermissionGrants() const { return impl_->gate->Grants(); }

Status AgentSession::RevokeSessionGrant(const agent::Widening& widening) {
  return impl_->gate->RevokeSessionGrant(widening);
}

const sandbox::Policy& AgentSession::policy() const { return impl_->opts.policy; }

std::vector<PendingQuestion> AgentSession::PendingQuestions() const {
  return impl_->questions->Pending();
}

Status AgentSession::AnswerQuestion(const std::string& question_id, const Json& values) {
  return impl_->questions->Answer(question_id, values);
}

Status AgentSession::AnswerQuestionStrings(const std::string& question_id, const Json& answers) {
  return impl_->questions->AnswerStrings(question_id, answers);
}

Status AgentSession::DeclineQuestion(const std::string& question_id, const std::string& why) {
  return impl_->questions->Decline(question_id, why);
}

agent::QuestionAsker& AgentSession::questions() { return *impl_->questions; }

Status AgentSession::AnswerPermission(const std::string& request_id,
                                      agent::PermissionAnswer answer) {
  return impl_->gate->Answer(request_id, std::move(answer));
}

}  // namespace sepp::runtime
