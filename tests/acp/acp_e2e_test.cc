// `sepp --acp` end to end, the parts a well-behaved SDK client never does:
// garbage on stdin, stdin closed mid-turn, a client that stops reading
// stdout. Against the in-process fake provider.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <tuple>
#include <thread>

#include <random>

#include "acp/acp_child.h"
#include "base/strings.h"
#include "front/acp/jsonrpc.h"
#include "acp/acp_sepp_fixture.h"

namespace sepp::acptest {
namespace {

namespace fs = std::filesystem;

class AcpE2e : public AcpSeppTest {
 protected:
  AcpE2e() : AcpSeppTest("acp-e2e") {}
  std::unique_ptr<AcpChild> Start() { return std::make_unique<AcpChild>(cwd(), Env()); }
  void Initialize(AcpChild& c) {
    Json r = c.Call(0, "initialize", {{"protocolVersion", 1}, {"clientCapabilities", Json::object()}});
    ASSERT_TRUE(r.contains("result")) << r.dump();
  }
  std::string NewSession(AcpChild& c, int id) {
    Json r = c.Call(id, "session/new", {{"cwd", cwd()}, {"mcpServers", Json::array()}});
    EXPECT_TRUE(r.contains("result")) << r.dump();
    return r.contains("result") ? r["result"].value("sessionId", "") : "";
  }
  Json Prompt(const std::string& sid, int id, const std::string& text) {
    return {{"jsonrpc", "2.0"}, {"id", id}, {"method", "session/prompt"},
            {"params", {{"sessionId", sid}, {"prompt", {{{"type", "text"}, {"text", text}}}}}}};
  }
  // Waits (bounded) until the fake provider has seen n requests.
  bool WaitForRequests(size_t n) {
    for (int i = 0; i < 6000; ++i) {
      if (fake_.requests().size() >= n) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return false;
  }

};

TEST_F(AcpE2e, EveryBadLineGetsOneErrorAndTheSessionGoesOn) {
  auto c = Start();
  // Before initialize, a request is refused with the reason.
  Json early = c->Call(1, "session/new", {{"cwd", cwd()}});
  EXPECT_EQ(early["error"]["code"], -32600);
  EXPECT_NE(early["error"]["message"].get<std::string>().find("initialize"), std::string::npos);
  Initialize(*c);
  c->SendRaw("this is not json\n{\"jsonrpc\":\"2.0\",\"id\":2}\n[1,2]\n\n{\"jsonrpc\":\"2.0\",\"method\":\"session/cancel\",\"params\":{\"sessionId\":\"none\"}}\n");
  c->SendRaw(std::string(70u << 20, 'x') + "\n");  // longer than the 64 MiB limit
  Json after = c->Call(3, "session/list", Json::object());
  ASSERT_TRUE(after.contains("result")) << after.dump();
  int errors = 0;
  for (const Json& m : c->seen())
    if (m.contains("error")) ++errors;
  // early, not json, no method, batch, too long: one each; the blank line and
  // the notification get nothing.
  EXPECT_EQ(errors, 5);
  c->CloseStdin();
  EXPECT_EQ(c->Wait(), 0) << c->stderr_text();
}

// Thousands of mutated lines at the binary: it stays up and answers each
// line exactly as often as JSON-RPC says (an error for a bad line, one
// answer per request, nothing for notifications and responses).
TEST_F(AcpE2e, MutatedTrafficGetsExactlyOneAnswerPerLineThatNeedsOne) {
  const std::string seeds[] = {
      R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}})",
      R"({"jsonrpc":"2.0","id":2,"method":"session/list","params":{}})",
      R"({"jsonrpc":"2.0","id":3,"method":"session/set_mode","params":{"sessionId":"x","modeId":"ask"}})",
      R"({"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"x"}})",
      R"({"jsonrpc":"2.0","id":4,"result":{"outcome":{"outcome":"cancelled"}}})",
  };
  const char alphabet[] = "{}[]\":,\\0123456789-.truefalsnl \xff\xc3";
  std::mt19937 rng(7);
  auto c = Start();
  std::string batch;
  int expected = 0;
  for (int i = 0; i < 3000; ++i) {
    std::string s = seeds[rng() % std::size(seeds)];
    for (int k = 0, n = 1 + rng() % 3; k < n && !s.empty(); ++k) {
      size_t at = rng() % s.size();
      switch (rng() % 3) {
        case 0: s[at] = alphabet[rng() % (sizeof alphabet - 1)]; break;
        case 1: s.erase(at, 1 + rng() % 6); break;
        case 2: s.insert(at, 1, alphabet[rng() % (sizeof alphabet - 1)]); break;
      }
    }
    if (s.find('\n') != std::string::npos || sepp::Trim(s).empty()) continue;
    auto p = front::jsonrpc::ParseMessage(s);
    bool request = p.message && p.message->kind == front::jsonrpc::Message::Kind::kRequest;
    // A mutated prompt would start real work; this test is about framing.
    if (request && p.message->method == "session/prompt") continue;
    expected += (!p.error_response.is_null() || request) ? 1 : 0;
    batch += s + "\n";
  }
  c->SendRaw(batch);
  Json done = c->Call("sentinel", "session/list", Json::object());
  ASSERT_FALSE(done.is_null()) << c->stderr_text();
  int answers = -1;  // the sentinel's own
  for (const Json& m : c->seen())
    if (!m.contains("method")) ++answers;
  EXPECT_EQ(answers, expected);
  EXPECT_GT(expected, 1000);
  c->CloseStdin();
  EXPECT_EQ(c->Wait(), 0) << c->stderr_text();
}

