#include "front/acp/acp_server.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <thread>

#include "base/clock.h"
#include "base/log.h"
#include "base/strings.h"
#include "ext/mcp/client_servers.h"
#include "front/acp/client_files.h"
#include "front/acp/jsonrpc.h"
#include "front/acp/line_reader.h"
#include "front/acp/outbox.h"
#include "front/acp/permission.h"
#include "front/acp/question_request.h"
#include "front/acp/session_config.h"
#include "front/acp/tool_calls.h"
#include "front/acp/updates.h"
#include "llm/models.h"
#include "tools/tool.h"

namespace sepp::front::acp {
namespace {

namespace fs = std::filesystem;
using jsonrpc::Message;

constexpr int kProtocolVersion = 1;
constexpr size_t kListPage = 100;

// Errors carry their JSON-RPC code in Error::kind.
Error InvalidParams(std::string message) { return Error::Make(std::move(message), "invalid_params"); }
Error NotFound(std::string message) { return Error::Make(std::move(message), "not_found"); }
Error InvalidRequest(std::string message) { return Error::Make(std::move(message), "invalid_request"); }

int CodeFor(const Error& e) {
  if (e.kind == "invalid_params") return jsonrpc::kInvalidParams;
  if (e.kind == "not_found") return jsonrpc::kResourceNotFound;
  if (e.kind == "invalid_request" || e.kind == "busy") return jsonrpc::kInvalidRequest;
  if (e.kind == "method_not_found") return jsonrpc::kMethodNotFound;
  return jsonrpc::kInternalError;
}

Result<std::string> StringParam(const Json& params, const char* key) {
  if (!params.is_object() || !params.contains(key) || !params[key].is_string() ||
      params[key].get_ref<const std::string&>().empty())
    return InvalidParams(std::string("\"") + key + "\" (a non-empty string) is required");
  return params[key].get<std::string>();
}

// A session's title in lists: the first line of its first prompt, short.
std::string ListTitle(std::string_view prompt) {
  std::string_view line = Trim(prompt.substr(0, prompt.find('\n')));
  size_t cut = Utf8SafePrefix(line, 80);
  return SanitizeUtf8(line.substr(0, cut)) + (cut < line.size() ? "..." : "");
}

Result<fs::path> CwdParam(const Json& params) {
  auto cwd = StringParam(params, "cwd");
  if (!cwd.ok()) return cwd.error();
  fs::path p(*cwd);
  std::error_code ec;
  if (!p.is_absolute() || !fs::is_directory(p, ec))
    return InvalidParams("\"cwd\" must be the absolute path of an existing folder, got \"" + *cwd +
                         "\"");
  return p.lexically_normal();
}

// What a session's pump remembers about the tool calls in flight.
struct CallState {
  std::map<std::string, Json> args;           // from tool.started, for tool.finished
  std::map<std::string, std::string> output;  // streamed so far (bash)
  // A sub-agent's call → the call that runs that sub-agent: a nested
  // permission request is shown on the top-level call the client knows.
  std::map<std::string, std::string> parent_of;
};

// One ACP session: its runtime, the thread that pumps its events to the
// client, and what the client set on it.
struct AcpSession {
  std::string id;
  fs::path cwd;
  std::unique_ptr<runtime::AgentSession> rt;
  std::shared_ptr<runtime::Subscription> sub;  // the pump thread's (and Start's)
  std::thread pump;
  // Events are forwarded on the thread that published them when that needs
  // no waiting (Server::DeliverNow), else by the pump thread; one at a time.
  std::mutex pump_mu;  // guards what follows
  std::vector<agent::Event> held;  // taken, left to the pump thread
  CallState calls;
  std::thread task;  // a /compact waiting for its result

  std::mutex mu;  // guards what follows
  Json prompt_id;  // the session/prompt to answer when the turn settles
  bool cancel_requested = false;
  Mode mode = Mode::kAsk;
  std::vector<std::string> models;
  Json commands_sent;  // the last available_commands_update (MCP prompts may change)

  Mode current_mode() {
    std::lock_guard lock(mu);
    return mode;
  }
};

class Server {
 public:
  Server(int in_fd, int out_fd, AcpOptions options)
      : in_fd_(in_fd),
        options_(std::move(options)),
        out_(out_fd, options_.max_queued_output),
        titles_(tools::MakeBuiltinTools()) {}

  int Run();

