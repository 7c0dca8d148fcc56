#include "front/serve/session_hub.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <thread>

#include "base/clock.h"
#include "base/log.h"
#include "base/terminal_text.h"
#include "ext/mcp/client_servers.h"
#include "front/serve/config_api.h"
#include "front/serve/external_session.h"
#include "front/serve/problem.h"
#include "front/serve/universal_events.h"
#include "runtime/agent_session.h"

namespace sepp::front::serve {
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// One session: the runtime, the pump that translates and stores its events,
// and every universal event so far (sequence n is events[n-1]). Or, for
// an external agent, its ExternalSession, which hands over the events
// translated already (Append).
class ServedSession {
 public:
  std::string id;
  std::string agent = "sepp";
  std::string native_id;
  std::string directory;
  std::string model;
  std::string title;
  int64_t created_ms = 0;
  std::unique_ptr<runtime::AgentSession> rt;  // null while dormant (after a restart)
  std::unique_ptr<ExternalSession> ext;        // an external agent's (then rt is null)
  std::mutex wake_mu;                          // one wake-up at a time

  ServedSession(std::string id_in, session::EventLog* log) : id(std::move(id_in)), log_(log),
                                                             translator_(id) {}
  // The external agent's events go to Append: it is closed while the
  // members it reaches still exist.
  ~ServedSession() {
    if (ext) ext->Close();
  }

  // Takes the events stored before a restart (sequence n is lines[n-1]):
  // the session is served again, dormant (no agent) until its next message.
  void Load(std::vector<std::string> lines, bool terminated) {
    std::lock_guard lock(mu_);
    events_ = std::move(lines);
    ended_ = terminated;
  }
  bool dormant() const { return !rt && !ext; }

  void Start() {
    translator_.ContinueAfter(static_cast<uint64_t>(count()));
    // Room for a long burst while the log is slow: a subscriber that falls
    // this far behind is cut off by the bus (it ends the stream with an
    // error event rather than skip events).
    sub_ = rt->Subscribe(1 << 16);
    pump_ = std::thread([this] { Pump(); });
  }

  // Ends the agent (its turn is aborted) and the pump; idempotent.
  void End() {
    std::call_once(ended_once_, [this] {
      {
        std::lock_guard lock(mu_);
        stopping_ = true;  // a pump waiting for the store gives up
        if (!rt && !ext) ended_ = true;  // dormant: nothing runs
        cv_.notify_all();
      }
      if (ext) {
        ext->Close();  // its session.ended is the last event
        std::lock_guard lock(mu_);
        ended_ = true;
        cv_.notify_all();
      }
      if (!rt) {
        if (log_) (void)log_->UpdateSession(id, Record(true));
        return;
      }
      rt->Abort();
      rt->Close();  // publishes session.ended, closes the subscription
      if (pump_.joinable()) pump_.join();
      if (log_) (void)log_->UpdateSession(id, Record(true));
    });
  }

  // What the store keeps of it, for servers that do not run it.
  Json Record(bool ended) const {
    return {{"sessionId", id},         {"agent", agent},      {"nativeSessionId", native_id},
            {"directory", directory},  {"model", model},      {"title", title},
            {"createdAtMs", created_ms}, {"ended", ended}};
  }

  // Waits (up to wait) for an event after `after` or the end; copies the
  // events after it (at most limit). False once ended and nothing is left.
  bool Next(int64_t after, size_t limit, Clock::duration wait, std::vector<std::string>* out,
            bool* more) {
    std::unique_lock lock(mu_);
    cv_.wait_for(lock, wait, [&] { return static_cast<int64_t>(events_.size()) > after || ended_; });
    size_t from = static_cast<size_t>(std::max<int64_t>(after, 0));
    size_t to = std::min(events_.size(), from + limit);
    for (size_t i = from; i < to; ++i) out->push_back(events_[i]);
    if (more) *more = to < events_.size();
    return !(ended_ && from >= events_.size());
  }
  int64_t count() {
    std::lock_guard lock(mu_);
    return static_cast<int64_t>(events_.size());
  }
  bool ended() {
    std::lock_guard lock(mu_);
    return ended_;
  }

  // One universal event: stored, then shown. An external agent's come
  // here from its ExternalSession; they are held until Commit() (the
  // session is claimed in the store only after its agent started, and
  // nothing may be stored under an id this server did not get).
  void Append(Json u) {
    std::lock_guard order(append_mu_);
    if (holding_) return held_.push_back(std::move(u));
    AppendInOrder(std::move(u));
  }
  void Hold() {
    std::lock_guard order(append_mu_);
    holding_ = true;
  }
  void Commit() {
    std::lock_guard order(append_mu_);  // the agent's next event waits for these
    holding_ = false;
    for (Json& u : held_) AppendInOrder(std::move(u));
    held_.clear();
  }

