// Two `sepp serve --store postgres://…` on one throwaway PostgreSQL, as two
// machines would run them (each its own $SEPP_HOME): a session created
// through A is listed by B and its id is taken for B too; its events replay
// from B from any offset, B's SSE delivers A's new events live; PostgreSQL
// restarted in the middle of a prompt loses and doubles nothing; with the
// database away, B answers 503 store_unavailable, stays up and recovers.
// The agents' session trees are in PostgreSQL too: a session A ran resumes
// on B (the session API's next message, an ACP session/load) with its
// context from the database, and never on two servers at once.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "pg/pg_cluster.h"
#include "serve/serve_child.h"
#include "support/fake_provider.h"

namespace sepp::servetest {
namespace {

namespace fs = std::filesystem;
using pgtest::PgCluster;

constexpr const char* kToken = "pg-serve-token-0123456789abcdef";

class PgServe : public ::testing::Test {
 protected:
  void SetUp() override {
    if (std::string m = PgCluster::MissingBinaries(); !m.empty()) GTEST_SKIP() << m;
    ASSERT_TRUE(pgtest::SharedCluster()->Start().ok());
    char tmpl[] = "/tmp/sepp-pg-serve-XXXXXX";
    root_ = ::mkdtemp(tmpl);
    for (const char* d : {"a", "b", "project"}) fs::create_directories(root_ / d);
    ASSERT_TRUE(fake_.Start().ok());
    // A fresh database per test: the servers' tables start empty.
    db_ = "t" + std::to_string(::getpid()) + "_" + std::to_string(++counter_);
    auto sql = Sql("postgres");
    ASSERT_TRUE(sql.ok()) << sql.error().message;
    std::vector<std::string> args = {"--token", kToken, "--workspace", cwd(), "--store", url()};
    a_ = std::make_unique<ServeChild>(cwd(), Env("a"), args);
    b_ = std::make_unique<ServeChild>(cwd(), Env("b"), args);
  }
  // Restarts A on the TCP address, its password (SCRAM) from PGPASSWORD.
  void RestartAWithPassword() {
    a_.reset();
    std::string tcp = pgtest::SharedCluster()->tcp_url(false);
    tcp = tcp.substr(0, tcp.rfind('/') + 1) + db_;
    auto env = Env("a");
    env["PGPASSWORD"] = PgCluster::kPassword;
    a_ = std::make_unique<ServeChild>(
        cwd(), env, std::vector<std::string>{"--token", kToken, "--workspace", cwd(), "--store", tcp});
  }
  void TearDown() override {
    a_.reset();
    b_.reset();
    fake_.Stop();
    std::error_code ec;
    fs::remove_all(root_, ec);
  }
  // Runs CREATE DATABASE through psql-free means: the store's own client.
  Result<bool> Sql(const std::string& database);
  std::string url() const {
    std::string u = pgtest::SharedCluster()->socket_url();
    return u.substr(0, u.rfind('/') + 1) + db_;
  }
  std::map<std::string, std::string> Env(const char* home) const {
    return {{"HOME", (root_ / home).string()},
            {"SEPP_HOME", (root_ / home).string()},
            {"ANTHROPIC_BASE_URL", fake_.base_url()},
            {"ANTHROPIC_API_KEY", "test-key-not-secret"}};
  }
  std::string cwd() const { return (root_ / "project").string(); }
  net::Headers Auth() const {
    return {{"Authorization", std::string("Bearer ") + kToken}, {"Content-Type", "application/json"}};
  }
  net::HttpResponse Post(ServeChild& s, const std::string& path, const Json& body) {
    return Fetch("POST", s.url(path), Auth(), body.dump());
  }
  net::HttpResponse Get(ServeChild& s, const std::string& path) {
    return Fetch("GET", s.url(path), Auth());
  }
  SseRead ReadUntil(ServeChild& s, const std::string& id, int64_t offset, const std::string& until,
                    int count = 1) {
    return ReadSse(s.url("/v1/sessions/" + id + "/events/sse?offset=" + std::to_string(offset)),
                   Auth(), [&](const SseRead& r) {
                     int seen = 0;
                     for (const auto& e : r.events)
                       if (ParseJson(e.data)->value("type", "") == until) ++seen;
                     return seen >= count;
                   });
  }
  static std::vector<Json> Parsed(const SseRead& r) {
    std::vector<Json> v;
    for (const auto& e : r.events) v.push_back(*ParseJson(e.data));
    return v;
  }

