// External agents behind `sepp serve` (docs/serve.md, "External agents"):
// claude-agent-acp 0.23.1 and codex-acp 0.16.0 (tests/agents/node, pinned)
// driven through the ACP transport against the scripted fake provider, each
// confined by its policy. One server and one fake provider for the whole
// file (the adapters start slowly); each test opens its own server ids.
//
// Attacks run as the agent's own tool calls (scripted by the fake): a read
// of the user's ~/.ssh, a write outside the workspace, a request to another
// port of loopback; next to each, the legitimate call in the workspace
// that must still work.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>
#include <set>
#include <thread>

#include "base/strings.h"
#include "serve/serve_child.h"
#include "support/fake_provider.h"

namespace sepp::servetest {
namespace {

namespace fs = std::filesystem;

constexpr const char* kToken = "agents-token-0123456789abcdef";
constexpr const char* kKey = "sk-agent-test-key-0f1e2d3c";
constexpr const char* kSshSecret = "PRIVATE-KEY-MATERIAL-3141592";

fs::path AdapterBin() { return fs::path(SEPP_SOURCE_DIR) / "tests/agents/node/node_modules/.bin"; }

// An ACP agent of the settings ([[serve.agents]] name = "hostile") that
// answers like one and sends what a broken or hostile adapter could: lines
// that are not JSON-RPC, answers to requests never sent, updates for
// another session or of the wrong shape, its key split across two chunks,
// a request for a client file, 260 permission requests at once; at its
// second prompt it exits, with a last word on stderr.
constexpr const char* kHostileAgent = R"PY(
import json, os, sys
def send(m): sys.stdout.write(json.dumps(m) + "\n"); sys.stdout.flush()
def update(u, sid="h-1"): send({"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": sid, "update": u}})
prompts = 0
for line in sys.stdin:
    m = json.loads(line)
    method, mid = m.get("method"), m.get("id")
    if method == "initialize":
        sys.stdout.write("this is not json\n")
        send({"jsonrpc": "2.0", "id": 999, "result": {}})
        send({"jsonrpc": "2.0", "id": mid, "result": {"protocolVersion": 1, "agentCapabilities": {}}})
    elif method == "session/new":
        send({"jsonrpc": "2.0", "id": mid, "result": {"sessionId": "h-1"}})
        update({"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "early "}})
    elif method == "session/prompt":
        prompts += 1
        if prompts == 2:
            sys.stderr.write("hostile agent: giving up\n"); sys.stderr.flush()
            os._exit(3)
        key = os.environ.get("ANTHROPIC_API_KEY", "")
        update({"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "hello " + key[:9]}})
        update({"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": key[9:] + " bye"}})
        update({"sessionUpdate": "agent_message_chunk", "content": 5})
        update({"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "not yours"}}, "other")
        update({"sessionUpdate": "tool_call", "toolCallId": 12})
        update({"sessionUpdate": "tool_call", "toolCallId": "t1", "title": "look", "status": "exploded"})
        update({"sessionUpdate": "no such update!"})
        send({"jsonrpc": "2.0", "id": "fs-1", "method": "fs/read_text_file", "params": {"sessionId": "h-1", "path": "/etc/passwd"}})
        for i in range(260):
            send({"jsonrpc": "2.0", "id": "p%d" % i, "method": "session/request_permission",
                  "params": {"sessionId": "h-1", "options": [{"optionId": "ok", "name": "Yes", "kind": "allow_once"}]}})
        send({"jsonrpc": "2.0", "id": mid, "result": {"stopReason": "end_turn"}})
)PY";

// A loopback port that counts the connections it gets: the "other host
// service" an agent must not reach.
class CountingListener {
 public:
  CountingListener() {
    fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a);
    socklen_t len = sizeof a;
    getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len);
    port_ = ntohs(a.sin_port);
    listen(fd_, 16);
    thread_ = std::thread([this] {
      for (;;) {
        int c = accept(fd_, nullptr, nullptr);
        if (c < 0 || stop_) break;
        ++count_;
        const char resp[] = "HTTP/1.1 200 OK\r\nContent-Length: 7\r\nConnection: close\r\n\r\nREACHED";
        send(c, resp, sizeof resp - 1, MSG_NOSIGNAL);
        close(c);
      }
    });
  }
  ~CountingListener() {
    stop_ = true;
    shutdown(fd_, SHUT_RDWR);
    close(fd_);
    thread_.join();
  }
  int port() const { return port_; }
  int count() const { return count_; }

 private:
  int fd_ = -1, port_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<int> count_{0};
  std::thread thread_;
};

class ExternalAgents : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (!fs::exists(AdapterBin() / "claude-agent-acp")) return;  // each test skips
    char tmpl[] = "/tmp/sepp-agents-XXXXXX";
    root_ = new fs::path(mkdtemp(tmpl));
    fs::path r = *root_;
    for (const char* d : {"home/.ssh", "sepp", "project", "outside"}) fs::create_directories(r / d);
    std::ofstream(r / "home/.ssh/id_rsa") << kSshSecret << "\n";
    fake_ = new fake::FakeProvider();
    ASSERT_TRUE(fake_->Start().ok());
    other_ = new CountingListener();
    std::string allow = "127.0.0.1:" + std::to_string(fake_->port());
    // The fake provider is named exactly, with its port: nothing else of
    // loopback opens.
    std::ofstream(r / "project/hostile_agent.py") << kHostileAgent;
    std::ofstream(r / "sepp/settings.toml") << "[[serve.agents]]\nname = \"claude\"\nallow_domains = [\"" << allow
                                            << "\"]\n\n[[serve.agents]]\nname = \"codex\"\nallow_domains = [\""
                                            << allow << "\"]\n\n[[serve.agents]]\nname = \"hostile\"\n"
                                            << "command = [\"python3\", \"" << (r / "project/hostile_agent.py").string()
                                            << "\"]\ncredentials = [\"ANTHROPIC_API_KEY\"]\n";
    fs::create_directories(r / "sepp/agents/home/codex/.codex");
    std::ofstream(r / "sepp/agents/home/codex/.codex/config.toml")
        << "model = \"gpt-5\"\nmodel_provider = \"fake\"\napproval_policy = \"untrusted\"\n"
           "[model_providers.fake]\nname = \"fake\"\nbase_url = \""
        << fake_->base_url() << "/v1\"\nwire_api = \"responses\"\nenv_key = \"OPENAI_API_KEY\"\n";
    std::map<std::string, std::string> env = {
        {"PATH", AdapterBin().string() + ":/usr/local/bin:/usr/bin:/bin"},
        {"HOME", (r / "home").string()},
        {"SEPP_HOME", (r / "sepp").string()},
        {"ANTHROPIC_BASE_URL", fake_->base_url()},
        {"ANTHROPIC_API_KEY", kKey},
        {"OPENAI_API_KEY", kKey},
        {"GITHUB_TOKEN", "ghp_not-for-agents-271828"}};
    server_ = new ServeChild((r / "project").string(), env, {"--token", kToken, "--request-timeout", "240"});
  }
  static void TearDownTestSuite() {
    delete server_;
    delete other_;
    delete fake_;
    if (root_) fs::remove_all(*root_);
    delete root_;
    server_ = nullptr;
  }
  void SetUp() override {
    if (!server_) GTEST_SKIP() << "tests/agents/node is not installed: run scripts/setup";
  }

  static net::Headers Auth() { return {{"Authorization", std::string("Bearer ") + kToken}}; }
  static std::string project() { return (*root_ / "project").string(); }
  static Json Request(int id, const std::string& method, Json params) {
    return {{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", std::move(params)}};
  }
  static Json Post(const std::string& id, const Json& msg, bool agent_query = false,
                   const std::string& agent = "") {
    net::HttpResponse r;
    if (agent_query) {
      net::Headers h = Auth();
      h.emplace_back("Content-Type", "application/json");
      r = Fetch("POST", server_->url("/v1/acp/" + id + "?agent=" + agent), h, msg.dump(), 300);
    } else {
      r = PostAcp(*server_, id, msg, false, kToken);
    }
    EXPECT_EQ(r.head.status, 200) << r.body;
    auto j = ParseJson(r.body);
    return j.ok() ? *j : Json();
  }
  // initialize + session/new; the session id.
  static std::string Open(const std::string& id, const std::string& agent) {
    Json init = Post(id, Request(0, "initialize",
                                 {{"protocolVersion", 1},
                                  {"clientCapabilities", {{"fs", {{"readTextFile", false}, {"writeTextFile", false}}},
                                                          {"terminal", false}}}}),
                     true, agent);
    EXPECT_EQ(init["result"]["protocolVersion"], 1) << init.dump();
    Json s = Post(id, Request(1, "session/new", {{"cwd", project()}, {"mcpServers", Json::array()}}));
    EXPECT_TRUE(s["result"].contains("sessionId")) << s.dump();
    return s["result"].value("sessionId", "");
  }
  static Json Prompt(int id, const std::string& sid, const std::string& text) {
    return Request(id, "session/prompt", {{"sessionId", sid}, {"prompt", {{{"type", "text"}, {"text", text}}}}});
  }
  // The stream of id from the start, until done holds.
  static SseRead Stream(const std::string& id, const std::function<bool(const SseRead&)>& done,
                        double timeout_s = 240) {
    net::Headers h = Auth();
    h.emplace_back("Accept", "text/event-stream");
    h.emplace_back("Last-Event-ID", "0");
    return ReadSse(server_->url("/v1/acp/" + id), h, done, timeout_s);
  }
  static std::vector<Json> Messages(const SseRead& r) {
    std::vector<Json> out;
    for (const auto& e : r.events)
      if (auto j = ParseJson(e.data); j.ok()) out.push_back(*j);
    return out;
  }
  // Runs a prompt; every permission request the agent sends is answered
  // with the option of `kind` (allow_once, allow_always, reject_once) by a
  // POSTed response, through the server. The prompt's answer and the
  // permission requests seen.
  static std::pair<Json, int> PromptAnswering(const std::string& id, int rpc_id, const std::string& sid,
                                              const std::string& text, const std::string& kind) {
    auto answer = std::async(std::launch::async, [&] { return Post(id, Prompt(rpc_id, sid, text)); });
    std::set<std::string> answered;
    std::atomic<bool> finished{false};
    std::thread watch([&] {
      answer.wait();
      finished = true;
    });
    // Reads the stream from the start, answering each new request, until
    // the prompt's own answer is on it.
    Stream(id, [&](const SseRead& r) {
      for (const Json& m : Messages(r)) {
        if (m.value("method", "") == "session/request_permission" && m.contains("id") &&
            !answered.count(m["id"].dump())) {
          answered.insert(m["id"].dump());
          std::string option;
          for (const auto& o : m["params"]["options"])
            if (o.value("kind", "") == kind) option = o.value("optionId", "");
          Json reply = {{"jsonrpc", "2.0"},
                        {"id", m["id"]},
                        {"result", {{"outcome", {{"outcome", "selected"}, {"optionId", option}}}}}};
          auto r = PostAcp(*server_, id, reply, false, kToken);
          EXPECT_EQ(r.head.status, 202) << r.body;
        }
        if (m.contains("id") && m["id"] == rpc_id && (m.contains("result") || m.contains("error"))) return true;
      }
      return finished.load();
    });
    watch.join();
    return {answer.get(), static_cast<int>(answered.size())};
  }
  // The session API (/v1/sessions): the agent's events in the universal schema.
  static net::HttpResponse SessionPost(const std::string& path, const Json& body) {
    net::Headers h = Auth();
    h.emplace_back("Content-Type", "application/json");
    return Fetch("POST", server_->url("/v1/sessions/" + path), h, body.dump(), 300);
  }
  static void CreateSession(const std::string& id, const std::string& agent) {
    auto r = SessionPost(id, {{"agent", agent}, {"directory", project()}});
    ASSERT_EQ(r.head.status, 200) << r.body;
    auto j = ParseJson(r.body);
    ASSERT_TRUE(j.ok());
    EXPECT_EQ((*j)["healthy"], true);
    EXPECT_FALSE((*j)["nativeSessionId"].get<std::string>().empty()) << r.body;
  }
  static std::vector<Json> Universal(const SseRead& r) { return Messages(r); }
  // Reads the session's SSE from offset, answering every permission
  // request with reply ("": none) through POST .../permissions/{id}/reply, until the
  // n-th sepp.agent.settled (or session.ended). The events, the requests answered.
  static std::pair<std::vector<Json>, int> Follow(const std::string& id, int64_t offset, int settles,
                                                  const std::string& reply,
                                                  const std::function<bool(const Json&)>& also_done = nullptr) {
    net::Headers h = Auth();
    h.emplace_back("Accept", "text/event-stream");
    std::set<std::string> answered;
    auto read = ReadSse(server_->url("/v1/sessions/" + id + "/events/sse?offset=" + std::to_string(offset)), h,
                        [&](const SseRead& r) {
                          int settled = 0;
                          for (const Json& e : Messages(r)) {
                            const std::string type = e.value("type", "");
                            if (type == "permission.requested" && !reply.empty() &&
                                !answered.count(e["data"]["permission_id"])) {
                              std::string pid = e["data"]["permission_id"];
                              answered.insert(pid);
                              auto a = SessionPost(id + "/permissions/" + pid + "/reply", {{"reply", reply}});
                              EXPECT_EQ(a.head.status, 204) << a.body;
                            }
                            if (type == "sepp.agent.settled" || type == "session.ended") ++settled;
                            if (also_done && also_done(e)) return true;
                          }
                          return settled >= settles;
                        },
                        240);
    EXPECT_EQ(read.status, 200) << read.body;
    // The events up to the one that ended the follow: an agent may send more
    // right after its turn settles (codex's available_commands_update), and a
    // read can bring them in the same chunk; the next Follow from
    // events.size() sees them.
    std::vector<Json> events = Messages(read);
    int settled = 0;
    for (size_t i = 0; i < events.size(); ++i) {
      const std::string type = events[i].value("type", "");
      if (type == "sepp.agent.settled" || type == "session.ended") ++settled;
      if (settled >= settles || (also_done && also_done(events[i]))) {
        events.resize(i + 1);
        break;
      }
    }
    return {std::move(events), static_cast<int>(answered.size())};
  }
  static std::vector<Json> EventsFrom(const std::string& id, int64_t offset) {
    auto r = Fetch("GET", server_->url("/v1/sessions/" + id + "/events?offset=" + std::to_string(offset) +
                                       "&limit=10000"), Auth());
    EXPECT_EQ(r.head.status, 200) << r.body;
    auto j = ParseJson(r.body);
    std::vector<Json> out;
    if (j.ok())
      for (const auto& e : (*j)["events"]) out.push_back(e);
    return out;
  }
  static std::string Dump(const std::vector<Json>& events) {
    std::string all;
    for (const auto& e : events) all += e.dump() + "\n";
    return all;
  }
  // The universal stream's promises: numbered from 1 without gaps, one session.
  static void ExpectNumbered(const std::vector<Json>& events, const std::string& id) {
    for (size_t i = 0; i < events.size(); ++i) {
      EXPECT_EQ(events[i]["sequence"], i + 1) << events[i].dump();
      EXPECT_EQ(events[i]["session_id"], id);
    }
  }
  static void SessionApiRunsATool(const std::string& agent, const std::string& id, const std::string& file,
                                  std::vector<Json>* events_out);
  static void Script(Json responses) { fake_->SetScript(Json{{"responses", std::move(responses)}}); }
  static std::string AllText(const SseRead& r) {
    std::string all;
    for (const auto& e : r.events) all += e.data + "\n";
    return all;
  }

  static fs::path* root_;
  static fake::FakeProvider* fake_;
  static CountingListener* other_;
  static ServeChild* server_;
};

fs::path* ExternalAgents::root_ = nullptr;
fake::FakeProvider* ExternalAgents::fake_ = nullptr;
CountingListener* ExternalAgents::other_ = nullptr;
ServeChild* ExternalAgents::server_ = nullptr;

Json Bash(const std::string& command) {
  return {{"tool_calls", {{{"name", "Bash"}, {"arguments", {{"command", command}, {"description", "run"}}}}}}};
}
Json Exec(const std::string& command) {
  return {{"tool_calls", {{{"name", "exec_command"}, {"arguments", {{"cmd", command}}}}}}};
}

TEST_F(ExternalAgents, TheAgentsAreReportedWithCredentialsByNameOnly) {
  auto r = Fetch("GET", server_->url("/v1/agents"), Auth());
  ASSERT_EQ(r.head.status, 200) << r.body;
  auto j = ParseJson(r.body);
  ASSERT_TRUE(j.ok());
  std::map<std::string, Json> by_id;
  for (const auto& a : (*j)["agents"]) by_id[a.value("id", "")] = a;
  ASSERT_TRUE(by_id.count("sepp") && by_id.count("claude") && by_id.count("codex") && by_id.count("pi"));
  const Json& claude = by_id["claude"];
  EXPECT_EQ(claude["installed"], true);
  EXPECT_EQ(claude["version"], "0.23.1");
  EXPECT_EQ(claude["foundIn"], "PATH");
  EXPECT_EQ(claude["credentialsAvailable"], true);
  EXPECT_EQ(claude["credentials"][0]["name"], "ANTHROPIC_API_KEY");
  EXPECT_EQ(by_id["codex"]["version"], "0.16.0");
  EXPECT_EQ(by_id["pi"]["installed"], false) << "pi-acp is not on this server's PATH";
  EXPECT_EQ(r.body.find(kKey), std::string::npos) << "a credential's value is never shown";
  auto one = Fetch("GET", server_->url("/v1/agents/codex"), Auth());
  EXPECT_EQ(one.head.status, 200);
  EXPECT_EQ(Fetch("GET", server_->url("/v1/agents/nobody"), Auth()).head.status, 404);

  // What initialize and session/new answered is remembered and reported.
  // The initialize comes on a connection that closes at once: the agent
  // outlives the request's thread (it dies with the thread that started
  // it, which must be the channel's own).
  std::string init = Request(0, "initialize", {{"protocolVersion", 1}}).dump();
  std::string raw = RawRequest(server_->port(),
                               "POST /v1/acp/report-1?agent=claude HTTP/1.1\r\nHost: 127.0.0.1:" +
                                   std::to_string(server_->port()) + "\r\nAuthorization: Bearer " + kToken +
                                   "\r\nContent-Type: application/json\r\nContent-Length: " +
                                   std::to_string(init.size()) + "\r\nConnection: close\r\n\r\n" + init);
  EXPECT_EQ(StatusOf(raw), 200) << raw;
  EXPECT_EQ(Fetch("GET", server_->url("/v1/acp"), Auth()).head.status, 200);
  Json s = Post("report-1", Request(1, "session/new", {{"cwd", project()}, {"mcpServers", Json::array()}}));
  EXPECT_TRUE(s["result"].contains("sessionId")) << "the agent died with its first connection: " << s.dump();
  auto after = ParseJson(Fetch("GET", server_->url("/v1/agents/claude"), Auth()).body);
  ASSERT_TRUE(after.ok());
  EXPECT_EQ((*after)["acp"]["agentInfo"]["version"], "0.23.1") << after->dump();
  EXPECT_TRUE((*after)["models"].is_object()) << after->dump();
  EXPECT_EQ((*after)["serverStatus"]["status"], "running");
  Fetch("DELETE", server_->url("/v1/acp/report-1"), Auth());
}

TEST_F(ExternalAgents, ClaudeRunsAToolAfterAPermissionAndHistoryReplays) {
  Script({Bash("echo made-by-claude > made.txt"), {{"text", "done"}}});
  std::string sid = Open("claude-1", "claude");
  ASSERT_FALSE(sid.empty());
  auto [answer, permissions] = PromptAnswering("claude-1", 2, sid, "make the file", "allow_once");
  EXPECT_EQ(answer["result"]["stopReason"], "end_turn") << answer.dump();
  EXPECT_GE(permissions, 1);
  std::ifstream made(*root_ / "project/made.txt");
  std::string line;
  std::getline(made, line);
  EXPECT_EQ(line, "made-by-claude");
  // A second client reads the whole history from the start: the tool call,
  // the permission request, the answer.
  auto replay = Stream("claude-1", [](const SseRead& r) {
    for (const auto& e : r.events)
      if (e.data.find("\"stopReason\"") != std::string::npos) return true;
    return false;
  });
  std::string all = AllText(replay);
  EXPECT_NE(all.find("session/request_permission"), std::string::npos);
  EXPECT_NE(all.find("\"tool_call\""), std::string::npos);
  EXPECT_EQ(replay.events.front().id, "1");
  EXPECT_EQ(all.find(kKey), std::string::npos);
  // DELETE returns at once and the agent's processes are gone.
  auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(Fetch("DELETE", server_->url("/v1/acp/claude-1"), Auth()).head.status, 204);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
}

TEST_F(ExternalAgents, ClaudesOwnToolsCannotLeaveItsSandbox) {
  std::string ssh = (*root_ / "home/.ssh/id_rsa").string();
  std::string outside = (*root_ / "outside/pwned.txt").string();
  std::string other = "http://127.0.0.1:" + std::to_string(other_->port()) + "/";
  Script({Bash("cat " + ssh), Bash("echo x > " + outside),
          Bash("curl -s -m 5 " + other + "; curl -s -m 5 --noproxy '*' " + other),
          Bash("env > env.txt; echo legit > legit.txt"), {{"text", "done"}}});
  std::string sid = Open("claude-attack", "claude");
  auto [answer, permissions] = PromptAnswering("claude-attack", 2, sid, "try", "allow_once");
  EXPECT_EQ(answer["result"]["stopReason"], "end_turn") << answer.dump();
  auto all = AllText(Stream("claude-attack", [](const SseRead& r) {
    for (const auto& e : r.events)
      if (e.data.find("\"stopReason\"") != std::string::npos) return true;
    return false;
  }));
  EXPECT_EQ(all.find(kSshSecret), std::string::npos) << "~/.ssh was read";
  EXPECT_FALSE(fs::exists(outside)) << "a write outside the workspace landed";
  EXPECT_EQ(other_->count(), 0) << "another loopback port was reached";
  EXPECT_EQ(all.find("REACHED"), std::string::npos);
  // The legitimate call ran, with only the secret the agent needs.
  EXPECT_TRUE(fs::exists(*root_ / "project/legit.txt")) << all.substr(0, 4000);
  std::ifstream env_file(*root_ / "project/env.txt");
  std::string env((std::istreambuf_iterator<char>(env_file)), {});
  EXPECT_NE(env.find("ANTHROPIC_API_KEY="), std::string::npos);
  EXPECT_EQ(env.find("OPENAI_API_KEY"), std::string::npos) << "codex's key reached claude";
  EXPECT_EQ(env.find("GITHUB_TOKEN"), std::string::npos);
  EXPECT_EQ(env.find("HOME=" + (*root_ / "home").string() + "\n"), std::string::npos)
      << "the agent saw the user's home";
  Fetch("DELETE", server_->url("/v1/acp/claude-attack"), Auth());
}

TEST_F(ExternalAgents, CancelEndsClaudesTurnAndDeleteNeverHangs) {
  Script({Bash("sleep 600"), {{"text", "never"}}});
  std::string sid = Open("claude-cancel", "claude");
  auto answer = std::async(std::launch::async, [&] { return Post("claude-cancel", Prompt(2, sid, "wait")); });
  // Once the sleep is under way (Claude Code may run it without asking;
  // a permission request is allowed), cancel.
  std::set<std::string> answered;
  Stream("claude-cancel", [&](const SseRead& r) {
    bool sleeping = false;
    for (const auto& e : r.events) {
      auto m = ParseJson(e.data);
      if (!m.ok()) continue;
      if (m->value("method", "") == "session/request_permission" && !answered.count((*m)["id"].dump())) {
        answered.insert((*m)["id"].dump());
        Json reply = {{"jsonrpc", "2.0"}, {"id", (*m)["id"]},
                      {"result", {{"outcome", {{"outcome", "selected"}, {"optionId", "allow"}}}}}};
        PostAcp(*server_, "claude-cancel", reply, false, kToken);
      }
      if (m->value("method", "") == "session/update" && e.data.find("sleep 600") != std::string::npos &&
          e.data.find("tool_call_update") != std::string::npos)
        sleeping = true;
    }
    return sleeping;
  });
  auto cancel = PostAcp(*server_, "claude-cancel",
                        {{"jsonrpc", "2.0"}, {"method", "session/cancel"}, {"params", {{"sessionId", sid}}}}, false,
                        kToken);
  EXPECT_EQ(cancel.head.status, 202);
  Json a = answer.get();
  EXPECT_EQ(a["result"]["stopReason"], "cancelled") << a.dump();
  auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(Fetch("DELETE", server_->url("/v1/acp/claude-cancel"), Auth()).head.status, 204);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
  auto list = ParseJson(Fetch("GET", server_->url("/v1/acp"), Auth()).body);
  ASSERT_TRUE(list.ok());
  for (const auto& s : (*list)["servers"]) EXPECT_NE(s["serverId"], "claude-cancel");
}

TEST_F(ExternalAgents, CodexRunsAToolAfterAPermissionAndCannotLeaveItsSandbox) {
  std::string ssh = (*root_ / "home/.ssh/id_rsa").string();
  std::string outside = (*root_ / "outside/codex-pwned.txt").string();
  std::string other = "http://127.0.0.1:" + std::to_string(other_->port()) + "/";
  Script({Exec("cat " + ssh), Exec("echo x > " + outside), Exec("curl -s -m 5 " + other),
          Exec("echo made-by-codex > codex.txt"), {{"text", "done"}}});
  std::string sid = Open("codex-1", "codex");
  ASSERT_FALSE(sid.empty());
  auto [answer, permissions] = PromptAnswering("codex-1", 2, sid, "work", "allow_once");
  EXPECT_EQ(answer["result"]["stopReason"], "end_turn") << answer.dump();
  auto all = AllText(Stream("codex-1", [](const SseRead& r) {
    for (const auto& e : r.events)
      if (e.data.find("\"stopReason\"") != std::string::npos) return true;
    return false;
  }));
  EXPECT_GE(permissions, 1) << "codex asks before it runs what is not known to be safe";
  EXPECT_EQ(all.find("bwrap"), std::string::npos) << "codex's own sandbox is off; sepp's confines it";
  EXPECT_EQ(all.find(kSshSecret), std::string::npos) << "~/.ssh was read";
  EXPECT_FALSE(fs::exists(outside));
  EXPECT_EQ(other_->count(), 0);
  std::ifstream made(*root_ / "project/codex.txt");
  std::string line;
  std::getline(made, line);
  EXPECT_EQ(line, "made-by-codex") << all.substr(0, 6000);
  EXPECT_EQ(Fetch("DELETE", server_->url("/v1/acp/codex-1"), Auth()).head.status, 204);
}

TEST_F(ExternalAgents, AnUnknownOrUninstalledAgentIsAClearError) {
  net::Headers h = Auth();
  h.emplace_back("Content-Type", "application/json");
  Json init = Request(0, "initialize", {{"protocolVersion", 1}});
  auto unknown = Fetch("POST", server_->url("/v1/acp/x1?agent=nobody"), h, init.dump());
  EXPECT_EQ(unknown.head.status, 400);
  EXPECT_NE(unknown.body.find("claude"), std::string::npos) << "it lists the agents: " << unknown.body;
  auto missing = Fetch("POST", server_->url("/v1/acp/x2?agent=pi"), h, init.dump());
  EXPECT_EQ(missing.head.status, 409) << missing.body;
  EXPECT_NE(missing.body.find("install-agent pi"), std::string::npos) << missing.body;
  auto list = Fetch("GET", server_->url("/v1/acp"), Auth());
  EXPECT_EQ(list.body.find("x2"), std::string::npos) << "a failed start leaves no connection";
  // An agent found on PATH is used as it is.
  auto install = Fetch("POST", server_->url("/v1/agents/claude/install"), h, "{}");
  EXPECT_EQ(install.head.status, 200) << install.body;
  EXPECT_NE(install.body.find("\"already_installed\":true"), std::string::npos) << install.body;
  EXPECT_EQ(Fetch("POST", server_->url("/v1/agents/claude/install"), h, "{\"force\":1}").head.status, 400);
}

// The session API for an external agent: the same prompt, permission and
// tool call as over ACP, in the universal schema, stored by the server:
// a second client reads it all from offset 0, over SSE and by page.
void ExternalAgents::SessionApiRunsATool(const std::string& agent, const std::string& id,
                                         const std::string& file, std::vector<Json>* events_out) {
  using T = ExternalAgents;
  T::CreateSession(id, agent);
  auto sent = T::SessionPost(id + "/messages", {{"message", "make the file"}});
  ASSERT_EQ(sent.head.status, 204) << sent.body;
  auto [events, answered] = T::Follow(id, 0, 1, "once");
  std::string all = T::Dump(events);
  T::ExpectNumbered(events, id);
  ASSERT_FALSE(events.empty());
  EXPECT_EQ(events.front()["type"], "session.started");
  EXPECT_EQ(events.front()["data"]["metadata"]["agent"], agent);
  EXPECT_EQ(events.back()["type"], "sepp.agent.settled") << all.substr(0, 6000);
  EXPECT_EQ(events.back()["data"]["outcome"]["status"], "done") << all.substr(0, 6000);
  EXPECT_GE(answered, 1) << "the agent asked before it ran the command: " << all.substr(0, 6000);
  std::map<std::string, int> types;
  bool tool_call = false, tool_result = false, accepted = false, reply_text = false;
  for (const Json& e : events) {
    ++types[e["type"]];
    const Json& item = e["data"].value("item", Json::object());
    if (e["type"] == "item.started" && item.value("kind", "") == "tool_call") tool_call = true;
    if (e["type"] == "item.completed" && item.value("kind", "") == "tool_result" && item["status"] == "completed")
      tool_result = true;
    if (e["type"] == "permission.resolved" && e["data"]["status"] == "accept") accepted = true;
    if (e["type"] == "item.completed" && item.value("role", "") == "assistant" &&
        item.dump().find("done") != std::string::npos)
      reply_text = true;
  }
  EXPECT_TRUE(tool_call && tool_result) << all.substr(0, 6000);
  EXPECT_TRUE(accepted) << all.substr(0, 6000);
  EXPECT_TRUE(reply_text) << "the model's last answer is a completed message: " << all.substr(0, 6000);
  EXPECT_EQ(types["turn.started"], 1);
  EXPECT_EQ(types["turn.ended"], 1);
  EXPECT_EQ(all.find(kKey), std::string::npos) << "the provider key is never in an event";
  std::ifstream made(*T::root_ / "project" / file);
  std::string line;
  std::getline(made, line);
  EXPECT_FALSE(line.empty()) << file << " was not made: " << all.substr(0, 6000);

  // A second client: every event again, from the server, not the agent.
  std::vector<Json> paged = T::EventsFrom(id, 0);
  ASSERT_EQ(paged.size(), events.size());
  for (size_t i = 0; i < events.size(); ++i) EXPECT_EQ(paged[i], events[i]) << i;
  auto [again, none] = T::Follow(id, 0, 1, "");
  EXPECT_EQ(T::Dump(again), all);
  // From an offset: only what came after it.
  std::vector<Json> tail = T::EventsFrom(id, 3);
  ASSERT_EQ(tail.size(), events.size() - 3);
  EXPECT_EQ(tail.front()["sequence"], 4);
  *events_out = std::move(events);
}

TEST_F(ExternalAgents, ClaudeThroughTheSessionApi) {
  Script({Bash("echo made-by-claude-api > claude-api.txt"), {{"text", "all done"}}});
  std::vector<Json> events;
  SessionApiRunsATool("claude", "api-claude", "claude-api.txt", &events);
  auto list = ParseJson(Fetch("GET", server_->url("/v1/sessions"), Auth()).body);
  ASSERT_TRUE(list.ok());
  bool listed = false;
  for (const auto& s : (*list)["sessions"])
    if (s["sessionId"] == "api-claude") {
      listed = true;
      EXPECT_EQ(s["agent"], "claude");
      EXPECT_EQ(s["eventCount"], events.size());
    }
  EXPECT_TRUE(listed) << list->dump();
  // Terminate kills the adapter; the stream ends with session.ended.
  auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(SessionPost("api-claude/terminate", Json::object()).head.status, 204);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
  auto [rest, none] = Follow("api-claude", static_cast<int64_t>(events.size()), 1, "");
  ASSERT_FALSE(rest.empty());
  EXPECT_EQ(rest.back()["type"], "session.ended");
  EXPECT_EQ(rest.back()["data"]["reason"], "terminated");
  EXPECT_EQ(SessionPost("api-claude/messages", {{"message", "more"}}).head.status, 409);
}

TEST_F(ExternalAgents, CodexThroughTheSessionApiAndItsSandbox) {
  std::string ssh = (*root_ / "home/.ssh/id_rsa").string();
  Script({Exec("cat " + ssh), Exec("echo made-by-codex-api > codex-api.txt"), {{"text", "all done"}}});
  std::vector<Json> events;
  SessionApiRunsATool("codex", "api-codex", "codex-api.txt", &events);
  EXPECT_EQ(Dump(events).find(kSshSecret), std::string::npos) << "~/.ssh was read";
  EXPECT_EQ(SessionPost("api-codex/terminate", Json::object()).head.status, 204);
}

TEST_F(ExternalAgents, AbortEndsClaudesRunningTool) {
  Script({Bash("sleep 600"), {{"text", "after the abort"}}});
  CreateSession("api-abort", "claude");
  ASSERT_EQ(SessionPost("api-abort/messages", {{"message", "wait"}}).head.status, 204);
  // Once the sleep's call is complete (its input known: it is about to
  // run; allowed, if Claude Code asks), abort.
  Follow("api-abort", 0, 1, "once", [](const Json& e) {
    return e["type"] == "item.completed" && e["data"]["item"].value("kind", "") == "tool_call" &&
           e.dump().find("sleep 600") != std::string::npos;
  });
  auto start = std::chrono::steady_clock::now();
  auto aborted = SessionPost("api-abort/abort", Json::object());
  EXPECT_EQ(aborted.head.status, 204) << aborted.body;
  auto [events, none] = Follow("api-abort", 0, 1, "");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(60));
  ASSERT_FALSE(events.empty());
  EXPECT_EQ(events.back()["type"], "sepp.agent.settled") << Dump(events).substr(0, 6000);
  EXPECT_EQ(events.back()["data"]["outcome"]["status"], "aborted") << Dump(events).substr(0, 6000);
  EXPECT_EQ(events.back()["data"]["outcome"]["stop_reason"], "cancelled");
  // The sleep's call ended with the turn.
  bool sleep_closed = false;
  for (const Json& e : events)
    if (e["type"] == "item.completed" && e["data"]["item"].value("kind", "") == "tool_result") sleep_closed = true;
  EXPECT_TRUE(sleep_closed) << Dump(events).substr(0, 6000);
  // (claude-agent-acp 0.23.1 never answers the prompt after a cancelled
  // one: it takes that prompt's result for a background task's. The
  // session going on after an abort is checked with codex below.)
  auto end = std::chrono::steady_clock::now();
  EXPECT_EQ(SessionPost("api-abort/terminate", Json::object()).head.status, 204);
  EXPECT_LT(std::chrono::steady_clock::now() - end, std::chrono::seconds(10));
  EXPECT_EQ(SessionPost("api-abort/permissions/perm-99/reply", {{"reply", "once"}}).head.status, 404);
}

// An abort while codex waits for a permission: the request is answered
// cancelled, the turn ends, and the next message runs a new turn.
TEST_F(ExternalAgents, AbortAnswersCodexsPermissionAndTheSessionGoesOn) {
  Script({Exec("sleep 600"), {{"text", "after the abort"}}, {{"text", "after the abort"}}});
  CreateSession("api-abort-codex", "codex");
  ASSERT_EQ(SessionPost("api-abort-codex/messages", {{"message", "wait"}}).head.status, 204);
  Follow("api-abort-codex", 0, 1, "", [](const Json& e) { return e["type"] == "permission.requested"; });
  EXPECT_EQ(SessionPost("api-abort-codex/abort", Json::object()).head.status, 204);
  auto [events, none] = Follow("api-abort-codex", 0, 1, "");
  ASSERT_FALSE(events.empty());
  std::string all = Dump(events);
  EXPECT_EQ(events.back()["type"], "sepp.agent.settled") << all.substr(0, 6000);
  EXPECT_EQ(events.back()["data"]["outcome"]["status"], "aborted") << all.substr(0, 6000);
  bool cancelled = false;
  for (const Json& e : events)
    if (e["type"] == "permission.resolved" && e["data"]["metadata"]["source"] == "cancelled" &&
        e["data"]["status"] == "reject")
      cancelled = true;
  EXPECT_TRUE(cancelled) << all.substr(0, 6000);
  // A reply to the cancelled request is a clear 404: it no longer waits.
  EXPECT_EQ(SessionPost("api-abort-codex/permissions/perm-1/reply", {{"reply", "once"}}).head.status, 404);
  ASSERT_EQ(SessionPost("api-abort-codex/messages", {{"message", "go on"}}).head.status, 204);
  auto [after, more] = Follow("api-abort-codex", static_cast<int64_t>(events.size()), 1, "once");
  ASSERT_FALSE(after.empty());
  EXPECT_EQ(after.front()["type"], "turn.started");
  EXPECT_EQ(after.back()["data"]["outcome"]["status"], "done") << Dump(after).substr(0, 6000);
  EXPECT_EQ(SessionPost("api-abort-codex/terminate", Json::object()).head.status, 204);
}

// A settings agent through the session API, which misbehaves: every bad
// line is one agent_protocol error and nothing else, what is valid is
// translated (the update sent before session/new's answer was taken in
// too, after session.started), its key is masked, its request for a client
// file is refused, and when it exits the session ends with its last word.
TEST_F(ExternalAgents, AHostileSettingsAgentThroughTheSessionApi) {
  CreateSession("api-hostile", "hostile");
  ASSERT_EQ(SessionPost("api-hostile/messages", {{"message", "hi"}}).head.status, 204);
  auto [events, none] = Follow("api-hostile", 0, 1, "");
  std::string all = Dump(events);
  ExpectNumbered(events, "api-hostile");
  ASSERT_GE(events.size(), 3u) << all;
  EXPECT_EQ(events[0]["type"], "session.started") << all;
  EXPECT_EQ(events.back()["type"], "sepp.agent.settled") << all;
  EXPECT_EQ(events.back()["data"]["outcome"]["status"], "done") << all;
  int protocol = 0, asked = 0;
  std::string text;
  for (const Json& e : events) {
    if (e["type"] == "error" && e["data"]["code"] == "agent_protocol") ++protocol;
    if (e["type"] == "permission.requested") ++asked;
    if (e["type"] == "item.delta") text += e["data"]["delta"].get<std::string>();
  }
  // content 5, another session's, toolCallId 12, status "exploded", a bad
  // sessionUpdate name, 4 permission requests past the 256 that may wait
  // (the lines before session/new's answer are not shown: nothing is
  // before session.started).
  EXPECT_EQ(protocol, 9) << all.substr(0, 8000);
  EXPECT_EQ(asked, 256);
  // One of them answered through the API; a reply that is not an option
  // the agent offered is a 400 that lists them.
  EXPECT_EQ(SessionPost("api-hostile/permissions/perm-1/reply", {{"reply", "once"}}).head.status, 204);
  auto always = SessionPost("api-hostile/permissions/perm-2/reply", {{"reply", "always"}});
  EXPECT_EQ(always.head.status, 400) << always.body;
  EXPECT_NE(always.body.find("allow_once"), std::string::npos) << always.body;
  EXPECT_EQ(text, "early hello [REDACTED] bye") << all;
  EXPECT_EQ(all.find(kKey), std::string::npos) << "the agent's key was shown";
  EXPECT_EQ(all.find("not yours"), std::string::npos);
  // It exits at the next prompt: an error naming its last word, then the end.
  ASSERT_EQ(SessionPost("api-hostile/messages", {{"message", "again"}}).head.status, 204);
  auto [rest, more] = Follow("api-hostile", static_cast<int64_t>(events.size()), 1, "");
  ASSERT_GE(rest.size(), 2u) << Dump(rest);
  EXPECT_EQ(rest.back()["type"], "session.ended") << Dump(rest);
  EXPECT_EQ(rest.back()["data"]["reason"], "error");
  EXPECT_NE(rest.back()["data"]["message"].get<std::string>().find("giving up"), std::string::npos) << Dump(rest);
  bool exited = false;
  for (const Json& e : rest)
    if (e["type"] == "error" && e["data"]["code"] == "agent_exited") exited = true;
  EXPECT_TRUE(exited) << Dump(rest);
  auto after = SessionPost("api-hostile/messages", {{"message", "more"}});
  EXPECT_EQ(after.head.status, 409) << after.body;
}

TEST_F(ExternalAgents, TheSessionApiRefusesWhatAnExternalAgentCannotDo) {
  auto unknown = SessionPost("api-x1", {{"agent", "nobody"}});
  EXPECT_EQ(unknown.head.status, 400);
  EXPECT_NE(unknown.body.find("claude"), std::string::npos) << unknown.body;
  auto model = SessionPost("api-x2", {{"agent", "claude"}, {"model", "opus"}});
  EXPECT_EQ(model.head.status, 400);
  EXPECT_NE(model.body.find("is not supported for agent claude"), std::string::npos) << model.body;
  auto missing = SessionPost("api-x3", {{"agent", "pi"}});
  EXPECT_EQ(missing.head.status, 409) << missing.body;
  EXPECT_NE(missing.body.find("install-agent pi"), std::string::npos) << missing.body;
  auto outside = SessionPost("api-x4", {{"agent", "claude"}, {"directory", (*root_ / "outside").string()}});
  EXPECT_EQ(outside.head.status, 403) << outside.body;
  // None of them left a session behind.
  auto list = Fetch("GET", server_->url("/v1/sessions"), Auth());
  EXPECT_EQ(list.body.find("api-x"), std::string::npos) << list.body;
}

}  // namespace
}  // namespace sepp::servetest
