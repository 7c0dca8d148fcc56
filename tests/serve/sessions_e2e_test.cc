// sepp's own session API (/v1/sessions/…) end to end: the `sepp serve`
// binary as a child, the fake provider in process. A session is created,
// prompted, read back in the universal schema (paged, SSE from any offset,
// by 100 subscribers at once), a permission is answered through the API,
// the session shows in `sepp sessions list`; hostile ids, bodies and
// queries get typed problems while the legitimate calls next to them work.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include "base/strings.h"
#include "serve/serve_child.h"
#include "support/fake_provider.h"

namespace sepp::servetest {
namespace {

namespace fs = std::filesystem;

constexpr const char* kToken = "sessions-token-0123456789abcdef";

class ServeSessions : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/sepp-serve-sessions-XXXXXX";
    root_ = mkdtemp(tmpl);
    fs::create_directories(root_ / "home");
    fs::create_directories(root_ / "project" / "sub");
    fs::create_directories(root_ / "outside");
    ASSERT_TRUE(fake_.Start().ok());
    server_ = std::make_unique<ServeChild>(cwd(), Env(), std::vector<std::string>{"--token", kToken});
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
  net::Headers Auth(bool json = false) const {
    net::Headers h = {{"Authorization", std::string("Bearer ") + kToken}};
    if (json) h.emplace_back("Content-Type", "application/json");
    return h;
  }
  net::HttpResponse Post(const std::string& path, const std::string& body) {
    return Fetch("POST", server_->url(path), Auth(true), body);
  }
  net::HttpResponse Get(const std::string& path) { return Fetch("GET", server_->url(path), Auth()); }
  void Create(const std::string& id) {
    auto r = Post("/v1/sessions/" + id, Json{{"agent", "sepp"}, {"directory", cwd()}}.dump());
    ASSERT_EQ(r.head.status, 200) << r.body;
    auto j = ParseJson(r.body);
    ASSERT_TRUE(j.ok());
    EXPECT_EQ((*j)["healthy"], true);
    native_ = (*j).value("nativeSessionId", "");
    EXPECT_FALSE(native_.empty());
  }
  // Reads /events/sse?offset= until an event of type `until` arrives.
  SseRead ReadUntil(const std::string& id, int64_t offset, const std::string& until) {
    return ReadSse(server_->url("/v1/sessions/" + id + "/events/sse?offset=" + std::to_string(offset)),
                   Auth(), [&](const SseRead& r) {
                     return !r.events.empty() &&
                            ParseJson(r.events.back().data)->value("type", "") == until;
                   });
  }
  static std::vector<Json> Parsed(const SseRead& r) {
    std::vector<Json> v;
    for (const auto& e : r.events) v.push_back(*ParseJson(e.data));
    return v;
  }