 private:
  // Under append_mu_: events are stored and shown in their order.
  void AppendInOrder(Json u) {
    std::string line = DumpJson(u);
    // Stored before anyone sees it: a reader never gets an event the
    // log could not give it again.
    if (log_) Store(u["sequence"].get<int64_t>(), line);
    std::lock_guard lock(mu_);
    events_.push_back(std::move(line));
    if (u["type"] == "session.ended") ended_ = true;
    cv_.notify_all();
  }

  void Pump() {
    agent::Event e(agent::EventType::kError);
    while (sub_->Pop(&e) == runtime::Subscription::Next::kEvent)
      for (Json& u : translator_.Translate(e)) Append(std::move(u));
    std::lock_guard lock(mu_);
    ended_ = true;
    cv_.notify_all();
  }

  // Appends event seq, waiting out a store that is away (the events queue
  // up in order in the subscription meanwhile). A retry whose first try
  // did land (its answer was lost) finds it stored ("exists"): done.
  void Store(int64_t seq, const std::string& line) {
    auto backoff = std::chrono::milliseconds(100);
    for (bool warned = false;;) {
      Status s = log_->Append("session/" + id, seq, NowMs(), line);
      if (s.ok() || s.error().kind == "exists") {
        if (warned) log::Info("sepp serve: session " + id + " is stored again");
        return;
      }
      if (s.error().kind == "conflict") {  // another writer: nothing a retry mends
        log::Warn("sepp serve: event " + std::to_string(seq) + " of session " + id +
                  " was not stored: " + s.error().message);
        return;
      }
      if (!warned)
        log::Warn("sepp serve: session " + id + " waits for the store: " + s.error().message);
      warned = true;
      std::unique_lock lock(mu_);
      if (cv_.wait_for(lock, backoff, [&] { return stopping_; })) {
        log::Warn("sepp serve: session " + id + " ended before event " + std::to_string(seq) +
                  " could be stored");
        return;
      }
      backoff = std::min(backoff * 2, std::chrono::milliseconds(2000));
    }
  }