TEST_F(AcpE2e, StdinClosedMidTurnEndsTheTurnAndKeepsTheSessionValid) {
  fake_.SetScript({{"responses", {{{"tool_calls", {{{"name", "bash"}, {"arguments", {{"command", "sleep 30"}}}}}}}}}});
  auto c = Start();
  Initialize(*c);
  std::string sid = NewSession(*c, 1);
  c->Send(Prompt(sid, 2, "wait for it"));
  // Until the bash call is running.
  for (;;) {
    auto m = c->Next();
    ASSERT_TRUE(m) << c->stderr_text();
    if (m->value("method", "") == "session/update" &&
        (*m)["params"]["update"].value("sessionUpdate", "") == "tool_call")
      break;
  }
  c->CloseStdin();
  Json answer = c->Response(2);
  EXPECT_EQ(answer["result"]["stopReason"], "cancelled") << answer.dump();
  EXPECT_EQ(c->Wait(), 0) << c->stderr_text();

  // A fresh process loads it: the file is whole.
  auto again = Start();
  Initialize(*again);
  Json loaded = again->Call(5, "session/load", {{"sessionId", sid}, {"cwd", cwd()}, {"mcpServers", Json::array()}});
  ASSERT_TRUE(loaded.contains("result")) << loaded.dump() << again->stderr_text();
  auto replay = UpdatesOf(again->seen(), sid);
  ASSERT_FALSE(replay.empty());
  EXPECT_EQ(replay[0]["sessionUpdate"], "user_message_chunk");
  EXPECT_EQ(replay[0]["content"]["text"], "wait for it");
  again->CloseStdin();
  EXPECT_EQ(again->Wait(), 0);
}

// --record in --acp mode writes every exchange of the process's sessions
// to a cassette; --replay answers a fresh process from it with no provider
// and no key (docs/replay.md), with the same tool work; a cassette that
// does not fit the run (a different prompt) is reported and exits 3.
TEST_F(AcpE2e, RecordThenReplayWithoutProviderOrKey) {
  std::string cassette = (root_ / "acp.cassette").string();
  fake_.SetScript({{"responses",
                    {{{"tool_calls", {{{"name", "write"},
                                       {"arguments", {{"path", "made.txt"}, {"content", "from the model\n"}}}}}}},
                     {{"text", "wrote it"}}}}});
  auto run = [&](const std::map<std::string, std::string>& env, std::vector<std::string> args,
                 const std::string& text) {
    AcpChild c(cwd(), env, args);
    Initialize(c);
    std::string sid = NewSession(c, 1);
    c.Send(Prompt(sid, 2, text));
    Json answer = c.Response(2);
    std::string said;
    for (const auto& u : UpdatesOf(c.seen(), sid))
      if (u.value("sessionUpdate", "") == "agent_message_chunk") said += u["content"].value("text", "");
    c.CloseStdin();
    int rc = c.Wait();
    return std::tuple{answer, said, rc, c.stderr_text()};
  };
  auto [rec, rec_said, rec_rc, rec_err] = run(Env(), {"--record", cassette}, "make the file");
  EXPECT_EQ(rec["result"]["stopReason"], "end_turn") << rec.dump() << rec_err;
  EXPECT_EQ(rec_rc, 0) << rec_err;
  EXPECT_EQ(rec_said, "wrote it");
  ASSERT_TRUE(fs::exists(cassette));
  ASSERT_EQ(fake_.requests().size(), 2u);
  fs::remove(root_ / "project" / "made.txt");

  // No base URL, no key: only the cassette can answer.
  std::map<std::string, std::string> bare = {{"HOME", (root_ / "home").string()},
                                             {"SEPP_HOME", (root_ / "home").string()}};
  auto [play, play_said, play_rc, play_err] = run(bare, {"--replay", cassette}, "make the file");
  EXPECT_EQ(play["result"]["stopReason"], "end_turn") << play.dump() << play_err;
  EXPECT_EQ(play_rc, 0) << play_err;
  EXPECT_EQ(play_said, "wrote it");
  EXPECT_EQ(fake_.requests().size(), 2u);  // the provider was not asked again
  std::ifstream made(root_ / "project" / "made.txt");
  std::string content((std::istreambuf_iterator<char>(made)), {});
  EXPECT_EQ(content, "from the model\n");

  // Strict replay of another conversation: told, exit 3.
  auto [odd, odd_said, odd_rc, odd_err] = run(bare, {"--replay", cassette}, "something else");
  EXPECT_EQ(odd_rc, 3) << odd_err;
  EXPECT_NE(odd_err.find("cassette"), std::string::npos) << odd_err;
  // And the flags are checked like -p's.
  AcpChild bad(cwd(), bare, {"--replay-mode", "lenient"});  // without --replay
  EXPECT_EQ(bad.Wait(), 2) << bad.stderr_text();
}

