// The conversation view fed with the runtime's events, drawn into libvterm:
// a 12 KB streamed answer lands in the scrollback line by line, once; a tool
// call shows its header and output tail while running and a result line when
// done; and what it writes never clears the screen.
#include "front/tui/chat_view.h"

#include <gtest/gtest.h>

#include "front/tui/frame_pacer.h"
#include "tui/vterm_screen.h"

namespace sepp::front::tui {
namespace {

using agent::Event;
using agent::EventType;

Event Ev(EventType t, std::string text = {}, std::string call_id = {}) {
  Event e(t);
  e.text = std::move(text);
  e.call_id = std::move(call_id);
  return e;
}

struct Harness {
  testing::VtermScreen term{40, 120};
  InlineRenderer renderer{120, 40};
  ChatView view{&renderer};
  Editor editor;
  Harness() { view.SetFooter({"/work/project", "fake-model"}); }
  void Send(const Event& e) {
    view.OnEvent(e);
    view.Refresh(editor);
    term.Feed(renderer.Frame());
  }
  // An answer in pieces arriving gap_ms apart on a simulated clock, drawn
  // when the loop's FramePacer draws (the pieces within one frame interval
  // as one frame); gap_ms 0: a frame per piece.
  void Stream(const std::string& answer, size_t piece, int gap_ms) {
    FramePacer pacer;
    auto now = FramePacer::Clock::time_point{} + std::chrono::hours(1);
    auto draw = [&] {
      view.Refresh(editor);
      term.Feed(renderer.Frame());
      pacer.Drawn(now);
    };
    draw();
    auto until = [&](FramePacer::Clock::time_point t) {
      if (pacer.pending() && pacer.deadline() <= t) {
        now = pacer.deadline();
        draw();
      }
      now = t;
    };
    for (size_t i = 0; i < answer.size(); i += piece) {
      if (gap_ms > 0) until(now + std::chrono::milliseconds(gap_ms));
      view.OnEvent(Ev(EventType::kMessageDelta, answer.substr(i, piece)));
      pacer.Changed();
      if (gap_ms == 0 || pacer.Due(now)) draw();
    }
    until(now + std::chrono::seconds(1));
  }
};

TEST(TuiChatView, AStreamedAnswerReachesTheScrollbackOnceLineByLine) {
  Harness h;
  h.Send(Ev(EventType::kAgentStarted));
  h.Send(Ev(EventType::kUserMessage, "write me a long answer"));
  // 12 KB in 7-byte deltas, 200 lines of about 60 bytes.
  std::string answer;
  for (int i = 0; i < 200; ++i) {
    answer += "line " + std::to_string(i) + " of the answer, with some words to wrap and stream\n";
  }
  answer.pop_back();
  uint64_t before = h.renderer.stats().bytes;
  for (size_t i = 0; i < answer.size(); i += 7) h.Send(Ev(EventType::kMessageDelta, answer.substr(i, 7)));
  uint64_t stream_bytes = h.renderer.stats().bytes - before;
  auto screen = h.term.ScreenRows();
  // While streaming the unfinished last line is live, but for its last
  // word, which shows when it is whole (a space, the line's or the
  // answer's end follows).
  EXPECT_NE(std::find(screen.begin(), screen.end(), "line 199 of the answer, with some words to wrap and"),
            screen.end());
  h.Send(Ev(EventType::kTurnFinished));
  h.Send(Ev(EventType::kAgentSettled));
  auto transcript = h.term.Transcript();
  size_t at = std::find(transcript.begin(), transcript.end(), "\u203a write me a long answer") - transcript.begin();
  ASSERT_LT(at, transcript.size());
  for (int i = 0; i < 200; ++i) {
    ASSERT_EQ(transcript[at + 2 + static_cast<size_t>(i)],
              "line " + std::to_string(i) + " of the answer, with some words to wrap and stream");
  }
  EXPECT_EQ(transcript.back().find("/work/project  fake-model"), 0u);
  EXPECT_EQ(transcript.back().find("working"), std::string::npos);
  EXPECT_EQ(h.term.written().find("\x1b[2J"), std::string::npos);
  EXPECT_EQ(h.term.written().find("\x1b[3J"), std::string::npos);
  // Written once: the answer's bytes plus a bounded cost per frame (the live
  // region is the unfinished line, the editor and the footer): a finished
  // line is not written again, a frame writes the new tail of one row.
  EXPECT_LE(stream_bytes, 40u * 1024) << "the output budget of issue 10";
  EXPECT_GE(h.renderer.stats().committed_in_place, 190u);
  std::printf("12 KB stream in %zu deltas: %llu bytes written, %llu frames\n", answer.size() / 7 + 1,
              static_cast<unsigned long long>(stream_bytes),
              static_cast<unsigned long long>(h.renderer.stats().frames));
}

// The Markdown answer of bench_tui: headings, emphasis, inline code, links,
// lists, a highlighted code block and a table, block after block.
std::string Markdown12K() {
  std::string answer;
  for (int i = 0; answer.size() < 12 * 1024; ++i) {
    answer += "## Step " + std::to_string(i) + "\n\nA paragraph with **bold**, `code` and a [link](https://example.com/" +
              std::to_string(i) + ") that runs on\nfor a second line of the paragraph.\n\n- an item\n- another item\n\n"
              "```python\ndef step_" + std::to_string(i) + "(x):\n    return x * 2  # doubled\n```\n\n"
              "| key | value |\n|-----|------:|\n| a | " + std::to_string(i) + " |\n\n";
  }
  return answer;
}

// What a streamed Markdown answer leaves in the terminal, cell by cell with
// attributes and colours, scrollback and screen, is what the same answer
// arriving as one piece leaves: the renderer's savings (rows rewritten from
// their changed tail, commits in place, SGR only where the style changes,
// the saved cursor, rows scrolled in with a scroll region) change the
// bytes, never the picture. In 7-byte pieces a frame each, and in 7- and
// 12-byte pieces (peers.sh's stream) arriving 5 ms apart, drawn as the
// loop's FramePacer draws them, with and without DEC 2026, with a scroll
// region (a terminal that keeps what it scrolls off, as libvterm does) and
// without (the fallback).
// (libvterm keeps no "dim" attribute; the SGR parameters themselves are the
// same code for both.)
TEST(TuiChatView, AStreamedMarkdownAnswerLeavesTheSameCellsAsOnePiece) {
  std::string answer = Markdown12K();
  struct Run {
    size_t piece;
    int gap_ms;
    bool sync, region;
    uint64_t bytes = 0, region_scrolls = 0;
    VTermPos cursor{};
  };
  auto run = [&](Run* r) {
    Harness h;
    h.renderer.set_synchronized_output(r->sync);
    h.renderer.set_scroll_region(r->region);
    h.Send(Ev(EventType::kAgentStarted));
    h.Send(Ev(EventType::kUserMessage, "write me a long answer"));
    uint64_t before = h.renderer.stats().bytes;
    h.Stream(answer, r->piece, r->gap_ms);
    h.Send(Ev(EventType::kTurnFinished));
    h.Send(Ev(EventType::kAgentSettled));
    r->bytes = h.renderer.stats().bytes - before;
    r->region_scrolls = h.renderer.stats().region_scrolls;
    r->cursor = h.term.Cursor();
    EXPECT_EQ(h.term.written().find("\x1b[2J"), std::string::npos);
    EXPECT_EQ(h.term.written().find("\x1b[3J"), std::string::npos);
    return h.term.StyledTranscript();
  };
  Run one{answer.size(), 0, false, false};
  auto whole = run(&one);
  ASSERT_GT(whole.size(), 800u) << "the answer went to the scrollback";
  for (auto [piece, gap_ms] : {std::pair{7ul, 0}, std::pair{7ul, 5}, std::pair{12ul, 5}}) {
    for (bool sync : {false, true}) {
      for (bool region : {true, false}) {
        Run r{piece, gap_ms, sync, region};
        auto streamed = run(&r);
        std::string what = std::to_string(piece) + "-byte pieces" +
                           (gap_ms ? " " + std::to_string(gap_ms) + " ms apart" : std::string(", a frame each")) +
                           (sync ? ", DEC 2026" : "") + (region ? ", scroll region" : ", no scroll region");
        ASSERT_EQ(streamed.size(), whole.size()) << what;
        for (size_t i = 0; i < whole.size(); ++i) ASSERT_EQ(streamed[i], whole[i]) << "row " << i << ", " << what;
        // The cursor is back at the editor's caret once the turn is over.
        EXPECT_EQ(r.cursor.row, one.cursor.row) << what;
        EXPECT_EQ(r.cursor.col, one.cursor.col) << what;
        if (region) EXPECT_GT(r.region_scrolls, 800u) << what;
        else EXPECT_EQ(r.region_scrolls, 0u) << what;
        // The output budget of issue 10, for a stream drawn as the loop
        // draws it. A frame per 7-byte piece is over it: each of its 1,400
        // frames goes from the caret to the stream's end and back (9 bytes).
        if (gap_ms > 0) EXPECT_LE(r.bytes, 40u * 1024) << what;
        std::printf("12 KB Markdown in %s: %llu bytes (%llu as one piece)\n", what.c_str(),
                    static_cast<unsigned long long>(r.bytes), static_cast<unsigned long long>(one.bytes));
      }
    }
  }
  // Bold, italic, underlined (links) and coloured cells are there to compare.
  std::string all;
  for (const auto& row : whole) all += row;
  EXPECT_NE(all.find("b:i"), std::string::npos);
  EXPECT_NE(all.find("u1:"), std::string::npos);
}

TEST(TuiChatView, AToolCallShowsItsTailWhileRunningAndItsResultWhenDone) {
  Harness h;
  h.Send(Ev(EventType::kAgentStarted));
  h.Send(Ev(EventType::kMessageDelta, "Let me look.\n"));
  Event started = Ev(EventType::kToolStarted, "", "call-1");
  started.tool = "bash";
  started.summary = "$ seq 1 8";
  h.Send(started);
  h.Send(Ev(EventType::kToolOutput, "1\n2\n3\n4\n5\n6\n", "call-1"));
  auto screen = h.term.ScreenRows();
  auto header = std::find(screen.begin(), screen.end(), "\u25cf $ seq 1 8");
  ASSERT_NE(header, screen.end());
  EXPECT_EQ(*(header + 1), "  2") << "the last five lines of the output";
  EXPECT_EQ(*(header + 5), "  6");
  EXPECT_EQ(*(header + 6), ">");
  // Output with escapes is shown, not obeyed.
  h.Send(Ev(EventType::kToolOutput, "7\x1b[2J\n", "call-1"));
  EXPECT_EQ(h.term.written().find("\x1b[2J"), std::string::npos);

  Event finished = Ev(EventType::kToolFinished, "", "call-1");
  finished.tool = "bash";
  finished.summary = "$ seq 1 8";
  finished.result = "1\n2\n3\n4\n5\n6\n7\n8\n";
  h.Send(finished);
  Event failed = Ev(EventType::kToolFinished, "", "call-2");
  failed.summary = "read /etc/shadow";
  failed.result = "permission denied";
  failed.is_error = true;
  failed.denied = true;
  h.Send(failed);
  h.Send(Ev(EventType::kAgentSettled));
  auto t = h.term.Transcript();
  auto done = std::find(t.begin(), t.end(), "\u2713 $ seq 1 8");
  ASSERT_NE(done, t.end());
  EXPECT_EQ(*(done + 1), "  \u2026 3 earlier lines");
  EXPECT_EQ(*(done + 2), "  4");
  EXPECT_EQ(*(done + 6), "  8");
  EXPECT_EQ(std::count(t.begin(), t.end(), "\u25cf $ seq 1 8"), 0) << "the running header is gone";
  EXPECT_NE(std::find(t.begin(), t.end(), "\u2717 denied read /etc/shadow"), t.end());
  EXPECT_EQ(std::count(t.begin(), t.end(), "Let me look."), 1);
}

TEST(TuiChatView, TheFooterCountsTokensContextAndQueuedMessages) {
  Harness h;
  h.view.SetFooter({"/work/project", "fake-model", 200000});
  Event usage(EventType::kUsage);
  usage.total.input = 12345;
  usage.total.output = 678;
  usage.usage.input = 20000;  // this call: 20,000 in + 1,500 cached + 500 out
  usage.usage.cache_read = 1500;
  usage.usage.output = 500;
  h.Send(usage);
  Event queue(EventType::kQueueUpdated);
  queue.data = {{"steering", {"a"}}, {"follow_up", {"b", "c"}}};
  h.Send(queue);
  h.Send(Ev(EventType::kAgentStarted));
  auto t = h.term.Transcript();
  EXPECT_EQ(t.back(), "/work/project  fake-model  \u219112.3k \u2193678  ctx 22k/200k (11%)  cost unknown  queued 3  sandbox on"
                    "  working (Esc aborts)");
}

}  // namespace
}  // namespace sepp::front::tui