  session::EventLog* log_;
  UniversalTranslator translator_;
  std::shared_ptr<runtime::Subscription> sub_;
  std::thread pump_;
  std::once_flag ended_once_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<std::string> events_;
  bool ended_ = false;
  bool stopping_ = false;
  std::mutex append_mu_;  // one Append at a time; guards the two below
  bool holding_ = false;
  std::vector<Json> held_;
};

namespace {

HubAnswer Problem(int status, const char* kind, std::string detail) {
  HubAnswer a;
  a.status = status;
  a.problem_kind = kind;
  a.detail = std::move(detail);
  return a;
}

// A JSON object body, or the problem saying why not.
Result<Json> ObjectBody(std::string_view body) {
  auto j = ParseJson(body);
  if (!j.ok() || !j->is_object())
    return Error::Make("the body must be a JSON object (" +
                           (j.ok() ? std::string("got another JSON value") : j.error().message) +
                           ")",
                       "invalid_request");
  return *j;
}

// An optional string member: absent, or the string; another type is an error.
Result<std::optional<std::string>> OptString(const Json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return std::optional<std::string>();
  if (!it->is_string())
    return Error::Make(std::string("\"") + key + "\" must be a string", "invalid_request");
  return std::optional<std::string>(it->get<std::string>());
}

void SendSseHead(net::ResponseWriter& w, const net::Headers& extra) {
  net::Headers h = {{"Content-Type", "text/event-stream"},
                    {"Cache-Control", "no-cache"},
                    {"X-Accel-Buffering", "no"}};
  h.insert(h.end(), extra.begin(), extra.end());
  w.Begin(200, h);
}

}  // namespace

SessionHub::SessionHub(const AcpHubOptions& options) : options_(options) {
  for (const auto& w : options_.workspaces) {
    std::error_code ec;
    fs::path c = fs::weakly_canonical(w, ec);
    roots_.push_back(ec ? w.lexically_normal() : c);
  }
}

SessionHub::~SessionHub() { Shutdown(); }

std::shared_ptr<ServedSession> SessionHub::Live(const std::string& id) {
  std::lock_guard lock(mu_);
  auto it = sessions_.find(id);
  return it != sessions_.end() ? it->second : nullptr;
}

std::shared_ptr<ServedSession> SessionHub::Find(const std::string& id) {
  if (auto s = Live(id)) return s;
  return Revive(id);
}

namespace {
std::string MetaStream(const std::string& id) { return "session-meta/" + id; }
std::string EventStream(const std::string& id) { return "session/" + id; }
}  // namespace

std::shared_ptr<ServedSession> SessionHub::Revive(const std::string& id, bool take_over) {
  // On its own only a log this server has to itself: on a shared store
  // (PostgreSQL) another server may run the session now, and two servers
  // must never run one session; there its events are read through
  // StoredRecord and StreamStored instead, until TakeOver wins its lock.
  if (!options_.log || (options_.log->kind() != "sqlite" && !take_over)) return nullptr;
  std::lock_guard revive(revive_mu_);  // one reader of the log per id at a time
  {
    std::lock_guard lock(mu_);
    if (shut_down_) return nullptr;
    if (auto it = sessions_.find(id); it != sessions_.end()) return it->second;
  }
  auto meta = options_.log->Read(MetaStream(id), 0, 1000);
  if (!meta.ok() || meta->empty()) return nullptr;
  auto first = ParseJson(meta->front().data);
  if (!first.ok() || !first->is_object()) return nullptr;
  bool terminated = false;
  for (const auto& m : *meta) {
    auto j = ParseJson(m.data);
    if (j.ok() && j->is_object() && j->value("terminated", false)) terminated = true;
  }
  std::vector<std::string> lines;
  for (;;) {
    auto page = options_.log->Read(EventStream(id), static_cast<int64_t>(lines.size()), 10000);
    if (!page.ok()) return nullptr;
    for (auto& e : *page) {
      if (e.seq != static_cast<int64_t>(lines.size()) + 1) break;  // a gap: served up to it
      lines.push_back(std::move(e.data));
    }
    if (page->size() < 10000) break;
  }
  auto s = std::make_shared<ServedSession>(id, options_.log);
  s->native_id = first->value("nativeSessionId", "");
  s->agent = first->value("agent", "sepp");
  // An external agent's process ended with the run that started it, and
  // its adapter's own history is not sepp's to resume: replayed, ended.
  if (s->agent != "sepp") terminated = true;
  s->directory = first->value("directory", "");
  s->model = first->value("model", "");
  s->title = first->value("title", "");
  s->created_ms = first->value("createdAtMs", int64_t{0});
  s->Load(std::move(lines), terminated);
  if (take_over) return s;  // kept only once woken
  std::lock_guard lock(mu_);
  return sessions_.emplace(id, s).first->second;
}

std::shared_ptr<ServedSession> SessionHub::TakeOver(const std::string& id) {
  if (!options_.log || options_.log->kind() == "sqlite") return nullptr;
  std::lock_guard one(take_over_mu_);  // two requests of this server: one takes it
  if (auto here = Live(id)) return here;
  auto s = Revive(id, true);
  if (!s) return nullptr;
  if (!s->ended()) {  // a terminated one is kept as it is: its messages get 409 ended
    Status woke = Wake(*s);
    if (!woke.ok()) {
      if (woke.error().kind != "locked")
        log::Warn("sepp serve: session " + id + " could not be taken over: " +
                  woke.error().message);
      return nullptr;
    }
  }
  std::lock_guard lock(mu_);
  return sessions_.emplace(id, s).first->second;
}

Status SessionHub::Wake(ServedSession& s) {
  std::lock_guard wake(s.wake_mu);
  if (!s.dormant()) return Ok();
  if (s.agent != "sepp")
    return Error::Make("session " + s.id + " of agent " + s.agent + " cannot be resumed: its agent's process "
                       "ended with the server that ran it");
  runtime::SessionOptions o = options_.agent.base;
  o.cwd = s.directory;
  if (options_.agent.policy_for) o.policy = options_.agent.policy_for(o.cwd);
  if (!s.model.empty()) o.model = s.model;
  o.no_session = false;
  o.continue_latest = false;
  o.resume = s.native_id;  // the session tree in the store
  o.branch_entry.clear();
  o.fork_entry.clear();
  o.permissions.ask_front_end = true;
  o.questions.ask_front_end = true;
  if (options_.agent.add_mcp_servers)  // the folder's configured ones (a creator's mcp is not kept)
    if (auto st = options_.agent.add_mcp_servers({}, &o); !st.ok())
      return Error::Make("session " + s.id + " cannot be resumed: " + st.error().message);
  auto rt = runtime::AgentSession::Open(std::move(o));
  if (!rt.ok())
    return Error::Make("session " + s.id + " cannot be resumed: " + rt.error().message,
                       rt.error().kind);
  std::lock_guard lock(mu_);
  if (shut_down_) {
    (*rt)->Close();
    return Error::Make("the server is stopping");
  }
  s.rt = std::move(*rt);
  s.Start();
  return Ok();
}

std::optional<std::string> SessionHub::OutsideWorkspaces(const fs::path& dir) {
  std::error_code ec;
  fs::path c = fs::weakly_canonical(dir, ec);
  if (ec) c = dir.lexically_normal();
  for (const auto& root : roots_) {
    auto mismatch = std::mismatch(root.begin(), root.end(), c.begin(), c.end());
    if (mismatch.first == root.end()) return std::nullopt;
  }
  std::string list;
  for (const auto& r : roots_) list += (list.empty() ? "" : ", ") + r.string();
  return "\"directory\" " + dir.string() +
         " is outside the workspaces this server was started with (" + list +
         "); pick a folder inside one, or restart `sepp serve` with --workspace";
}

HubAnswer SessionHub::Create(const std::string& id, std::string_view body) {
  auto req = ObjectBody(body);
  if (!req.ok()) return Problem(400, problem::kInvalidRequest, req.error().message);
  auto agent = OptString(*req, "agent");
  auto model = OptString(*req, "model");
  auto directory = OptString(*req, "directory");
  auto title = OptString(*req, "title");
  for (auto* r : {&agent, &model, &directory, &title})
    if (!r->ok()) return Problem(400, problem::kInvalidRequest, r->error().message);
  if (!*agent)
    return Problem(400, problem::kInvalidRequest, "give the agent: {\"agent\": \"sepp\"}");
  const bool external = **agent != "sepp";
  if (external && !(options_.agents && options_.agents->Find(**agent))) {
    std::string known = "sepp";
    if (options_.agents)
      for (const auto& spec : options_.agents->specs()) known += ", " + spec.id;
    return Problem(400, problem::kUnsupportedAgent,
                   "no agent \"" + VisibleControls((*agent)->substr(0, 64)) + "\"; this server runs " +
                       known + " (GET /v1/agents)");
  }
  if (external && (*model || (req->contains("mcp") && !(*req)["mcp"].is_null())))
    return Problem(400, problem::kInvalidRequest,
                   std::string("\"") + (*model ? "model" : "mcp") + "\" is not supported for agent " +
                       **agent + " (an external agent takes its model and MCP servers from its own "
                       "configuration in its home, $SEPP_HOME/agents/home/" + **agent + "); leave it out");
  for (const char* unsupported : {"agentMode", "permissionMode", "variant", "agentVersion", "skills"})
    if (req->contains(unsupported))
      return Problem(400, problem::kInvalidRequest,
                     std::string("\"") + unsupported +
                         "\" is not supported by sepp's session API; leave it out");
  // The session's own MCP servers, sandbox-agent's shape (/v1/config/mcp's):
  // the client's, run with the defaults of ext/mcp/client_servers.h.
  std::vector<ext::mcp::ServerConfig> given;
  if (auto mcp = req->find("mcp"); mcp != req->end() && !mcp->is_null()) {
    if (!mcp->is_object())
      return Problem(400, problem::kInvalidRequest, "\"mcp\" must be an object of servers by name");
    if (!mcp->empty() && !options_.agent.add_mcp_servers)
      return Problem(400, problem::kInvalidRequest, "this server runs no MCP servers per session");
    for (const auto& [name, server] : mcp->items()) {
      auto s = McpServerFromJson(name, server);
      if (!s.ok())
        return Problem(400, problem::kInvalidRequest, "\"mcp\"." + name + ": " + s.error().message);
      ext::mcp::AsClientServer(&*s, "POST /v1/sessions \"mcp\"");
      given.push_back(std::move(*s));
    }
  }
  fs::path dir = *directory ? fs::path(**directory)
                            : (roots_.empty() ? fs::current_path() : roots_.front());
  if (dir.is_relative())
    return Problem(400, problem::kInvalidRequest, "\"directory\" must be an absolute path");
  if (auto outside = OutsideWorkspaces(dir)) return Problem(403, problem::kInvalidRequest, *outside);
  if (!fs::is_directory(dir))
    return Problem(400, problem::kInvalidRequest,
                   "\"directory\" " + dir.string() + " is not a directory");

  if (Find(id))  // here, or stored by an earlier run of the server
    return Problem(409, problem::kSessionExists,
                   "a session " + id + " exists; pick another id");
  {
    std::lock_guard lock(mu_);
    if (shut_down_) return Problem(503, problem::kInternal, "the server is stopping");
  }
  if (external) return CreateExternal(id, **agent, dir, title->value_or(""));
  runtime::SessionOptions o = options_.agent.base;
  o.cwd = dir;
  if (options_.agent.policy_for) o.policy = options_.agent.policy_for(dir);
  if (*model) o.model = **model;
  o.no_session = false;
  o.continue_latest = false;
  o.resume.clear();
  o.branch_entry.clear();
  o.fork_entry.clear();
  o.permissions.ask_front_end = true;  // answered through .../permissions/{pid}/reply
  o.questions.ask_front_end = true;    // and .../questions/{qid}/reply|reject
  if (options_.agent.add_mcp_servers)
    if (auto st = options_.agent.add_mcp_servers(std::move(given), &o); !st.ok())
      return Problem(400, problem::kInvalidRequest, st.error().message);
  auto rt = runtime::AgentSession::Open(std::move(o));
  if (!rt.ok() && rt.error().kind == "unavailable")  // the tree's store (PostgreSQL) is away
    return Problem(503, problem::kStoreUnavailable,
                   "the session could not be stored: " + rt.error().message);
  if (!rt.ok())
    return Problem(500, problem::kStreamError, "the agent could not start: " + rt.error().message);
  auto s = std::make_shared<ServedSession>(id, options_.log);
  s->rt = std::move(*rt);
  auto st = s->rt->GetState();
  s->native_id = st.session_id;
  s->directory = dir.string();
  s->model = st.model;
  s->title = title->value_or("");
  s->created_ms = NowMs();
  return Register(s);
}

// An external agent's session: its adapter started confined, initialized,
// a session opened in dir; its events (held until the id is claimed)
// translated by ExternalSession.
HubAnswer SessionHub::CreateExternal(const std::string& id, const std::string& agent,
                                     const fs::path& dir, const std::string& title) {
  auto s = std::make_shared<ServedSession>(id, options_.log);
  s->agent = agent;
  s->Hold();
  ExternalSessionOptions eo;
  eo.catalog = options_.agents;
  eo.agent = agent;
  eo.workspaces = options_.workspaces;
  eo.unconfined = options_.agents_unconfined;
  eo.cwd = dir;
  eo.session_id = id;
  eo.start_timeout = options_.request_timeout;
  eo.max_line = options_.agent.max_line + 1024;
  ServedSession* raw = s.get();  // the session outlives its ExternalSession (End joins it)
  eo.sink = [raw](Json u) { raw->Append(std::move(u)); };
  auto ext = ExternalSession::Start(std::move(eo));
  if (!ext.ok()) {
    const std::string& kind = ext.error().kind;
    return Problem(kind == "not_installed" ? 409 : kind == "timeout" ? 504 : 502,
                   kind == "not_installed" ? problem::kConflict
                   : kind == "timeout"     ? problem::kTimeout
                                           : problem::kStreamError,
                   "could not start agent " + agent + ": " + ext.error().message);
  }
  s->ext = std::move(*ext);
  s->native_id = s->ext->native_session_id();
  s->directory = dir.string();
  s->model = s->ext->model();
  s->title = title;
  s->created_ms = NowMs();
  return Register(s);
}

// Claims the id in the store and serves the session (its agent runs).
HubAnswer SessionHub::Register(const std::shared_ptr<ServedSession>& s) {
  const std::string& id = s->id;
  auto close = [&] {
    if (s->rt) s->rt->Close();
    if (s->ext) s->ext->Close();
  };
  if (options_.log) {
    Status claimed = options_.log->AddSession(id, s->Record(false));
    if (!claimed.ok()) {
      close();
      if (claimed.error().kind == "exists")
        return Problem(409, problem::kSessionExists,
                       "a session " + id + " exists in the store; pick another id");
      return Problem(503, problem::kStoreUnavailable,
                     "the session could not be recorded: " + claimed.error().message);
    }
  }
  {
    std::lock_guard lock(mu_);
    if (shut_down_ || sessions_.count(id)) {  // lost a race with another create
      close();
      return Problem(409, problem::kSessionExists, "a session " + id + " exists");
    }
    sessions_[id] = s;
    if (s->rt) s->Start();
  }
  if (s->ext) s->Commit();  // its events so far (session.started), then live
  // What serving it again after a restart needs (its events are logged apart).
  if (options_.log)
    (void)options_.log->Append(MetaStream(id), 1, NowMs(),
                               DumpJson({{"nativeSessionId", s->native_id},
                                         {"agent", s->agent},
                                         {"directory", s->directory},
                                         {"model", s->model},
                                         {"title", s->title},
                                         {"createdAtMs", s->created_ms}}));
  HubAnswer a;
  a.body = {{"healthy", true}, {"nativeSessionId", s->native_id}};
  return a;
}

HubAnswer SessionHub::List() {
  std::vector<std::shared_ptr<ServedSession>> all;
  {
    std::lock_guard lock(mu_);
    for (auto& [id, s] : sessions_) all.push_back(s);
  }
  Json list = Json::array();
  if (options_.log) {
    auto stored = options_.log->Sessions();
    if (!stored.ok())
      return Problem(503, problem::kStoreUnavailable,
                     "the sessions could not be listed: " + stored.error().message);
    for (Json& r : *stored) {
      std::string sid = r.value("sessionId", "");
      if (sid.empty() || Live(sid)) continue;  // this server's: listed live below
      auto last = options_.log->LastSeq("session/" + sid);
      if (!last.ok())
        return Problem(503, problem::kStoreUnavailable,
                       "the sessions could not be listed: " + last.error().message);
      r["eventCount"] = *last;
      list.push_back(std::move(r));
    }
  }
  for (auto& s : all)
    list.push_back({{"sessionId", s->id},
                    {"agent", s->agent},
                    {"nativeSessionId", s->native_id},
                    {"directory", s->directory},
                    {"model", s->model},
                    {"title", s->title},
                    {"createdAtMs", s->created_ms},
                    {"ended", s->ended()},
                    {"eventCount", s->count()}});
  HubAnswer a;
  a.body = {{"sessions", list}};
  return a;
}

HubAnswer SessionHub::StoredRecord(const std::string& id) {
  if (!options_.log) return Problem(404, problem::kSessionNotFound, "no session " + id);
  auto stored = options_.log->Sessions();
  if (!stored.ok())
    return Problem(503, problem::kStoreUnavailable,
                   "session " + id + " could not be looked up: " + stored.error().message);
  for (Json& r : *stored)
    if (r.value("sessionId", "") == id) {
      HubAnswer a;
      a.body = std::move(r);
      return a;
    }
  return Problem(404, problem::kSessionNotFound, "no session " + id);
}

HubAnswer SessionHub::SendMessage(const std::string& id, std::string_view body) {
  auto s = Find(id);
  if (!s) s = TakeOver(id);
  if (!s) {
    HubAnswer known = StoredRecord(id);
    if (known.status == 200)
      return Problem(409, problem::kSessionEnded,
                     "session " + id + " is not run by this server (another server on the store "
                     "runs it, or it ended before a restart): send its messages there; its "
                     "events can be read here");
    if (known.status == 503) return known;
    return Problem(404, problem::kSessionNotFound, "no session " + id + "; create it first");
  }
  auto req = ObjectBody(body);
  if (!req.ok()) return Problem(400, problem::kInvalidRequest, req.error().message);
  auto message = OptString(*req, "message");
  if (!message.ok()) return Problem(400, problem::kInvalidRequest, message.error().message);
  if (!*message || (*message)->empty())
    return Problem(400, problem::kInvalidRequest, "give the message: {\"message\": \"...\"}");
  if (req->contains("attachments"))
    return Problem(400, problem::kInvalidRequest, "attachments are not supported; leave them out");
  if (s->ended()) return Problem(409, problem::kSessionEnded, "session " + id + " has ended");
  if (Status woke = Wake(*s); !woke.ok())
    return Problem(woke.error().kind == "unavailable" ? 503 : 500,
                   woke.error().kind == "unavailable" ? problem::kStoreUnavailable
                                                      : problem::kStreamError,
                   woke.error().message);
  if (s->ext) {  // waits for the running prompt, if any
    Status sent = s->ext->Prompt(**message);
    if (!sent.ok()) return Problem(409, problem::kSessionEnded, "session " + id + " has ended");
    HubAnswer a;
    a.status = 204;
    return a;
  }
  // Busy: the message waits for the running prompt (a follow-up).
  Status st = s->rt->Prompt(**message);
  if (!st.ok() && st.error().kind == "busy") st = s->rt->FollowUp(**message);
  if (!st.ok()) return Problem(409, problem::kSessionEnded, st.error().message);
  HubAnswer a;
  a.status = 204;
  return a;
}

HubAnswer SessionHub::Events(const std::string& id, int64_t offset, size_t limit) {
  auto s = Find(id);
  if (!s) {
    HubAnswer known = StoredRecord(id);
    if (!known.problem_kind.empty()) return known;
    auto read = options_.log->Read("session/" + id, offset, limit + 1);
    if (!read.ok())
      return Problem(503, problem::kStoreUnavailable,
                     "the events of " + id + " could not be read: " + read.error().message);
    bool more = read->size() > limit;
    if (more) read->pop_back();
    Json events = Json::array();
    for (const auto& e : *read)
      if (auto j = ParseJson(e.data); j.ok()) events.push_back(std::move(*j));
    HubAnswer a;
    a.body = {{"events", std::move(events)}, {"hasMore", more}};
    return a;
  }
  std::vector<std::string> lines;
  bool more = false;
  s->Next(offset, limit, Clock::duration::zero(), &lines, &more);
  Json events = Json::array();
  for (const auto& l : lines) events.push_back(*ParseJson(l));
  HubAnswer a;
  a.body = {{"events", std::move(events)}, {"hasMore", more}};
  return a;
}

namespace {

// Writes the events after `cursor` as SSE data frames until stop(event)
// says the stream is done, the session ends or the client goes.
void Serve(ServedSession& s, int64_t cursor, net::ResponseWriter& w,
           std::chrono::milliseconds heartbeat, const std::function<bool(const Json&)>& stop) {
  auto next_beat = Clock::now() + heartbeat;
  for (;;) {
    if (w.client_gone()) return;
    std::vector<std::string> lines;
    bool more = false;
    bool open = s.Next(cursor, 256, std::chrono::milliseconds(200), &lines, &more);
    for (const auto& l : lines) {
      ++cursor;
      if (!w.Write("data: " + l + "\n\n")) return;
      if (stop && stop(*ParseJson(l))) return (void)w.End();
    }
    if (!open) return (void)w.End();
    if (Clock::now() >= next_beat) {
      if (!w.Write(": heartbeat\n\n")) return;
      next_beat = Clock::now() + heartbeat;
    }
  }
}

}  // namespace

void SessionHub::StreamEvents(const std::string& id, int64_t offset, net::ResponseWriter& w,
                              const net::Headers& extra) {
  auto s = Find(id);
  if (!s) {
    HubAnswer known = StoredRecord(id);
    if (!known.problem_kind.empty())
      return SendProblem(w, extra, known.status, known.problem_kind, known.detail);
    SendSseHead(w, extra);
    return StreamStored(id, offset, w);
  }
  if (offset > s->count())
    return SendProblem(w, extra, 400, problem::kInvalidRequest,
                       "offset " + std::to_string(offset) + " is ahead of this session, whose last "
                       "event is " + std::to_string(s->count()));
  SendSseHead(w, extra);
  Serve(*s, offset, w, options_.heartbeat, nullptr);
}

// Another server's session, from the store: what is stored after offset,
// then each new event as the store announces it, until session.ended. A
// store that goes away stalls the stream (heartbeats go on); it goes on
// where it was when the store is back.
void SessionHub::StreamStored(const std::string& id, int64_t cursor, net::ResponseWriter& w) {
  const std::string stream = "session/" + id;
  auto next_beat = Clock::now() + options_.heartbeat;
  for (;;) {
    if (w.client_gone()) return;
    auto read = options_.log->Read(stream, cursor, 256);
    if (read.ok()) {
      for (const auto& e : *read) {
        cursor = e.seq;
        if (!w.Write("data: " + e.data + "\n\n")) return;
        auto j = ParseJson(e.data);
        if (j.ok() && j->value("type", "") == "session.ended") return (void)w.End();
      }
      if (read->size() == 256) continue;
    }
    if (Clock::now() >= next_beat) {
      if (!w.Write(": heartbeat\n\n")) return;
      next_beat = Clock::now() + options_.heartbeat;
    }
    // Woken by the announcement of a new event; the timeout re-reads in
    // case one was missed (and re-checks the client).
    options_.log->WaitForAppend(stream, cursor, std::chrono::milliseconds(1000));
  }
}

void SessionHub::SendMessageStream(const std::string& id, std::string_view body,
                                   net::ResponseWriter& w, const net::Headers& extra) {
  auto s = Find(id);
  if (!s) return SendProblem(w, extra, 404, problem::kSessionNotFound, "no session " + id);
  // The stream starts with what this message causes: everything after now.
  int64_t cursor = s->count();
  HubAnswer sent = SendMessage(id, body);
  if (!sent.problem_kind.empty())
    return SendProblem(w, extra, sent.status, sent.problem_kind, sent.detail);
  SendSseHead(w, extra);
  // The message's work ends when the agent settles (its follow-ups done).
  Serve(*s, cursor, w, options_.heartbeat, [](const Json& e) {
    return e["type"] == "sepp.agent.settled" || e["type"] == "session.ended";
  });
}

HubAnswer SessionHub::ReplyPermission(const std::string& id, const std::string& permission_id,
                                      std::string_view body) {
  auto s = Find(id);
  if (!s) return Problem(404, problem::kSessionNotFound, "no session " + id);
  auto req = ObjectBody(body);
  if (!req.ok()) return Problem(400, problem::kInvalidRequest, req.error().message);
  auto reply = OptString(*req, "reply");
  if (!reply.ok()) return Problem(400, problem::kInvalidRequest, reply.error().message);
  if (s->ext && *reply != "once" && *reply != "always" && *reply != "reject")
    return Problem(400, problem::kInvalidRequest,
                   "\"reply\" must be \"once\", \"always\" or \"reject\"");
  if (s->ext) {
    Status st = s->ext->AnswerPermission(permission_id, **reply);
    if (!st.ok() && st.error().kind == "invalid")
      return Problem(400, problem::kInvalidRequest, st.error().message);
    if (!st.ok())
      return Problem(404, problem::kNotFound,
                     "no pending permission request " + permission_id.substr(0, 128) + " in session " + id);
    HubAnswer a;
    a.status = 204;
    return a;
  }
  agent::PermissionAnswer answer;
  answer.source = "user";
  if (*reply == "once") {
    answer.choice = agent::PermissionChoice::kAllowOnce;
  } else if (*reply == "always") {
    answer.choice = agent::PermissionChoice::kAllowSession;
  } else if (*reply == "reject") {
    answer.choice = agent::PermissionChoice::kDeny;
    answer.message = "the user rejected this through sepp serve";
  } else {
    return Problem(400, problem::kInvalidRequest,
                   "\"reply\" must be \"once\", \"always\" or \"reject\"");
  }
  if (s->dormant())  // a request from before the restart died with its agent
    return Problem(404, problem::kNotFound,
                   "no pending permission request " + permission_id.substr(0, 128) + " in session " + id +
                       " (its agent is not running: the server was restarted since)");
  Status st = s->rt->AnswerPermission(permission_id, answer);
  if (!st.ok())
    return Problem(404, problem::kNotFound,
                   "no pending permission request " + permission_id.substr(0, 128) + " in session " +
                       id + " (" + st.error().message + ")");
  HubAnswer a;
  a.status = 204;
  return a;
}

HubAnswer SessionHub::ReplyQuestion(const std::string& id, const std::string& question_id,
                                    std::string_view body) {
  auto s = Find(id);
  if (!s) return Problem(404, problem::kSessionNotFound, "no session " + id);
  auto req = ObjectBody(body);
  if (!req.ok()) return Problem(400, problem::kInvalidRequest, req.error().message);
  const bool strings = req->contains("answers"), typed = req->contains("values");
  if (s->agent != "sepp")
    return Problem(404, problem::kNotFound,
                   "no pending question " + question_id.substr(0, 128) + " in session " + id + " (agent " +
                       s->agent + " asks no questions through its ACP adapter)");
  if (strings == typed)
    return Problem(400, problem::kInvalidRequest,
                   "send {\"answers\": [[...], ...]} (one array of strings per field) or "
                   "{\"values\": {\"field\": value}}");
  if (s->dormant())
    return Problem(404, problem::kNotFound,
                   "no pending question " + question_id + " in session " + id +
                       " (its agent is not running: the server was restarted since)");
  Status st = strings ? s->rt->AnswerQuestionStrings(question_id, (*req)["answers"])
                      : s->rt->AnswerQuestion(question_id, (*req)["values"]);
  if (!st.ok()) {
    if (st.error().kind == "invalid")
      return Problem(400, problem::kInvalidRequest,
                     "the answer does not fit question " + question_id + ": " + st.error().message);
    return Problem(404, problem::kNotFound, "session " + id + ": " + st.error().message);
  }
  HubAnswer a;
  a.status = 204;
  return a;
}

HubAnswer SessionHub::RejectQuestion(const std::string& id, const std::string& question_id) {
  auto s = Find(id);
  if (!s) return Problem(404, problem::kSessionNotFound, "no session " + id);
  if (s->agent != "sepp")
    return Problem(404, problem::kNotFound,
                   "no pending question " + question_id.substr(0, 128) + " in session " + id + " (agent " +
                       s->agent + " asks no questions through its ACP adapter)");
  if (s->dormant())
    return Problem(404, problem::kNotFound,
                   "no pending question " + question_id + " in session " + id +
                       " (its agent is not running: the server was restarted since)");
  Status st = s->rt->DeclineQuestion(question_id);
  if (!st.ok()) return Problem(404, problem::kNotFound, "session " + id + ": " + st.error().message);
  HubAnswer a;
  a.status = 204;
  return a;
}

HubAnswer SessionHub::Abort(const std::string& id) {
  auto s = Find(id);
  if (!s) return Problem(404, problem::kSessionNotFound, "no session " + id);
  if (s->ext) {
    (void)s->ext->Cancel();  // session/cancel: its turn ends with stopReason cancelled
  } else if (s->rt) {
    s->rt->Abort();
  }  // dormant: nothing runs
  HubAnswer a;
  a.status = 204;
  return a;
}

HubAnswer SessionHub::Terminate(const std::string& id) {
  auto s = Find(id);
  if (!s) return Problem(404, problem::kSessionNotFound, "no session " + id);
  s->End();
  // Stays ended after a restart.
  if (options_.log) {
    auto last = options_.log->LastSeq(MetaStream(id));
    if (last.ok() && *last > 0)
      (void)options_.log->Append(MetaStream(id), *last + 1, NowMs(), R"({"terminated":true})");
  }
  HubAnswer a;
  a.status = 204;
  return a;
}

void SessionHub::Shutdown() {
  std::map<std::string, std::shared_ptr<ServedSession>> all;
  {
    std::lock_guard lock(mu_);
    shut_down_ = true;
    all = sessions_;
  }
  for (auto& [id, s] : all) s->End();
}

}  // namespace sepp::front::serve
