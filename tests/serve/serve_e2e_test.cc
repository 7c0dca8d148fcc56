// `sepp serve` end to end: the binary as a child process, the fake provider
// in process. Each guarantee is attacked (wrong token, foreign Host, foreign
// Origin, hostile queries, ids, envelopes and Last-Event-IDs, a deleted
// stretch of the event log) next to the legitimate request that must still
// work.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "../net/test_sockets.h"
#include "base/strings.h"
#include "net/ws_test_client.h"
#include "serve/serve_child.h"
#include "serve/tar_builder.h"
#include "sqlite/sqlite_db.h"
#include "support/fake_provider.h"

namespace sepp::servetest {
namespace {

namespace fs = std::filesystem;

constexpr const char* kToken = "test-token-0123456789abcdef";

class ServeE2e : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/sepp-serve-e2e-XXXXXX";
    root_ = mkdtemp(tmpl);
    fs::create_directories(root_ / "home");
    fs::create_directories(root_ / "project");
    fs::create_directories(root_ / "outside");
    ASSERT_TRUE(fake_.Start().ok());
  }
  void TearDown() override {
    server_.reset();
    fake_.Stop();
    fs::remove_all(root_);
  }
  std::map<std::string, std::string> Env() const {
    return {{"HOME", (root_ / "home").string()},
            {"SEPP_HOME", (root_ / "home").string()},
            {"ANTHROPIC_BASE_URL", fake_.base_url()},
            {"ANTHROPIC_API_KEY", "test-key-not-secret"}};
  }
  std::string cwd() const { return (root_ / "project").string(); }
  ServeChild& Start(std::vector<std::string> args = {"--token", kToken}) {
    server_ = std::make_unique<ServeChild>(cwd(), Env(), args);
    return *server_;
  }
  net::Headers Auth() const { return {{"Authorization", std::string("Bearer ") + kToken}}; }
  net::HttpResponse Get(const std::string& path, net::Headers h = {}) {
    return Fetch("GET", server_->url(path), h);
  }
  Json Post(const std::string& id, const Json& msg, bool agent = false) {
    auto r = PostAcp(*server_, id, msg, agent, kToken);
    EXPECT_EQ(r.head.status, 200) << r.body;
    auto j = ParseJson(r.body);
    return j.ok() ? *j : Json();
  }
  static Json Request(int id, const std::string& method, Json params) {
    return {{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", std::move(params)}};
  }
  // initialize + session/new on a fresh server id; the ACP session id.
  std::string Open(const std::string& id) {
    Json init = Post(id, Request(0, "initialize", {{"protocolVersion", 1}}), true);
    EXPECT_EQ(init["result"]["protocolVersion"], 1) << init.dump();
    Json s = Post(id, Request(1, "session/new", {{"cwd", cwd()}, {"mcpServers", Json::array()}}));
    EXPECT_TRUE(s["result"].contains("sessionId")) << s.dump();
    return s["result"].value("sessionId", "");
  }
  static Json Prompt(int id, const std::string& sid, const std::string& text) {
    return Request(id, "session/prompt",
                   {{"sessionId", sid}, {"prompt", {{{"type", "text"}, {"text", text}}}}});
  }
  std::string Raw(const std::string& head_lines, const std::string& body = "") {
    std::string req = head_lines;
    if (!body.empty()) req += "Content-Length: " + std::to_string(body.size()) + "\r\n";
    return RawRequest(server_->port(), req + "Connection: close\r\n\r\n" + body);
  }
  std::string HostLine() const { return "Host: 127.0.0.1:" + std::to_string(server_->port()) + "\r\n"; }

  fs::path root_;
  fake::FakeProvider fake_;
  std::unique_ptr<ServeChild> server_;
};

std::string ProblemType(const std::string& body) {
  auto j = ParseJson(body);
  return j.ok() && j->is_object() ? j->value("type", "") : "";
}

TEST_F(ServeE2e, TokenGuardsEveryApiRouteButHealthAndIsNeverLogged) {
  Start();
  auto health = Get("/v1/health");
  EXPECT_EQ(health.head.status, 200);
  EXPECT_EQ(health.body, R"({"status":"ok"})");
  for (const char* path : {"/v1/agents", "/v1/agents/sepp", "/v1/acp"}) {
    auto none = Get(path);
    EXPECT_EQ(none.head.status, 401) << path;
    EXPECT_EQ(none.head.Header("Content-Type"), "application/problem+json");
    EXPECT_EQ(ProblemType(none.body), "urn:sepp:error:token_invalid");
    EXPECT_EQ(Get(path, {{"Authorization", std::string("Bearer ") + kToken + "x"}}).head.status, 401);
    EXPECT_EQ(Get(path, {{"Authorization", std::string("Bearer ") + std::string(kToken).substr(1)}}).head.status, 401);
    EXPECT_EQ(Get(path, {{"Authorization", kToken}}).head.status, 401) << "no Bearer scheme";
    EXPECT_EQ(Get(path, {{"Authorization", std::string("Basic ") + kToken}}).head.status, 401);
    EXPECT_EQ(Get(path, Auth()).head.status, 200) << path;
  }
  auto post = PostAcp(*server_, "a1", Request(0, "initialize", {{"protocolVersion", 1}}), true, "wrong-token-xxxxxxxx");
  EXPECT_EQ(post.head.status, 401);
  EXPECT_EQ(Get("/v1/acp", Auth()).body, R"({"servers":[]})") << "the refused POST opened nothing";
  EXPECT_EQ(server_->Stop(), 0);
  EXPECT_EQ(server_->stderr_text().find(kToken), std::string::npos) << server_->stderr_text();
}

TEST_F(ServeE2e, AGeneratedTokenIsPrintedOnceAndRequired) {
  Start({});
  ASSERT_EQ(server_->token().size(), 48u) << server_->stdout_text();
  EXPECT_EQ(Get("/v1/agents").head.status, 401);
  auto ok = Get("/v1/agents", {{"Authorization", "Bearer " + server_->token()}});
  ASSERT_EQ(ok.head.status, 200);
  auto agents = ParseJson(ok.body);
  ASSERT_TRUE(agents.ok());
  EXPECT_EQ((*agents)["agents"][0]["id"], "sepp");
  EXPECT_EQ((*agents)["agents"][0]["installed"], true);
}

TEST_F(ServeE2e, NoTokenIsRefusedOffLoopback) {
  std::string err;
  EXPECT_EQ(RunServeToEnd({"--no-token", "--host", "0.0.0.0", "--port", "0"}, &err), 2);
  EXPECT_NE(err.find("loopback"), std::string::npos) << err;
}

TEST_F(ServeE2e, ForeignHostAndOriginAreRefused) {
  Start();
  std::string auth = std::string("Authorization: Bearer ") + kToken + "\r\n";
  // DNS rebinding: the page's name resolves here, the Host says so.
  std::string evil = Raw("GET /v1/acp HTTP/1.1\r\nHost: evil.example:" +
                         std::to_string(server_->port()) + "\r\n" + auth);
  EXPECT_EQ(StatusOf(evil), 403) << evil;
  EXPECT_NE(evil.find("urn:sepp:error:forbidden_host"), std::string::npos);
  EXPECT_EQ(StatusOf(Raw("GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1:1\r\n")), 403) << "another port";
  EXPECT_EQ(StatusOf(Raw("GET /v1/health HTTP/1.1\r\n")), 400) << "no Host at all";
  EXPECT_EQ(StatusOf(Raw("GET /v1/acp HTTP/1.1\r\n" + HostLine() + auth)), 200);
  EXPECT_EQ(StatusOf(Raw("GET /v1/acp HTTP/1.1\r\nHost: localhost:" +
                         std::to_string(server_->port()) + "\r\n" + auth)), 200);
  // CSRF: a foreign page's request carries its Origin, even with a token.
  std::string csrf = Raw("POST /v1/acp/x?agent=sepp HTTP/1.1\r\n" + HostLine() + auth +
                         "Origin: http://evil.example\r\nContent-Type: application/json\r\n",
                         R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{}})");
  EXPECT_EQ(StatusOf(csrf), 403) << csrf;
  EXPECT_NE(csrf.find("urn:sepp:error:forbidden_origin"), std::string::npos);
  EXPECT_EQ(csrf.find("Access-Control-Allow-Origin"), std::string::npos);
  EXPECT_EQ(StatusOf(Raw("GET /v1/acp HTTP/1.1\r\n" + HostLine() + auth + "Origin: null\r\n")), 403);
  // The server's own origin (its pages) is fine.
  EXPECT_EQ(StatusOf(Raw("GET /v1/acp HTTP/1.1\r\n" + HostLine() + auth + "Origin: http://127.0.0.1:" +
                         std::to_string(server_->port()) + "\r\n")), 200);
  // No CORS unless asked: a preflight is refused.
  EXPECT_EQ(StatusOf(Raw("OPTIONS /v1/acp HTTP/1.1\r\n" + HostLine() + "Origin: http://app.example\r\n")), 403);
  EXPECT_EQ(Get("/v1/acp", Auth()).body, R"({"servers":[]})");
}

TEST_F(ServeE2e, CorsOnlyForTheOriginsAsked) {
  Start({"--token", kToken, "--cors-allow-origin", "http://app.example"});
  std::string auth = std::string("Authorization: Bearer ") + kToken + "\r\n";
  std::string pre = Raw("OPTIONS /v1/acp HTTP/1.1\r\n" + HostLine() + "Origin: http://app.example\r\n"
                        "Access-Control-Request-Method: GET\r\n");
  EXPECT_EQ(StatusOf(pre), 204) << pre;
  EXPECT_NE(pre.find("Access-Control-Allow-Origin: http://app.example"), std::string::npos);
  std::string get = Raw("GET /v1/acp HTTP/1.1\r\n" + HostLine() + auth + "Origin: http://app.example\r\n");
  EXPECT_EQ(StatusOf(get), 200);
  EXPECT_NE(get.find("Access-Control-Allow-Origin: http://app.example"), std::string::npos);
  EXPECT_EQ(StatusOf(Raw("GET /v1/acp HTTP/1.1\r\n" + HostLine() + auth + "Origin: http://other.example\r\n")), 403);
  std::string noauth = Raw("GET /v1/acp HTTP/1.1\r\n" + HostLine() + "Origin: http://app.example\r\n");
  EXPECT_EQ(StatusOf(noauth), 401) << "CORS does not replace the token";
}

TEST_F(ServeE2e, HostileRoutesQueriesAndHeadersGetTypedProblems) {
  Start();
  net::Headers a = Auth();
  struct Case {
    std::string method, path;
    net::Headers extra;
    std::string body;
    int status;
    const char* type;
  };
  net::Headers json = {{"Content-Type", "application/json"}};
  net::Headers sse = {{"Accept", "text/event-stream"}};
  std::string init = R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{}})";
  std::vector<Case> cases = {
      {"GET", "/v1/nothing", {}, "", 404, "not_found"},
      {"GET", "/etc/passwd", {}, "", 404, "not_found"},
      {"DELETE", "/v1/health", {}, "", 405, "method_not_allowed"},
      {"PUT", "/v1/acp/x", json, init, 405, "method_not_allowed"},
      {"GET", "/v1/agents?config=maybe", {}, "", 400, "invalid_request"},
      {"GET", "/v1/agents?config=%zz", {}, "", 400, "invalid_request"},
      {"GET", "/v1/agents?config=1&config=0", {}, "", 400, "invalid_request"},
      {"GET", "/v1/agents?x=%0a", {}, "", 400, "invalid_request"},
      {"GET", "/v1/agents/nobody", {}, "", 404, "unsupported_agent"},
      {"POST", "/v1/acp/a%2f..?agent=sepp", json, init, 400, "invalid_request"},
      {"POST", "/v1/acp/" + std::string(200, 'a') + "?agent=sepp", json, init, 400, "invalid_request"},
      {"POST", "/v1/acp/x?agent=sepp", {{"Content-Type", "text/plain"}}, init, 415, "unsupported_media_type"},
      {"POST", "/v1/acp/x?agent=nobody", json, init, 400, "unsupported_agent"},
      {"POST", "/v1/acp/x", json, init, 400, "invalid_request"},
      {"POST", "/v1/acp/x?agent=sepp", json, "not json", 400, "invalid_envelope"},
      {"POST", "/v1/acp/x?agent=sepp", json, R"({"foo":1})", 400, "invalid_envelope"},
      {"POST", "/v1/acp/x?agent=sepp", json, R"([{"jsonrpc":"2.0","id":1,"method":"a"}])", 400, "invalid_envelope"},
      {"POST", "/v1/acp/x?agent=sepp", json, R"({"jsonrpc":"1.0","id":1,"method":"a"})", 400, "invalid_envelope"},
      {"POST", "/v1/acp/x?agent=sepp", json, R"({"jsonrpc":"2.0","id":{},"method":"a"})", 400, "invalid_envelope"},
      {"POST", "/v1/acp/x?agent=sepp", json, R"({"jsonrpc":"2.0","id":1})", 400, "invalid_envelope"},
      {"GET", "/v1/acp/never", sse, "", 404, "session_not_found"},
      {"GET", "/v1/acp/never", {{"Accept", "application/json"}}, "", 406, "not_acceptable"},
  };
  for (const auto& c : cases) {
    net::Headers h = a;
    h.insert(h.end(), c.extra.begin(), c.extra.end());
    auto r = Fetch(c.method, server_->url(c.path), h, c.body);
    EXPECT_EQ(r.head.status, c.status) << c.method << " " << c.path << " " << c.body << ": " << r.body;
    EXPECT_EQ(ProblemType(r.body), std::string("urn:sepp:error:") + c.type) << c.path << " " << r.body;
    auto j = ParseJson(r.body);
    EXPECT_TRUE(j.ok() && !(*j)["detail"].get<std::string>().empty()) << r.body;
  }
  // None of the refused POSTs started an agent.
  EXPECT_EQ(Get("/v1/acp", a).body, R"({"servers":[]})");
  // Last-Event-ID: only a decimal the stream has reached.
  Open("s1");
  for (const char* bad : {"abc", "-1", "1e3", "99999999999999999999", " 1 2", "0x10"}) {
    net::Headers h = a;
    h.emplace_back("Last-Event-ID", bad);
    auto r = ReadSse(server_->url("/v1/acp/s1"), h, [](const SseRead&) { return true; });
    EXPECT_EQ(r.status, 400) << bad;
    EXPECT_EQ(ProblemType(r.body), "urn:sepp:error:invalid_request") << bad << r.body;
  }
  net::Headers ahead = a;
  ahead.emplace_back("Last-Event-ID", "1000");
  auto r = ReadSse(server_->url("/v1/acp/s1"), ahead, [](const SseRead&) { return true; });
  EXPECT_EQ(r.status, 400);
  EXPECT_NE(r.body.find("ahead"), std::string::npos) << r.body;
}

