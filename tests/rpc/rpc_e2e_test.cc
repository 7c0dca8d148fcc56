// The sepp binary in RPC mode, spawned the way pi-acp spawns pi, against the
// fake provider.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "rpc_child.h"
#include "support/fake_provider.h"

namespace sepp::rpc_test {
namespace {

namespace fs = std::filesystem;

class RpcE2E : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/sepp-rpc-e2e-XXXXXX";
    root_ = mkdtemp(tmpl);
    fs::create_directories(root_ / "home");
    fs::create_directories(root_ / "work");
    ASSERT_TRUE(fp_.Start().ok());
  }
  void TearDown() override {
    fp_.Stop();
    std::error_code ec;
    fs::remove_all(root_, ec);
  }
  std::map<std::string, std::string> Env() {
    return {{"PATH", "/usr/bin:/bin"},
            {"HOME", root_.string()},
            {"SEPP_HOME", (root_ / "home").string()},
            {"ANTHROPIC_BASE_URL", fp_.base_url()},
            {"ANTHROPIC_API_KEY", "sk-test-rpc-e2e"}};
  }
  void Start(Child& c, std::vector<std::string> extra = {}) {
    std::vector<std::string> argv = {std::string(SEPP_BINARY_DIR) + "/sepp", "--mode", "rpc",
                                     "--no-themes"};
    argv.insert(argv.end(), extra.begin(), extra.end());
    ASSERT_TRUE(c.Start(argv, Env(), (root_ / "work").string(), (root_ / "stderr.txt").string()));
  }
  std::string Stderr() {
    std::ifstream in(root_ / "stderr.txt");
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
  fs::path root_;
  fake::FakeProvider fp_;
};

TEST_F(RpcE2E, APromptRoundTripWithPiFlagsAndOnlyProtocolOnStdout) {
  fp_.SetScript({{"responses",
                  {{{"tool_calls", {{{"name", "ls"}, {"arguments", {{"path", "."}}}}}}},
                   {{"text", "all done"}}}}});
  Child c;
  Start(c);
  ASSERT_TRUE(c.Send(Json{{"id", "s1"}, {"type", "get_state"}}));
  auto st = c.Until("response", "s1");
  ASSERT_FALSE(st.empty());
  ASSERT_TRUE(st.back()["success"].get<bool>()) << st.back().dump();
  std::string file = st.back()["data"].value("sessionFile", "");
  EXPECT_TRUE(fs::exists(file)) << file;
  ASSERT_TRUE(c.Send(Json{{"id", "p1"}, {"type", "prompt"}, {"message", "list"}}));
  auto ev = c.Until("agent_settled");
  ASSERT_FALSE(ev.empty());
  std::vector<std::string> types;
  for (const auto& j : ev) {
    ASSERT_FALSE(j.contains("unparsable")) << j.dump();
    types.push_back(j.value("type", ""));
  }
  for (const char* t : {"agent_start", "turn_start", "message_start", "message_update",
                        "message_end", "tool_execution_start", "tool_execution_end", "turn_end",
                        "agent_end", "agent_settled"})
    EXPECT_NE(std::find(types.begin(), types.end(), t), types.end()) << t;
  c.Send(Json{{"id", "t"}, {"type", "get_last_assistant_text"}});
  auto t = c.Until("response", "t");
  EXPECT_EQ(t.back()["data"]["text"], "all done");
  c.CloseStdin();
  EXPECT_EQ(c.Wait(), 0);
  // The key never reached stdout or stderr.
  EXPECT_EQ(Stderr().find("sk-test-rpc-e2e"), std::string::npos);

  // pi-acp's session/load: --session FILE gives the history back.
  Child again;
  Start(again, {"--session", file});
  again.Send(Json{{"id", "m"}, {"type", "get_messages"}});
  auto m = again.Until("response", "m");
  ASSERT_TRUE(m.back()["success"].get<bool>()) << m.back().dump() << Stderr();
  auto msgs = m.back()["data"]["messages"];
  ASSERT_EQ(msgs.size(), 4u) << msgs.dump();
  EXPECT_EQ(msgs[0]["role"], "user");
  EXPECT_EQ(msgs[2]["role"], "toolResult");
  EXPECT_EQ(msgs[3]["content"][0]["text"], "all done");
}

// pi's "bash": the user's command runs in the session sandbox (the model's
// confinement), its output streams and is recorded in the session;
// "abort_bash" ends a running one.
TEST_F(RpcE2E, TheUsersBashRunsConfinedIsRecordedAndCanBeAborted) {
  Child c;
  Start(c);
  c.Send(Json{{"id", "s"}, {"type", "get_state"}});
  std::string file = c.Until("response", "s").back()["data"].value("sessionFile", "");
  ASSERT_FALSE(file.empty());

  // Legitimate work: output, an exit code, a file in the workspace.
  c.Send(Json{{"id", "b1"}, {"type", "bash"}, {"command", "echo out; echo made > made.txt; exit 3"}});
  auto b1 = c.Until("response", "b1");
  ASSERT_FALSE(b1.empty());
  const Json& r1 = b1.back();
  ASSERT_TRUE(r1.value("success", false)) << r1.dump();
  EXPECT_EQ(r1["data"].value("output", ""), "out\n");
  EXPECT_EQ(r1["data"]["exitCode"], 3);
  EXPECT_FALSE(r1["data"].value("cancelled", true));
  bool streamed = false;
  for (const auto& j : b1)
    if (j.value("type", "") == "bash_execution_update" && j.value("id", "") == "b1") streamed = true;
  EXPECT_TRUE(streamed);
  EXPECT_TRUE(fs::exists(root_ / "work" / "made.txt"));

  // The attack: the same command line reaching the network (the fake
  // provider listens on the host's loopback) is refused like the model's.
  std::string port = fp_.base_url().substr(fp_.base_url().rfind(':') + 1);
  c.Send(Json{{"id", "b2"}, {"type", "bash"},
              {"command", "exec 3<>/dev/tcp/127.0.0.1/" + port + " && echo connected"}});
  const Json r2 = c.Until("response", "b2").back();
  ASSERT_TRUE(r2.value("success", false)) << r2.dump();
  EXPECT_NE(r2["data"]["exitCode"], 0) << r2.dump();
  EXPECT_EQ(r2["data"].value("output", "").find("connected\n"), std::string::npos) << r2.dump();

  // Nor does the provider key reach the command's environment.
  c.Send(Json{{"id", "b4"}, {"type", "bash"}, {"command", "env; echo env-done"}});
  const Json r4 = c.Until("response", "b4").back();
  ASSERT_TRUE(r4.value("success", false)) << r4.dump();
  EXPECT_NE(r4["data"].value("output", "").find("env-done"), std::string::npos) << r4.dump();
  EXPECT_EQ(r4["data"].value("output", "").find("sk-test-rpc-e2e"), std::string::npos) << r4.dump();
  EXPECT_EQ(r4["data"].value("output", "").find("ANTHROPIC_API_KEY"), std::string::npos) << r4.dump();

  // abort_bash ends a command that would run for a minute.
  c.Send(Json{{"id", "b3"}, {"type", "bash"}, {"command", "echo started; sleep 60"}});
  while (auto j = c.Next())
    if (j->value("type", "") == "bash_execution_update" &&
        j->value("delta", "").find("started") != std::string::npos)
      break;
  c.Send(Json{{"id", "a3"}, {"type", "abort_bash"}});
  const Json r3 = c.Until("response", "b3").back();
  ASSERT_TRUE(r3.value("success", false)) << r3.dump();
  EXPECT_TRUE(r3["data"].value("cancelled", false)) << r3.dump();
  EXPECT_TRUE(r3["data"]["exitCode"].is_null()) << r3.dump();

  c.CloseStdin();
  EXPECT_EQ(c.Wait(30), 0) << Stderr();
  std::ifstream in(file);
  std::string line;
  std::vector<Json> runs;
  while (std::getline(in, line)) {
    auto j = ParseJson(line);
    ASSERT_TRUE(j.ok()) << line;
    if (j->value("type", "") == "bash_execution") runs.push_back(*j);
  }
  ASSERT_EQ(runs.size(), 4u);
  EXPECT_NE(runs[0].dump().find("echo out"), std::string::npos) << runs[0].dump();
  EXPECT_NE(runs[0].dump().find("\"exit_code\":3"), std::string::npos) << runs[0].dump();
  EXPECT_NE(runs[3].dump().find("\"cancelled\":true"), std::string::npos) << runs[3].dump();
  for (const auto& r : runs) EXPECT_EQ(r.dump().find("sk-test-rpc-e2e"), std::string::npos);
}

// export_html writes the branch through the session exporter;
// set_auto_compaction is a setting get_state reports.
TEST_F(RpcE2E, ExportHtmlAndAutoCompactionSetting) {
  fp_.SetScript({{"responses", {{{"text", "the <answer>"}}}}});
  Child c;
  Start(c);
  c.Send(Json{{"id", "p"}, {"type", "prompt"}, {"message", "question"}});
  c.Until("agent_settled", "");
  c.Send(Json{{"id", "e"}, {"type", "export_html"}, {"outputPath", "out.html"}});
  const Json e = c.Until("response", "e").back();
  ASSERT_TRUE(e.value("success", false)) << e.dump();
  EXPECT_EQ(e["data"].value("path", ""), (root_ / "work" / "out.html").string());
  std::ifstream html(root_ / "work" / "out.html");
  std::string page((std::istreambuf_iterator<char>(html)), {});
  EXPECT_NE(page.find("<html"), std::string::npos);
  EXPECT_NE(page.find("the &lt;answer&gt;"), std::string::npos) << page.substr(0, 400);

  c.Send(Json{{"id", "c"}, {"type", "set_auto_compaction"}, {"enabled", false}});
  EXPECT_TRUE(c.Until("response", "c").back().value("success", false));
  c.Send(Json{{"id", "s"}, {"type", "get_state"}});
  EXPECT_FALSE(c.Until("response", "s").back()["data"].value("autoCompactionEnabled", true));
  c.Send(Json{{"id", "c2"}, {"type", "set_auto_compaction"}});
  const Json bad = c.Until("response", "c2").back();
  EXPECT_FALSE(bad.value("success", true));
  EXPECT_NE(bad.value("error", "").find("enabled"), std::string::npos);
  c.CloseStdin();
  EXPECT_EQ(c.Wait(30), 0) << Stderr();
}

// set_auto_retry false: a retryable provider error ends the turn after one
// request; turned back on, the same error is retried and the turn succeeds.
TEST_F(RpcE2E, SetAutoRetryDecidesWhetherARetryableErrorIsRetried) {
  Json overloaded = {{"error", {{"status", 503}, {"retry_after", 0}, {"message", "overloaded"}}}};
  fp_.SetScript({{"responses", {overloaded, {{"text", "never reached"}}}}});
  Child c;
  Start(c);
  c.Send(Json{{"id", "r"}, {"type", "set_auto_retry"}, {"enabled", false}});
  ASSERT_TRUE(c.Until("response", "r").back().value("success", false));
  c.Send(Json{{"id", "p"}, {"type", "prompt"}, {"message", "hello"}});
  c.Until("agent_settled");
  EXPECT_EQ(fp_.requests().size(), 1u);
  c.Send(Json{{"id", "l"}, {"type", "get_last_assistant_text"}});
  EXPECT_TRUE(c.Until("response", "l").back()["data"]["text"].is_null());

  fp_.Reset();
  fp_.SetScript({{"responses", {overloaded, {{"text", "after a retry"}}}}});
  c.Send(Json{{"id", "r2"}, {"type", "set_auto_retry"}, {"enabled", true}});
  ASSERT_TRUE(c.Until("response", "r2").back().value("success", false));
  c.Send(Json{{"id", "p2"}, {"type", "prompt"}, {"message", "again"}});
  c.Until("agent_settled");
  EXPECT_EQ(fp_.requests().size(), 2u);
  c.Send(Json{{"id", "l2"}, {"type", "get_last_assistant_text"}});
  EXPECT_EQ(c.Until("response", "l2").back()["data"].value("text", ""), "after a retry");
  c.CloseStdin();
  EXPECT_EQ(c.Wait(30), 0) << Stderr();
}

// abort_retry (pi's): the wait before a retry ends at once; the turn ends
// with the error it would have retried (auto_retry_end success false), no
// second request is made, and the session takes the next prompt.
TEST_F(RpcE2E, AbortRetryEndsTheWaitAndTheTurnWithTheError) {
  // The server asks for 100 s: only abort_retry ends the wait early.
  Json overloaded = {{"error", {{"status", 503}, {"retry_after", 100}, {"message", "overloaded"}}}};
  fp_.SetScript({{"responses", {overloaded, {{"text", "never reached"}}}}});
  Child c;
  Start(c);
  c.Send(Json{{"id", "idle"}, {"type", "abort_retry"}});  // nothing waits: still a success
  EXPECT_TRUE(c.Until("response", "idle").back().value("success", false));
  c.Send(Json{{"id", "p"}, {"type", "prompt"}, {"message", "hello"}});
  c.Until("auto_retry_start");
  c.Send(Json{{"id", "a"}, {"type", "abort_retry"}});
  auto rest = c.Until("agent_settled");
  // The answer to abort_retry comes from the reader thread, the settling
  // from the agent's: either may be written first.
  bool seen_answer = false;
  for (const auto& j : rest)
    seen_answer = seen_answer || (j.value("type", "") == "response" && j.value("id", "") == "a");
  if (!seen_answer)
    for (auto& j : c.Until("response", "a")) rest.push_back(std::move(j));
  bool answered = false, ended = false;
  for (const auto& j : rest) {
    if (j.value("type", "") == "response" && j.value("id", "") == "a")
      answered = j.value("success", false);
    if (j.value("type", "") == "auto_retry_end") {
      ended = true;
      EXPECT_FALSE(j.value("success", true)) << j.dump();
      EXPECT_NE(j.value("finalError", "").find("retry was cancelled"), std::string::npos) << j.dump();
    }
  }
  EXPECT_TRUE(answered);
  EXPECT_TRUE(ended);
  EXPECT_EQ(fp_.requests().size(), 1u);
  // The session goes on: the next prompt is answered.
  fp_.Reset();
  fp_.SetScript({{"responses", {{{"text", "fine now"}}}}});
  c.Send(Json{{"id", "p2"}, {"type", "prompt"}, {"message", "again"}});
  c.Until("agent_settled");
  c.Send(Json{{"id", "l"}, {"type", "get_last_assistant_text"}});
  EXPECT_EQ(c.Until("response", "l").back()["data"].value("text", ""), "fine now");
  c.CloseStdin();
  EXPECT_EQ(c.Wait(30), 0) << Stderr();
}

TEST_F(RpcE2E, ClosingStdinMidTurnEndsItCleanlyWithAValidSessionFile) {
  fp_.SetScript({{"responses", {{{"text", std::string(3000, 'z')}, {"chunk_delay_ms", 20}}}}});
  Child c;
  Start(c);
  c.Send(Json{{"id", "s"}, {"type", "get_state"}});
  std::string file = c.Until("response", "s").back()["data"].value("sessionFile", "");
  c.Send(Json{{"id", "p"}, {"type", "prompt"}, {"message", "write a lot"}});
  // Wait for the answer to be streaming, then hang up.
  bool streaming = false;
  while (auto j = c.Next()) {
    if (j->value("type", "") == "message_update") {
      streaming = true;
      break;
    }
  }
  ASSERT_TRUE(streaming);
  c.CloseStdin();
  EXPECT_EQ(c.Wait(30), 0) << Stderr();
  // Every line of the session file is JSON; the turn is recorded as aborted.
  std::ifstream in(file);
  std::string line, last_message;
  int lines = 0;
  while (std::getline(in, line)) {
    ++lines;
    auto j = ParseJson(line);
    ASSERT_TRUE(j.ok()) << line;
    if (j->value("type", "") == "message") last_message = line;
  }
  EXPECT_GE(lines, 3);
  EXPECT_NE(last_message.find("\"aborted\""), std::string::npos) << last_message;
}

TEST_F(RpcE2E, SigtermShutsDownInOrder) {
  Child c;
  Start(c);
  c.Send(Json{{"id", "s"}, {"type", "get_state"}});
  ASSERT_FALSE(c.Until("response", "s").empty());
  kill(c.pid(), SIGTERM);
  EXPECT_EQ(c.Wait(30), 0) << Stderr();
}

}  // namespace
}  // namespace sepp::rpc_test

