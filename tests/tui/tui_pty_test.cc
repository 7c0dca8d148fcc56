// sepp with no arguments on a pseudo-terminal, against the scripted fake
// provider: the TUI opens, a prompt streams, a tool call renders, and every
// way out (Ctrl+D, Ctrl+C twice, SIGTERM, SIGHUP) restores the terminal and
// exits. The pty's output goes through libvterm; waits poll the pty with a
// deadline, never a fixed sleep.
#include "tui/tui_pty.h"

namespace sepp::front::tui {
namespace {

TEST_F(TuiPty, APromptStreamsAndAToolCallRenders) {
  Start(Json::parse(R"([
    {"text": "Let me run it.", "tool_calls": [{"name": "bash", "arguments": {"command": "echo tool-says-hi"}}]},
    {"text": "All done: the streamed answer."}
  ])"));
  ASSERT_TRUE(WaitFor([&] { return ScreenHas("Enter sends"); })) << "the TUI did not open";
  EXPECT_NE(term_->written().find(TerminalSession::kEnterModes), std::string::npos);
  Type("hello\x1b[13;2uthere\r");  // kitty Shift+Enter: a newline in the prompt
  ASSERT_TRUE(WaitFor([&] { return ScreenHas("All done: the streamed answer."); }))
      << ::testing::PrintToString(term_->Transcript());
  ASSERT_TRUE(WaitFor([&] { return !ScreenHas("working"); }));
  auto t = term_->Transcript();
  auto user = std::find(t.begin(), t.end(), "\u203a hello");
  ASSERT_NE(user, t.end()) << ::testing::PrintToString(t);
  EXPECT_EQ(*(user + 1), "  there");
  EXPECT_TRUE(ScreenHas("Let me run it."));
  EXPECT_TRUE(ScreenHas("\u2713 ")) << ::testing::PrintToString(t);
  EXPECT_TRUE(ScreenHas("  tool-says-hi")) << ::testing::PrintToString(t);
  // The prompt with its newline reached the model.
  auto requests = fp_.requests();
  ASSERT_GE(requests.size(), 1u);
  EXPECT_NE(DumpJson(requests[0].body).find("hello\\nthere"), std::string::npos);
  EXPECT_EQ(term_->written().find("\x1b[2J"), std::string::npos);
  EXPECT_EQ(term_->written().find("\x1b[3J"), std::string::npos);
  Type("\x04");  // Ctrl+D quits
  int status = WaitExit();
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  EXPECT_TRUE(Restored());

  // sepp -c opens the same session with its history on screen, and the next
  // prompt goes on from it.
  close(master_);
  master_ = -1;
  pty_closed_ = false;
  term_ = std::make_unique<testing::VtermScreen>(30, 100);
  Start(Json::parse(R"([{"text": "Second answer."}])"), {"-c"});
  ASSERT_TRUE(WaitFor([&] { return ScreenHas("Enter sends"); }));
  EXPECT_TRUE(ScreenHas("\u203a hello")) << ::testing::PrintToString(term_->Transcript());
  EXPECT_TRUE(ScreenHas("All done: the streamed answer."));
  Type("again\r");
  ASSERT_TRUE(WaitFor([&] { return ScreenHas("Second answer."); }));
  requests = fp_.requests();
  EXPECT_NE(DumpJson(requests.back().body).find("All done: the streamed answer."), std::string::npos)
      << "the resumed context went to the model";
  Type("\x04");
  status = WaitExit();
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
}

// On a terminal known to keep what a scroll region scrolls off (xterm, by
// its XTERM_VERSION), a long streamed answer scrolls in by a region over
// the rows above the editor: every line reaches the scrollback once, in
// order, and quitting takes the region off before the shell gets the
// terminal back. Without such a variable (TERM alone) no region is set,
// unless the terminal's XTVERSION answer names one that keeps the lines
// (WezTerm here; it arrives over ssh, where no variable does).
TEST_F(TuiPty, ALongAnswerScrollsInWithAScrollRegionWhereTheTerminalKeepsTheLines) {
  std::string answer;
  for (int i = 0; i < 80; ++i) answer += "answer line " + std::to_string(i) + " goes here\n";
  for (int variant : {0, 1, 2}) {
    bool xterm = variant == 0, wezterm = variant == 2;
    SCOPED_TRACE(xterm ? "XTERM_VERSION set" : wezterm ? "TERM and XTVERSION's answer" : "TERM only");
    if (variant > 0) {
      close(master_);
      master_ = -1;
      pty_closed_ = false;
      term_ = std::make_unique<testing::VtermScreen>(30, 100);
    }
    std::map<std::string, std::string> env;
    if (xterm) env["XTERM_VERSION"] = "XTerm(390)";
    Json script = Json::array({Json{{"text", answer}, {"chunk_delay_ms", 1}}});
    Start(script, {}, env);
    if (wezterm) {
      ASSERT_TRUE(WaitFor([&] { return term_->written().find("\x1b[>q") != std::string::npos; }));
      Type("\x1bP>|WezTerm 20240203-110809-5046fc22\x1b\\\x1b[?62;22c");
    }
    ASSERT_TRUE(WaitFor([&] { return ScreenHas("Enter sends"); }));
    size_t before = term_->written().size();
    Type("long one\r");
    ASSERT_TRUE(WaitFor([&] { return ScreenHas("answer line 79 goes here") && !ScreenHas("working"); }))
        << ::testing::PrintToString(term_->Transcript());
    std::string during = term_->written().substr(before);
    bool region = false;  // a DECSTBM "CSI 1 ; n r", saved and restored around
    for (size_t at = during.find("\x1b" "7" "\x1b[1;"); at != std::string::npos && !region;
         at = during.find("\x1b" "7" "\x1b[1;", at + 1)) {
      size_t end = during.find_first_not_of("0123456789", at + 6);
      region = end != std::string::npos && end > at + 6 && during.compare(end, 3, "r\x1b" "8") == 0;
    }
    EXPECT_EQ(region, xterm || wezterm) << "a scroll region set";
    auto t = term_->Transcript();
    size_t at = std::find(t.begin(), t.end(), "answer line 0 goes here") - t.begin();
    ASSERT_LT(at, t.size()) << ::testing::PrintToString(t);
    for (int i = 0; i < 80; ++i) {
      std::string line = "answer line " + std::to_string(i) + " goes here";
      ASSERT_LT(at + static_cast<size_t>(i), t.size());
      EXPECT_EQ(t[at + static_cast<size_t>(i)], line);
      EXPECT_EQ(std::count(t.begin(), t.end(), line), 1) << line;
    }
    EXPECT_EQ(term_->written().find("\x1b[2J"), std::string::npos);
    EXPECT_EQ(term_->written().find("\x1b[3J"), std::string::npos);
    Type("\x04");
    int status = WaitExit();
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
    EXPECT_TRUE(Restored());
    // A line feed at the screen's bottom scrolls the whole screen again: the
    // shell's next line goes below the footer, which reaches the scrollback.
    size_t lines = term_->scrollback().size();
    term_->Feed("\r\n$ next\r\n");
    for (int i = 0; i < 40; ++i) term_->Feed("$\r\n");
    EXPECT_GT(term_->scrollback().size(), lines + 30);
  }
}

// The binary as a terminal sees it: it asks for DEC 2026 and the background
// and uses the answers, renders Markdown, loads the settings' theme from
// SEPP_HOME/themes (a broken file says where and falls back, a fixed one is
// loaded again while it runs), and writes its render statistics on quit.
TEST_F(TuiPty, MarkdownThemesAndTheTerminalsAnswers) {
  fs::create_directories(root_ / "home" / ".sepp" / "themes");
  std::ofstream(root_ / "home" / ".sepp" / "settings.toml") << "theme = \"mine\"\n";
  std::ofstream(root_ / "home" / ".sepp" / "themes" / "mine.json") << "{\"colors\": {\"accent\": \"#12\"}}";
  extra_env_["SEPP_TUI_STATS"] = (root_ / "stats.json").string();
  // Long enough that drawing it takes a frame of more than one short write.
  std::string items;
  for (int i = 0; i < 40; ++i) items += "- item " + std::to_string(i) + " of a list that makes the answer long\n";
  Start(Json::array({Json{{"text", "# Heading\n\nSome **bold** and `code`.\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n" + items}}}));
  ASSERT_TRUE(WaitFor([&] { return term_->written().find("\x1b[?2026$p") != std::string::npos; }));
  EXPECT_NE(term_->written().find("\x1b]11;?"), std::string::npos);
  Type("\x1b[?2026;2$y\x1b]11;rgb:ffff/ffff/ffff\x1b\\\x1b[?62;22c");
  ASSERT_TRUE(WaitFor([&] { return ScreenHas("Enter sends"); }));
  std::string shown;  // the notice is one logical line, wrapped by the terminal
  for (const auto& row : term_->Transcript()) shown += row;
  EXPECT_NE(shown.find("mine.json"), std::string::npos) << shown;
  EXPECT_NE(shown.find("keeping the dark theme"), std::string::npos) << shown;
  size_t before = term_->written().size();
  Type("show me\r");
  ASSERT_TRUE(WaitFor([&] { return ScreenHas("Some bold and code."); })) << ::testing::PrintToString(term_->Transcript());
  EXPECT_TRUE(ScreenHas("Heading"));
  EXPECT_FALSE(ScreenHas("# Heading"));
  EXPECT_TRUE(ScreenHas("\u2502 a   \u2502 b   \u2502")) << ::testing::PrintToString(term_->Transcript());
  EXPECT_NE(term_->written().find("\x1b[?2026h", before), std::string::npos) << "the terminal said it has DEC 2026";
  // Fixed while it runs: loaded again.
  {
    std::ofstream f(root_ / "home" / ".sepp" / "themes" / "mine.json.new");
    f << "{\"name\": \"mine\", \"colors\": {\"accent\": \"#123456\"}}";
  }
  fs::rename(root_ / "home" / ".sepp" / "themes" / "mine.json.new", root_ / "home" / ".sepp" / "themes" / "mine.json");
  ASSERT_TRUE(WaitFor([&] { return ScreenHas("theme mine loaded"); })) << ::testing::PrintToString(term_->Transcript());
  Type("\x04");
  int status = WaitExit();
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  auto stats = ParseJson(ReadFile(root_ / "stats.json").ok() ? *ReadFile(root_ / "stats.json") : "");
  ASSERT_TRUE(stats.ok()) << "SEPP_TUI_STATS was written";
  EXPECT_GT((*stats)["frames"].get<int>(), 0);
  EXPECT_GT((*stats)["bytes"].get<int>(), 0);
  EXPECT_TRUE(stats->contains("frame_p99_us"));
}

TEST_F(TuiPty, ALoneEscAbortsTheRunningTurn) {
  Start(Json::parse(R"([
    {"tool_calls": [{"name": "bash", "arguments": {"command": "sleep 30"}}]},
    {"text": "never reached"}
  ])"));
  ASSERT_TRUE(WaitFor([&] { return ScreenHas("Enter sends"); }));
  Type("wait for it\r");
  ASSERT_TRUE(WaitFor([&] { return ScreenHas("\u25cf ") && ScreenHas("sleep 30"); }))
      << ::testing::PrintToString(term_->Transcript());
  ASSERT_TRUE(ScreenHas("working"));
  Type("\x1b");  // a lone Esc: decoded after the short wait, not held
  ASSERT_TRUE(WaitFor([&] { return ScreenHas("aborted") && !ScreenHas("working"); }))
      << ::testing::PrintToString(term_->Transcript());
  EXPECT_EQ(fp_.requests().size(), 1u) << "the turn ended: no further model call";
  Type("\x04");
  int status = WaitExit();
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  EXPECT_TRUE(Restored());
}

TEST_F(TuiPty, EnterWhileWorkingSteersAndAltEnterFollowsUp) {
  // The tool call runs long enough to type during it; the test waits on the
  // screen and the request log, never on the clock.
  Start(Json::parse(R"([
    {"tool_calls": [{"name": "bash", "arguments": {"command": "sleep 3"}}]},
    {"text": "after the steer"},
    {"text": "after the follow-up"}
  ])"));
  ASSERT_TRUE(WaitFor([&] { return ScreenHas("Enter sends"); }));
  Type("start\r");
  ASSERT_TRUE(WaitFor([&] { return ScreenHas("\u25cf ") && ScreenHas("sleep 3"); }));
  Type("steer now\r");
  Type("then this\x1b[13;3u");  // kitty Alt+Enter: a follow-up
  ASSERT_TRUE(WaitFor([&] { return ScreenHas("queued 2"); })) << ::testing::PrintToString(term_->Transcript());
  ASSERT_TRUE(WaitFor([&] { return ScreenHas("after the follow-up") && !ScreenHas("working"); }, 60))
      << ::testing::PrintToString(term_->Transcript());
  auto requests = fp_.requests();
  ASSERT_EQ(requests.size(), 3u);
  std::string second = DumpJson(requests[1].body);
  std::string third = DumpJson(requests[2].body);
  // The steer went in at the tool boundary, with the tool's result; the
  // follow-up only after the turn settled.
  EXPECT_NE(second.find("steer now"), std::string::npos);
  EXPECT_EQ(second.find("then this"), std::string::npos);
  EXPECT_NE(third.find("then this"), std::string::npos);
  EXPECT_NE(third.find("after the steer"), std::string::npos);
  Type("\x04");
  int status = WaitExit();
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
}

TEST_F(TuiPty, EveryWayOutRestoresTheTerminal) {
  // Ctrl+C twice, SIGTERM, SIGHUP, and a crash (SIGSEGV: the handler
  // restores, then the signal kills the process as it would have).
  for (int way = 0; way < 4; ++way) {
    Start(Json::array());
    ASSERT_TRUE(WaitFor([&] { return ScreenHas("Enter sends"); })) << way;
    if (way == 0) {
      Type("\x03");
      ASSERT_TRUE(WaitFor([&] { return ScreenHas("Ctrl+C again to quit"); }));
      Type("\x03");
    } else {
      kill(pid_, way == 1 ? SIGTERM : way == 2 ? SIGHUP : SIGSEGV);
    }
    int status = WaitExit();
    if (way == 3) {
      EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV) << status;
    } else {
      EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << way << " " << status;
    }
    EXPECT_TRUE(Restored()) << way;
    close(master_);
    master_ = -1;
    pty_closed_ = false;
    term_ = std::make_unique<testing::VtermScreen>(30, 100);
  }
}

// A crash or a signal while the full-screen viewer is open: the alternate
// screen is left before the keyboard modes are popped (kitty keeps a stack
// per screen), so the shell gets its main screen back with the conversation.
TEST_F(TuiPty, AWayOutFromInsideTheViewerLeavesTheAlternateScreen) {
  for (int sig : {SIGSEGV, SIGTERM}) {
    Start(Json::parse(R"([{"text": "an answer to view"}])"));
    ASSERT_TRUE(WaitFor([&] { return ScreenHas("Enter sends"); }));
    Type("show me\r");
    ASSERT_TRUE(WaitFor([&] { return ScreenHas("an answer to view") && !ScreenHas("working"); }));
    Type("/view\r");
    ASSERT_TRUE(WaitFor([&] { return ScreenHas("q leaves"); })) << ::testing::PrintToString(term_->Transcript());
    size_t entered = term_->written().rfind("\x1b[?1049h");
    ASSERT_NE(entered, std::string::npos);
    kill(pid_, sig);
    int status = WaitExit();
    if (sig == SIGSEGV) EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV) << status;
    else EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
    const std::string& w = term_->written();
    size_t left = w.find("\x1b[?1049l", entered);
    ASSERT_NE(left, std::string::npos) << "the alternate screen was not left (signal " << sig << ")";
    size_t modes = w.find(TerminalSession::kLeaveModes, entered);
    ASSERT_NE(modes, std::string::npos) << sig;
    EXPECT_LT(left, modes) << "left the alternate screen after popping the modes";
    EXPECT_FALSE(ScreenHas("q leaves")) << ::testing::PrintToString(term_->Transcript());
    EXPECT_TRUE(ScreenHas("\u203a show me")) << ::testing::PrintToString(term_->Transcript());
    close(master_);
    master_ = -1;
    pty_closed_ = false;
    term_ = std::make_unique<testing::VtermScreen>(30, 100);
  }
}

}  // namespace
}  // namespace sepp::front::tui