namespace sepp::front::tui {
namespace {

TEST(TuiChatView, AResumedSessionWritesOnlyItsTail) {
  Harness h;
  std::vector<llm::Message> messages;
  for (int i = 0; i < 2000; ++i) {
    messages.push_back(llm::Message::User("question " + std::to_string(i)));
    llm::Message answer;
    answer.role = llm::Role::kAssistant;
    answer.content.push_back(llm::ContentBlock::Text("answer " + std::to_string(i)));
    messages.push_back(std::move(answer));
  }
  messages.push_back(llm::Message::ToolResult("c1", "bash", "out\x1b[2J", false));
  h.view.ShowHistory(messages, 9);
  h.view.Refresh(h.editor);
  h.term.Feed(h.renderer.Frame());
  auto t = h.term.Transcript();
  EXPECT_EQ(t[0], "\u2026 3992 earlier messages not shown");
  EXPECT_EQ(t[1], "\u203a question 1996");
  EXPECT_EQ(t[3], "answer 1996");
  EXPECT_NE(std::find(t.begin(), t.end(), "\u2713 bash"), t.end());
  EXPECT_NE(std::find(t.begin(), t.end(), "  out\u241b[2J"), t.end());
  EXPECT_EQ(std::find(t.begin(), t.end(), "answer 1995"), t.end());
  EXPECT_LT(h.renderer.stats().bytes, 2000u) << "the tail only, whatever the session's length";
}

}  // namespace
}  // namespace sepp::front::tui