  fs::path root_;
  fake::FakeProvider fake_;
  std::unique_ptr<ServeChild> server_;
  std::string native_;
};

std::string ProblemType(const std::string& body) {
  auto j = ParseJson(body);
  return j.ok() && j->is_object() ? j->value("type", "") : "";
}

TEST_F(ServeSessions, APromptStreamsInTheUniversalSchemaAndReplaysFromAnyOffset) {
  fake_.SetScript({{"responses", {{{"text", "Hello from the fake."}}}}});
  Create("s1");
  auto again = Post("/v1/sessions/s1", Json{{"agent", "sepp"}}.dump());
  EXPECT_EQ(again.head.status, 409);
  EXPECT_EQ(ProblemType(again.body), "urn:sepp:error:session_exists");

  auto sent = Post("/v1/sessions/s1/messages", Json{{"message", "hi"}}.dump());
  ASSERT_EQ(sent.head.status, 204) << sent.body;
  auto all = ReadUntil("s1", 0, "sepp.agent.settled");
  ASSERT_EQ(all.status, 200) << all.body;
  auto events = Parsed(all);
  ASSERT_GE(events.size(), 6u);
  std::string text;
  std::vector<std::string> types;
  for (size_t i = 0; i < events.size(); ++i) {
    EXPECT_EQ(events[i]["sequence"], i + 1);
    EXPECT_EQ(events[i]["session_id"], "s1");
    types.push_back(events[i]["type"]);
    if (events[i]["type"] == "item.delta") text += events[i]["data"]["delta"].get<std::string>();
  }
  EXPECT_EQ(types.front(), "session.started");
  EXPECT_EQ(events.front()["data"]["metadata"]["session_id"], native_);
  for (const char* t : {"turn.started", "item.started", "item.delta", "item.completed", "turn.ended"})
    EXPECT_NE(std::find(types.begin(), types.end(), t), types.end()) << t;
  EXPECT_EQ(text, "Hello from the fake.");

  // Paged: exactly the events after offset.
  auto page = ParseJson(Get("/v1/sessions/s1/events?offset=2&limit=3").body);
  ASSERT_TRUE(page.ok());
  ASSERT_EQ((*page)["events"].size(), 3u);
  EXPECT_EQ((*page)["events"][0], events[2]);
  EXPECT_EQ((*page)["hasMore"], true);
  auto tail = ParseJson(Get("/v1/sessions/s1/events?offset=" + std::to_string(events.size())).body);
  EXPECT_TRUE((*tail)["events"].empty());
  EXPECT_EQ((*tail)["hasMore"], false);
  // SSE from the middle: the rest, the same bytes.
  auto rest = ReadUntil("s1", 3, "sepp.agent.settled");
  ASSERT_EQ(rest.events.size(), all.events.size() - 3);
  EXPECT_EQ(rest.events.front().data, all.events[3].data);

  auto listed = ParseJson(Get("/v1/sessions").body);
  ASSERT_EQ((*listed)["sessions"].size(), 1u);
  EXPECT_EQ((*listed)["sessions"][0]["sessionId"], "s1");
  EXPECT_EQ((*listed)["sessions"][0]["nativeSessionId"], native_);

  // One store: the agent's session is in `sepp sessions list`.
  std::string out, err;
  auto env = Env();
  ASSERT_EQ(RunSepp({"sessions", "list", "--all"}, env, &out, &err), 0) << err;
  EXPECT_NE(out.find(native_.substr(0, 8)), std::string::npos) << out;

  // Terminate: 204, the stream ends with session.ended, a replay ends too.
  EXPECT_EQ(Post("/v1/sessions/s1/terminate", "").head.status, 204);
  EXPECT_EQ(Post("/v1/sessions/s1/terminate", "").head.status, 204);  // idempotent
  auto ended = ReadUntil("s1", 0, "session.ended");
  EXPECT_EQ(Parsed(ended).back()["data"]["reason"], "completed");
  auto after = ReadSse(server_->url("/v1/sessions/s1/events/sse?offset=0"), Auth(),
                       [](const SseRead&) { return false; }, 30);
  EXPECT_EQ(after.events.size(), ended.events.size()) << "an ended session's stream ends";
  auto late = Post("/v1/sessions/s1/messages", Json{{"message", "too late"}}.dump());
  EXPECT_EQ(late.head.status, 409);
}

TEST_F(ServeSessions, ASessionIsServedAgainAfterARestartFromTheStore) {
  fake_.SetScript({{"responses", {{{"text", "first answer"}}, {{"text", "second answer"}}}}});
  Create("r1");
  ASSERT_EQ(Post("/v1/sessions/r1/messages", Json{{"message", "first question"}}.dump()).head.status, 204);
  auto before = Parsed(ReadUntil("r1", 0, "sepp.agent.settled"));
  ASSERT_FALSE(before.empty());
  ASSERT_EQ(server_->Stop(), 0);

  server_ = std::make_unique<ServeChild>(cwd(), Env(), std::vector<std::string>{"--token", kToken});
  // Its events are there (and end with the old run's session.ended) ...
  auto stored = ParseJson(Get("/v1/sessions/r1/events?offset=0").body);
  ASSERT_TRUE(stored.ok());
  size_t m = (*stored)["events"].size();
  ASSERT_GT(m, before.size());
  EXPECT_EQ((*stored)["events"][0], before[0]);
  EXPECT_EQ((*stored)["events"][m - 1]["type"], "session.ended");
  // ... its id is taken ...
  EXPECT_EQ(Post("/v1/sessions/r1", Json{{"agent", "sepp"}}.dump()).head.status, 409);
  // ... and the next message resumes the agent's session from the store.
  ASSERT_EQ(Post("/v1/sessions/r1/messages", Json{{"message", "second question"}}.dump()).head.status, 204);
  auto after = Parsed(ReadUntil("r1", static_cast<int64_t>(m), "sepp.agent.settled"));
  ASSERT_FALSE(after.empty());
  EXPECT_EQ(after.front()["sequence"], m + 1) << "numbered on, no gap, no repeat";
  std::string text;
  for (const auto& e : after)
    if (e["type"] == "item.delta") text += e["data"]["delta"].get<std::string>();
  EXPECT_EQ(text, "second answer");
  auto requests = fake_.requests();
  ASSERT_EQ(requests.size(), 2u);
  std::string history = requests.back().body.dump();
  EXPECT_NE(history.find("first question"), std::string::npos) << "the resumed tree went to the model";
  EXPECT_NE(history.find("first answer"), std::string::npos);
  auto listed = ParseJson(Get("/v1/sessions").body);
  ASSERT_EQ((*listed)["sessions"].size(), 1u);
  EXPECT_EQ((*listed)["sessions"][0]["nativeSessionId"], native_) << "the same session, not a new one";

  // Terminated stays terminated across a restart.
  EXPECT_EQ(Post("/v1/sessions/r1/terminate", "").head.status, 204);
  ASSERT_EQ(server_->Stop(), 0);
  server_ = std::make_unique<ServeChild>(cwd(), Env(), std::vector<std::string>{"--token", kToken});
  auto late = Post("/v1/sessions/r1/messages", Json{{"message", "too late"}}.dump());
  EXPECT_EQ(late.head.status, 409) << late.body;
  EXPECT_EQ(ProblemType(late.body), "urn:sepp:error:session_ended");
  EXPECT_EQ(Get("/v1/sessions/never-made/events").head.status, 404);
}

TEST_F(ServeSessions, APermissionIsAnsweredThroughTheApiDuringAMessageStream) {
  fs::path target = root_ / "outside" / "report.txt";
  fake_.SetScript(
      {{"responses",
        {{{"tool_calls", {{{"id", "w1"}, {"name", "write"}, {"arguments", {{"path", target.string()}, {"content", "written\n"}}}}}}},
         {{"tool_calls", {{{"id", "w1-retry"}, {"name", "retry_with_access"},
                           {"arguments", {{"call_id", "w1"}, {"write_paths", {target.string()}},
                                          {"justification", "the user asked for it there"}}}}}}},
         {{"text", "finished"}}}}});
  Create("p1");
  // A watcher answers the request it sees on the session's stream.
  std::string permission_id;
  int reply_status = 0;
  std::thread watcher([&] {
    ReadSse(server_->url("/v1/sessions/p1/events/sse?offset=0"), Auth(), [&](const SseRead& r) {
      if (r.events.empty()) return false;
      auto e = ParseJson(r.events.back().data);
      if ((*e)["type"] != "permission.requested") return false;
      permission_id = (*e)["data"]["permission_id"];
      // Hostile replies first: they change nothing.
      EXPECT_EQ(Post("/v1/sessions/p1/permissions/" + permission_id + "/reply",
                     Json{{"reply", "maybe"}}.dump()).head.status, 400);
      EXPECT_EQ(Post("/v1/sessions/p1/permissions/perm-999/reply",
                     Json{{"reply", "once"}}.dump()).head.status, 404);
      reply_status = Post("/v1/sessions/p1/permissions/" + permission_id + "/reply",
                          Json{{"reply", "once"}}.dump()).head.status;
      return true;
    });
  });
  // The message's own stream, to the agent's settling.
  auto r = Fetch("POST", server_->url("/v1/sessions/p1/messages/stream"), Auth(true),
                 Json{{"message", "write the report"}}.dump());
  watcher.join();
  ASSERT_EQ(r.head.status, 200) << r.body;
  EXPECT_EQ(reply_status, 204);
  EXPECT_FALSE(permission_id.empty());
  std::vector<Json> events;
  for (const auto& line : Split(r.body, '\n'))
    if (line.rfind("data: ", 0) == 0) events.push_back(*ParseJson(line.substr(6)));
  ASSERT_FALSE(events.empty());
  EXPECT_EQ(events.back()["type"], "sepp.agent.settled");
  bool resolved = false;
  for (size_t i = 1; i < events.size(); ++i)
    EXPECT_EQ(events[i]["sequence"].get<int64_t>(), events[i - 1]["sequence"].get<int64_t>() + 1);
  for (const auto& e : events)
    if (e["type"] == "permission.resolved") {
      resolved = true;
      EXPECT_EQ(e["data"]["status"], "accept");
      EXPECT_EQ(e["data"]["permission_id"], permission_id);
    }
  EXPECT_TRUE(resolved);
  std::ifstream in(target);
  std::string content((std::istreambuf_iterator<char>(in)), {});
  EXPECT_EQ(content, "written\n") << "the allowed retry wrote the file";
}

TEST_F(ServeSessions, HostileIdsBodiesAndQueriesGetTypedProblems) {
  const std::string bad = "urn:sepp:error:invalid_request";
  // A link inside the workspace to a folder outside it is outside.
  fs::create_symlink(root_ / "outside", root_ / "project" / "link-out");
  // Bodies of create, each wrong in one way.
  std::vector<std::pair<std::string, std::string>> creates = {
      {"not json", bad},
      {"[1,2]", bad},
      {"{}", bad},
      {R"({"agent":5})", bad},
      {R"({"agent":"nobody"})", "urn:sepp:error:unsupported_agent"},
      {R"({"agent":"sepp","agentMode":"plan"})", bad},
      {R"({"agent":"sepp","mcp":{"x":{"command":"evil"}}})", bad},
      {R"({"agent":"sepp","mcp":[1]})", bad},
      {R"({"agent":"sepp","directory":"relative/dir"})", bad},
      {Json{{"agent", "sepp"}, {"directory", (root_ / "outside").string()}}.dump(), bad},
      {Json{{"agent", "sepp"}, {"directory", cwd() + "/../outside"}}.dump(), bad},
      {Json{{"agent", "sepp"}, {"directory", cwd() + "/missing"}}.dump(), bad},
      {Json{{"agent", "sepp"}, {"directory", cwd() + "/link-out"}}.dump(), bad},
      {Json{{"agent", "sepp"}, {"directory", cwd() + "/link-out/deeper"}}.dump(), bad},
      {R"({"agent":"sepp","model":["x"]})", bad},
  };
  for (const auto& [body, type] : creates) {
    auto r = Post("/v1/sessions/h1", body);
    EXPECT_GE(r.head.status, 400) << body;
    EXPECT_EQ(ProblemType(r.body), type) << body << " -> " << r.body;
  }
  EXPECT_TRUE(ParseJson(Get("/v1/sessions").body)->at("sessions").empty()) << "nothing was created";
  // Ids that are not one safe segment.
  for (const char* id : {"a%2Fb", "..", "a%00b", "%20", "x%0d%0aSet-Cookie:1"}) {
    auto r = Post(std::string("/v1/sessions/") + id, R"({"agent":"sepp"})");
    EXPECT_EQ(r.head.status, 400) << id << " " << r.body;
  }
  std::string long_id(129, 'a');
  EXPECT_EQ(Post("/v1/sessions/" + long_id, R"({"agent":"sepp"})").head.status, 400);
  // Wrong media type and methods.
  auto plain = Fetch("POST", server_->url("/v1/sessions/h1"), Auth(), R"({"agent":"sepp"})");
  EXPECT_EQ(plain.head.status, 415);
  EXPECT_EQ(Fetch("DELETE", server_->url("/v1/sessions"), Auth()).head.status, 405);
  EXPECT_EQ(Fetch("GET", server_->url("/v1/sessions/h1"), Auth()).head.status, 405);
  EXPECT_EQ(Fetch("GET", server_->url("/v1/sessions/h1/messages"), Auth()).head.status, 405);
  EXPECT_EQ(Fetch("GET", server_->url("/v1/sessions/h1/nothing"), Auth()).head.status, 404);
  EXPECT_EQ(Fetch("POST", server_->url("/v1/sessions/h1/messages/other"), Auth(true), "{}").head.status, 404);
  // No token: refused before anything.
  EXPECT_EQ(Fetch("GET", server_->url("/v1/sessions")).head.status, 401);
  // Unknown sessions.
  EXPECT_EQ(ProblemType(Get("/v1/sessions/none/events").body), "urn:sepp:error:session_not_found");
  EXPECT_EQ(Post("/v1/sessions/none/messages", R"({"message":"x"})").head.status, 404);
  EXPECT_EQ(Post("/v1/sessions/none/terminate", "").head.status, 404);

  // The legitimate session next to all this works (in a subfolder too).
  fake_.SetScript({{"responses", {{{"text", "still fine"}}}}});
  Create("h1");
  EXPECT_EQ(Post("/v1/sessions/h2", Json{{"agent", "sepp"}, {"directory", cwd() + "/sub"}}.dump()).head.status, 200);
  for (const char* q : {"offset=-1", "offset=abc", "offset=1&offset=2", "limit=0", "limit=10001",
                        "limit=x", "offset=%zz"}) {
    auto r = Get(std::string("/v1/sessions/h1/events?") + q);
    EXPECT_EQ(r.head.status, 400) << q << " " << r.body;
    EXPECT_EQ(ProblemType(r.body), bad) << q;
  }
  auto ahead = Fetch("GET", server_->url("/v1/sessions/h1/events/sse?offset=999999"), Auth());
  EXPECT_EQ(ahead.head.status, 400) << ahead.body;
  for (const char* body : {"", "{}", R"({"message":""})", R"({"message":7})", "[]",
                           R"({"message":"x","attachments":[{"path":"/etc/passwd"}]})"}) {
    auto r = Post("/v1/sessions/h1/messages", body);
    EXPECT_EQ(r.head.status, 400) << body << " " << r.body;
  }
  for (const char* body : {"", "{}", R"({"reply":true})", R"({"reply":"ONCE"})"}) {
    auto r = Post("/v1/sessions/h1/permissions/perm-1/reply", body);
    EXPECT_EQ(r.head.status, 400) << body << " " << r.body;
  }
  EXPECT_EQ(Post("/v1/sessions/h1/permissions/perm-1/reply", R"({"reply":"once"})").head.status, 404);
  EXPECT_EQ(Post("/v1/sessions/h1/messages", R"({"message":"go"})").head.status, 204);
  auto done = ReadUntil("h1", 0, "sepp.agent.settled");
  std::string text;
  for (const auto& e : Parsed(done))
    if (e["type"] == "item.delta") text += e["data"]["delta"].get<std::string>();
  EXPECT_EQ(text, "still fine");
}

TEST_F(ServeSessions, HundredSubscribersEachGetEveryEventOnceInOrder) {
  Create("m1");
  constexpr int kSubscribers = 100;
  std::vector<SseRead> got(kSubscribers);
  std::vector<std::thread> readers;
  for (int i = 0; i < kSubscribers; ++i)
    readers.emplace_back([&, i] { got[i] = ReadUntil("m1", 0, "sepp.agent.settled"); });
  std::string big;
  for (int i = 0; i < 2000; ++i) big += "chunk-" + std::to_string(i) + " ";
  fake_.SetScript({{"responses", {{{"text", big}}}}});
  ASSERT_EQ(Post("/v1/sessions/m1/messages", R"({"message":"talk"})").head.status, 204);
  for (auto& t : readers) t.join();
  for (int i = 0; i < kSubscribers; ++i) {
    ASSERT_EQ(got[i].status, 200) << i;
    ASSERT_FALSE(got[i].events.empty()) << i;
    for (size_t k = 0; k < got[i].events.size(); ++k)
      ASSERT_EQ(ParseJson(got[i].events[k].data)->at("sequence"), k + 1) << "subscriber " << i;
    EXPECT_EQ(got[i].events.size(), got[0].events.size()) << i;
  }
  std::string text;
  for (const auto& e : Parsed(got[0]))
    if (e["type"] == "item.delta") text += e["data"]["delta"].get<std::string>();
  EXPECT_EQ(text, big);
}


TEST_F(ServeSessions, TheApiCommandMirrorsTheSessionEndpoints) {
  fake_.SetScript({{"responses", {{{"text", "via the cli"}}}}});
  std::map<std::string, std::string> env = {{"SEPP_SERVE_URL", server_->url("")},
                                            {"SEPP_SERVE_TOKEN", kToken}};
  std::string out, err;
  auto api = [&](std::vector<std::string> args) {
    args.insert(args.begin(), "api");
    return RunSepp(args, env, &out, &err);
  };
  ASSERT_EQ(api({"sessions", "create", "c1", "--agent", "sepp", "--directory", cwd(), "--title", "t"}), 0) << err;
  EXPECT_EQ((*ParseJson(out))["healthy"], true) << out;
  EXPECT_EQ(api({"sessions", "create", "c2", "--agent", "nobody"}), 1);
  EXPECT_NE(err.find("urn:sepp:error:unsupported_agent"), std::string::npos) << err;
  ASSERT_EQ(api({"sessions", "send-message-stream", "c1", "--message", "hi"}), 0) << err;
  std::string text, last;
  for (const auto& line : SplitLines(out)) {
    auto e = ParseJson(line);
    ASSERT_TRUE(e.ok()) << line;
    last = (*e)["type"];
    if (last == "item.delta") text += (*e)["data"]["delta"].get<std::string>();
  }
  EXPECT_EQ(text, "via the cli");
  EXPECT_EQ(last, "sepp.agent.settled");
  ASSERT_EQ(api({"sessions", "events", "c1", "--offset", "1", "--limit", "2"}), 0) << err;
  auto page = ParseJson(out);
  ASSERT_EQ((*page)["events"].size(), 2u) << out;
  EXPECT_EQ((*page)["events"][0]["sequence"], 2);
  ASSERT_EQ(api({"sessions", "list"}), 0) << err;
  EXPECT_EQ((*ParseJson(out))["sessions"][0]["title"], "t");
  EXPECT_EQ(api({"sessions", "permissions", "reply", "c1", "perm-9", "--reply", "once"}), 1);
  EXPECT_NE(err.find("urn:sepp:error:not_found"), std::string::npos) << err;
  EXPECT_EQ(api({"sessions", "permissions", "reply", "c1", "perm-9", "--reply", "maybe"}), 2);
  ASSERT_EQ(api({"sessions", "terminate", "c1"}), 0) << err;
  ASSERT_EQ(api({"sessions", "events-sse", "c1"}), 0) << err;  // ends with the session
  EXPECT_EQ((*ParseJson(SplitLines(out).back()))["type"], "session.ended") << out;
}

}  // namespace
}  // namespace sepp::servetest