TEST_F(ServeE2e, AcpPromptRoundTripWithEventsReplayedInOrder) {
  Start();
  fake_.SetScript({{"responses", {{{"text", "Hello from the fake."}}}}});
  std::string sid = Open("c1");
  ASSERT_FALSE(sid.empty());
  Json answer = Post("c1", Prompt(2, sid, "hi"));
  EXPECT_EQ(answer["result"]["stopReason"], "end_turn") << answer.dump();
  // A notification gets 202 and no body.
  auto cancel = PostAcp(*server_, "c1", {{"jsonrpc", "2.0"}, {"method", "session/cancel"}, {"params", {{"sessionId", sid}}}}, false, kToken);
  EXPECT_EQ(cancel.head.status, 202);
  EXPECT_TRUE(cancel.body.empty());

  net::Headers h = Auth();
  h.emplace_back("Last-Event-ID", "0");
  std::string text;
  auto all = ReadSse(server_->url("/v1/acp/c1"), h, [&](const SseRead& r) {
    return !r.events.empty() && r.events.back().data.find("\"stopReason\"") != std::string::npos;
  });
  ASSERT_EQ(all.status, 200);
  ASSERT_GE(all.events.size(), 4u);
  for (size_t i = 0; i < all.events.size(); ++i) {
    EXPECT_EQ(all.events[i].event, "message");
    EXPECT_EQ(all.events[i].id, std::to_string(i + 1));
    auto j = ParseJson(all.events[i].data);
    ASSERT_TRUE(j.ok()) << all.events[i].data;
    EXPECT_EQ((*j)["jsonrpc"], "2.0");
    if ((*j).value("method", "") == "session/update" &&
        (*j)["params"]["update"]["sessionUpdate"] == "agent_message_chunk")
      text += (*j)["params"]["update"]["content"]["text"].get<std::string>();
  }
  EXPECT_EQ(text, "Hello from the fake.");
  // The responses went out on the stream too: the same bytes as the bodies.
  EXPECT_NE(all.events[0].data.find("\"protocolVersion\""), std::string::npos);
  EXPECT_EQ(ParseJson(all.events.back().data)->at("result"), answer["result"]);
  // Resuming from the middle gives exactly the rest.
  h.back().second = "2";
  size_t total = all.events.size();
  auto rest = ReadSse(server_->url("/v1/acp/c1"), h, [&](const SseRead& r) { return r.events.size() >= total - 2; });
  ASSERT_EQ(rest.events.size(), total - 2);
  EXPECT_EQ(rest.events.front().id, "3");
  EXPECT_EQ(rest.events.front().data, all.events[2].data);
  auto listed = ParseJson(Get("/v1/acp", Auth()).body);
  ASSERT_EQ((*listed)["servers"].size(), 1u);
  EXPECT_EQ((*listed)["servers"][0]["serverId"], "c1");
  EXPECT_EQ((*listed)["servers"][0]["agent"], "sepp");
}

