// `sepp api …`: a command line for a running `sepp serve`, one sub-command
// per endpoint (docs/serve.md). Answers are printed as the server sent them
// (JSON); an event stream as one JSON line per event, {"id", "message"}.
// Errors (problem+json) go to stderr as their detail, exit status 1.
//
//   sepp api health
//   sepp api agents list | agents get ID
//   sepp api acp list
//   sepp api acp post --server-id ID [--agent sepp] (--json J | --json-file F)
//   sepp api acp stream --server-id ID [--last-event-id N]
//   sepp api acp close --server-id ID
//   sepp api sessions list | create ID --agent sepp [--model M] [--directory D] [--title T]
//   sepp api sessions send-message ID --message TEXT | send-message-stream ID --message TEXT
//   sepp api sessions events ID [--offset N] [--limit N] | events-sse ID [--offset N]
//   sepp api sessions permissions reply ID PERMISSION_ID --reply once|always|reject
//   sepp api sessions questions reply ID QUESTION_ID (--answer TEXT... | --values JSON)
//   sepp api sessions questions reject ID QUESTION_ID
//   sepp api sessions terminate ID
//   sepp api processes run|start [--cwd D] [--timeout-ms N] [--interactive] [--tty] -- COMMAND ARGS...
//   sepp api processes list | get ID | logs ID [--stream S] [--tail N] [--follow]
//   sepp api processes input ID --data TEXT | stop ID | kill ID [--wait-ms N] | delete ID
//   sepp api processes resize ID --cols N --rows N
//
// A session stream prints each universal event as one JSON line.
// --endpoint (default $SEPP_SERVE_URL, else http://127.0.0.1:2468) and
// --token (default $SEPP_SERVE_TOKEN) pick the server.
#include <cstdio>
#include <cstdlib>
#include <string>

#include <CLI/CLI.hpp>

#include "app/commands.h"
#include "base/file.h"
#include "base/json.h"
#include "base/terminal_text.h"
#include "net/http_client.h"
#include "net/sse.h"