namespace sepp::front::tui {
namespace {

TEST(TuiChatView, ASubAgentsEventsStayOutOfTheMainAnswer) {
  Harness h;
  Event started = Ev(EventType::kToolStarted, "", "call-agent");
  started.summary = "agent: look around";
  h.Send(started);
  Event child = Ev(EventType::kMessageDelta, "child text\n");
  child.parent_call_id = "call-agent";
  h.Send(child);
  h.Send(Ev(EventType::kMessageDelta, "parent text\n"));
  auto t = h.term.Transcript();
  EXPECT_EQ(std::count(t.begin(), t.end(), "child text"), 0);
  EXPECT_EQ(std::count(t.begin(), t.end(), "parent text"), 1);
  EXPECT_EQ(std::count(t.begin(), t.end(), "\u25cf agent: look around"), 1);
}

Event Nested(EventType t, std::string call_id, std::string parent, std::string text = {}) {
  Event e = Ev(t, std::move(text), std::move(call_id));
  e.parent_call_id = std::move(parent);
  e.child_session_id = "child0123456789";
  return e;
}

bool Has(const std::vector<std::string>& rows, const std::string& text) {
  for (const auto& r : rows)
    if (r.find(text) != std::string::npos) return true;
  return false;
}

// A sub-agent's events (tied to the parent's call by parent_call_id) show
// nested under the call while it runs, never in the main answer; when the
// call ends one line says what the sub-agent did.
// A sub-agent sent to the background (its call ended with a receipt) keeps
// a line above the editor that its own events update: calls, the last
// tool, its tokens and how long it has run (as of its latest event: no
// timer); the line goes when background.finished comes, and its text is
// shown, never obeyed.
TEST(TuiChatView, ASubAgentInTheBackgroundShowsItsProgressUntilItEnds) {
  Harness h;
  h.Send(Ev(EventType::kAgentStarted));
  Event call = Ev(EventType::kToolStarted, "", "a1");
  call.tool = "agent";
  call.summary = "agent: dig";
  call.time_ms = 100000;
  h.Send(call);
  Event child_call = Nested(EventType::kToolStarted, "c1", "a1");
  child_call.tool = "bash";
  child_call.summary = "$ make";
  child_call.time_ms = 101000;
  h.Send(child_call);
  Event receipt = Ev(EventType::kToolFinished, "", "a1");
  receipt.tool = "agent";
  receipt.summary = "agent: dig";
  receipt.result = "[sent to the background by the user]";
  receipt.data = {{"details", {{"background", true}, {"status", "running"}}}};
  h.Send(receipt);
  auto rows = h.term.ScreenRows();
  EXPECT_TRUE(Has(rows, "  \u25d4 in the background: agent: dig \u00b7 1 call \u00b7 last: $ make \u00b7 1 s"))
      << ::testing::PrintToString(rows);
  // Its usage and its next call, later.
  Event usage = Nested(EventType::kUsage, "", "a1");
  usage.total.input = 12000;
  usage.total.output = 340;
  usage.time_ms = 104500;
  h.Send(usage);
  Event child_done = Nested(EventType::kToolFinished, "c1", "a1");
  child_done.tool = "bash";
  h.Send(child_done);
  Event next = Nested(EventType::kToolStarted, "c2", "a1");
  next.tool = "bash";
  next.summary = "$ grep \x1b[2Jx";
  next.time_ms = 112000;
  h.Send(next);
  rows = h.term.ScreenRows();
  EXPECT_TRUE(Has(rows, "in the background: agent: dig \u00b7 2 calls \u00b7 last: $ grep \u241b[2Jx \u00b7 "
                        "\u219112k \u2193340 \u00b7 12 s"))
      << ::testing::PrintToString(rows);
  EXPECT_EQ(h.term.written().find("\x1b[2J"), std::string::npos);
  // A call that ended without going to the background keeps no line.
  Event plain = Ev(EventType::kToolStarted, "", "a2");
  plain.tool = "agent";
  plain.summary = "agent: quick";
  h.Send(plain);
  Event plain_done = Ev(EventType::kToolFinished, "", "a2");
  plain_done.tool = "agent";
  plain_done.summary = "agent: quick";
  plain_done.result = "done";
  h.Send(plain_done);
  EXPECT_FALSE(Has(h.term.ScreenRows(), "in the background: agent: quick"));
  Event finished = Ev(EventType::kBackgroundFinished, "", "a1");
  finished.tool = "agent";
  h.Send(finished);
  EXPECT_FALSE(Has(h.term.ScreenRows(), "in the background")) << ::testing::PrintToString(h.term.ScreenRows());
  // Its events after the end are dropped.
  h.Send(Nested(EventType::kMessageDelta, "", "a1", "late text"));
  EXPECT_FALSE(Has(h.term.ScreenRows(), "late text"));
  EXPECT_FALSE(Has(h.term.ScreenRows(), "in the background"));
}

TEST(TuiChatView, ASubAgentRunsNestedUnderItsCallWithLiveStatus) {
  Harness h;
  h.Send(Ev(EventType::kAgentStarted));
  Event call = Ev(EventType::kToolStarted, "", "a1");
  call.tool = "agent";
  call.summary = "agent: count the files";
  h.Send(call);
  Event out = Ev(EventType::kToolOutput, "  \u23bf bash ls\n", "a1");  // the agent tool's progress line
  h.Send(out);
  Event child_call = Nested(EventType::kToolStarted, "c1", "a1");
  child_call.tool = "bash";
  child_call.summary = "bash ls -la";
  h.Send(child_call);
  auto rows = h.term.ScreenRows();
  EXPECT_TRUE(Has(rows, "\u25cf agent: count the files")) << ::testing::PrintToString(rows);
  EXPECT_TRUE(Has(rows, "  \u23bf \u25cf bash ls -la")) << ::testing::PrintToString(rows);
  Event child_done = Nested(EventType::kToolFinished, "c1", "a1");
  child_done.tool = "bash";
  child_done.result = "a\nb\n";
  h.Send(child_done);
  h.Send(Nested(EventType::kMessageDelta, "", "a1", "I counted them.\nThere are 2 fi"));
  rows = h.term.ScreenRows();
  EXPECT_FALSE(Has(rows, "\u25cf bash ls -la")) << ::testing::PrintToString(rows);
  EXPECT_TRUE(Has(rows, "  \u23bf 1 call done  There are 2 fi")) << ::testing::PrintToString(rows);
  EXPECT_FALSE(Has(rows, "I counted them.")) << "only the last line of the child's answer";
  // A hostile sub-agent answer cannot drive the terminal.
  h.Send(Nested(EventType::kMessageDelta, "", "a1", "les\x1b[2J\x1b]52;c;AAAA\x07"));
  EXPECT_EQ(h.term.written().find("\x1b[2J"), std::string::npos);
  EXPECT_EQ(h.term.written().find("\x1b]52"), std::string::npos);
  // Events of a call that is not running are dropped, not drawn in the answer.
  h.Send(Nested(EventType::kMessageDelta, "", "gone", "stray text"));
  EXPECT_FALSE(Has(h.term.ScreenRows(), "stray text"));
  Event done = Ev(EventType::kToolFinished, "", "a1");
  done.tool = "agent";
  done.summary = "agent: count the files";
  done.result = "There are 2 files.";
  h.Send(done);
  h.Send(Ev(EventType::kAgentSettled));
  auto t = h.term.Transcript();
  auto header = std::find(t.begin(), t.end(), "\u2713 agent: count the files");
  ASSERT_NE(header, t.end()) << ::testing::PrintToString(t);
  EXPECT_EQ(*(header + 1), "  \u23bf sub-agent: 1 tool call, session child012");
  EXPECT_EQ(*(header + 2), "  There are 2 files.");
  EXPECT_FALSE(Has(t, "stray text"));
}

// Ctrl+T's expanded mode shows more of each call's output, live and when
// committed; Alt+T writes the last call again, whole.
TEST(TuiChatView, ToolCallsExpandAndCollapseAndTheLastOneExpandsWhole) {
  Harness h;
  h.Send(Ev(EventType::kAgentStarted));
  Event call = Ev(EventType::kToolStarted, "", "b1");
  call.tool = "bash";
  call.summary = "bash seq 1 50";
  h.Send(call);
  std::string output;
  for (int i = 1; i <= 12; ++i) output += "out-" + std::to_string(i) + "\n";
  h.Send(Ev(EventType::kToolOutput, output, "b1"));
  auto rows = h.term.ScreenRows();
  EXPECT_TRUE(Has(rows, "  out-12"));
  EXPECT_TRUE(Has(rows, "  out-8"));
  EXPECT_FALSE(Has(rows, "  out-7")) << "collapsed: the last 5 lines";
  h.view.SetToolsExpanded(true);
  h.Send(Ev(EventType::kToolOutput, "", "b1"));
  rows = h.term.ScreenRows();
  EXPECT_NE(std::find(rows.begin(), rows.end(), "  out-1"), rows.end()) << ::testing::PrintToString(rows);
  std::string result;
  for (int i = 1; i <= 50; ++i) result += "out-" + std::to_string(i) + "\n";
  Event done = Ev(EventType::kToolFinished, "", "b1");
  done.tool = "bash";
  done.summary = "bash seq 1 50";
  done.result = result;
  h.Send(done);
  auto t = h.term.Transcript();
  EXPECT_TRUE(Has(t, "  \u2026 20 earlier lines")) << ::testing::PrintToString(t);
  EXPECT_TRUE(Has(t, "  out-21"));
  EXPECT_FALSE(Has(t, "  out-20"));
  // Collapsed again: calls finishing from now on get the 5-line tail.
  h.view.SetToolsExpanded(false);
  EXPECT_TRUE(h.view.ExpandLastTool());
  h.Send(Ev(EventType::kAgentSettled));
  t = h.term.Transcript();
  auto whole = std::find(t.begin(), t.end(), "\u25be the last call, whole:");
  ASSERT_NE(whole, t.end()) << ::testing::PrintToString(t);
  EXPECT_EQ(*(whole + 1), "\u2713 bash seq 1 50");
  for (int i = 1; i <= 50; ++i) EXPECT_EQ(*(whole + 1 + static_cast<size_t>(i)), "  out-" + std::to_string(i));
  ChatView fresh{&h.renderer};
  EXPECT_FALSE(fresh.ExpandLastTool()) << "nothing finished yet";
}

}  // namespace
}  // namespace sepp::front::tui
