// Request routing, recording and the streaming write loop of the fake
// provider. Routes (by path; a trailing query is ignored):
//   POST /v1/messages           Anthropic Messages
//   POST /v1/chat/completions   OpenAI Chat Completions (also /chat/completions)
//   POST /v1/responses          OpenAI Responses (also /responses)
//   GET  /__requests            recorded requests as a JSON array
//   POST /__script              replace the script (body: {"responses": [...]}) and rewind
//   POST /__reset               forget recorded requests and rewind
// Every API request consumes the next script response, whatever the API;
// when the script is exhausted the answer is the text
// "(fake provider: script exhausted)" and the request is still recorded
// (response_index -1), so tests can assert on it.
#include "fake_provider.h"

#include <chrono>
#include <thread>

#include "fake_script.h"

namespace sepp::fake {
namespace {

std::string ApiFor(const std::string& path) {
  if (path == "/v1/messages") return "anthropic";
  if (path == "/v1/chat/completions" || path == "/chat/completions") return "openai_chat";
  if (path == "/v1/responses" || path == "/responses") return "openai_responses";
  return "unknown";
}

bool IsCredentialHeader(const std::string& lower) {
  return lower == "authorization" || lower == "x-api-key" || lower == "api-key" || lower == "proxy-authorization" ||
         lower == "x-goog-api-key";
}

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

void SendJson(net::ResponseWriter& w, int status, const Json& body) {
  w.Send(status, {{"Content-Type", "application/json"}}, DumpJson(body));
}

// Writes the rendered answer: whole, or piece by piece with delays, cutting
// the connection after cut_after_bytes body bytes.
void Write(const Rendered& r, const FakeTurn& turn, net::ResponseWriter& w) {
  bool cut = turn.cut_after_bytes >= 0;
  if (!r.stream && !cut) {
    std::string body;
    for (const auto& p : r.pieces) body += p;
    w.Send(r.status, r.headers, body);
    return;
  }
  w.Begin(r.status, r.headers, /*chunked=*/true);
  long budget = turn.cut_after_bytes;
  for (const auto& piece : r.pieces) {
    if (turn.chunk_delay_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(turn.chunk_delay_ms));
    if (w.client_gone()) return;
    if (cut && static_cast<long>(piece.size()) >= budget) {
      if (budget > 0) w.Write(std::string_view(piece).substr(0, static_cast<size_t>(budget)));
      w.Abort();
      return;
    }
    if (!w.Write(piece)) return;
    if (cut) budget -= static_cast<long>(piece.size());
  }
  w.End();
}

}  // namespace

Json RecordedRequest::ToJson() const {
  return {{"method", method}, {"path", path}, {"api", api}, {"headers", headers}, {"body", body},
          {"response_index", response_index}};
}

FakeProvider::FakeProvider(Json script) { SetScript(std::move(script)); }

FakeProvider::~FakeProvider() { Stop(); }

Status FakeProvider::Start(int port) {
  net::HttpServerOptions options;
  options.port = port;
  server_ = std::make_unique<net::HttpServer>(
      [this](const net::HttpServerRequest& req, net::ResponseWriter& w) { Handle(req, w); }, options);
  return server_->Start();
}

void FakeProvider::Stop() {
  if (server_) server_->Stop();
}

int FakeProvider::port() const { return server_ ? server_->port() : 0; }

std::string FakeProvider::base_url() const { return "http://127.0.0.1:" + std::to_string(port()); }

void FakeProvider::SetScript(Json script) {
  std::lock_guard<std::mutex> lock(mu_);
  responses_ = script.is_object() && script.contains("responses") && script["responses"].is_array()
                   ? script["responses"]
                   : Json::array();
  next_ = 0;
}

void FakeProvider::Reset() {
  std::lock_guard<std::mutex> lock(mu_);
  requests_.clear();
  next_ = 0;
}

std::vector<RecordedRequest> FakeProvider::requests() const {
  std::lock_guard<std::mutex> lock(mu_);
  return requests_;
}

Json FakeProvider::RequestsJson() const {
  Json out = Json::array();
  for (const auto& r : requests()) out.push_back(r.ToJson());
  return out;
}

int FakeProvider::responses_used() const {
  std::lock_guard<std::mutex> lock(mu_);
  return static_cast<int>(next_);
}

void FakeProvider::Handle(const net::HttpServerRequest& req, net::ResponseWriter& w) {
  std::string path = req.Path();
  if (path == "/__requests" && req.method == "GET") return SendJson(w, 200, RequestsJson());
  if (path == "/__reset" && req.method == "POST") {
    Reset();
    return SendJson(w, 200, {{"ok", true}});
  }
  if (path == "/__script" && req.method == "POST") {
    auto script = ParseJson(req.body);
    if (!script.ok() || !script->is_object() || !script->contains("responses")) {
      return SendJson(w, 400, {{"error", "body must be {\"responses\": [...]}"}});
    }
    SetScript(std::move(script.value()));
    return SendJson(w, 200, {{"ok", true}});
  }

  std::string api = ApiFor(path);
  if (api == "unknown" || req.method != "POST") {
    return SendJson(w, 404, {{"error", {{"message", "fake provider: no route for " + req.method + " " + path},
                                        {"type", "not_found_error"}}}});
  }

  RecordedRequest rec;
  rec.method = req.method;
  rec.path = path;
  rec.api = api;
  rec.headers = Json::object();
  for (const auto& [k, v] : req.headers) {
    std::string lower = Lower(k);
    rec.headers[lower] = IsCredentialHeader(lower) ? kRedacted : v;
  }
  auto body = ParseJson(req.body);
  rec.body = body.ok() ? *body : Json(req.body);

  Json response;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (next_ < responses_.size()) {
      rec.response_index = static_cast<int>(next_);
      response = responses_[next_++];
    }
    requests_.push_back(rec);
  }

  FakeTurn turn;
  if (rec.response_index < 0) {
    turn = ExhaustedTurn();
  } else {
    auto parsed = ParseTurn(response);
    if (!parsed.ok()) return SendJson(w, 500, {{"error", {{"message", parsed.error().message}}}});
    turn = std::move(parsed.value());
  }
  RenderContext ctx;
  ctx.body = rec.body;
  ctx.body_bytes = req.body.size();
  ctx.index = static_cast<int>(requests().size()) - 1;
  ctx.stream = rec.body.is_object() && rec.body.value("stream", false);
  ctx.model = rec.body.is_object() && rec.body.contains("model") && rec.body["model"].is_string()
                  ? rec.body["model"].get<std::string>()
                  : "fake-model";
  Rendered r = api == "anthropic"     ? RenderAnthropic(turn, ctx)
               : api == "openai_chat" ? RenderOpenAiChat(turn, ctx)
                                      : RenderOpenAiResponses(turn, ctx);
  Write(r, turn, w);
}

}  // namespace sepp::fake
