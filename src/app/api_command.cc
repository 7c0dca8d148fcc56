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
//
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

int Stream(const Target& t, const std::string& path, const std::string& last_event_id) {
  net::HttpRequest r = MakeRequest(t, "GET", path);
  r.headers.emplace_back("Accept", "text/event-stream");
  if (!last_event_id.empty()) r.headers.emplace_back("Last-Event-ID", last_event_id);
  r.read_timeout_s = 3600;  // heartbeats come every 15 s
  int status = 0;
  std::string error_body;
  net::SseParser parser([](const net::SseEvent& e) {
    auto j = ParseJson(e.data);
    Json line = {{"id", e.id}, {"message", j.ok() ? *j : Json(e.data)}};
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
  return 2;
}

}  // namespace sepp::app