TEST_F(ServeE2e, SessionsStayInsideTheWorkspaces) {
  Start();
  Json init = Post("w1", Request(0, "initialize", {{"protocolVersion", 1}}), true);
  ASSERT_TRUE(init.contains("result"));
  for (std::string outside : {(root_ / "outside").string(), std::string("/"),
                              (root_ / "project" / ".." / "outside").string()}) {
    Json s = Post("w1", Request(1, "session/new", {{"cwd", outside}, {"mcpServers", Json::array()}}));
    ASSERT_TRUE(s.contains("error")) << outside << " " << s.dump();
    EXPECT_EQ(s["error"]["code"], -32602);
    EXPECT_NE(s["error"]["message"].get<std::string>().find("outside the workspaces"), std::string::npos);
  }
  // Listing sessions is bound to the workspaces too.
  for (Json params : {Json::object(), Json{{"cwd", (root_ / "outside").string()}}}) {
    Json l = Post("w1", Request(5, "session/list", params));
    EXPECT_EQ(l["error"]["code"], -32602) << params.dump() << " " << l.dump();
  }
  EXPECT_TRUE(Post("w1", Request(6, "session/list", {{"cwd", cwd()}})).contains("result"));
  fs::create_directories(root_ / "project" / "sub");
  Json inside = Post("w1", Request(2, "session/new", {{"cwd", (root_ / "project" / "sub").string()}, {"mcpServers", Json::array()}}));
  EXPECT_TRUE(inside["result"].contains("sessionId")) << inside.dump();
}

