// The TUI's interaction on a pty against the fake provider: the permission
// modal's answer reaches the broker (and keys typed before it opened stay
// in the editor), /copy writes OSC 52, the prompt history survives a
// restart and Ctrl+R finds in it, Ctrl+G round-trips through $EDITOR with
// the terminal handed over, one of three parallel calls is aborted alone,
// another is sent to the background alone (Ctrl+B in Ctrl+X's list), and
// /tree branches the session.
#include <fstream>

#include "base/file.h"
#include "base/ids.h"
#include "front/tui/clipboard.h"
#include "support/tool_results.h"
#include "tui/tui_pty.h"

namespace sepp::front::tui {
namespace {

std::string ResultFor(fake::FakeProvider& fp, const std::string& id) { return fake::LastToolResult(fp, id); }

void Touch(const fs::path& p) { std::ofstream(p) << "go\n"; }

TEST_F(TuiPty, ThePermissionModalGrantsAScopeAndKeepsTypedKeysInTheEditor) {
  // Outside the workspace and not under /tmp (the sandbox's /tmp is its own).
  fs::path outside = fs::path(SEPP_BINARY_DIR) / "test-tmp" / ("tui-perm-" + NewId().substr(0, 12));
  fs::create_directories(outside);
  struct Cleanup {
    fs::path p;
    ~Cleanup() { fs::remove_all(p); }
  } cleanup{outside};
  std::string one = (outside / "one.txt").string();
  std::string two = (outside / "two.txt").string();
  Json write1 = {{"path", one}, {"content", "first\n"}};
  Json write2 = {{"path", two}, {"content", "second\n"}};
  Json script = {
      // Holds the turn until the test has typed ahead.
      {{"tool_calls", {{{"id", "wait"}, {"name", "bash"},
                        {"arguments", {{"command", "until [ -e go ]; do sleep 0.05; done"}}}}}}},
      {{"tool_calls", {{{"id", "w1"}, {"name", "write"}, {"arguments", write1}}}}},
      {{"tool_calls", {{{"id", "r1"}, {"name", "retry_with_access"},
                        {"arguments", {{"call_id", "w1"}, {"write_paths", {outside.string()}},
                                       {"justification", "the report goes there"}}}}}}},
      // A second request the session grant covers: not asked again.
      {{"tool_calls", {{{"id", "w2"}, {"name", "write"}, {"arguments", write2}}}}},
      {{"tool_calls", {{{"id", "r2"}, {"name", "retry_with_access"},
                        {"arguments", {{"call_id", "w2"}, {"write_paths", {outside.string()}},
                                       {"justification", "the second part"}}}}}}},
      {{"text", "both written"}}};
  Start(script);
  ASSERT_TRUE(WaitFor([&] { return ScreenHas("Enter sends"); }));
  Type("write the report\r");
  ASSERT_TRUE(WaitFor([&] { return ScreenHas("until [ -e go ]"); })) << ::testing::PrintToString(term_->Transcript());
  // y, p and d are answers in the modal: typed before it opened, they are text.
  Type("typed-ahead");
  ASSERT_TRUE(WaitFor([&] { return ScreenHas("> typed-ahead"); }));
  Touch(root_ / "ws" / "go");
  ASSERT_TRUE(WaitFor([&] { return ScreenHas("Permission: write asks"); })) << ::testing::PrintToString(term_->Transcript());
  EXPECT_TRUE(ScreenHas("write access to " + outside.string())) << ::testing::PrintToString(term_->Transcript());
  EXPECT_TRUE(ScreenHas("the sandbox refused: write")) << ::testing::PrintToString(term_->Transcript());
  EXPECT_TRUE(ScreenHas("reason: the report goes there"));
  EXPECT_TRUE(ScreenHas("> typed-ahead"));
  EXPECT_FALSE(fs::exists(one));
  Type("2");  // allow for this session
  ASSERT_TRUE(WaitFor([&] { return ScreenHas("both written"); })) << ::testing::PrintToString(term_->Transcript());
  EXPECT_TRUE(fs::exists(one)) << ResultFor(fp_, "r1");
  EXPECT_TRUE(fs::exists(two)) << ResultFor(fp_, "r2");
  EXPECT_NE(ResultFor(fp_, "r1").find("allow_session"), std::string::npos) << ResultFor(fp_, "r1");
  // Allowed by the session grant: no second modal (nothing answered it).
  EXPECT_NE(ResultFor(fp_, "r2").find("(allow_once)"), std::string::npos) << ResultFor(fp_, "r2");
  EXPECT_TRUE(ScreenHas("> typed-ahead")) << "the typed text is still in the editor";
  Type("\x03\x04");  // Ctrl+C clears the editor, Ctrl+D quits
  int status = WaitExit();
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
}

TEST_F(TuiPty, CopyWritesTheCodeBlockAsOsc52) {
  Start(Json::parse(R"([{"text": "Here it is:\n```sh\necho copy-me\n```\nand more."}])"));
  ASSERT_TRUE(WaitFor([&] { return ScreenHas("Enter sends"); }));
  Type("show code\r");
  ASSERT_TRUE(WaitFor([&] { return ScreenHas("and more.") && !ScreenHas("working"); }));
  Type("/cop");
  ASSERT_TRUE(WaitFor([&] { return ScreenHas("/copy [message | code N | tool N | thinking]"); }))
      << "autocomplete lists the command with its description";
  Type("y code 1\r");
  ASSERT_TRUE(WaitFor([&] { return ScreenHas("copied code block 1"); })) << ::testing::PrintToString(term_->Transcript());
  EXPECT_NE(term_->written().find(Osc52("echo copy-me\n", false)), std::string::npos);
  Type("/copy code 2\r");
  ASSERT_TRUE(WaitFor([&] { return ScreenHas("the last answer has 1 code block"); }));
  Type("/frobnicate\r");
  ASSERT_TRUE(WaitFor([&] { return ScreenHas("unknown command /frobnicate"); }));
  EXPECT_EQ(fp_.requests().size(), 1u) << "commands never reach the model";
  Type("\x04");
  WaitExit();
}

// A prompt template of the project is a command like the built-ins: listed
// by autocomplete with its description, expanded by the runtime when sent.
TEST_F(TuiPty, APromptTemplateIsCompletedAndExpandsWithItsArguments) {
  fs::create_directories(root_ / "ws" / ".sepp" / "prompts");
  std::ofstream(root_ / "ws" / ".sepp" / "prompts" / "review.md")
      << "---\ndescription: Review a folder closely\n---\nReview $1 with care.\n";
  Start(Json::parse(R"([{"text": "Reviewed."}])"));
  ASSERT_TRUE(WaitFor([&] { return ScreenHas("Enter sends"); }));
  Type("/revi");
  ASSERT_TRUE(WaitFor([&] { return ScreenHas("Review a folder closely"); }))
      << ::testing::PrintToString(term_->Transcript());
  Type("ew src/\r");
  ASSERT_TRUE(WaitFor([&] { return ScreenHas("Reviewed."); })) << ::testing::PrintToString(term_->Transcript());
  ASSERT_EQ(fp_.requests().size(), 1u);
  EXPECT_NE(DumpJson(fp_.requests().back().body).find("Review src/ with care."), std::string::npos)
      << DumpJson(fp_.requests().back().body);
  Type("\x04");
  WaitExit();
}

TEST_F(TuiPty, TheHistorySurvivesARestartAndCtrlRFindsInIt) {
  Start(Json::parse(R"([{"text": "ok one"}, {"text": "ok two"}])"));
  ASSERT_TRUE(WaitFor([&] { return ScreenHas("Enter sends"); }));
  Type("remember the first prompt\r");
  ASSERT_TRUE(WaitFor([&] { return ScreenHas("ok one") && !ScreenHas("working"); }));
  Type("and a second one\r");
  ASSERT_TRUE(WaitFor([&] { return ScreenHas("ok two") && !ScreenHas("working"); }));
  Type("\x04");
  WaitExit();

  close(master_);
  master_ = -1;
  pty_closed_ = false;
  term_ = std::make_unique<testing::VtermScreen>(30, 100);
  Start(Json::parse(R"([{"text": "ok three"}])"));  // a new session, the same project
  ASSERT_TRUE(WaitFor([&] { return ScreenHas("Enter sends"); }));
  Type("\x1b[A");
  ASSERT_TRUE(WaitFor([&] { return ScreenHas("> and a second one"); })) << ::testing::PrintToString(term_->Transcript());
  Type("\x1b[A");
  ASSERT_TRUE(WaitFor([&] { return ScreenHas("> remember the first prompt"); }));
  Type("\x03");  // clear
  Type("\x12" "first");  // Ctrl+R
  ASSERT_TRUE(WaitFor([&] { return ScreenHas("history search: first") && ScreenHas("\u2192 remember the first prompt"); }))
      << ::testing::PrintToString(term_->Transcript());
  Type("\r");  // takes it into the editor
  ASSERT_TRUE(WaitFor([&] { return ScreenHas("> remember the first prompt") && !ScreenHas("history search"); }));
  Type("\r");
  ASSERT_TRUE(WaitFor([&] { return ScreenHas("ok three"); }));
  EXPECT_NE(DumpJson(fp_.requests().back().body).find("remember the first prompt"), std::string::npos);
  Type("\x04");
  WaitExit();
}

TEST_F(TuiPty, CtrlGEditsThePromptInEditorWithTheTerminalHandedOver) {
  fs::path script = root_ / "fake-editor.sh";
  // Records the terminal's mode (cooked while it runs: "icanon"), appends
  // to the prompt file.
  {
    std::ofstream(script) << "#!/bin/sh\nstty -a > '" << (root_ / "stty.txt").string() << "'\nenv > '"
                          << (root_ / "env.txt").string()
                          << "'\nprintf ' and more from the editor\\n' >> \"$1\"\n";
  }
  fs::permissions(script, fs::perms::owner_all);
  Start(Json::parse(R"([{"text": "edited prompt received"}])"), {}, {{"EDITOR", script.string()}});
  ASSERT_TRUE(WaitFor([&] { return ScreenHas("Enter sends"); }));
  Type("draft");
  ASSERT_TRUE(WaitFor([&] { return ScreenHas("> draft"); }));
  size_t mark = term_->written().size();
  Type("\x07");  // Ctrl+G
  ASSERT_TRUE(WaitFor([&] { return ScreenHas("> draft and more from the editor"); }))
      << ::testing::PrintToString(term_->Transcript()) << ::testing::PrintToString(term_->written().substr(mark));
  auto stty = ReadFile(root_ / "stty.txt");
  ASSERT_TRUE(stty.ok());
  EXPECT_NE(stty->find(" icanon"), std::string::npos) << "the editor got a cooked terminal: " << *stty;
  // An attack on the key: the editor is a child of sepp, and no child
  // holds the provider's key.
  auto env = ReadFile(root_ / "env.txt");
  ASSERT_TRUE(env.ok());
  EXPECT_EQ(env->find("sk-test-tui"), std::string::npos) << *env;
  EXPECT_EQ(env->find("ANTHROPIC_API_KEY"), std::string::npos) << *env;
  EXPECT_NE(env->find("EDITOR="), std::string::npos) << "the rest of the environment is there";
  std::string w = term_->written();
  size_t leave = w.find(TerminalSession::kLeaveModes);
  ASSERT_NE(leave, std::string::npos);
  EXPECT_NE(w.find(TerminalSession::kEnterModes, leave), std::string::npos) << "the modes came back after it";
  Type("\r");
  ASSERT_TRUE(WaitFor([&] { return ScreenHas("edited prompt received"); }));
  EXPECT_NE(DumpJson(fp_.requests().back().body).find("draft and more from the editor"), std::string::npos);
  Type("\x04");
  int status = WaitExit();
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
}

TEST_F(TuiPty, OneOfThreeParallelCallsIsAbortedAloneAndTheTurnGoesOn) {
  Start(Json::parse(R"([
    {"tool_calls": [
      {"id": "long", "name": "bash", "arguments": {"command": "echo long-started; sleep 30"}},
      {"id": "b", "name": "bash", "arguments": {"command": "until [ -e go ]; do sleep 0.05; done; echo bee-done"}},
      {"id": "c", "name": "bash", "arguments": {"command": "until [ -e go ]; do sleep 0.05; done; echo cee-done"}}
    ]},
    {"text": "after the calls"}
  ])"));
  ASSERT_TRUE(WaitFor([&] { return ScreenHas("Enter sends"); }));
  Type("run three\r");
  // The sleep is really running (its output shows) next to the other two.
  ASSERT_TRUE(WaitFor([&] { return ScreenHas("  long-started") && ScreenHas("echo bee-done") && ScreenHas("echo cee-done"); }))
      << ::testing::PrintToString(term_->Transcript());
  Type("\x18");  // Ctrl+X: the running calls
  ASSERT_TRUE(WaitFor([&] { return ScreenHas("running calls"); })) << ::testing::PrintToString(term_->Transcript());
  Type("30\r");  // filter to the sleep, abort it
  ASSERT_TRUE(WaitFor([&] { return ScreenHas("\u2717 ") && ScreenHas("aborting that call"); }))
      << ::testing::PrintToString(term_->Transcript());
  EXPECT_TRUE(ScreenHas("working")) << "the turn still runs";
  EXPECT_EQ(fp_.requests().size(), 1u);
  Touch(root_ / "ws" / "go");
  ASSERT_TRUE(WaitFor([&] { return ScreenHas("after the calls"); })) << ::testing::PrintToString(term_->Transcript());
  EXPECT_NE(ResultFor(fp_, "long").find("the user aborted this call"), std::string::npos) << ResultFor(fp_, "long");
  EXPECT_NE(ResultFor(fp_, "b").find("bee-done"), std::string::npos) << ResultFor(fp_, "b");
  EXPECT_NE(ResultFor(fp_, "c").find("cee-done"), std::string::npos) << ResultFor(fp_, "c");
  EXPECT_EQ(ResultFor(fp_, "b").find("aborted"), std::string::npos) << ResultFor(fp_, "b");
  Type("\x04");
  WaitExit();
}

TEST_F(TuiPty, ARunningCallIsSentToTheBackgroundAloneAndTheTurnGoesOn) {
  Start(Json::parse(R"([
    {"tool_calls": [
      {"id": "srv", "name": "bash", "arguments": {"command": "echo srv-started; exec sleep 3141"}},
      {"id": "b", "name": "bash", "arguments": {"command": "until [ -e go ]; do sleep 0.05; done; echo bee-done"}}
    ]},
    {"text": "after the calls"}
  ])"));
  ASSERT_TRUE(WaitFor([&] { return ScreenHas("Enter sends"); }));
  Type("serve\r");
  ASSERT_TRUE(WaitFor([&] { return ScreenHas("  srv-started") && ScreenHas("echo bee-done"); }))
      << ::testing::PrintToString(term_->Transcript());
  Type("\x18");  // Ctrl+X: the running calls
  ASSERT_TRUE(WaitFor([&] { return ScreenHas("Ctrl+B backgrounds"); })) << ::testing::PrintToString(term_->Transcript());
  Type("3141");  // filter to the server
  Type("\x02");  // Ctrl+B: to the background
  ASSERT_TRUE(WaitFor([&] { return ScreenHas("sending that call to the background"); }))
      << ::testing::PrintToString(term_->Transcript());
  EXPECT_TRUE(ScreenHas("working")) << "the turn still runs";
  EXPECT_EQ(fp_.requests().size(), 1u) << "and waits for the other call";
  Touch(root_ / "ws" / "go");
  ASSERT_TRUE(WaitFor([&] { return ScreenHas("after the calls"); })) << ::testing::PrintToString(term_->Transcript());
  std::string srv = ResultFor(fp_, "srv");
  EXPECT_NE(srv.find("srv-started"), std::string::npos) << srv;
  EXPECT_NE(srv.find("sent to the background by the user: pid "), std::string::npos) << srv;
  EXPECT_NE(ResultFor(fp_, "b").find("bee-done"), std::string::npos) << ResultFor(fp_, "b");
  EXPECT_EQ(ResultFor(fp_, "b").find("background"), std::string::npos) << ResultFor(fp_, "b");
  Type("\x04");
  WaitExit();
}

// Ctrl+B on a running "agent" call (in the Ctrl+X list): the call returns
// its receipt and the turn goes on without it; the sub-agent goes on in the
// background, its progress on a line above the editor (its calls and the
// last of them); when it ends the line goes, a notice says so, and the
// model reads its report with the next prompt.
TEST_F(TuiPty, AnAgentCallSentToTheBackgroundShowsItsProgressUntilItEnds) {
  Start(Json::parse(R"([
    {"tool_calls": [{"id": "a1", "name": "agent", "arguments": {"task": "dig deep"}}]},
    {"tool_calls": [{"id": "c1", "name": "bash", "arguments": {"command": "until [ -e go ]; do sleep 0.05; done; echo child-ran"}}]},
    {"text": "the main turn goes on"},
    {"text": "the report of the child"},
    {"text": "read the report"}
  ])"));
  ASSERT_TRUE(WaitFor([&] { return ScreenHas("Enter sends"); }));
  Type("delegate\r");
  ASSERT_TRUE(WaitFor([&] { return ScreenHas("until [ -e go ]"); })) << ::testing::PrintToString(term_->Transcript());
  Type("\x18");  // Ctrl+X: the running calls
  ASSERT_TRUE(WaitFor([&] { return ScreenHas("Ctrl+B backgrounds"); })) << ::testing::PrintToString(term_->Transcript());
  Type("\x02");  // Ctrl+B: the agent call, the only one running at the top
  ASSERT_TRUE(WaitFor([&] { return ScreenHas("sending that call to the background"); }))
      << ::testing::PrintToString(term_->Transcript());
  ASSERT_TRUE(WaitFor([&] { return ScreenHas("the main turn goes on") && !ScreenHas("working"); }))
      << ::testing::PrintToString(term_->Transcript());
  EXPECT_NE(ResultFor(fp_, "a1").find("sent to the background"), std::string::npos) << ResultFor(fp_, "a1");
  // The turn settled; the sub-agent still waits for its file, in view.
  auto progress = [&] {
    for (const auto& row : term_->ScreenRows())
      if (row.find("\u25d4 in the background: ") != std::string::npos) return row;
    return std::string();
  };
  ASSERT_TRUE(WaitFor([&] { return !progress().empty(); })) << ::testing::PrintToString(term_->Transcript());
  EXPECT_NE(progress().find("1 call \u00b7 last: "), std::string::npos) << progress();
  EXPECT_NE(progress().find("until [ -e go ]"), std::string::npos) << progress();
  EXPECT_EQ(fp_.requests().size(), 3u) << "the child waits";
  Touch(root_ / "ws" / "go");
  ASSERT_TRUE(WaitFor([&] { return ScreenHas("a sub-agent in the background finished"); }))
      << ::testing::PrintToString(term_->Transcript());
  ASSERT_TRUE(WaitFor([&] { return progress().empty(); })) << ::testing::PrintToString(term_->Transcript());
  EXPECT_NE(ResultFor(fp_, "c1").find("child-ran"), std::string::npos) << ResultFor(fp_, "c1");
  Type("what did it find\r");
  ASSERT_TRUE(WaitFor([&] { return ScreenHas("read the report"); })) << ::testing::PrintToString(term_->Transcript());
  std::string body = DumpJson(fp_.requests().back().body);
  EXPECT_NE(body.find("the report of the child"), std::string::npos) << body;
  Type("\x04");
  WaitExit();
}

TEST_F(TuiPty, TreeGoesOnFromAnEarlierEntry) {
  Start(Json::parse(R"([{"text": "answer one"}, {"text": "answer two"}, {"text": "answer three"}])"));
  ASSERT_TRUE(WaitFor([&] { return ScreenHas("Enter sends"); }));
  Type("first question\r");
  ASSERT_TRUE(WaitFor([&] { return ScreenHas("answer one") && !ScreenHas("working"); }));
  Type("second question\r");
  ASSERT_TRUE(WaitFor([&] { return ScreenHas("answer two") && !ScreenHas("working"); }));
  Type("/tree\r");
  ASSERT_TRUE(WaitFor([&] { return ScreenHas("session tree") && ScreenHas("(here)"); }))
      << ::testing::PrintToString(term_->Transcript());
  EXPECT_TRUE(ScreenHas("user: first question"));
  Type("answer one");  // the filter
  ASSERT_TRUE(WaitFor([&] { return ScreenHas("1 of "); })) << ::testing::PrintToString(term_->Transcript());
  Type("\r");
  ASSERT_TRUE(WaitFor([&] { return ScreenHas("the next prompt goes on from there"); }))
      << ::testing::PrintToString(term_->Transcript());
  Type("a different second\r");
  ASSERT_TRUE(WaitFor([&] { return ScreenHas("answer three"); }));
  std::string body = DumpJson(fp_.requests().back().body);
  EXPECT_NE(body.find("first question"), std::string::npos) << body;
  EXPECT_NE(body.find("answer one"), std::string::npos);
  EXPECT_EQ(body.find("second question"), std::string::npos) << "the new branch leaves it out";
  Type("\x04");
  WaitExit();
}

TEST_F(TuiPty, CtrlOShowsTheWholeToolOutputFullScreenAndQLeavesTheScrollbackAlone) {
  Start(Json::parse(R"([
    {"tool_calls": [{"name": "bash", "arguments": {"command": "seq 1 200 | sed 's/^/row-/'"}}]},
    {"text": "listed"}
  ])"));
  ASSERT_TRUE(WaitFor([&] { return ScreenHas("Enter sends"); }));
  Type("list rows\r");
  ASSERT_TRUE(WaitFor([&] { return ScreenHas("listed") && !ScreenHas("working"); }));
  EXPECT_FALSE(ScreenHas("row-100")) << "the chat shows the tail only";
  auto before = term_->Transcript();
  Type("\x0f");  // Ctrl+O
  ASSERT_TRUE(WaitFor([&] { return term_->Row(0) == "row-1" && ScreenHas("q leaves"); }))
      << ::testing::PrintToString(term_->Transcript());
  Type("/row-100\r");
  ASSERT_TRUE(WaitFor([&] { return term_->Row(0) == "row-100"; })) << ::testing::PrintToString(term_->Transcript());
  Type("q");
  ASSERT_TRUE(WaitFor([&] { return ScreenHas("listed") && !ScreenHas("q leaves"); }));
  EXPECT_EQ(term_->Transcript(), before) << "the main screen and scrollback are as they were";
  EXPECT_NE(term_->written().find("\x1b[?1049h"), std::string::npos);
  EXPECT_NE(term_->written().find("\x1b[?1049l"), std::string::npos);
  EXPECT_EQ(term_->written().find("\x1b[2J"), std::string::npos);
  EXPECT_EQ(term_->written().find("\x1b[3J"), std::string::npos);
  Type("\x04");
  WaitExit();
}

TEST_F(TuiPty, AnEditShowsAsANumberedDiffAndSlashDiffShowsWhatTheSessionChanged) {
  std::ofstream(root_ / "ws" / "app.conf") << "name = demo\nport = 8080\nmode = fast\n";
  Start(Json::parse(R"([
    {"tool_calls": [{"id": "e1", "name": "edit",
                     "arguments": {"path": "app.conf", "old_string": "port = 8080", "new_string": "port = 9090"}}]},
    {"tool_calls": [{"id": "w1", "name": "write", "arguments": {"path": "notes.txt", "content": "moved to 9090\n"}}]},
    {"text": "changed"}
  ])"));
  ASSERT_TRUE(WaitFor([&] { return ScreenHas("Enter sends"); }));
  Type("/diff\r");
  ASSERT_TRUE(WaitFor([&] { return ScreenHas("has not edited or written a file"); }))
      << ::testing::PrintToString(term_->Transcript());
  Type("move the port\r");
  ASSERT_TRUE(WaitFor([&] { return ScreenHas("changed") && !ScreenHas("working"); }))
      << ::testing::PrintToString(term_->Transcript());
  // In the chat: old and new line numbers, the file header left out.
  EXPECT_TRUE(ScreenHas("  2   - port = 8080")) << ::testing::PrintToString(term_->Transcript());
  EXPECT_TRUE(ScreenHas("    2 + port = 9090"));
  EXPECT_TRUE(ScreenHas("  3 3   mode = fast"));
  Type("/diff\r");
  ASSERT_TRUE(WaitFor([&] { return ScreenHas("q leaves"); })) << ::testing::PrintToString(term_->Transcript());
  EXPECT_TRUE(ScreenHas("2 files changed by 1 edit and 1 write in this session"))
      << ::testing::PrintToString(term_->ScreenRows());
  EXPECT_TRUE(ScreenHas("-port = 8080"));
  EXPECT_TRUE(ScreenHas("+port = 9090"));
  EXPECT_TRUE(ScreenHas("+++ b/notes.txt"));
  EXPECT_TRUE(ScreenHas("+moved to 9090"));
  Type("q");
  ASSERT_TRUE(WaitFor([&] { return !ScreenHas("q leaves"); }));
  Type("\x04");
  WaitExit();
}

TEST_F(TuiPty, TheQueueShowsAboveTheEditorAndAltUpTakesItBack) {
  Start(Json::parse(R"([
    {"tool_calls": [{"id": "wait", "name": "bash", "arguments": {"command": "until [ -e go ]; do sleep 0.05; done"}}]},
    {"text": "went on"}
  ])"));
  ASSERT_TRUE(WaitFor([&] { return ScreenHas("Enter sends"); }));
  Type("start\r");
  ASSERT_TRUE(WaitFor([&] { return ScreenHas("until [ -e go ]"); })) << ::testing::PrintToString(term_->Transcript());
  Type("steer me\r");
  ASSERT_TRUE(WaitFor([&] { return ScreenHas("\u23f8 steer: steer me  (Alt+Up edits the queue)"); }))
      << ::testing::PrintToString(term_->Transcript());
  EXPECT_TRUE(ScreenHas("queued 1"));
  Type("\x1b[1;3A");  // xterm's Alt+Up
  ASSERT_TRUE(WaitFor([&] { return ScreenHas("1 queued message back in the editor"); }))
      << ::testing::PrintToString(term_->Transcript());
  ASSERT_TRUE(WaitFor([&] { return !ScreenHas("\u23f8 steer") && !ScreenHas("queued 1"); }))
      << ::testing::PrintToString(term_->Transcript());
  EXPECT_TRUE(ScreenHas("> steer me"));
  Touch(root_ / "ws" / "go");
  ASSERT_TRUE(WaitFor([&] { return ScreenHas("went on") && !ScreenHas("working"); }))
      << ::testing::PrintToString(term_->Transcript());
  auto requests = fp_.requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(DumpJson(requests[1].body).find("steer me"), std::string::npos) << "taken back before it went in";
  EXPECT_TRUE(ScreenHas("> steer me")) << "still in the editor";
  Type("\x03");  // clear
  Type("\x04");
  WaitExit();
}

TEST_F(TuiPty, FoldedThinkingExpandsInTheViewer) {
  Start(Json::parse(R"([{"thinking": "step one\nstep two\nstep three", "text": "done thinking"}])"));
  ASSERT_TRUE(WaitFor([&] { return ScreenHas("Enter sends"); }));
  Type("/view thinking\r");
  ASSERT_TRUE(WaitFor([&] { return ScreenHas("there is no thinking yet"); })) << ::testing::PrintToString(term_->Transcript());
  Type("think first\r");
  ASSERT_TRUE(WaitFor([&] { return ScreenHas("done thinking") && !ScreenHas("working"); }))
      << ::testing::PrintToString(term_->Transcript());
  EXPECT_TRUE(ScreenHas("\u25b8 thought for 3 lines (/view thinking expands it)"));
  EXPECT_FALSE(ScreenHas("step two")) << "folded";
  Type("/view thinking\r");
  ASSERT_TRUE(WaitFor([&] { return ScreenHas("q leaves") && ScreenHas("step two"); }))
      << ::testing::PrintToString(term_->Transcript());
  EXPECT_EQ(term_->Row(0), "step one");
  Type("q");
  ASSERT_TRUE(WaitFor([&] { return !ScreenHas("q leaves"); }));
  EXPECT_FALSE(ScreenHas("step two")) << "the scrollback keeps it folded";
  Type("\x04");
  WaitExit();
}

TEST_F(TuiPty, ResumePicksAnEarlierSessionOfTheFolder) {
  Start(Json::parse(R"([{"text": "answer alpha"}])"));
  ASSERT_TRUE(WaitFor([&] { return ScreenHas("Enter sends"); }));
  Type("the alpha session\r");
  ASSERT_TRUE(WaitFor([&] { return ScreenHas("answer alpha") && !ScreenHas("working"); }));
  Type("\x04");
  WaitExit();

  close(master_);
  master_ = -1;
  pty_closed_ = false;
  term_ = std::make_unique<testing::VtermScreen>(30, 100);
  Start(Json::parse(R"([{"text": "answer beta"}, {"text": "answer gamma"}])"));
  ASSERT_TRUE(WaitFor([&] { return ScreenHas("Enter sends"); }));
  Type("the beta session\r");
  ASSERT_TRUE(WaitFor([&] { return ScreenHas("answer beta") && !ScreenHas("working"); }));
  Type("/resume\r");
  ASSERT_TRUE(WaitFor([&] { return ScreenHas("resume a session") && ScreenHas("the alpha session  "); }))
      << ::testing::PrintToString(term_->Transcript());
  Type("alpha\r");
  ASSERT_TRUE(WaitFor([&] { return ScreenHas("resumed "); })) << ::testing::PrintToString(term_->Transcript());
  Type("go on\r");
  ASSERT_TRUE(WaitFor([&] { return ScreenHas("answer gamma"); }));
  std::string body = DumpJson(fp_.requests().back().body);
  EXPECT_NE(body.find("the alpha session"), std::string::npos) << body;
  EXPECT_EQ(body.find("the beta session"), std::string::npos) << body;
  Type("\x04");
  WaitExit();
}

// /context, /branch, the /model picker, /permissions and /settings, each
// checked where it lands: the screen, the fake's request log, the file.
TEST_F(TuiPty, ContextBranchModelPickerPermissionsAndSettings) {
  Start(Json::parse(R"([{"text": "answer one"}, {"text": "answer two"}, {"text": "answer three"}, {"text": "answer four"}])"));
  ASSERT_TRUE(WaitFor([&] { return ScreenHas("Enter sends"); }));
  // 100 columns: the cost ("unknown") gave way; the sandbox state stays.
  EXPECT_TRUE(ScreenHas("compacts at 183.6k)  sandbox on")) << ::testing::PrintToString(term_->Transcript());
  Type("first question\r");
  ASSERT_TRUE(WaitFor([&] { return ScreenHas("answer one") && !ScreenHas("working"); }));
  Type("second question\r");
  ASSERT_TRUE(WaitFor([&] { return ScreenHas("answer two") && !ScreenHas("working"); }));

  Type("/context\r");
  ASSERT_TRUE(WaitFor([&] { return ScreenHas("largest messages:"); })) << ::testing::PrintToString(term_->Transcript());
  EXPECT_TRUE(ScreenHas("of the window's 200k")) << ::testing::PrintToString(term_->Transcript());
  EXPECT_TRUE(ScreenHas("auto-compaction at 183.6k"));
  EXPECT_TRUE(ScreenHas("  system prompt"));
  EXPECT_TRUE(ScreenHas("    your messages (2)"));
  EXPECT_TRUE(ScreenHas("    answers (2)"));

  // /branch: your messages, newest first; Enter goes back to just before
  // it and puts it in the editor.
  Type("/branch\r");
  ASSERT_TRUE(WaitFor([&] { return ScreenHas("branch from one of your messages"); }))
      << ::testing::PrintToString(term_->Transcript());
  Type("\r");
  ASSERT_TRUE(WaitFor([&] { return ScreenHas("branched before") && ScreenHas("> second question"); }))
      << ::testing::PrintToString(term_->Transcript());
  Type(", rephrased\r");
  ASSERT_TRUE(WaitFor([&] { return ScreenHas("answer three") && !ScreenHas("working"); }));
  std::string body = DumpJson(fp_.requests().back().body);
  EXPECT_NE(body.find("answer one"), std::string::npos) << body;
  EXPECT_NE(body.find("second question, rephrased"), std::string::npos) << body;
  EXPECT_EQ(body.find("answer two"), std::string::npos) << "the old branch is left out: " << body;

  // The /model picker lists the provider's models; the filter is fuzzy.
  Type("/model\r");
  ASSERT_TRUE(WaitFor([&] { return ScreenHas("model for anthropic"); })) << ::testing::PrintToString(term_->Transcript());
  EXPECT_TRUE(ScreenHas("claude-sonnet-4-5")) << ::testing::PrintToString(term_->Transcript());
  Type("hiku45");
  ASSERT_TRUE(WaitFor([&] { return ScreenHas("  1 of "); })) << ::testing::PrintToString(term_->Transcript());
  Type("\r");
  ASSERT_TRUE(WaitFor([&] { return ScreenHas("model: claude-haiku-4-5"); })) << ::testing::PrintToString(term_->Transcript());
  Type("and now\r");
  ASSERT_TRUE(WaitFor([&] { return ScreenHas("answer four") && !ScreenHas("working"); }));
  EXPECT_EQ(fp_.requests().back().body.value("model", ""), "claude-haiku-4-5");

  Type("/permissions\r");
  ASSERT_TRUE(WaitFor([&] { return ScreenHas("granted for this session: none"); }))
      << ::testing::PrintToString(term_->Transcript());
  EXPECT_TRUE(ScreenHas("  write: " + (root_ / "ws").string())) << ::testing::PrintToString(term_->Transcript());

  // /settings: a setting changes now and is saved; the next start uses it.
  Type("/settings thinking high\r");
  ASSERT_TRUE(WaitFor([&] { return ScreenHas("thinking: high (now, and saved in"); }))
      << ::testing::PrintToString(term_->Transcript());
  EXPECT_TRUE(ScreenHas("\u00b7 thinking high"));
  auto saved = ReadFile(root_ / "home" / ".sepp" / "settings.toml");
  ASSERT_TRUE(saved.ok());
  EXPECT_EQ(*saved, "thinking = \"high\"\n");
  Type("/settings thinking loud\r");
  ASSERT_TRUE(WaitFor([&] { return ScreenHas("/settings thinking: one of off"); }));
  Type("\x04");
  WaitExit();
  close(master_);
  master_ = -1;
  pty_closed_ = false;
  term_ = std::make_unique<testing::VtermScreen>(30, 100);
  Start(Json::array());
  ASSERT_TRUE(WaitFor([&] { return ScreenHas("Enter sends"); }));
  EXPECT_TRUE(ScreenHas("\u00b7 thinking high")) << ::testing::PrintToString(term_->Transcript());
  Type("/settings\r");
  ASSERT_TRUE(WaitFor([&] { return ScreenHas("settings: Enter changes one"); })) << ::testing::PrintToString(term_->Transcript());
  EXPECT_TRUE(ScreenHas("  thinking   high  (saved: \u201chigh\u201d)")) << ::testing::PrintToString(term_->Transcript());
  Type("\x1b");
  ASSERT_TRUE(WaitFor([&] { return !ScreenHas("settings: Enter changes one"); }));
  Type("\x04");
  WaitExit();
}

// An agent call's sub-agent runs nested under it; the footer says the
// session sandbox runs once a call ran in it; Alt+T writes the last call
// again, whole.
TEST_F(TuiPty, ASubAgentShowsNestedAndTheFooterShowsTheSandbox) {
  Start(Json::parse(R"([
    {"tool_calls": [{"id": "t1", "name": "bash", "arguments": {"command": "echo top-ran"}}]},
    {"tool_calls": [{"id": "a1", "name": "agent", "arguments": {"task": "look around"}}]},
    {"tool_calls": [{"id": "c1", "name": "bash", "arguments": {"command": "echo child-ran"}}]},
    {"text": "the child is done"},
    {"text": "all done"}
  ])"));
  ASSERT_TRUE(WaitFor([&] { return ScreenHas("Enter sends"); }));
  EXPECT_TRUE(ScreenHas("sandbox on")) << ::testing::PrintToString(term_->Transcript());
  Type("delegate\r");
  ASSERT_TRUE(WaitFor([&] { return ScreenHas("all done") && !ScreenHas("working"); }))
      << ::testing::PrintToString(term_->Transcript());
  EXPECT_TRUE(ScreenHas("  \u23bf sub-agent: 1 tool call, session ")) << ::testing::PrintToString(term_->Transcript());
  EXPECT_TRUE(ScreenHas("sandbox running")) << ::testing::PrintToString(term_->Transcript());
  EXPECT_FALSE(ScreenHas("the child is done\u2026")) << ::testing::PrintToString(term_->Transcript());
  Type("\x1bt");  // Alt+T
  ASSERT_TRUE(WaitFor([&] { return ScreenHas("the last call, whole:"); })) << ::testing::PrintToString(term_->Transcript());
  // /tree shows the sub-agent's session as child nodes; Enter shows it.
  Type("/tree\r");
  ASSERT_TRUE(WaitFor([&] { return ScreenHas("sub-agent: look around"); })) << ::testing::PrintToString(term_->Transcript());
  EXPECT_TRUE(ScreenHas("\u23bf user: look around")) << ::testing::PrintToString(term_->Transcript());
  Type("sub-agent: look");
  ASSERT_TRUE(WaitFor([&] { return ScreenHas("  1 of "); })) << ::testing::PrintToString(term_->Transcript());
  Type("\r");
  ASSERT_TRUE(WaitFor([&] { return ScreenHas("q leaves") && ScreenHas("the child is done"); }))
      << ::testing::PrintToString(term_->Transcript());
  Type("q");
  ASSERT_TRUE(WaitFor([&] { return !ScreenHas("q leaves"); }));
  Type("\x04");
  WaitExit();
}

}  // namespace
}  // namespace sepp::front::tui
