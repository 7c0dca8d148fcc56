#include "front/serve/serve_server.h"

#include "base/clock.h"
#include "base/strings.h"
#include "base/terminal_text.h"
#include "front/acp/session_config.h"
#include "front/serve/agent_info.h"
#include "front/serve/agent_install.h"
#include "front/serve/openapi.h"
#include "front/serve/problem.h"
#include "front/serve/query.h"
#include "front/serve/ui_assets.h"
#include "sandbox/defaults.h"
#include "tools/tool_worker.h"

namespace sepp::front::serve {
namespace {

// Outside input quoted in an error: cut short, control characters shown.
std::string Shown(std::string_view s) {
  return VisibleControls(SanitizeUtf8(s.substr(0, Utf8SafePrefix(s, 200))));
}

const net::Headers kJson = {{"Content-Type", "application/json"}};

// The routes answered from constants in memory (after the guard's checks,
// which only compare strings): cheap enough for the HTTP core's event loop.
// Everything else may wait (the agent, a process, the file worker, a
// stream) and runs on a worker thread.
// /v1/processes/{id}/terminal/ws
bool IsTerminalSocket(std::string_view path) {
  constexpr std::string_view kPrefix = "/v1/processes/", kSuffix = "/terminal/ws";
  return path.size() > kPrefix.size() + kSuffix.size() && path.substr(0, kPrefix.size()) == kPrefix &&
         path.substr(path.size() - kSuffix.size()) == kSuffix;
}

bool AnsweredFromMemory(const net::HttpServerRequest& req) {
  std::string_view path = std::string_view(req.target).substr(0, req.target.find('?'));
  return path == "/v1/health" || path == "/" || path == "/v1/openapi.json" || path == "/ui" ||
         path.substr(0, 4) == "/ui/";
}

void SendJson(net::ResponseWriter& w, const net::Headers& cors, int status, const Json& body) {
  net::Headers h = kJson;
  h.insert(h.end(), cors.begin(), cors.end());
  w.Send(status, h, DumpJson(body));
}

void SendEmpty(net::ResponseWriter& w, const net::Headers& cors, int status) {
  w.Send(status, cors, "");
}

// "application/json; charset=utf-8" -> "application/json"
std::string MediaType(std::string_view content_type) {
  return ToLower(Trim(content_type.substr(0, content_type.find(';'))));
}

bool AcceptsEventStream(std::string_view accept) {
  if (accept.empty()) return false;
  for (const auto& part : Split(accept, ',')) {
    std::string t = MediaType(part);
    if (t == "text/event-stream" || t == "*/*" || t == "text/*") return true;
  }
  return false;
}

void MethodNotAllowed(net::ResponseWriter& w, net::Headers cors, const char* allow) {
  cors.emplace_back("Allow", allow);
  SendProblem(w, cors, 405, problem::kMethodNotAllowed,
              std::string("this route takes ") + allow);
}

}  // namespace

ServeServer::ServeServer(ServeOptions options) : options_(std::move(options)) {
  guard_.token = options_.token;
  guard_.cors_origins = options_.cors_origins;
}

ServeServer::~ServeServer() { Stop(); }

Status ServeServer::Start() {
  hub_ = std::make_unique<AcpHub>(options_.hub);
  sessions_ = std::make_unique<SessionHub>(options_.hub);
  std::vector<std::filesystem::path> roots;
  for (const auto& w : options_.hub.workspaces) {
    std::error_code ec;
    auto c = std::filesystem::canonical(w, ec);
    if (ec) return Error::Make("the workspace " + w.string() + " cannot be opened: " + ec.message(), "usage");
    roots.push_back(c);
  }
  fs_worker_ = std::make_unique<FsWorker>(roots, tools::ToolWorkerExecutable());
  fs_ = std::make_unique<FsApi>(roots, *fs_worker_);
  config_ = std::make_unique<ConfigApi>(roots, *fs_worker_);
  ProcessHub::PolicyFor policy_for = options_.hub.agent.policy_for;
  if (!policy_for) policy_for = [](const std::filesystem::path& cwd) { return sandbox::DefaultToolPolicy(cwd); };
  processes_ = std::make_unique<ProcessHub>(roots, std::move(policy_for), options_.hub.heartbeat);
  net::HttpServerOptions ho;
  ho.host = options_.host;
  ho.port = options_.port;
  ho.max_connections = 1024;
  ho.idle_timeout_s = 120;
  ho.answer_inline = AnsweredFromMemory;
  http_ = std::make_unique<net::HttpServer>(
      [this](const net::HttpServerRequest& req, net::ResponseWriter& w) { Handle(req, w); }, ho);
  if (Status s = http_->Start(); !s.ok()) return s;
  guard_.allowed_hosts = HostsFor(options_.host, http_->port());
  started_ms_ = NowMs();
  ready_ = true;
  return Ok();
}

void ServeServer::Stop() {
  if (http_) http_->Stop();
  processes_.reset();  // kills every process the API started
  fs_worker_.reset();  // ends the file API's sandbox
  if (sessions_) sessions_->Shutdown();
  if (hub_) hub_->Shutdown();
}

void ServeServer::Handle(const net::HttpServerRequest& req, net::ResponseWriter& w) {
  if (!ready_) return SendProblem(w, {}, 503, problem::kInternal, "the server is starting");
  const std::string host = req.Header("Host");
  if (host.empty())
    return SendProblem(w, {}, 400, problem::kForbiddenHost, "the request has no Host header");
  if (!HostAllowed(guard_, host))
    return SendProblem(w, {}, 403, problem::kForbiddenHost,
                       "Host \"" + Shown(host) +
                           "\" is not this server's address; use the address it listens on "
                           "(a foreign name here means DNS rebinding)");
  const std::string origin = req.Header("Origin");
  net::Headers cors;
  switch (CheckOrigin(guard_, origin, host)) {
    case OriginVerdict::kForbidden:
      return SendProblem(w, {}, 403, problem::kForbiddenOrigin,
                         "requests from the web origin \"" + Shown(origin) +
                             "\" are refused; start sepp serve with --cors-allow-origin to allow it");
    case OriginVerdict::kCors:
      cors = CorsHeaders(origin);
      break;
    case OriginVerdict::kNone:
    case OriginVerdict::kSameOrigin:
      break;
  }
  // A CORS preflight carries no credentials: answered before the token check.
  if (req.method == "OPTIONS") {
    if (cors.empty())
      return SendProblem(w, {}, 403, problem::kForbiddenOrigin,
                         "no cross-origin access is configured (--cors-allow-origin)");
    return SendEmpty(w, cors, 204);
  }
  const std::string path = req.Path();
  // The inspector's own files hold no data and no token (the page brings
  // the token itself, docs/serve.md), so they are served without one.
  if (path == "/ui" || StartsWith(path, "/ui/")) return ServeUi(req, w);
  // Probes and the landing document need no token; they reveal nothing.
  bool open = path == "/" || path == "/v1/health" || path == "/v1/openapi.json";
  if (!open && !guard_.token.empty()) {
    const std::string authorization = req.Header("Authorization");  // given points into it
    auto given = BearerToken(authorization);
    // A browser's WebSocket cannot send headers: the terminal socket takes
    // the token as ?access_token= too (as sandbox-agent does; no other route).
    std::string from_query;
    if (!given && IsTerminalSocket(path)) {
      auto query = ParseQuery(req.target);
      if (query.ok() && query->count("access_token")) given = from_query = query->at("access_token");
    }
    if (!given || !ConstantTimeEquals(*given, guard_.token))
      return SendProblem(w, cors, 401, problem::kTokenInvalid,
                         "missing or invalid bearer token: send \"Authorization: Bearer <token>\" "
                         "with the token sepp serve printed at start");
  }
  // A malformed value from outside the server (the sandboxed fs worker's
  // replies, a stored event) must cost one request a 500, never the server.
  try {
    Route(req, w, cors);
  } catch (const std::exception& e) {
    SendProblem(w, cors, 500, problem::kInternal, std::string("the request failed: ") + e.what());
  }
}

void ServeServer::Route(const net::HttpServerRequest& req, net::ResponseWriter& w,
                        const net::Headers& cors) {
  // The probe, answered first and from a constant: load balancers call it
  // often, and building, splitting and serialising cost more than the
  // answer (a query string takes the general path below, which checks it).
  if (req.target == "/v1/health" && req.method == "GET") {
    if (cors.empty()) return (void)w.Send(200, kJson, R"({"status":"ok"})");  // allocates nothing
    net::Headers h = kJson;
    h.insert(h.end(), cors.begin(), cors.end());
    w.Send(200, h, R"({"status":"ok"})");
    return;
  }
  const std::string path = req.Path();
  auto query = ParseQuery(req.target);
  if (!query.ok()) return SendProblem(w, cors, 400, problem::kInvalidRequest, query.error().message);
  std::vector<std::string> seg;
  for (auto& s : Split(path, '/'))
    if (!s.empty()) seg.push_back(s);
  const std::string& m = req.method;

  if (path == "/") {
    if (m != "GET") return MethodNotAllowed(w, cors, "GET");
    return SendJson(w, cors, 200,
                    {{"name", "sepp serve"}, {"version", options_.version}, {"docs", "docs/serve.md"}});
  }
  if (seg.size() < 2 || seg[0] != "v1")
    return SendProblem(w, cors, 404, problem::kNotFound, "no route " + Shown(path));

  if (seg[1] == "health" && seg.size() == 2) {
    if (m != "GET") return MethodNotAllowed(w, cors, "GET");
    return SendJson(w, cors, 200, {{"status", "ok"}});
  }
  if (seg[1] == "openapi.json" && seg.size() == 2) {
    if (m != "GET") return MethodNotAllowed(w, cors, "GET");
    net::Headers h = kJson;
    h.insert(h.end(), cors.begin(), cors.end());
    return (void)w.Send(200, h, OpenApiJson());
  }
  if (seg[1] == "agents") {
    auto config = QueryBool(*query, "config", false);
    if (!config.ok()) return SendProblem(w, cors, 400, problem::kInvalidRequest, config.error().message);
    AgentCatalog* agents = options_.hub.agents;
    if (seg.size() == 2) {
      if (m != "GET") return MethodNotAllowed(w, cors, "GET");
      Json list = Json::array({AgentInfo(*config)});
      if (agents)
        for (const auto& spec : agents->specs()) list.push_back(ExternalAgentInfo(*agents, spec, hub_->List()));
      return SendJson(w, cors, 200, {{"agents", list}});
    }
    const AgentSpec* spec = agents ? agents->Find(seg[2]) : nullptr;
    if (seg[2] != "sepp" && !spec) {
      std::string known = "\"sepp\"";
      if (agents)
        for (const auto& s : agents->specs()) known += ", \"" + s.id + "\"";
      return SendProblem(w, cors, 404, problem::kUnsupportedAgent,
                         "no agent \"" + Shown(seg[2]) + "\"; this server runs " + known);
    }
    if (seg.size() == 3) {
      if (m != "GET") return MethodNotAllowed(w, cors, "GET");
      return SendJson(w, cors, 200, spec ? ExternalAgentInfo(*agents, *spec, hub_->List()) : AgentInfo(*config));
    }
    if (seg.size() == 4 && seg[3] == "install") {
      if (m != "POST") return MethodNotAllowed(w, cors, "POST");
      // sepp is built into this binary: nothing to install.
      if (!spec) return SendJson(w, cors, 200, {{"already_installed", true}, {"artifacts", Json::array()}});
      InstallRequest ir;
      if (!Trim(req.body).empty()) {
        auto body = ParseJson(req.body);
        if (!body.ok() || !body->is_object())
          return SendProblem(w, cors, 400, problem::kInvalidRequest,
                             "the body is a JSON object ({\"reinstall\": true}) or empty");
        for (const auto& [k, v] : body->items())
          if (k != "reinstall" || !v.is_boolean())
            return SendProblem(w, cors, 400, problem::kInvalidRequest,
                               "unknown or mistyped member \"" + Shown(k) + "\" (the body takes reinstall: boolean)");
        ir.reinstall = body->value("reinstall", false);
      }
      std::lock_guard lock(install_mu_);  // one npm in the data folder at a time
      auto done = InstallAgent(*agents, *spec, ir);
      if (!done.ok())
        return SendProblem(w, cors, done.error().kind == "usage" ? 409 : 502,
                           done.error().kind == "usage" ? problem::kConflict : problem::kInternal,
                           done.error().message);
      return SendJson(w, cors, 200, *done);
    }
  }
  if (seg[1] == "sessions") return RouteSessions(req, w, cors, seg, *query);
  if (seg[1] == "fs") return fs_->Handle(req, w, cors, seg, *query);
  if (seg[1] == "config") return config_->Handle(req, w, cors, seg, *query);
  if (seg[1] == "processes") return processes_->Handle(req, w, cors, seg, *query);
  if (seg[1] == "acp") {
    if (seg.size() == 2) {
      if (m != "GET") return MethodNotAllowed(w, cors, "GET");
      return SendJson(w, cors, 200, hub_->List());
    }
    if (seg.size() == 3) {
      const std::string& id = seg[2];
      if (!IsValidId(id))
        return SendProblem(w, cors, 400, problem::kInvalidRequest,
                           "a server id is 1-128 of the characters A-Z a-z 0-9 . _ : -");
      if (m == "POST") {
        if (MediaType(req.Header("Content-Type")) != "application/json")
          return SendProblem(w, cors, 415, problem::kUnsupportedMediaType,
                             "POST a JSON-RPC message with Content-Type: application/json");
        std::optional<std::string> agent;
        if (auto it = query->find("agent"); it != query->end()) agent = it->second;
        PostAnswer a = hub_->Post(id, agent, req.body, [&w] { return w.client_gone(); });
        if (a.status == 499) return w.Abort();
        if (!a.problem_kind.empty())
          return SendProblem(w, cors, a.status, a.problem_kind, a.detail, a.extra);
        if (a.status == 202) return SendEmpty(w, cors, 202);
        net::Headers h = kJson;
        h.insert(h.end(), cors.begin(), cors.end());
        return (void)w.Send(200, h, a.body);
      }
      if (m == "GET") {
        if (!AcceptsEventStream(req.Header("Accept")))
          return SendProblem(w, cors, 406, problem::kNotAcceptable,
                             "this route is an event stream: send Accept: text/event-stream");
        std::optional<int64_t> last;
        std::string lei = req.Header("Last-Event-ID");
        if (!lei.empty()) {
          auto n = ParseCount(Trim(lei), "Last-Event-ID");
          if (!n.ok()) return SendProblem(w, cors, 400, problem::kInvalidRequest, n.error().message);
          last = *n;
        }
        return hub_->Stream(id, last, w, cors);
      }
      if (m == "DELETE") {
        hub_->Delete(id);
        return SendEmpty(w, cors, 204);
      }
      return MethodNotAllowed(w, cors, "GET, POST, DELETE");
    }
  }
  SendProblem(w, cors, 404, problem::kNotFound, "no route " + Shown(path));
}

void ServeServer::RouteSessions(const net::HttpServerRequest& req, net::ResponseWriter& w,
                                const net::Headers& cors, const std::vector<std::string>& seg,
                                const Query& query) {
  const std::string& m = req.method;
  if (seg.size() == 2) {
    if (m != "GET") return MethodNotAllowed(w, cors, "GET");
    HubAnswer listed = sessions_->List();
    if (!listed.problem_kind.empty())
      return SendProblem(w, cors, listed.status, listed.problem_kind, listed.detail);
    return SendJson(w, cors, 200, listed.body);
  }
  const std::string& id = seg[2];
  if (!IsValidId(id))
    return SendProblem(w, cors, 400, problem::kInvalidRequest,
                       "a session id is 1-128 of the characters A-Z a-z 0-9 . _ : -");
  auto answer = [&](const HubAnswer& a) {
    if (!a.problem_kind.empty()) return SendProblem(w, cors, a.status, a.problem_kind, a.detail);
    if (a.status == 204) return SendEmpty(w, cors, 204);
    SendJson(w, cors, a.status, a.body);
  };
  auto offset = [&]() -> Result<int64_t> {
    auto it = query.find("offset");
    return it == query.end() ? Result<int64_t>(0) : ParseCount(it->second, "offset");
  };
  // Every POST here takes a JSON body (or none: terminate).
  bool json_body = MediaType(req.Header("Content-Type")) == "application/json";
  auto needs_json = [&] {
    SendProblem(w, cors, 415, problem::kUnsupportedMediaType,
                "POST a JSON body with Content-Type: application/json");
  };
  const std::string sub = seg.size() > 3 ? seg[3] : "";
  if (seg.size() == 3) {
    if (m != "POST") return MethodNotAllowed(w, cors, "POST");
    if (!json_body) return needs_json();
    return answer(sessions_->Create(id, req.body));
  }
  if (sub == "messages" && seg.size() <= 5) {
    bool stream = seg.size() == 5;
    if (stream && seg[4] != "stream")
      return SendProblem(w, cors, 404, problem::kNotFound, "no route " + Shown(req.Path()));
    if (m != "POST") return MethodNotAllowed(w, cors, "POST");
    if (!json_body) return needs_json();
    if (!stream) return answer(sessions_->SendMessage(id, req.body));
    return sessions_->SendMessageStream(id, req.body, w, cors);
  }
  if (sub == "events" && seg.size() == 4) {
    if (m != "GET") return MethodNotAllowed(w, cors, "GET");
    auto off = offset();
    if (!off.ok()) return SendProblem(w, cors, 400, problem::kInvalidRequest, off.error().message);
    int64_t limit = 1000;
    if (auto it = query.find("limit"); it != query.end()) {
      auto l = ParseCount(it->second, "limit");
      if (!l.ok() || *l < 1 || *l > 10000)
        return SendProblem(w, cors, 400, problem::kInvalidRequest,
                           "limit must be a number from 1 to 10000");
      limit = *l;
    }
    return answer(sessions_->Events(id, *off, static_cast<size_t>(limit)));
  }
  if (sub == "events" && seg.size() == 5 && seg[4] == "sse") {
    if (m != "GET") return MethodNotAllowed(w, cors, "GET");
    auto off = offset();
    if (!off.ok()) return SendProblem(w, cors, 400, problem::kInvalidRequest, off.error().message);
    return sessions_->StreamEvents(id, *off, w, cors);
  }
  if (sub == "permissions" && seg.size() == 6 && seg[5] == "reply") {
    if (m != "POST") return MethodNotAllowed(w, cors, "POST");
    if (!json_body) return needs_json();
    if (!IsValidId(seg[4]))
      return SendProblem(w, cors, 400, problem::kInvalidRequest,
                         "a permission id is 1-128 of the characters A-Z a-z 0-9 . _ : -");
    return answer(sessions_->ReplyPermission(id, seg[4], req.body));
  }
  if (sub == "questions" && seg.size() == 6 && (seg[5] == "reply" || seg[5] == "reject")) {
    if (m != "POST") return MethodNotAllowed(w, cors, "POST");
    if (!IsValidId(seg[4]))
      return SendProblem(w, cors, 400, problem::kInvalidRequest,
                         "a question id is 1-128 of the characters A-Z a-z 0-9 . _ : -");
    if (seg[5] == "reject") return answer(sessions_->RejectQuestion(id, seg[4]));
    if (!json_body) return needs_json();
    return answer(sessions_->ReplyQuestion(id, seg[4], req.body));
  }
  if (sub == "terminate" && seg.size() == 4) {
    if (m != "POST") return MethodNotAllowed(w, cors, "POST");
    return answer(sessions_->Terminate(id));
  }
  if (sub == "abort" && seg.size() == 4) {
    if (m != "POST") return MethodNotAllowed(w, cors, "POST");
    return answer(sessions_->Abort(id));
  }
  SendProblem(w, cors, 404, problem::kNotFound, "no route " + Shown(req.Path()));
}

void ServeServer::ServeUi(const net::HttpServerRequest& req, net::ResponseWriter& w) {
  const std::string path = req.Path();
  if (req.method != "GET") return MethodNotAllowed(w, {}, "GET");
  // "/ui" -> "/ui/", so the page's relative links resolve under /ui/ (the
  // fragment with the token is kept by the browser across the redirect).
  if (path == "/ui") {
    size_t q = req.target.find('?');
    return (void)w.Send(308, {{"Location", "/ui/" + (q == std::string::npos ? "" : req.target.substr(q))}}, "");
  }
  const UiFile* file = FindUiFile(std::string_view(path).substr(4));
  if (!file)
    return SendProblem(w, {}, 404, problem::kNotFound,
                       "the inspector has no file " + Shown(path) + "; open /ui/");
  w.Send(200, UiHeaders(file->name), file->content);
}

Json ServeServer::AgentInfo(bool with_config) {
  size_t running = hub_->running();
  Json caps = {{"planMode", false},        {"permissions", true},       {"questions", true},
               {"toolCalls", true},        {"toolResults", true},       {"textMessages", true},
               {"images", false},          {"fileAttachments", false},  {"sessionLifecycle", true},
               {"errorEvents", true},      {"reasoning", true},         {"status", true},
               {"commandExecution", true}, {"fileChanges", true},       {"mcpTools", false},
               {"streamingDeltas", true},  {"itemStarted", true},       {"sharedProcess", true}};
  Json info = {{"id", "sepp"},
               {"installed", true},
               {"credentialsAvailable", options_.credentials_available},
               {"version", options_.version},
               {"capabilities", caps},
               {"serverStatus", running ? Json{{"status", "running"}, {"uptimeMs", NowMs() - started_ms_}}
                                        : Json{{"status", "stopped"}}}};
  if (with_config) {
    Json modes = acp::ModesJson(acp::Mode::kAsk);
    Json options = Json::array();
    for (const auto& mode : modes["availableModes"])
      options.push_back({{"value", mode["id"]}, {"name", mode["name"]}});
    info["configOptions"] = Json::array({{{"id", "mode"},
                                          {"name", "Mode"},
                                          {"category", "mode"},
                                          {"type", "select"},
                                          {"currentValue", "ask"},
                                          {"options", options}}});
  }
  return info;
}

}  // namespace sepp::front::serve