TEST_F(ServeE2e, ARequestThatOutlivesItsTimeoutGets504AndItsAnswerStillStreams) {
  Start({"--token", kToken, "--request-timeout", "0.3"});
  std::string sid = Open("t1");
  fake_.SetScript({{"responses", {{{"text", "slow answer"}, {"chunk_delay_ms", 400}}}}});
  auto r = PostAcp(*server_, "t1", Prompt(2, sid, "take your time"), false, kToken);
  EXPECT_EQ(r.head.status, 504) << r.body;
  EXPECT_EQ(ProblemType(r.body), "urn:sepp:error:timeout");
  EXPECT_NE(r.body.find("GET /v1/acp/t1"), std::string::npos) << r.body;
  net::Headers h = Auth();
  h.emplace_back("Last-Event-ID", "0");
  auto sse = ReadSse(server_->url("/v1/acp/t1"), h, [](const SseRead& s) {
    for (const auto& e : s.events)
      if (e.data.find("\"id\":2") != std::string::npos && e.data.find("stopReason") != std::string::npos) return true;
    return false;
  });
  EXPECT_EQ(sse.status, 200);
  // The server is still fine for the next request.
  EXPECT_EQ(Get("/v1/health").head.status, 200);
}

TEST_F(ServeE2e, DeleteReturnsAtOnceDuringATurnAndEndsItsStream) {
  Start();
  std::string sid = Open("d1");
  // A turn that would take minutes: 100 pieces 1 s apart.
  std::string long_text;
  for (int i = 0; i < 100; ++i) long_text += "word ";
  fake_.SetScript({{"responses", {{{"text", long_text}, {"chunk_delay_ms", 1000}}}}});
  net::HttpResponse prompt_answer;
  std::thread prompt([&] { prompt_answer = PostAcp(*server_, "d1", Prompt(2, sid, "go on"), false, kToken); });
  // The turn is running once the provider was asked.
  for (int i = 0; i < 6000 && fake_.requests().size() < 1; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  ASSERT_GE(fake_.requests().size(), 1u);
  std::atomic<bool> streaming{false};
  std::thread stream([&] {
    auto s = ReadSse(server_->url("/v1/acp/d1"), Auth(), [&](const SseRead& r) {
      if (!r.events.empty()) streaming = true;
      return false;  // read on: the server must end the stream
    });
    EXPECT_EQ(s.status, 200);
  });
  for (int i = 0; i < 6000 && !streaming; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  ASSERT_TRUE(streaming);
  auto del = Fetch("DELETE", server_->url("/v1/acp/d1"), Auth());
  EXPECT_EQ(del.head.status, 204);
  prompt.join();  // answered, not left dangling
  EXPECT_EQ(prompt_answer.head.status, 200) << prompt_answer.body;
  stream.join();
  EXPECT_EQ(Get("/v1/acp", Auth()).body, R"({"servers":[]})");
  // The closed stream is still readable to its end, and then ends.
  net::Headers h = Auth();
  h.emplace_back("Last-Event-ID", "0");
  auto replay = ReadSse(server_->url("/v1/acp/d1"), h, [](const SseRead&) { return false; });
  EXPECT_EQ(replay.status, 200);
  EXPECT_GE(replay.events.size(), 2u);
  EXPECT_EQ(Fetch("DELETE", server_->url("/v1/acp/d1"), Auth()).head.status, 204) << "idempotent";
  EXPECT_EQ(Fetch("DELETE", server_->url("/v1/acp/never-was"), Auth()).head.status, 204);
  EXPECT_EQ(server_->Stop(), 0);
}

TEST_F(ServeE2e, HeartbeatsKeepAQuietStreamAlive) {
  Start({"--token", kToken, "--heartbeat", "0.05"});
  Open("h1");
  auto s = ReadSse(server_->url("/v1/acp/h1"), Auth(), [](const SseRead& r) { return r.comments >= 2; });
  EXPECT_EQ(s.status, 200);
  EXPECT_GE(s.comments, 2);
}

TEST_F(ServeE2e, ReplayWorksAfterARestartAndAGapIsReportedNotSkipped) {
  Start();
  fake_.SetScript({{"responses", {{{"text", "before the restart"}}}}});
  std::string sid = Open("r1");
  Post("r1", Prompt(2, sid, "hi"));
  net::Headers h = Auth();
  h.emplace_back("Last-Event-ID", "0");
  auto done = [](const SseRead& r) {
    return !r.events.empty() && r.events.back().data.find("stopReason") != std::string::npos;
  };
  auto before = ReadSse(server_->url("/v1/acp/r1"), h, done);
  ASSERT_GE(before.events.size(), 4u);
  ASSERT_EQ(server_->Stop(), 0);

  // A new process: nothing in memory, all from the log.
  Start();
  auto after = ReadSse(server_->url("/v1/acp/r1"), h, [&](const SseRead& r) { return r.events.size() >= before.events.size(); });
  ASSERT_EQ(after.status, 200);
  ASSERT_EQ(after.events.size(), before.events.size());
  for (size_t i = 0; i < before.events.size(); ++i) {
    EXPECT_EQ(after.events[i].id, before.events[i].id);
    EXPECT_EQ(after.events[i].data, before.events[i].data);
  }
  // The same id comes back to life and numbers on.
  Json init = Post("r1", Request(10, "initialize", {{"protocolVersion", 1}}), true);
  EXPECT_TRUE(init.contains("result"));
  h.back().second = std::to_string(before.events.size());
  auto next = ReadSse(server_->url("/v1/acp/r1"), h, [](const SseRead& r) { return !r.events.empty(); });
  ASSERT_EQ(next.events.size(), 1u);
  EXPECT_EQ(next.events[0].id, std::to_string(before.events.size() + 1));
  EXPECT_NE(next.events[0].data.find("\"id\":10"), std::string::npos);
  ASSERT_EQ(server_->Stop(), 0);

  // Lose events 2..3 from the store: a replay through them is refused
  // (410, saying from where it can resume), one after them still works.
  {
    auto db = sqlite::SqliteDb::Open(root_ / "home" / "sessions" / "sessions.db");
    ASSERT_TRUE(db.ok());
    ASSERT_TRUE((*db)->Exec("DELETE FROM stream_events WHERE stream = 'r1' AND seq IN (2, 3)").ok());
  }
  Start();
  h.back().second = "1";
  auto gap = ReadSse(server_->url("/v1/acp/r1"), h, [](const SseRead&) { return true; });
  EXPECT_EQ(gap.status, 410) << gap.body;
  EXPECT_EQ(ProblemType(gap.body), "urn:sepp:error:replay_unavailable");
  h.back().second = "3";
  auto fine = ReadSse(server_->url("/v1/acp/r1"), h, [](const SseRead& r) { return !r.events.empty(); });
  EXPECT_EQ(fine.status, 200);
  ASSERT_FALSE(fine.events.empty());
  EXPECT_EQ(fine.events[0].id, "4");
}

TEST_F(ServeE2e, HundredSubscribersEachGetEveryEventOnceInOrderAndAStalledOneSlowsNobody) {
  Start();
  std::string sid = Open("m1");
  // A stalled client: asks for the stream and never reads it.
  std::string stall_req = "GET /v1/acp/m1 HTTP/1.1\r\n" + HostLine() + "Authorization: Bearer " + kToken +
                          "\r\nAccept: text/event-stream\r\nLast-Event-ID: 0\r\n\r\n";
  // (Its receive buffer is kept small, so the server's writes to it block
  // early and it falls behind.)
  int stalled = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  int small = 4096;
  setsockopt(stalled, SOL_SOCKET, SO_RCVBUF, &small, sizeof small);
  sockaddr_in addr = {};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(static_cast<uint16_t>(server_->port()));
  ASSERT_EQ(connect(stalled, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  net::testing::SendRaw(stalled, stall_req);

  constexpr int kSubscribers = 100;
  std::vector<SseRead> got(kSubscribers);
  std::vector<std::thread> readers;
  std::atomic<int> connected{0};
  for (int i = 0; i < kSubscribers; ++i)
    readers.emplace_back([&, i] {
      net::Headers h = Auth();
      h.emplace_back("Last-Event-ID", "2");  // after initialize and session/new
      got[i] = ReadSse(server_->url("/v1/acp/m1"), h, [&](const SseRead& r) {
        return !r.events.empty() && r.events.back().data.find("stopReason") != std::string::npos;
      });
    });
  // Long enough to overflow the stalled client's buffers several times.
  std::string big;
  for (int i = 0; i < 3000; ++i) big += "chunk-" + std::to_string(i) + " ";
  fake_.SetScript({{"responses", {{{"text", big}}}}});
  Json answer = Post("m1", Prompt(2, sid, "talk"));
  EXPECT_EQ(answer["result"]["stopReason"], "end_turn") << "the stalled subscriber did not stop the turn";
  for (auto& t : readers) t.join();
  for (int i = 0; i < kSubscribers; ++i) {
    ASSERT_EQ(got[i].status, 200) << i;
    ASSERT_FALSE(got[i].events.empty()) << i;
    for (size_t k = 0; k < got[i].events.size(); ++k)
      ASSERT_EQ(got[i].events[k].id, std::to_string(k + 3)) << "subscriber " << i;
    EXPECT_EQ(got[i].events.size(), got[0].events.size()) << i;
  }
  close(stalled);
}

TEST_F(ServeE2e, TheApiCommandMirrorsTheEndpoints) {
  Start();
  fake_.SetScript({{"responses", {{{"text", "via the cli"}}}}});
  std::map<std::string, std::string> env = {{"SEPP_SERVE_URL", server_->url("")},
                                            {"SEPP_SERVE_TOKEN", kToken}};
  std::string out, err;
  auto api = [&](std::vector<std::string> args) {
    args.insert(args.begin(), "api");
    return RunSepp(args, env, &out, &err);
  };
  ASSERT_EQ(api({"health"}), 0) << err;
  EXPECT_EQ(out, "{\"status\":\"ok\"}\n");
  ASSERT_EQ(api({"agents", "list"}), 0) << err;
  EXPECT_EQ((*ParseJson(out))["agents"][0]["id"], "sepp");
  ASSERT_EQ(api({"agents", "get", "sepp"}), 0) << err;
  EXPECT_EQ(api({"agents", "get", "nobody"}), 1);
  EXPECT_NE(err.find("urn:sepp:error:unsupported_agent"), std::string::npos) << err;
  ASSERT_EQ(api({"acp", "post", "--server-id", "cli", "--agent", "sepp", "--json",
                 R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}})"}), 0) << err;
  EXPECT_EQ((*ParseJson(out))["result"]["protocolVersion"], 1);
  fs::path msg = root_ / "new.json";
  {
    std::ofstream f(msg);
    f << Request(1, "session/new", {{"cwd", cwd()}, {"mcpServers", Json::array()}}).dump(2);
  }
  ASSERT_EQ(api({"acp", "post", "--server-id", "cli", "--json-file", msg.string()}), 0) << err;
  std::string sid = (*ParseJson(out))["result"]["sessionId"];
  ASSERT_EQ(api({"acp", "post", "--server-id", "cli", "--json", Prompt(2, sid, "hi").dump()}), 0) << err;
  EXPECT_EQ((*ParseJson(out))["result"]["stopReason"], "end_turn");
  ASSERT_EQ(api({"acp", "list"}), 0) << err;
  EXPECT_EQ((*ParseJson(out))["servers"][0]["serverId"], "cli");
  ASSERT_EQ(api({"acp", "close", "--server-id", "cli"}), 0) << err;
  // A closed stream replays to its end, then ends: one JSON line per event.
  ASSERT_EQ(api({"acp", "stream", "--server-id", "cli", "--last-event-id", "0"}), 0) << err;
  auto lines = SplitLines(out);
  ASSERT_GE(lines.size(), 3u);
  for (size_t i = 0; i < lines.size(); ++i) {
    auto j = ParseJson(lines[i]);
    ASSERT_TRUE(j.ok()) << lines[i];
    EXPECT_EQ((*j)["id"], std::to_string(i + 1));
    EXPECT_EQ((*j)["message"]["jsonrpc"], "2.0");
  }
  // A wrong token: the problem on stderr, exit 1, no token echoed.
  env["SEPP_SERVE_TOKEN"] = "wrong-token-123456";
  EXPECT_EQ(api({"acp", "list"}), 1);
  EXPECT_NE(err.find("token_invalid"), std::string::npos) << err;
  EXPECT_EQ(err.find("wrong-token-123456"), std::string::npos);
  EXPECT_EQ(api({"acp", "post", "--server-id", "cli"}), 2) << "no message given";
}

// --record writes the provider exchanges of the server's sessions to a
// cassette; --replay answers from it with no provider at all (no key, no
// URL in the environment): the same prompt gets the recorded answer and
// the fake is not called again.
TEST_F(ServeE2e, RecordsACassetteAndAnswersFromIt) {
  fake_.SetScript({{"responses", {{{"text", "the recorded answer"}}}}});
  const std::string cassette = (root_ / "serve.cassette").string();
  Start({"--token", kToken, "--record", cassette});
  std::string sid = Open("rec");
  EXPECT_EQ(Post("rec", Prompt(2, sid, "hello"))["result"]["stopReason"], "end_turn");
  EXPECT_EQ(server_->Stop(30), 0);
  ASSERT_EQ(fake_.requests().size(), 1u);

  std::map<std::string, std::string> env = {{"HOME", (root_ / "home2").string()},
                                            {"SEPP_HOME", (root_ / "home2").string()}};
  fs::create_directories(root_ / "home2");
  server_ = std::make_unique<ServeChild>(cwd(), env, std::vector<std::string>{"--token", kToken, "--replay", cassette});
  sid = Open("play");
  EXPECT_EQ(Post("play", Prompt(2, sid, "hello"))["result"]["stopReason"], "end_turn");
  net::Headers h = Auth();
  h.emplace_back("Last-Event-ID", "0");
  auto all = ReadSse(server_->url("/v1/acp/play"), h, [&](const SseRead& r) {
    return !r.events.empty() && r.events.back().data.find("\"stopReason\"") != std::string::npos;
  });
  std::string text;
  for (const auto& e : all.events) {
    auto j = ParseJson(e.data);
    if (j.ok() && j->value("method", "") == "session/update" &&
        (*j)["params"]["update"]["sessionUpdate"] == "agent_message_chunk")
      text += (*j)["params"]["update"]["content"]["text"].get<std::string>();
  }
  EXPECT_EQ(text, "the recorded answer");
  EXPECT_EQ(fake_.requests().size(), 1u) << "the replay called no provider";
  // A conversation the cassette does not hold fails the turn; it is sent nowhere.
  Post("play", Prompt(3, sid, "something else"));
  EXPECT_EQ(fake_.requests().size(), 1u);
}

TEST_F(ServeE2e, TheOpenApiDocumentMatchesTheRoutes) {
  Start();
  auto doc_resp = Get("/v1/openapi.json");  // no token: it only describes
  ASSERT_EQ(doc_resp.head.status, 200);
  auto doc = ParseJson(doc_resp.body);
  ASSERT_TRUE(doc.ok()) << doc.error().message;
  EXPECT_EQ((*doc)["openapi"], "3.1.0");
  ASSERT_EQ((*doc)["paths"].size(), 38u);  // 35, + the terminal resize (h13r), the session abort (h14s), the terminal socket (h13e)
  // What the fs and config routes act on.
  fs::path p = root_ / "project";
  fs::create_directories(p / ".sepp/skills/oa");
  fs::create_directories(p / "skill-src/oa");
  for (const auto& d : {p / ".sepp/skills/oa", p / "skill-src/oa"})
    std::ofstream(d / "SKILL.md") << "---\nname: oa\ndescription: a test skill\n---\nDo it.\n";
  std::ofstream(p / ".sepp/mcp.toml") << "[[mcp.servers]]\nname = \"oa\"\ncommand = [\"echo\"]\n";
  for (const char* f : {"oa-del", "oa-file", "oa-mv"}) std::ofstream(p / f) << "x";
  const std::string config_query = "?directory=" + p.string();
  const std::map<std::string, std::string> queries = {
      {"/v1/fs/entries", "?path=."}, {"/v1/fs/entry", "?path=oa-del"}, {"/v1/fs/file", "?path=oa-file"},
      {"/v1/fs/mkdir", "?path=oa-dir"}, {"/v1/fs/stat", "?path=oa-file"}, {"/v1/fs/upload-batch", "?path=oa-up"},
      {"/v1/config/mcp", config_query + "&mcpName=oa"}, {"/v1/config/skills", config_query + "&skillName=oa"}};
  // Every message the session API gets is answered by the fake.
  fake_.SetScript({{"responses", {{{"text", "one"}}, {{"text", "two"}}, {{"text", "three"}}}}});
  // POST first: it opens the ACP connection (the session) the GET then
  // streams; paths come sorted, so the session is created before it is used.
  // An interactive process for the routes of one process (input, kill,
  // logs, stop); the POST /v1/processes of the loop makes the one
  // /v1/processes/{process_id} reads and deletes.
  {
    auto started = Fetch("POST", server_->url("/v1/processes"),
                         {{"Authorization", std::string("Bearer ") + kToken}, {"Content-Type", "application/json"}},
                         R"({"command":"cat","interactive":true})");
    ASSERT_EQ(started.head.status, 200) << started.body;
    ASSERT_EQ(ParseJson(started.body)->value("id", ""), "proc_1");
    auto terminal = Fetch("POST", server_->url("/v1/processes"),
                          {{"Authorization", std::string("Bearer ") + kToken}, {"Content-Type", "application/json"}},
                          R"({"command":"cat","tty":true})");
    ASSERT_EQ(terminal.head.status, 200) << terminal.body;
    ASSERT_EQ(ParseJson(terminal.body)->value("id", ""), "proc_2");  // the terminal routes'
  }
  const std::vector<std::string> methods = {"post", "get", "put", "delete"};
  for (const auto& [templ, item] : (*doc)["paths"].items()) {
    std::string path = ReplaceAll(ReplaceAll(templ, "{agent}", "sepp"), "{server_id}", "oa1");
    path = ReplaceAll(ReplaceAll(path, "{session_id}", "oa2"), "{permission_id}", "perm-1");
    path = ReplaceAll(path, "{question_id}", "q-1");
    path = ReplaceAll(path, "{process_id}",
                      templ == "/v1/processes/{process_id}"               ? "proc_3"
                      : templ.find("/terminal/") != std::string::npos ? "proc_2"
                                                                        : "proc_1");
    for (const auto& method : methods) {
      std::string upper = method;
      for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      net::Headers h = Auth();
      std::string body, url = server_->url(path);
      if (method == "post") h.emplace_back("Content-Type", "application/json");
      if (path == "/v1/acp/oa1" && method == "post") {
        body = Request(0, "initialize", {{"protocolVersion", 1}}).dump();
        url += "?agent=sepp";
      }
      if (path == "/v1/sessions/oa2" && method == "post") body = R"({"agent":"sepp"})";
      if (path.find("/messages") != std::string::npos && method == "post") body = R"({"message":"hi"})";
      if (path.find("/reply") != std::string::npos && method == "post") body = R"({"reply":"once"})";
      if (path.find("/questions/") != std::string::npos && method == "post") body = R"({"answers":[["x"]]})";
      if (auto q = queries.find(path); q != queries.end()) url += q->second;
      if (path == "/v1/processes" && method == "post") body = R"({"command":"sleep","args":["100"]})";
      if (path == "/v1/processes/run") body = R"({"command":"true"})";
      if (path == "/v1/processes/config" && method == "post") body = R"({"maxOutputBytes":4096})";
      if (path == "/v1/processes/proc_1/input") body = R"({"data":"hi\n","encoding":"utf8"})";
      if (path == "/v1/processes/proc_2/terminal/resize") body = R"({"cols":100,"rows":30})";
      if (path == "/v1/fs/move") body = R"({"from":"oa-mv","to":"oa-mv2"})";
      if (path == "/v1/fs/upload-batch") body = TarEntryBytes("up.txt", '0', "u") + TarEnd();
      if (path == "/v1/config/mcp" && method == "put") body = R"({"type":"local","command":"echo","args":["hi"]})";
      if (path == "/v1/config/skills" && method == "put")
        body = R"({"sources":[{"type":"local","source":"skill-src/oa"}]})";
      int status;
      std::string answer;
      if (path == "/v1/processes/proc_2/terminal/ws" && method == "get") {
        net::testing::WsTestClient ws(server_->port(), path, std::string("Authorization: Bearer ") + kToken + "\r\n");
        status = ws.status() == 101 ? 200 : ws.status();  // the upgrade is its success
        answer = ws.head();
      } else if ((path == "/v1/acp/oa1" || path == "/v1/sessions/oa2/events/sse") && method == "get") {
        auto r = ReadSse(url, h, [](const SseRead&) { return true; });
        status = r.status;
        answer = r.body;
      } else {
        auto r = Fetch(upper, url, h, body);
        status = r.head.status;
        answer = r.body;
      }
      if (item.contains(method) &&
          (path.find("/permissions/") != std::string::npos || path.find("/questions/") != std::string::npos)) {
        // Routed, but there is no pending request to answer.
        EXPECT_EQ(ProblemType(answer), "urn:sepp:error:not_found") << templ << " " << answer;
      } else if (item.contains(method)) {
        EXPECT_TRUE(status >= 200 && status < 300) << upper << " " << templ << " is documented: " << status << " " << answer;
      } else {
        EXPECT_EQ(status, 405) << upper << " " << templ << " is not documented: " << answer;
      }
    }
  }
}

}  // namespace
}  // namespace sepp::servetest