 private:
  void Dispatch(const Message& m);
  void OnResponse(const Message& m);
  void OnNotification(const Message& m);
  // The answer, or nothing when it comes later (session/prompt).
  std::optional<Result<Json>> OnRequest(const Message& m);

  Result<Json> Initialize(const Json& p);
  Result<Json> NewSession(const Json& p);
  Result<Json> LoadSession(const Json& p, bool replay);
  Result<Json> ListSessions(const Json& p);
  Result<Json> CloseSession(const Json& p);
  Result<Json> SetMode(const Json& p);
  Result<Json> SetConfigOption(const Json& p);
  std::optional<Result<Json>> Prompt(const Json& id, const Json& p);
  void Cancel(const Json& p);

  Result<std::shared_ptr<AcpSession>> Find(const Json& p);
  Result<std::shared_ptr<AcpSession>> Open(const fs::path& cwd, const std::string& resume,
                                           const Json& mcp_servers);
  void Start(const std::shared_ptr<AcpSession>& s);
  Json SessionSetup(AcpSession& s);  // {modes, configOptions}
  Json ConfigOptions(AcpSession& s);
  UpdateContext ContextFor(AcpSession& s);

  void Pump(std::shared_ptr<AcpSession> s);
  // Forwards the events of s queued now, on the publishing thread, up to
  // one that needs the pump thread (a permission request, a question, a
  // lost stream), which is left to it. Never waits.
  void DeliverNow(const std::shared_ptr<AcpSession>& s, runtime::Subscription& sub);
  void Listen(const std::shared_ptr<AcpSession>& s);
  // Forward for each event (under s.pump_mu); may_wait false: stops before
  // the first one that needs the pump thread. Returns how many it forwarded.
  size_t ForwardAll(const std::shared_ptr<AcpSession>& s, const std::vector<agent::Event>& events,
                    bool may_wait);
  // One event to the client (an update, a permission request, the answer).
  void Forward(const std::shared_ptr<AcpSession>& s, const agent::Event& e, CallState& calls);
  void AskQuestion(const std::shared_ptr<AcpSession>& s, const agent::Event& e);
  void AskPermission(const std::shared_ptr<AcpSession>& s, const agent::Event& e,
                     const CallState& calls);
  void Settle(AcpSession& s, const Json& outcome);
  // available_commands_update with the session's commands now, remembered as sent.
  Json CommandsUpdate(AcpSession& s);
  void Compact(std::shared_ptr<AcpSession> s, Json id, std::string focus);

  // Our request to the client; done runs on the reader thread with its
  // answer. Returns the id, or 0 (done never runs) when it was not sent.
  int64_t Call(std::string method, Json params,
               std::function<void(const Json& result, const Json& error)> done);
  void Forget(int64_t id);

  void Reply(const Json& id, const Result<Json>& r);
  void Update(const std::string& session_id, Json update, bool droppable);
  void Shutdown();

  int in_fd_;
  AcpOptions options_;
  jsonrpc::Outbox out_;
  std::unique_ptr<tools::ToolRegistry> titles_;  // only for tools' Summary()

  bool initialized_ = false;
  // clientCapabilities.fs from initialize: the file tools go through the client.
  bool client_reads_ = false, client_writes_ = false;
  // Updates to send once the current request is answered: {session id, update}.
  std::vector<std::pair<std::string, Json>> after_reply_;
  std::map<std::string, std::shared_ptr<AcpSession>> sessions_;  // reader thread only