// The client stops reading while a turn floods stdout. Its cancel and its
// next request must still be acted on: the second session's prompt reaching
// the provider, while nothing has been read, proves the reader was free.
TEST_F(AcpE2e, AClientThatStopsReadingCannotDeadlockCancel) {
  std::string flood(3u << 20, 'z');  // ~260k streamed pieces, far past the pipe
  fake_.SetScript({{"responses",
                    {{{"text", flood}, {"tool_calls", {{{"name", "bash"}, {"arguments", {{"command", "sleep 30"}}}}}}},
                     {{"text", "second"}}}}});
  auto c = Start();
  Initialize(*c);
  std::string a = NewSession(*c, 1);
  std::string b = NewSession(*c, 2);
  c->Send(Prompt(a, 3, "flood"));
  ASSERT_TRUE(WaitForRequests(1));
  // From here on nothing is read until both requests went through.
  c->Send({{"jsonrpc", "2.0"}, {"method", "session/cancel"}, {"params", {{"sessionId", a}}}});
  c->Send(Prompt(b, 4, "are you there"));
  ASSERT_TRUE(WaitForRequests(2)) << "the second prompt never reached the provider: the reader is stuck";
  Json first = c->Response(3);
  EXPECT_EQ(first["result"]["stopReason"], "cancelled") << first.dump();
  Json second = c->Response(4);
  EXPECT_EQ(second["result"]["stopReason"], "end_turn") << second.dump();
  c->CloseStdin();
  EXPECT_EQ(c->Wait(), 0) << c->stderr_text();
}

}  // namespace
}  // namespace sepp::acptest

namespace sepp::acptest {
namespace {

// Prompt templates over ACP: listed in available_commands_update after
// session/new, and "/name args" expands before the provider sees it.
TEST_F(AcpE2e, TemplatesAreAvailableCommandsAndExpandWithArguments) {
  fs::create_directories(root_ / "project/.claude/commands");
  std::ofstream(root_ / "project/.claude/commands/explain.md")
      << "---\ndescription: Explain a file\nargument-hint: <file>\n---\nExplain $0 in depth.\n";
  fake_.SetScript({{"responses", {{{"text", "explained"}}}}});
  auto c = Start();
  Initialize(*c);
  std::string sid = NewSession(*c, 1);
  c->Send(Prompt(sid, 2, "/explain main.c please"));
  Json answer = c->Response(2);
  EXPECT_EQ(answer["result"]["stopReason"], "end_turn") << answer.dump() << c->stderr_text();
  bool listed = false;
  for (const Json& u : UpdatesOf(c->seen(), sid))
    if (u.value("sessionUpdate", "") == "available_commands_update")
      for (const Json& cmd : u["availableCommands"])
        if (cmd.value("name", "") == "explain") {
          listed = true;
          EXPECT_EQ(cmd["description"], "Explain a file");
          EXPECT_EQ(cmd["input"]["hint"], "<file>");
        }
  EXPECT_TRUE(listed);
  auto reqs = fake_.requests();
  ASSERT_EQ(reqs.size(), 1u);
  std::string body = reqs[0].body.dump();
  EXPECT_NE(body.find("Explain main.c in depth."), std::string::npos) << body;
  EXPECT_EQ(body.find("/explain"), std::string::npos);
  c->CloseStdin();
  EXPECT_EQ(c->Wait(), 0) << c->stderr_text();
}

}  // namespace
}  // namespace sepp::acptest