  static int counter_;
  fs::path root_;
  std::string db_;
  fake::FakeProvider fake_;
  std::unique_ptr<ServeChild> a_, b_;
};
int PgServe::counter_ = 0;

}  // namespace
}  // namespace sepp::servetest

#include "session/pg_conn.h"
#include "session/pg_url.h"
#include "session/store.h"

namespace sepp::servetest {
namespace {

Result<bool> PgServe::Sql(const std::string& database) {
  auto config = session::ParsePgUrl(pgtest::SharedCluster()->socket_url());
  if (!config.ok()) return config.error();
  config->database = database;
  auto conn = session::PgConn::Connect(*config);
  if (!conn.ok()) return conn.error();
  auto made = (*conn)->Exec("CREATE DATABASE " + db_);
  if (!made.ok()) return made.error();
  return true;
}

std::string ProblemType(const std::string& body) {
  auto j = ParseJson(body);
  return j.ok() && j->is_object() ? j->value("type", "") : "";
}

// A server that stopped has closed its connections; PostgreSQL ends their
// backends (and their locks) a moment later. Waits until the session can
// be opened for writing, then lets it go.
bool WaitUntilWritable(session::Store& store, const std::string& id) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (std::chrono::steady_clock::now() < deadline) {
    if (store.Open(id, session::OpenMode::kAppend).ok()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

Json AcpRequest(int id, const std::string& method, Json params) {
  return {{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", std::move(params)}};
}
Json AcpAnswer(const net::HttpResponse& r) {
  auto j = ParseJson(r.body);
  return j.ok() ? *j : Json{{"unparsed", r.body}};
}
// The texts of the messages the model was sent in one request, in order.
std::vector<std::string> SentTexts(const Json& body) {
  std::vector<std::string> out;
  for (const Json& m : body.value("messages", Json::array())) {
    const Json& c = m["content"];
    if (c.is_string()) out.push_back(c.get<std::string>());
    else
      for (const Json& b : c)
        if (b.value("type", "") == "text") out.push_back(b.value("text", ""));
  }
  return out;
}

TEST_F(PgServe, TwoServersShareSessionsEventsAndLiveStreams) {
  fake_.SetScript({{"responses", {{{"text", "First answer."}}, {{"text", "Second answer."}}}}});
  auto created = Post(*a_, "/v1/sessions/shared", {{"agent", "sepp"}, {"directory", cwd()}});
  ASSERT_EQ(created.head.status, 200) << created.body;
  auto taken = Post(*b_, "/v1/sessions/shared", {{"agent", "sepp"}, {"directory", cwd()}});
  EXPECT_EQ(taken.head.status, 409) << "the id is claimed in the store for every server";
  EXPECT_EQ(ProblemType(taken.body), "urn:sepp:error:session_exists");

  ASSERT_EQ(Post(*a_, "/v1/sessions/shared/messages", {{"message", "one"}}).head.status, 204);
  auto from_a = Parsed(ReadUntil(*a_, "shared", 0, "sepp.agent.settled"));
  ASSERT_GE(from_a.size(), 6u);

  // B lists it, with its events counted from the store.
  auto listed = ParseJson(Get(*b_, "/v1/sessions").body);
  ASSERT_TRUE(listed.ok());
  ASSERT_EQ((*listed)["sessions"].size(), 1u) << listed->dump();
  EXPECT_EQ((*listed)["sessions"][0]["sessionId"], "shared");
  EXPECT_EQ((*listed)["sessions"][0]["eventCount"], from_a.size());
  // B replays from any offset: the same events A sent.
  for (int64_t offset : {0, 2, 5}) {
    auto page = ParseJson(Get(*b_, "/v1/sessions/shared/events?offset=" + std::to_string(offset) +
                                       "&limit=3").body);
    ASSERT_TRUE(page.ok());
    ASSERT_EQ((*page)["events"].size(), 3u);
    for (size_t i = 0; i < 3; ++i) EXPECT_EQ((*page)["events"][i], from_a[offset + i]);
    EXPECT_EQ((*page)["hasMore"], offset + 3 < static_cast<int64_t>(from_a.size()));
  }
  auto replay = Parsed(ReadUntil(*b_, "shared", 3, "sepp.agent.settled"));
  ASSERT_EQ(replay.size(), from_a.size() - 3);
  EXPECT_EQ(replay.front(), from_a[3]);

  // Live: B's stream is open at the end when A's next prompt runs.
  SseRead live;
  std::thread reader([&] { live = ReadUntil(*b_, "shared", from_a.size(), "sepp.agent.settled"); });
  // B's stream is open once B has sent its head; A's prompt may start
  // before: the events are in the store either way, B reads them from there.
  ASSERT_EQ(Post(*a_, "/v1/sessions/shared/messages", {{"message", "two"}}).head.status, 204);
  reader.join();
  ASSERT_EQ(live.status, 200) << live.body;
  auto second = Parsed(live);
  ASSERT_FALSE(second.empty());
  EXPECT_EQ(second.front()["sequence"], from_a.size() + 1);
  std::string text;
  for (const Json& e : second)
    if (e["type"] == "item.delta") text += e["data"]["delta"].get<std::string>();
  EXPECT_EQ(text, "Second answer.");
  // A prompt sent to B for A's session is refused, saying where it runs.
  auto misdirected = Post(*b_, "/v1/sessions/shared/messages", {{"message", "x"}});
  EXPECT_EQ(misdirected.head.status, 409);
  EXPECT_NE(misdirected.body.find("not run by this server"), std::string::npos);
}

// The agent's session tree goes to PostgreSQL with the events: another
// server reads it there, and nothing goes to the server's own $SEPP_HOME.
TEST_F(PgServe, TheSessionTreeLivesInPostgresForEveryServer) {
  fake_.SetScript({{"responses", {{{"text", "Tree answer."}}}}});
  ASSERT_EQ(Post(*a_, "/v1/sessions/tree", {{"agent", "sepp"}, {"directory", cwd()}}).head.status, 200);
  ASSERT_EQ(Post(*a_, "/v1/sessions/tree/messages", {{"message", "grow a tree"}}).head.status, 204);
  ASSERT_GE(ReadUntil(*a_, "tree", 0, "sepp.agent.settled").events.size(), 6u);
  auto listed = ParseJson(Get(*b_, "/v1/sessions").body);
  ASSERT_TRUE(listed.ok());
  ASSERT_EQ((*listed)["sessions"].size(), 1u);
  std::string native = (*listed)["sessions"][0]["nativeSessionId"];
  ASSERT_FALSE(native.empty());

  auto store = session::OpenUrlStore(url());
  ASSERT_TRUE(store.ok()) << store.error().message;
  auto trees = (*store)->List(cwd());
  ASSERT_TRUE(trees.ok()) << trees.error().message;
  ASSERT_EQ(trees->size(), 1u);
  EXPECT_EQ((*trees)[0].id, native);
  EXPECT_EQ((*trees)[0].first_prompt, "grow a tree");
  auto tree = (*store)->Open(native, session::OpenMode::kReadOnly);
  ASSERT_TRUE(tree.ok()) << tree.error().message;
  std::vector<std::string> texts;
  for (const auto* e : (*tree)->Path())
    if (e->type == "message")
      texts.push_back(e->data["message"]["content"][0].value("text", ""));
  EXPECT_EQ(texts, (std::vector<std::string>{"grow a tree", "Tree answer."}));
  // A holds the writer's lock while it runs the session: no one else writes.
  auto second = (*store)->Open(native, session::OpenMode::kAppend);
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.error().kind, "locked");
  std::error_code ec;
  EXPECT_FALSE(fs::exists(root_ / "a" / "sessions" / "sessions.db", ec));
  size_t local_files = 0;
  for (const auto& e : fs::recursive_directory_iterator(root_ / "a", ec))
    if (e.path().extension() == ".jsonl") ++local_files;
  EXPECT_EQ(local_files, 0u) << "no session file in A's own home";
  // A gone, its lock goes with it.
  a_.reset();
  EXPECT_TRUE(WaitUntilWritable(**store, native));
}

// A session of the session API whose server stopped is taken over by the
// next server it gets a message on: the agent resumes from the tree in
// PostgreSQL, the events go on numbering after A's, and while B runs it a
// restarted A refuses its messages (it does not run it).
TEST_F(PgServe, ASessionWhoseServerStoppedIsTakenOverByTheNextOneItIsSentTo) {
  fake_.SetScript({{"responses", {{{"text", "Answer from A."}}, {{"text", "Answer from B."}}}}});
  ASSERT_EQ(Post(*a_, "/v1/sessions/move", {{"agent", "sepp"}, {"directory", cwd()}}).head.status, 200);
  ASSERT_EQ(Post(*a_, "/v1/sessions/move/messages", {{"message", "one"}}).head.status, 204);
  auto on_a = Parsed(ReadUntil(*a_, "move", 0, "sepp.agent.settled"));
  auto listed = ParseJson(Get(*b_, "/v1/sessions").body);
  std::string native = (*listed)["sessions"][0]["nativeSessionId"];
  auto early = Post(*b_, "/v1/sessions/move/messages", {{"message", "not yet"}});
  EXPECT_EQ(early.head.status, 409) << "A still runs it: " << early.body;
  a_.reset();
  auto store = session::OpenUrlStore(url());
  ASSERT_TRUE(store.ok()) << store.error().message;
  ASSERT_TRUE(WaitUntilWritable(**store, native));

  auto sent = Post(*b_, "/v1/sessions/move/messages", {{"message", "two"}});
  ASSERT_EQ(sent.head.status, 204) << sent.body;
  auto all = Parsed(ReadUntil(*b_, "move", 0, "sepp.agent.settled", 2));
  ASSERT_GT(all.size(), on_a.size());
  for (size_t i = 0; i < all.size(); ++i) EXPECT_EQ(all[i]["sequence"], i + 1) << "gap-free, once each";
  for (size_t i = 0; i < on_a.size(); ++i) EXPECT_EQ(all[i], on_a[i]);
  auto requests = fake_.requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(SentTexts(requests[1].body), (std::vector<std::string>{"one", "Answer from A.", "two"}));

  a_ = std::make_unique<ServeChild>(cwd(), Env("a"), std::vector<std::string>{
      "--token", kToken, "--workspace", cwd(), "--store", url()});
  auto refused = Post(*a_, "/v1/sessions/move/messages", {{"message", "three"}});
  EXPECT_EQ(refused.head.status, 409) << "B runs it now: " << refused.body;
  EXPECT_EQ(fake_.requests().size(), 2u);
}

// An agent session made on A resumes on B after A is gone: B has its own
// $SEPP_HOME, so the context can only come from PostgreSQL's tree; while B
// writes it, a restarted A cannot open it too.
TEST_F(PgServe, AnAcpSessionFromAResumesOnBFromTheTreeInPostgres) {
  fake_.SetScript({{"responses", {{{"text", "First answer."}}, {{"text", "Answer on B."}}}}});
  auto acp = [&](ServeChild& s, const std::string& conn, const Json& msg, bool agent = false) {
    auto r = PostAcp(s, conn, msg, agent, kToken);
    EXPECT_EQ(r.head.status, 200) << r.body;
    return AcpAnswer(r);
  };
  acp(*a_, "ca", AcpRequest(0, "initialize", {{"protocolVersion", 1}}), true);
  Json made = acp(*a_, "ca", AcpRequest(1, "session/new", {{"cwd", cwd()}, {"mcpServers", Json::array()}}));
  std::string sid = made["result"].value("sessionId", "");
  ASSERT_FALSE(sid.empty()) << made.dump();
  Json one = acp(*a_, "ca", AcpRequest(2, "session/prompt",
                                       {{"sessionId", sid}, {"prompt", {{{"type", "text"}, {"text", "one"}}}}}));
  ASSERT_EQ(one["result"]["stopReason"], "end_turn") << one.dump();
  a_.reset();  // A stops (a restart, or the machine is gone)
  auto store = session::OpenUrlStore(url());
  ASSERT_TRUE(store.ok()) << store.error().message;
  ASSERT_TRUE(WaitUntilWritable(**store, sid));

  acp(*b_, "cb", AcpRequest(0, "initialize", {{"protocolVersion", 1}}), true);
  Json loaded = acp(*b_, "cb", AcpRequest(1, "session/load", {{"sessionId", sid}, {"cwd", cwd()},
                                                              {"mcpServers", Json::array()}}));
  ASSERT_TRUE(loaded.contains("result")) << loaded.dump();
  Json two = acp(*b_, "cb", AcpRequest(2, "session/prompt",
                                       {{"sessionId", sid}, {"prompt", {{{"type", "text"}, {"text", "two"}}}}}));
  ASSERT_EQ(two["result"]["stopReason"], "end_turn") << two.dump();
  auto requests = fake_.requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(SentTexts(requests[1].body),
            (std::vector<std::string>{"one", "First answer.", "two"}))
      << "B's model call has A's turn, once: " << requests[1].body.dump();

  // A restarted while B runs the session: it cannot take it as a writer.
  a_ = std::make_unique<ServeChild>(cwd(), Env("a"), std::vector<std::string>{
      "--token", kToken, "--workspace", cwd(), "--store", url()});
  acp(*a_, "ca2", AcpRequest(0, "initialize", {{"protocolVersion", 1}}), true);
  Json refused = acp(*a_, "ca2", AcpRequest(1, "session/load", {{"sessionId", sid}, {"cwd", cwd()},
                                                                {"mcpServers", Json::array()}}));
  ASSERT_TRUE(refused.contains("error")) << refused.dump();
  EXPECT_NE(refused["error"].value("message", "").find("open for writing"), std::string::npos)
      << refused.dump();

  auto tree = (*store)->Open(sid, session::OpenMode::kReadOnly);
  ASSERT_TRUE(tree.ok()) << tree.error().message;
  size_t messages = 0;
  for (const auto& e : (*tree)->entries()) messages += e.type == "message";
  EXPECT_EQ(messages, 4u) << "two turns, each stored once";
}

TEST_F(PgServe, ARestartOfPostgresMidPromptLosesAndDoublesNothing) {
  fake_.SetScript({{"responses", {{{"text", "Before the restart."}}, {{"text", "During it."}}}}});
  ASSERT_EQ(Post(*a_, "/v1/sessions/r1", {{"agent", "sepp"}, {"directory", cwd()}}).head.status, 200);
  ASSERT_EQ(Post(*a_, "/v1/sessions/r1/messages", {{"message", "one"}}).head.status, 204);
  ASSERT_GE(ReadUntil(*a_, "r1", 0, "sepp.agent.settled").events.size(), 6u);

  ASSERT_TRUE(pgtest::SharedCluster()->Stop().ok());
  // The agent runs on (it has asked the model); its events wait in order
  // for the store, and only then reach anyone.
  ASSERT_EQ(Post(*a_, "/v1/sessions/r1/messages", {{"message", "two"}}).head.status, 204);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (fake_.responses_used() < 2 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  ASSERT_EQ(fake_.responses_used(), 2);
  ASSERT_TRUE(pgtest::SharedCluster()->Start().ok());
  auto on_a = Parsed(ReadUntil(*a_, "r1", 0, "sepp.agent.settled", 2));

  EXPECT_NE(a_->stderr_text().find("waits for the store"), std::string::npos)
      << "the outage was hit: " << a_->stderr_text();
  auto on_b = Parsed(ReadUntil(*b_, "r1", 0, "sepp.agent.settled", 2));
  ASSERT_EQ(on_b.size(), on_a.size());
  for (size_t i = 0; i < on_b.size(); ++i) {
    EXPECT_EQ(on_b[i]["sequence"], i + 1) << "gap-free, once each";
    EXPECT_EQ(on_b[i], on_a[i]);
  }
  // The session tree too: the prompt made while the database was away was
  // kept in A's outbox and is stored, in order and once, when it is back.
  EXPECT_NE(a_->stderr_text().find("keeps its entries in"), std::string::npos)
      << a_->stderr_text();
  auto listed = ParseJson(Get(*b_, "/v1/sessions").body);
  ASSERT_TRUE(listed.ok());
  ASSERT_EQ((*listed)["sessions"].size(), 1u);
  std::string native = (*listed)["sessions"][0]["nativeSessionId"];
  auto store = session::OpenUrlStore(url());
  ASSERT_TRUE(store.ok()) << store.error().message;
  const std::vector<std::string> want = {"one", "Before the restart.", "two", "During it."};
  std::vector<std::string> texts;
  auto until = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (texts != want && std::chrono::steady_clock::now() < until) {
    texts.clear();
    auto tree = (*store)->Open(native, session::OpenMode::kReadOnly);
    ASSERT_TRUE(tree.ok()) << tree.error().message;
    for (const auto& e : (*tree)->entries())
      if (e.type == "message") texts.push_back(e.data["message"]["content"][0].value("text", ""));
    if (texts != want) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_EQ(texts, want);
  EXPECT_EQ(a_->stderr_text().find("the run goes on unsaved"), std::string::npos)
      << a_->stderr_text();
}

TEST_F(PgServe, ADatabaseThatGoesAwayGets503AndTheServerRecovers) {
  fake_.SetScript({{"responses", {{{"text", "ok"}}}}});
  ASSERT_EQ(Post(*a_, "/v1/sessions/g1", {{"agent", "sepp"}, {"directory", cwd()}}).head.status, 200);
  ASSERT_EQ(Get(*b_, "/v1/sessions").head.status, 200);

  ASSERT_TRUE(pgtest::SharedCluster()->Stop().ok());
  for (const char* path : {"/v1/sessions", "/v1/sessions/g1/events?offset=0"}) {
    auto r = Get(*b_, path);
    EXPECT_EQ(r.head.status, 503) << path << ": " << r.body;
    EXPECT_EQ(ProblemType(r.body), "urn:sepp:error:store_unavailable") << r.body;
    EXPECT_NE(r.body.find("is unavailable"), std::string::npos) << r.body;
    EXPECT_EQ(r.head.Header("Content-Type"), "application/problem+json");
  }
  auto create = Post(*b_, "/v1/sessions/g2", {{"agent", "sepp"}, {"directory", cwd()}});
  EXPECT_EQ(create.head.status, 503) << create.body;
  EXPECT_EQ(Get(*b_, "/v1/health").head.status, 200) << "the server stays up";

  ASSERT_TRUE(pgtest::SharedCluster()->Start().ok());
  auto back = Get(*b_, "/v1/sessions");
  ASSERT_EQ(back.head.status, 200) << back.body;
  EXPECT_EQ((*ParseJson(back.body))["sessions"].size(), 1u);
  EXPECT_EQ(Post(*b_, "/v1/sessions/g2", {{"agent", "sepp"}, {"directory", cwd()}}).head.status, 200);
}

// The database password is the server's: never in a tool's environment,
// an event or the server's output, while the tool itself runs.
TEST_F(PgServe, TheStorePasswordReachesNoToolNoEventAndNoOutput) {
  RestartAWithPassword();
  fake_.SetScript({{"responses",
                    {{{"tool_calls", {{{"id", "e1"}, {"name", "bash"},
                                       {"arguments", {{"command", "env; echo END-OF-ENV"}}}}}}},
                     {{"text", "done"}}}}});
  ASSERT_EQ(Post(*a_, "/v1/sessions/pw", {{"agent", "sepp"}, {"directory", cwd()}}).head.status, 200);
  ASSERT_EQ(Post(*a_, "/v1/sessions/pw/messages", {{"message", "show the environment"}}).head.status,
            204);
  // Answers a permission request, should the policy ask for one.
  auto read = ReadSse(a_->url("/v1/sessions/pw/events/sse?offset=0"), Auth(), [&](const SseRead& r) {
    if (r.events.empty()) return false;
    auto e = ParseJson(r.events.back().data);
    if ((*e)["type"] == "permission.requested")
      Post(*a_, "/v1/sessions/pw/permissions/" + (*e)["data"]["permission_id"].get<std::string>() +
                    "/reply",
           {{"reply", "once"}});
    return (*e)["type"] == "sepp.agent.settled";
  });
  std::string all;
  for (const auto& e : read.events) all += e.data + "\n";
  EXPECT_NE(all.find("END-OF-ENV"), std::string::npos) << "the tool ran: " << all.substr(0, 2000);
  EXPECT_NE(all.find("PATH="), std::string::npos) << "its environment was printed";
  EXPECT_EQ(all.find(PgCluster::kPassword), std::string::npos) << "not in any event";
  EXPECT_EQ(all.find("PGPASSWORD"), std::string::npos) << "not in the tool's environment";
  // Replayed by B from the store: the same, no password there either.
  auto from_b = ReadUntil(*b_, "pw", 0, "sepp.agent.settled");
  ASSERT_EQ(from_b.events.size(), read.events.size());
  EXPECT_EQ(a_->stdout_text().find(PgCluster::kPassword), std::string::npos);
  EXPECT_EQ(a_->stderr_text().find(PgCluster::kPassword), std::string::npos);
}

}  // namespace
}  // namespace sepp::servetest