namespace sepp::rpc_test {
namespace {

// Prompt templates over pi's RPC: get_commands lists them (and skills) in
// pi's shape, and a prompt starting with "/name" is expanded with pi's
// argument rules before the provider sees it.
TEST_F(RpcE2E, GetCommandsListsTemplatesAndSkillsAndAPromptExpands) {
  fs::create_directories(root_ / "work/.sepp/prompts");
  std::ofstream(root_ / "work/.sepp/prompts/review.md")
      << "---\ndescription: Review some code\n---\nReview $1 with focus on ${@:2}.\n";
  fs::create_directories(root_ / "home/skills/notes");
  std::ofstream(root_ / "home/skills/notes/SKILL.md")
      << "---\nname: notes\ndescription: Keep release notes\n---\nWrite notes.\n";
  fp_.SetScript({{"responses", {{{"text", "reviewed"}}}}});
  Child c;
  Start(c);
  ASSERT_TRUE(c.Send(Json{{"id", "c"}, {"type", "get_commands"}}));
  auto r = c.Until("response", "c");
  ASSERT_FALSE(r.empty());
  ASSERT_TRUE(r.back()["success"].get<bool>()) << r.back().dump();
  Json cmds = r.back()["data"]["commands"];
  ASSERT_EQ(cmds.size(), 2u) << cmds.dump();
  EXPECT_EQ(cmds[0]["name"], "review");
  EXPECT_EQ(cmds[0]["description"], "Review some code");
  EXPECT_EQ(cmds[0]["source"], "prompt");
  EXPECT_EQ(cmds[0]["location"], "project");
  EXPECT_EQ(cmds[1]["name"], "notes");
  EXPECT_EQ(cmds[1]["source"], "skill");
  EXPECT_EQ(cmds[1]["location"], "user");
  ASSERT_TRUE(c.Send(Json{{"id", "p"}, {"type", "prompt"}, {"message", "/review src/ speed memory"}}));
  ASSERT_FALSE(c.Until("agent_settled").empty());
  auto reqs = fp_.requests();
  ASSERT_EQ(reqs.size(), 1u);
  std::string body = reqs[0].body.dump();
  EXPECT_NE(body.find("Review src/ with focus on speed memory."), std::string::npos) << body;
  // The skill is in the system prompt's catalog, not its body.
  EXPECT_NE(body.find("<skill><name>notes</name><description>Keep release notes"), std::string::npos);
  EXPECT_EQ(body.find("Write notes."), std::string::npos);
  c.CloseStdin();
  EXPECT_EQ(c.Wait(), 0) << Stderr();
}

// A Lua hook's sepp.register_command over pi's RPC: get_commands lists it
// (source "extension"), and "/name args" runs it; what it sends with
// sepp.send_message is the prompt the model gets.
TEST_F(RpcE2E, AHookCommandIsListedAndRunsWhenPrompted) {
  fs::create_directories(root_ / "home/hooks");
  std::ofstream(root_ / "home/hooks/cmds.lua") << R"lua(
    sepp.register_command{name = "greet", description = "Greets someone", run = function(args, ctx)
      sepp.send_message("say hello to " .. args, {deliver = "follow_up"})
    end}
  )lua";
  fp_.SetScript({{"responses", {{{"text", "hello there"}}}}});
  Child c;
  Start(c);
  ASSERT_TRUE(c.Send(Json{{"id", "c"}, {"type", "get_commands"}}));
  auto r = c.Until("response", "c");
  ASSERT_FALSE(r.empty());
  Json cmds = r.back()["data"]["commands"];
  ASSERT_EQ(cmds.size(), 1u) << cmds.dump();
  EXPECT_EQ(cmds[0]["name"], "greet");
  EXPECT_EQ(cmds[0]["description"], "Greets someone");
  EXPECT_EQ(cmds[0]["source"], "extension");
  EXPECT_EQ(cmds[0]["location"], "user");
  ASSERT_TRUE(c.Send(Json{{"id", "p"}, {"type", "prompt"}, {"message", "/greet the team"}}));
  ASSERT_FALSE(c.Until("agent_settled").empty());
  auto reqs = fp_.requests();
  ASSERT_EQ(reqs.size(), 1u);
  std::string sent = reqs[0].body["messages"].dump();
  EXPECT_NE(sent.find("say hello to the team"), std::string::npos) << sent;
  EXPECT_EQ(sent.find("/greet"), std::string::npos) << sent;
  c.Send(Json{{"id", "t"}, {"type", "get_last_assistant_text"}});
  EXPECT_EQ(c.Until("response", "t").back()["data"]["text"], "hello there");
  c.CloseStdin();
  EXPECT_EQ(c.Wait(), 0) << Stderr();
}

}  // namespace
}  // namespace sepp::rpc_test