  std::mutex calls_mu_;  // our requests to the client, waiting for answers
  int64_t next_call_ = 0;
  std::map<int64_t, std::function<void(const Json& result, const Json& error)>> calls_;
};

int Server::Run() {
  jsonrpc::LineReader reader(in_fd_, options_.max_line);
  while (auto line = reader.Next()) {
    if (line->too_long) {
      out_.Send(jsonrpc::MakeError(nullptr, jsonrpc::kInvalidRequest,
                                   "the message is longer than " +
                                       std::to_string(options_.max_line >> 20) +
                                       " MiB and was skipped"));
      continue;
    }
    if (Trim(line->text).empty()) continue;
    auto parsed = jsonrpc::ParseMessage(line->text);
    if (!parsed.message) {
      if (!parsed.error_response.is_null()) out_.Send(parsed.error_response);
      continue;
    }
    Dispatch(*parsed.message);
  }
  Shutdown();
  return out_.broken() ? 1 : 0;
}

void Server::Dispatch(const Message& m) {
  switch (m.kind) {
    case Message::Kind::kResponse: return OnResponse(m);
    case Message::Kind::kNotification: return OnNotification(m);
    case Message::Kind::kRequest: {
      std::optional<Result<Json>> r;
      try {
        r = OnRequest(m);
      } catch (const std::exception& ex) {  // a bug must not take the agent down
        r = Result<Json>(Error::Make(std::string("internal error: ") + ex.what()));
      }
      if (r) Reply(m.id, *r);
      for (auto& [sid, update] : after_reply_) Update(sid, std::move(update), false);
      after_reply_.clear();
      return;
    }
  }
}

void Server::OnResponse(const Message& m) {
  if (!m.id.is_number_integer()) return;
  std::function<void(const Json&, const Json&)> done;
  {
    std::lock_guard lock(calls_mu_);
    auto it = calls_.find(m.id.get<int64_t>());
    if (it == calls_.end()) return;  // not ours, or answered already
    done = std::move(it->second);
    calls_.erase(it);
  }
  done(m.result, m.error);
}

void Server::OnNotification(const Message& m) {
  if (m.method == "session/cancel") return Cancel(m.params);
  // Anything else ($/cancel_request, extensions "_..."): nothing to do;
  // JSON-RPC never answers a notification.
}

std::optional<Result<Json>> Server::OnRequest(const Message& m) {
  const Json& p = m.params;
  if (m.method == "initialize") return Initialize(p);
  if (!initialized_)
    return Result<Json>(InvalidRequest("send \"initialize\" before \"" + m.method + "\""));
  if (m.method == "authenticate") return Result<Json>(Json::object());  // no auth methods
  if (m.method == "session/new") return NewSession(p);
  if (m.method == "session/load") return LoadSession(p, true);
  if (m.method == "session/resume") return LoadSession(p, false);
  if (m.method == "session/list") return ListSessions(p);
  if (m.method == "session/close") return CloseSession(p);
  if (m.method == "session/set_mode") return SetMode(p);
  if (m.method == "session/set_config_option") return SetConfigOption(p);
  if (m.method == "session/prompt") return Prompt(m.id, p);
  return Result<Json>(Error::Make("unknown method \"" + m.method + "\"", "method_not_found"));
}

Result<Json> Server::Initialize(const Json& p) {
  if (!p.is_object() || !p.contains("protocolVersion") || !p["protocolVersion"].is_number_integer())
    return InvalidParams("\"protocolVersion\" (an integer) is required");
  initialized_ = true;
  const Json* fs_caps = nullptr;
  if (p.contains("clientCapabilities") && p["clientCapabilities"].is_object() &&
      p["clientCapabilities"].contains("fs") && p["clientCapabilities"]["fs"].is_object())
    fs_caps = &p["clientCapabilities"]["fs"];
  auto offered = [&](const char* name) {
    return fs_caps && fs_caps->contains(name) && (*fs_caps)[name].is_boolean() &&
           (*fs_caps)[name].get<bool>();
  };
  client_reads_ = offered("readTextFile");
  client_writes_ = offered("writeTextFile");
  // We speak version 1 only; a client asking for another decides itself
  // whether it can talk to us (the protocol's negotiation rule).
  return Json{{"protocolVersion", kProtocolVersion},
              {"agentCapabilities",
               {{"loadSession", true},
                {"promptCapabilities", {{"image", false}, {"audio", false}, {"embeddedContext", true}}},
                {"mcpCapabilities", {{"http", true}, {"sse", false}}},
                {"sessionCapabilities", {{"list", Json::object()}, {"resume", Json::object()},
                                         {"close", Json::object()}}}}},
              {"authMethods", Json::array()},
              {"agentInfo", {{"name", "sepp"}, {"title", "sepp"}, {"version", options_.version}}}};
}

Result<std::shared_ptr<AcpSession>> Server::Find(const Json& p) {
  auto id = StringParam(p, "sessionId");
  if (!id.ok()) return id.error();
  auto it = sessions_.find(*id);
  if (it == sessions_.end())
    return NotFound("no open session \"" + *id + "\" (create it with session/new or open it "
                    "with session/load)");
  return it->second;
}

Result<std::shared_ptr<AcpSession>> Server::Open(const fs::path& cwd, const std::string& resume,
                                                 const Json& mcp_servers) {
  runtime::SessionOptions o = options_.base;
  o.cwd = cwd;
  if (options_.policy_for) o.policy = options_.policy_for(cwd);
  o.no_session = false;
  o.continue_latest = false;
  o.resume = resume;
  o.branch_entry.clear();
  o.fork_entry.clear();
  o.permissions.ask_front_end = true;  // the client answers, through us
  o.questions.ask_front_end = true;    // a single choice is asked; others declined (question_request.h)
  std::shared_ptr<ClientFiles> files;
  if (client_reads_ || client_writes_) {
    ClientCaller caller{
        [this](std::string method, Json params, std::function<void(const Json&, const Json&)> done) {
          return Call(std::move(method), std::move(params), std::move(done));
        },
        [this](int64_t id) { Forget(id); }};
    files = std::make_shared<ClientFiles>(client_reads_, client_writes_, std::move(caller),
                                          options_.fs_timeout);
    o.file_access = files;
  }
  if (options_.add_mcp_servers) {
    auto given = ext::mcp::ParseAcpServers(mcp_servers);
    if (!given.ok()) return InvalidParams(given.error().message);
    if (auto st = options_.add_mcp_servers(std::move(*given), &o); !st.ok()) return st.error();
  }
  auto rt = runtime::AgentSession::Open(std::move(o));
  if (!rt.ok()) return rt.error();
  auto s = std::make_shared<AcpSession>();
  s->rt = std::move(*rt);
  s->cwd = cwd;
  s->id = s->rt->GetState().session_id;
  if (files) files->set_session_id(s->id);
  auto add = [&](const std::string& m) {
    if (!m.empty() && std::find(s->models.begin(), s->models.end(), m) == s->models.end())
      s->models.push_back(m);
  };
  add(s->rt->GetState().model);
  for (const auto& m : options_.models) add(m);
  return s;
}

void Server::Start(const std::shared_ptr<AcpSession>& s) {
  s->sub = s->rt->Subscribe();
  Listen(s);
  sessions_[s->id] = s;
  s->pump = std::thread([this, s] { Pump(s); });
}

Json Server::ConfigOptions(AcpSession& s) {
  runtime::SessionState st = s.rt->GetState();
  std::vector<std::string> levels;
  for (auto l : runtime::AllThinkingLevels()) levels.push_back(runtime::ToString(l));
  std::lock_guard lock(s.mu);
  return ConfigOptionsJson(st.model, s.models, runtime::ToString(st.thinking), levels);
}

Json Server::SessionSetup(AcpSession& s) {
  return {{"modes", ModesJson(s.current_mode())}, {"configOptions", ConfigOptions(s)}};
}

UpdateContext Server::ContextFor(AcpSession& s) {
  runtime::SessionState st = s.rt->GetState();
  UpdateContext ctx;
  ctx.cwd = s.cwd;
  ctx.context_window = llm::LookupModel(st.provider, st.model).context_window;
  ctx.title = [this](const std::string& tool, const Json& args) {
    tools::Tool* t = titles_->Find(tool);
    try {
      return t ? t->Summary(args) : tool;
    } catch (const std::exception&) {  // a Summary of odd arguments
      return tool;
    }
  };
  return ctx;
}

Result<Json> Server::NewSession(const Json& p) {
  auto cwd = CwdParam(p);
  if (!cwd.ok()) return cwd.error();
  if (p.contains("mcpServers") && !p["mcpServers"].is_array())
    return InvalidParams("\"mcpServers\" must be an array");
  auto s = Open(*cwd, "", p.value("mcpServers", Json::array()));
  if (!s.ok()) return s.error();
  Start(*s);
  Json result = SessionSetup(**s);
  result["sessionId"] = (*s)->id;
  // After the answer: the client learns the id before updates name it.
  after_reply_.push_back({(*s)->id, CommandsUpdate(**s)});
  return result;
}

Result<Json> Server::LoadSession(const Json& p, bool replay) {
  auto id = StringParam(p, "sessionId");
  if (!id.ok()) return id.error();
  auto cwd = CwdParam(p);
  if (!cwd.ok()) return cwd.error();
  if (p.contains("mcpServers") && !p["mcpServers"].is_array())
    return InvalidParams("\"mcpServers\" must be an array");
  std::shared_ptr<AcpSession> s;
  if (auto it = sessions_.find(*id); it != sessions_.end()) {
    s = it->second;  // open here already: show it again
  } else {
    auto opened = Open(*cwd, *id, p.value("mcpServers", Json::array()));
    if (!opened.ok()) return opened.error();  // "not_found" keeps ACP's -32002
    s = *opened;
    Start(s);
  }
  if (replay) {
    // Before the answer, as the protocol asks: the client shows the
    // conversation, then learns the load is complete.
    for (Json& u : HistoryUpdates(s->rt->Messages(), ContextFor(*s))) Update(s->id, std::move(u), false);
  }
  after_reply_.push_back({s->id, CommandsUpdate(*s)});
  return SessionSetup(*s);
}

Result<Json> Server::ListSessions(const Json& p) {
  if (!p.is_null() && !p.is_object()) return InvalidParams("params must be an object");
  std::optional<std::string> cwd;
  if (p.is_object() && p.contains("cwd") && !p["cwd"].is_null()) {
    auto c = CwdParam(p);
    if (!c.ok()) return c.error();
    cwd = c->string();
  }
  size_t offset = 0;
  if (p.is_object() && p.contains("cursor") && !p["cursor"].is_null()) {
    const Json& c = p["cursor"];
    if (!c.is_string() || c.get_ref<const std::string&>().empty() ||
        c.get_ref<const std::string&>().find_first_not_of("0123456789") != std::string::npos ||
        c.get_ref<const std::string&>().size() > 9)
      return InvalidParams("\"cursor\" must be a cursor from an earlier session/list");
    offset = std::stoul(c.get<std::string>());
  }
  if (!options_.list_sessions) return Json{{"sessions", Json::array()}};
  auto rows = options_.list_sessions(cwd);
  if (!rows.ok()) return rows.error();
  Json sessions = Json::array();
  for (size_t i = offset; i < rows->size() && i < offset + kListPage; ++i) {
    const auto& r = (*rows)[i];
    Json info = {{"sessionId", r.id}, {"cwd", r.cwd}, {"updatedAt", Iso8601(r.modified_ms)}};
    if (!r.first_prompt.empty()) info["title"] = ListTitle(r.first_prompt);
    sessions.push_back(std::move(info));
  }
  Json result = {{"sessions", sessions}};
  if (offset + kListPage < rows->size()) result["nextCursor"] = std::to_string(offset + kListPage);
  return result;
}

Result<Json> Server::CloseSession(const Json& p) {
  auto s = Find(p);
  if (!s.ok()) return s.error();
  std::shared_ptr<AcpSession> session = *s;
  sessions_.erase(session->id);
  session->rt->Close();  // aborts a running turn; its prompt is answered "cancelled"
  if (session->pump.joinable()) session->pump.join();
  if (session->task.joinable()) session->task.join();
  return Json::object();
}

Result<Json> Server::SetMode(const Json& p) {
  auto s = Find(p);
  if (!s.ok()) return s.error();
  auto mode_id = StringParam(p, "modeId");
  if (!mode_id.ok()) return mode_id.error();
  Mode mode;
  if (!ParseMode(*mode_id, &mode))
    return InvalidParams("unknown mode \"" + *mode_id + "\" (ask, allow, deny)");
  std::lock_guard lock((*s)->mu);
  (*s)->mode = mode;
  return Json::object();
}

Result<Json> Server::SetConfigOption(const Json& p) {
  auto s = Find(p);
  if (!s.ok()) return s.error();
  auto config = StringParam(p, "configId");
  if (!config.ok()) return config.error();
  if (!p.contains("value") || !p["value"].is_string() || p["value"].get_ref<const std::string&>().empty())
    return InvalidParams("\"value\" (a non-empty string) is required");
  std::string value = p["value"];
  AcpSession& session = **s;
  if (*config == "model") {
    if (auto st = session.rt->SetModel(value); !st.ok()) return st.error();
    std::lock_guard lock(session.mu);
    if (std::find(session.models.begin(), session.models.end(), value) == session.models.end())
      session.models.push_back(value);
  } else if (*config == "thought_level") {
    runtime::ThinkingLevel level;
    if (!runtime::ParseThinkingLevel(value, &level))
      return InvalidParams("unknown thought level \"" + value +
                           "\" (off, minimal, low, medium, high, xhigh)");
    if (auto st = session.rt->SetThinking(level); !st.ok()) return st.error();
  } else {
    return InvalidParams("unknown config option \"" + *config + "\" (model, thought_level)");
  }
  return Json{{"configOptions", ConfigOptions(session)}};
}

std::optional<Result<Json>> Server::Prompt(const Json& id, const Json& p) {
  auto s = Find(p);
  if (!s.ok()) return Result<Json>(s.error());
  auto text = PromptText(p.is_object() && p.contains("prompt") ? p["prompt"] : Json());
  if (!text.ok()) return Result<Json>(text.error());
  std::shared_ptr<AcpSession> session = *s;
  {
    std::lock_guard lock(session->mu);
    if (!session->prompt_id.is_null())
      return Result<Json>(Error::Make(
          "a prompt is already running in this session; wait for its answer or send "
          "session/cancel", "busy"));
    session->prompt_id = id;
    session->cancel_requested = false;
  }
  std::string_view t = *text;
  if (t == "/compact" || t.rfind("/compact ", 0) == 0) {
    if (session->task.joinable()) session->task.join();
    session->task = std::thread([this, session, id, focus = std::string(Trim(t.substr(8)))] {
      Compact(session, id, focus);
    });
    return std::nullopt;
  }
  if (auto st = session->rt->Prompt(*text); !st.ok()) {
    std::lock_guard lock(session->mu);
    session->prompt_id = nullptr;
    return Result<Json>(st.error());
  }
  return std::nullopt;  // answered by Settle when the runtime says the turn is over
}

void Server::Cancel(const Json& p) {
  auto s = Find(p);
  if (!s.ok()) return;  // a notification gets no error; there is nothing to cancel
  {
    std::lock_guard lock((*s)->mu);
    if ((*s)->prompt_id.is_null()) return;
    (*s)->cancel_requested = true;
  }
  (*s)->rt->Abort();
}

void Server::Compact(std::shared_ptr<AcpSession> s, Json id, std::string focus) {
  auto result = s->rt->Compact(focus).get();
  {
    std::lock_guard lock(s->mu);
    s->prompt_id = nullptr;
  }
  if (!result.ok()) return Reply(id, Result<Json>(result.error()));
  Update(s->id, {{"sessionUpdate", "agent_message_chunk"},
                 {"content", {{"type", "text"}, {"text", "Compacted the conversation."}}}},
         false);
  Reply(id, Json{{"stopReason", "end_turn"}});
}

Json Server::CommandsUpdate(AcpSession& s) {
  Json list = AvailableCommandsJson(s.rt->Commands());
  std::lock_guard lock(s.mu);
  s.commands_sent = list;
  return {{"sessionUpdate", "available_commands_update"}, {"availableCommands", std::move(list)}};
}

void Server::Settle(AcpSession& s, const Json& outcome) {
  // An MCP server's prompts changed during the turn (list_changed): the
  // client's menu follows.
  Json now = AvailableCommandsJson(s.rt->Commands());
  bool changed;
  {
    std::lock_guard lock(s.mu);
    changed = now != s.commands_sent;
  }
  if (changed) Update(s.id, CommandsUpdate(s), false);
  Json id;
  bool cancelled;
  {
    std::lock_guard lock(s.mu);
    if (s.prompt_id.is_null()) return;  // a turn nobody here asked for
    id = std::exchange(s.prompt_id, nullptr);
    cancelled = s.cancel_requested;
  }
  std::string status = outcome.is_object() ? outcome.value("status", "done") : "done";
  if (cancelled || status == "aborted") return Reply(id, Json{{"stopReason", "cancelled"}});
  if (status == "max_turns") return Reply(id, Json{{"stopReason", "max_turn_requests"}});
  if (status == "error") {
    std::string message = outcome.value("error", "the turn failed");
    return Reply(id, Result<Json>(Error::Make(message, outcome.value("error_kind", ""))));
  }
  Reply(id, Json{{"stopReason", "end_turn"}});
}

void Server::AskPermission(const std::shared_ptr<AcpSession>& s, const agent::Event& e,
                           const CallState& calls) {
  std::string request_id = e.data.value("request_id", "");
  if (request_id.empty()) return;
  Json request = e.data;
  if (!e.parent_call_id.empty()) {
    // Up to the call in this session's own stream (at most one hop per depth).
    std::string top = e.parent_call_id;
    for (int hops = 0; hops < 16; ++hops) {
      auto it = calls.parent_of.find(top);
      if (it == calls.parent_of.end()) break;
      top = it->second;
    }
    request["parent_call_id"] = top;
  }
  // The editor's mode answers widenings of the sandbox; trusting code (a
  // project's, an extension's) is always the user's own answer.
  const bool widening = request.value("kind", "sandbox") == "sandbox";
  switch (widening ? s->current_mode() : Mode::kAsk) {
    case Mode::kAllow:
      (void)s->rt->AnswerPermission(request_id, {agent::PermissionChoice::kAllowOnce, "", "mode"});
      return;
    case Mode::kDeny:
      (void)s->rt->AnswerPermission(
          request_id, {agent::PermissionChoice::kDeny,
                       "denied: the editor's mode is \"Never widen\"; the command stays confined",
                       "mode"});
      return;
    case Mode::kAsk: break;
  }
  std::weak_ptr<AcpSession> weak = s;
  int64_t call = Call("session/request_permission", PermissionRequestParams(s->id, request, s->cwd),
                      [weak, request_id](const Json& result, const Json& error) {
                        if (auto live = weak.lock())
                          // Too late (timed out, cancelled) is "not_found": nothing to do.
                          (void)live->rt->AnswerPermission(request_id,
                                                           AnswerFromClient(result, error));
                      });
  if (call == 0) (void)s->rt->AnswerPermission(request_id, AnswerFromClient(nullptr, "unsent"));
}

void Server::AskQuestion(const std::shared_ptr<AcpSession>& s, const agent::Event& e) {
  auto q = agent::QuestionFromJson(e.data);
  if (!q.ok()) return;
  q->id = e.data.value("question_id", "");
  auto params = QuestionPermissionParams(s->id, *q);
  if (!params) {
    (void)s->rt->DeclineQuestion(q->id, WhyAcpCannotAsk(*q));
    return;
  }
  std::weak_ptr<AcpSession> weak = s;
  int64_t call = Call("session/request_permission", std::move(*params),
                      [weak, q = *q](const Json& result, const Json& error) {
                        auto live = weak.lock();
                        if (!live) return;
                        // Too late (timed out, cancelled) is "not_found": nothing to do.
                        ClientAnswer a = QuestionAnswerFromClient(q, result, error);
                        if (a.values) (void)live->rt->AnswerQuestion(q.id, *a.values);
                        else (void)live->rt->DeclineQuestion(q.id, a.why);
                      });
  if (call == 0) (void)s->rt->DeclineQuestion(q->id, "the ACP client is gone");
}

int64_t Server::Call(std::string method, Json params,
                     std::function<void(const Json& result, const Json& error)> done) {
  int64_t call;
  {
    std::lock_guard lock(calls_mu_);
    call = ++next_call_;
    calls_[call] = std::move(done);
  }
  if (!out_.Send(jsonrpc::MakeRequest(call, method, std::move(params)))) {
    Forget(call);
    return 0;
  }
  return call;
}

void Server::Forget(int64_t id) {
  std::lock_guard lock(calls_mu_);
  calls_.erase(id);
}

void Server::Listen(const std::shared_ptr<AcpSession>& s) {
  std::weak_ptr<AcpSession> session = s;
  std::weak_ptr<runtime::Subscription> sub = s->sub;
  s->sub->SetListener([this, session, sub] {
    auto a = session.lock();
    auto b = sub.lock();
    if (a && b) DeliverNow(a, *b);
  });
}

void Server::DeliverNow(const std::shared_ptr<AcpSession>& s, runtime::Subscription& sub) {
  std::unique_lock lock(s->pump_mu, std::try_to_lock);
  if (!lock.owns_lock()) return sub.Wake();  // the pump thread takes it after its holder
  std::vector<agent::Event> events;
  events.swap(s->held);  // older than what is queued
  sub.DrainInto(&events);
  if (events.empty()) return;
  size_t done = ForwardAll(s, events, false);
  if (done == events.size()) return;
  s->held.assign(std::make_move_iterator(events.begin() + static_cast<ptrdiff_t>(done)),
                std::make_move_iterator(events.end()));
  sub.Wake();
}

size_t Server::ForwardAll(const std::shared_ptr<AcpSession>& s, const std::vector<agent::Event>& events,
                          bool may_wait) {
  for (size_t i = 0; i < events.size(); ++i) {
    const agent::Event& e = events[i];
    if (!may_wait && (e.type == agent::EventType::kPermissionRequested ||
                      e.type == agent::EventType::kQuestionRequested ||
                      e.type == agent::EventType::kSubscriberLagged))
      return i;
    try {
      Forward(s, e, s->calls);
    } catch (const std::exception& ex) {  // a bug must not end the process
      log::Error("acp: session " + s->id + ": could not forward an event: " + ex.what());
    }
  }
  return events.size();
}

void Server::Pump(std::shared_ptr<AcpSession> s) {
  std::vector<agent::Event> events;
  for (;;) {
    s->sub->Wait();
    std::lock_guard lock(s->pump_mu);
    events.clear();
    events.swap(s->held);
    s->sub->DrainInto(&events);
    if (!events.empty()) {
      ForwardAll(s, events, true);
      continue;
    }
    if (!s->sub->closed()) continue;
    if (!s->sub->lagged()) break;
    // We fell behind (the client reads slowly): updates were lost, but the
    // turn's answer must not be. Take up the stream again, and answer now
    // if the turn ended while we were cut off.
    log::Warn("acp: session " + s->id + ": the update stream fell behind; some updates were dropped");
    s->sub = s->rt->Subscribe();
    Listen(s);
    if (!s->rt->GetState().busy) Settle(*s, agent::ToJson(s->rt->LastOutcome()));
  }
}

void Server::Forward(const std::shared_ptr<AcpSession>& s, const agent::Event& e,
                     CallState& calls) {
  using agent::EventType;
  if (e.type == EventType::kPermissionRequested) return AskPermission(s, e, calls);
  if (e.type == EventType::kQuestionRequested) return AskQuestion(s, e);
  if (e.type == EventType::kAgentSettled)
    return Settle(*s, e.data.is_object() ? e.data.value("outcome", Json()) : Json());
  // A sub-agent's own stream stays inside its "agent" tool call.
  if (!e.parent_call_id.empty()) {
    if (e.type == EventType::kToolStarted) calls.parent_of[e.call_id] = e.parent_call_id;
    return;
  }
  if (e.type == EventType::kToolOutput) {
    // Shown live, up to what a client needs to render; the finished call
    // carries the result the model saw.
    std::string& so_far = calls.output[e.call_id];
    if (so_far.size() >= kMaxShownOutput) return;
    so_far += e.text;
    return Update(s->id, ToolCallProgress(e.call_id, so_far), true);
  }
  Json args;
  if (e.type == EventType::kToolStarted) calls.args[e.call_id] = e.args;
  if (e.type == EventType::kToolFinished) {
    auto it = calls.args.find(e.call_id);
    if (it != calls.args.end()) {
      args = std::move(it->second);
      calls.args.erase(it);
    }
    calls.output.erase(e.call_id);
  }
  // Only a tool call's title and the usage's window need the session's
  // state (GetState copies it): not every streamed delta.
  bool needs_context = e.type == EventType::kToolStarted || e.type == EventType::kToolFinished ||
                       e.type == EventType::kUsage;
  auto update = UpdateForEvent(e, needs_context ? ContextFor(*s) : UpdateContext(), args);
  if (!update) return;
  bool droppable = e.type == EventType::kMessageDelta || e.type == EventType::kThinkingDelta ||
                   e.type == EventType::kUsage;
  Update(s->id, std::move(*update), droppable);
}

void Server::Reply(const Json& id, const Result<Json>& r) {
  if (r.ok()) {
    out_.Send(jsonrpc::MakeResult(id, *r));
  } else {
    out_.Send(jsonrpc::MakeError(id, CodeFor(r.error()), r.error().message));
  }
}

void Server::Update(const std::string& session_id, Json update, bool droppable) {
  out_.Send(jsonrpc::MakeNotification("session/update",
                                      {{"sessionId", session_id}, {"update", std::move(update)}}),
            droppable);
}

void Server::Shutdown() {
  // The client is gone or done: end every turn cleanly (each answered
  // "cancelled" if the client still reads), close the sessions (their files
  // stay valid), then give the output a moment to drain.
  for (auto& [id, s] : sessions_) {
    {
      std::lock_guard lock(s->mu);
      if (!s->prompt_id.is_null()) s->cancel_requested = true;
    }
    s->rt->Abort();
  }
  for (auto& [id, s] : sessions_) {
    s->rt->Close();
    if (s->pump.joinable()) s->pump.join();
    if (s->task.joinable()) s->task.join();
  }
  sessions_.clear();
  out_.Close(2000);
}

}  // namespace

int RunAcpServer(int in_fd, int out_fd, AcpOptions options) {
  Server server(in_fd, out_fd, std::move(options));
  return server.Run();
}

}  // namespace sepp::front::acp