namespace sepp::app {
namespace {

struct Target {
  std::string endpoint, token;
};

net::HttpRequest MakeRequest(const Target& t, const std::string& method, const std::string& path) {
  net::HttpRequest r;
  r.method = method;
  std::string base = t.endpoint;
  while (!base.empty() && base.back() == '/') base.pop_back();
  r.url = base + path;
  r.proxy = "direct";  // a local server; never through the user's proxy
  r.connect_timeout_s = 10;
  if (!t.token.empty()) r.headers.emplace_back("Authorization", "Bearer " + t.token);
  return r;
}

// Prints a problem's detail (or the raw body) to stderr; the exit status.
int Fail(int status, const std::string& body) {
  auto j = ParseJson(body);
  std::string detail = j.ok() && j->is_object() && j->contains("detail") && (*j)["detail"].is_string()
                           ? (*j)["detail"].get<std::string>()
                           : body;
  std::string type = j.ok() && j->is_object() ? j->value("type", "") : "";
  std::fprintf(stderr, "sepp api: %d%s%s: %s\n", status, type.empty() ? "" : " ", type.c_str(),
               VisibleControls(detail).c_str());
  return 1;
}

int Call(const Target& t, const std::string& method, const std::string& path,
         const std::string& body = "") {
  net::HttpRequest r = MakeRequest(t, method, path);
  if (!body.empty()) {
    r.headers.emplace_back("Content-Type", "application/json");
    r.body = body;
  }
  auto resp = net::HttpFetch(r, nullptr);
  if (!resp.ok()) {
    std::fprintf(stderr, "sepp api: %s (is `sepp serve` running at %s?)\n",
                 resp.error().message.c_str(), t.endpoint.c_str());
    return 1;
  }
  if (resp->head.status >= 400) return Fail(resp->head.status, resp->body);
  if (!resp->body.empty()) std::printf("%s\n", resp->body.c_str());
  return 0;
}

// bare: print each event's data as it is (the session API's universal
// events carry their own sequence); else {"id", "message"}.
int Stream(const Target& t, const std::string& path, const std::string& last_event_id,
           bool bare = false, const std::string& post_body = "") {
  net::HttpRequest r = MakeRequest(t, post_body.empty() ? "GET" : "POST", path);
  r.headers.emplace_back("Accept", "text/event-stream");
  if (!post_body.empty()) {
    r.headers.emplace_back("Content-Type", "application/json");
    r.body = post_body;
  }
  if (!last_event_id.empty()) r.headers.emplace_back("Last-Event-ID", last_event_id);
  r.read_timeout_s = 3600;  // heartbeats come every 15 s
  int status = 0;
  std::string error_body;
  net::SseParser parser([bare](const net::SseEvent& e) {
    auto j = ParseJson(e.data);
    Json line = bare ? (j.ok() ? *j : Json(e.data))
                     : Json{{"id", e.id}, {"message", j.ok() ? *j : Json(e.data)}};
    std::printf("%s\n", DumpJson(line).c_str());
    std::fflush(stdout);
  });
  net::HttpHandlers h;
  h.on_head = [&](const net::HttpResponseHead& head) { status = head.status; };
  h.on_body = [&](std::string_view piece) {
    if (status >= 400) {
      error_body.append(piece);
    } else {
      parser.Feed(piece);
    }
    return true;
  };
  Status s = net::HttpSend(r, h, nullptr);
  if (status >= 400) return Fail(status, error_body);
  if (!s.ok()) {
    std::fprintf(stderr, "sepp api: %s\n", s.error().message.c_str());
    return 1;
  }
  return 0;
}

}  // namespace

int RunApiCommand(int argc, char** argv) {
  Target t;
  const char* env_url = std::getenv("SEPP_SERVE_URL");
  const char* env_token = std::getenv("SEPP_SERVE_TOKEN");
  t.endpoint = env_url && *env_url ? env_url : "http://127.0.0.1:2468";
  if (env_token) t.token = env_token;
  CLI::App cli{"sepp api: talk to a running `sepp serve` (docs/serve.md)", "sepp api"};
  cli.add_option("-e,--endpoint", t.endpoint, "server URL (default $SEPP_SERVE_URL or http://127.0.0.1:2468)");
  cli.add_option("-t,--token", t.token, "bearer token (default $SEPP_SERVE_TOKEN)");
  cli.require_subcommand(1);
  auto* health = cli.add_subcommand("health", "GET /v1/health");
  auto* agents = cli.add_subcommand("agents", "the agents")->require_subcommand(1);
  auto* agents_list = agents->add_subcommand("list", "GET /v1/agents");
  std::string agent_id;
  auto* agents_get = agents->add_subcommand("get", "GET /v1/agents/{id}");
  agents_get->add_option("id", agent_id, "agent id")->required();
  auto* acp = cli.add_subcommand("acp", "ACP connections")->require_subcommand(1);
  auto* acp_list = acp->add_subcommand("list", "GET /v1/acp");
  std::string server_id, agent, json, json_file, last_event_id;
  auto* post = acp->add_subcommand("post", "POST one JSON-RPC message to /v1/acp/{id}");
  post->add_option("--server-id", server_id, "the connection")->required();
  post->add_option("--agent", agent, "the agent, on a new connection (sepp)");
  auto* json_opt = post->add_option("--json", json, "the message");
  post->add_option("--json-file", json_file, "a file holding the message")->excludes(json_opt);
  auto* stream = acp->add_subcommand("stream", "GET /v1/acp/{id} as SSE, one JSON line per event");
  stream->add_option("--server-id", server_id, "the connection")->required();
  stream->add_option("--last-event-id", last_event_id, "resume after this event");
  auto* close = acp->add_subcommand("close", "DELETE /v1/acp/{id}");
  close->add_option("--server-id", server_id, "the connection")->required();
  auto* sessions = cli.add_subcommand("sessions", "sepp's session API (/v1/sessions)")->require_subcommand(1);
  auto* sessions_list = sessions->add_subcommand("list", "GET /v1/sessions");
  std::string session_id, model, directory, title, message, permission_id, reply;
  int64_t offset = 0, limit = 0;
  auto* create = sessions->add_subcommand("create", "POST /v1/sessions/{id}");
  create->add_option("id", session_id, "the session id")->required();
  create->add_option("--agent", agent, "the agent (sepp)")->required();
  create->add_option("--model", model, "the model");
  create->add_option("--directory", directory, "its folder, inside the server's workspaces");
  create->add_option("--title", title, "a title");
  auto* send = sessions->add_subcommand("send-message", "POST /v1/sessions/{id}/messages");
  auto* send_stream = sessions->add_subcommand(
      "send-message-stream", "POST /v1/sessions/{id}/messages/stream, one JSON line per event");
  for (auto* c : {send, send_stream}) {
    c->add_option("id", session_id, "the session id")->required();
    c->add_option("--message", message, "the message")->required();
  }
  auto* events = sessions->add_subcommand("events", "GET /v1/sessions/{id}/events");
  events->add_option("id", session_id, "the session id")->required();
  events->add_option("--offset", offset, "the last sequence seen (exclusive)")->check(CLI::NonNegativeNumber);
  events->add_option("--limit", limit, "at most this many")->check(CLI::Range(1, 10000));
  auto* events_sse = sessions->add_subcommand(
      "events-sse", "GET /v1/sessions/{id}/events/sse, one JSON line per event, live");
  events_sse->add_option("id", session_id, "the session id")->required();
  events_sse->add_option("--offset", offset, "the last sequence seen (exclusive)")->check(CLI::NonNegativeNumber);
  auto* permissions = sessions->add_subcommand("permissions", "permission requests")->require_subcommand(1);
  auto* permissions_reply =
      permissions->add_subcommand("reply", "POST /v1/sessions/{id}/permissions/{pid}/reply");
  permissions_reply->add_option("id", session_id, "the session id")->required();
  permissions_reply->add_option("permission_id", permission_id, "the request's permission_id")->required();
  permissions_reply->add_option("--reply", reply, "once, always or reject")
      ->required()
      ->check(CLI::IsMember({"once", "always", "reject"}));
  auto* questions = sessions->add_subcommand("questions", "questions to the user")->require_subcommand(1);
  std::string question_id, values_json;
  std::vector<std::string> answers;
  auto* questions_reply =
      questions->add_subcommand("reply", "POST /v1/sessions/{id}/questions/{qid}/reply");
  auto* questions_reject =
      questions->add_subcommand("reject", "POST /v1/sessions/{id}/questions/{qid}/reject");
  for (auto* c : {questions_reply, questions_reject}) {
    c->add_option("id", session_id, "the session id")->required();
    c->add_option("question_id", question_id, "the question's question_id")->required();
  }
  auto* answer_opt = questions_reply->add_option(
      "--answer", answers,
      "the answer to each field in order, one string each (repeat; --values for several choices)");
  questions_reply->add_option("--values", values_json, "the typed answer as a JSON object {field: value}")
      ->excludes(answer_opt);
  auto* terminate = sessions->add_subcommand("terminate", "POST /v1/sessions/{id}/terminate");
  terminate->add_option("id", session_id, "the session id")->required();
  auto* processes = cli.add_subcommand("processes", "the processes API (/v1/processes)")->require_subcommand(1);
  std::vector<std::string> command_line;
  std::string cwd, process_id, log_stream, input;
  int64_t timeout_ms = 0, tail = -1, wait_ms = -1, cols = 0, rows = 0;
  bool interactive = false, tty = false, follow = false;
  auto* proc_run = processes->add_subcommand("run", "POST /v1/processes/run: run to its end, print its output");
  auto* proc_start = processes->add_subcommand("start", "POST /v1/processes: start in the background");
  for (auto* c : {proc_run, proc_start}) {
    c->add_option("command", command_line, "the program and its arguments (after --)")->required()->expected(-1);
    c->add_option("--cwd", cwd, "its folder, inside the server's workspaces");
  }
  proc_run->add_option("--timeout-ms", timeout_ms, "kill it after this long")->check(CLI::PositiveNumber);
  proc_start->add_flag("--interactive", interactive, "keep its input open (processes input)");
  proc_start->add_flag("--tty", tty, "on a terminal (pty): input is typed, output is the pty stream");
  auto* proc_list = processes->add_subcommand("list", "GET /v1/processes");
  auto* proc_get = processes->add_subcommand("get", "GET /v1/processes/{id}");
  auto* proc_logs = processes->add_subcommand("logs", "GET /v1/processes/{id}/logs (entries' data is base64)");
  proc_logs->add_option("--stream", log_stream, "stdout, stderr, combined or pty")
      ->check(CLI::IsMember({"stdout", "stderr", "combined", "pty"}));
  proc_logs->add_option("--tail", tail, "only the last N entries")->check(CLI::NonNegativeNumber);
  proc_logs->add_flag("--follow", follow, "then live, one JSON line per entry, to its end");
  auto* proc_input = processes->add_subcommand("input", "POST /v1/processes/{id}/input");
  proc_input->add_option("--data", input, "the text to write to its input")->required();
  auto* proc_stop = processes->add_subcommand("stop", "POST /v1/processes/{id}/stop (SIGTERM, then SIGKILL)");
  auto* proc_kill = processes->add_subcommand("kill", "POST /v1/processes/{id}/kill (SIGKILL)");
  for (auto* c : {proc_stop, proc_kill})
    c->add_option("--wait-ms", wait_ms, "how long to wait for its end")->check(CLI::Range(0, 60000));
  auto* proc_delete = processes->add_subcommand("delete", "DELETE /v1/processes/{id} (kills it)");
  auto* proc_resize = processes->add_subcommand("resize", "POST /v1/processes/{id}/terminal/resize");
  proc_resize->add_option("--cols", cols, "columns")->required()->check(CLI::Range(1, 65535));
  proc_resize->add_option("--rows", rows, "rows")->required()->check(CLI::Range(1, 65535));
  for (auto* c : {proc_get, proc_logs, proc_input, proc_stop, proc_kill, proc_delete, proc_resize})
    c->add_option("id", process_id, "the process id (proc_N)")->required();
  try {
    cli.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = cli.exit(e);
    return code == 0 ? 0 : 2;
  }
  if (*health) return Call(t, "GET", "/v1/health");
  if (*agents_list) return Call(t, "GET", "/v1/agents");
  if (*agents_get) return Call(t, "GET", "/v1/agents/" + agent_id);
  if (*acp_list) return Call(t, "GET", "/v1/acp");
  if (*post) {
    if (!json_file.empty()) {
      auto text = ReadFile(json_file);
      if (!text.ok()) {
        std::fprintf(stderr, "sepp api: %s\n", text.error().message.c_str());
        return 1;
      }
      json = *text;
    }
    if (json.empty()) {
      std::fprintf(stderr, "sepp api: give the message with --json or --json-file\n");
      return 2;
    }
    return Call(t, "POST", "/v1/acp/" + server_id + (agent.empty() ? "" : "?agent=" + agent), json);
  }
  if (*stream) return Stream(t, "/v1/acp/" + server_id, last_event_id);
  if (*close) return Call(t, "DELETE", "/v1/acp/" + server_id);
  const std::string base = "/v1/sessions/" + session_id;
  if (*sessions_list) return Call(t, "GET", "/v1/sessions");
  if (*create) {
    Json body = {{"agent", agent}};
    if (!model.empty()) body["model"] = model;
    if (!directory.empty()) body["directory"] = directory;
    if (!title.empty()) body["title"] = title;
    return Call(t, "POST", base, DumpJson(body));
  }
  if (*send) return Call(t, "POST", base + "/messages", DumpJson(Json{{"message", message}}));
  if (*send_stream)
    return Stream(t, base + "/messages/stream", "", true, DumpJson(Json{{"message", message}}));
  if (*events)
    return Call(t, "GET", base + "/events?offset=" + std::to_string(offset) +
                              (limit ? "&limit=" + std::to_string(limit) : ""));
  if (*events_sse) return Stream(t, base + "/events/sse?offset=" + std::to_string(offset), "", true);
  if (*permissions_reply)
    return Call(t, "POST", base + "/permissions/" + permission_id + "/reply",
                DumpJson(Json{{"reply", reply}}));
  if (*questions_reply) {
    Json body;
    if (!values_json.empty()) {
      auto values = ParseJson(values_json);
      if (!values.ok() || !values->is_object()) {
        std::fprintf(stderr, "sepp: --values must be a JSON object {\"field\": value}\n");
        return 2;
      }
      body = {{"values", *values}};
    } else {
      Json a = Json::array();
      for (const auto& x : answers) a.push_back(Json::array({x}));
      body = {{"answers", a}};
    }
    return Call(t, "POST", base + "/questions/" + question_id + "/reply", DumpJson(body));
  }
  if (*questions_reject) return Call(t, "POST", base + "/questions/" + question_id + "/reject");
  if (*terminate) return Call(t, "POST", base + "/terminate");
  if (*proc_run || *proc_start) {
    Json body = {{"command", command_line.front()},
                 {"args", std::vector<std::string>(command_line.begin() + 1, command_line.end())}};
    if (!cwd.empty()) body["cwd"] = cwd;
    if (timeout_ms) body["timeoutMs"] = timeout_ms;
    if (interactive) body["interactive"] = true;
    if (tty) body["tty"] = true;
    return Call(t, "POST", *proc_run ? "/v1/processes/run" : "/v1/processes", DumpJson(body));
  }
  const std::string proc = "/v1/processes/" + process_id;
  if (*proc_list) return Call(t, "GET", "/v1/processes");
  if (*proc_get) return Call(t, "GET", proc);
  if (*proc_logs) {
    std::string q = "?stream=" + (log_stream.empty() ? std::string("combined") : log_stream);
    if (tail >= 0) q += "&tail=" + std::to_string(tail);
    if (follow) return Stream(t, proc + "/logs" + q + "&follow=true", "", true);
    return Call(t, "GET", proc + "/logs" + q);
  }
  if (*proc_input)
    return Call(t, "POST", proc + "/input", DumpJson(Json{{"data", input}, {"encoding", "utf8"}}));
  if (*proc_stop || *proc_kill)
    return Call(t, "POST", proc + (*proc_stop ? "/stop" : "/kill") +
                               (wait_ms >= 0 ? "?waitMs=" + std::to_string(wait_ms) : ""));
  if (*proc_delete) return Call(t, "DELETE", proc);
  if (*proc_resize)
    return Call(t, "POST", proc + "/terminal/resize", DumpJson(Json{{"cols", cols}, {"rows", rows}}));
  return 2;
}

}  // namespace sepp::app
