// The footer: git branch (read from HEAD files, never by running git, in a
// repository, a worktree's ".git" file and a detached HEAD), session name,
// thinking level, cached tokens and the auto-compaction mark, drawn on
// libvterm; a hostile branch name is shown, not obeyed.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>

#include "base/ids.h"
#include "front/tui/chat_view.h"
#include "front/tui/git_branch.h"
#include "tui/vterm_screen.h"

namespace sepp::front::tui {
namespace {

namespace fs = std::filesystem;

struct TempDir {
  fs::path path = fs::temp_directory_path() / ("sepp-footer-" + NewId().substr(0, 12));
  TempDir() { fs::create_directories(path); }
  ~TempDir() { fs::remove_all(path); }
};

void WriteFile(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << text;
}

TEST(TuiGitBranch, ReadsHeadInTheFolderItsParentsAndAWorktreeFile) {
  TempDir t;
  EXPECT_EQ(GitBranch(t.path), "") << "not a repository";
  WriteFile(t.path / "repo" / ".git" / "HEAD", "ref: refs/heads/feature/footer\n");
  fs::create_directories(t.path / "repo" / "src" / "deep");
  EXPECT_EQ(GitBranch(t.path / "repo"), "feature/footer");
  EXPECT_EQ(GitBranch(t.path / "repo" / "src" / "deep"), "feature/footer") << "found from a subfolder";
  // A worktree: ".git" is a file naming the real git dir (relative here).
  WriteFile(t.path / "gitdirs" / "wt1" / "HEAD", "ref: refs/heads/h10more\n");
  WriteFile(t.path / "wt" / ".git", "gitdir: ../gitdirs/wt1\n");
  EXPECT_EQ(GitBranch(t.path / "wt"), "h10more");
  // Detached: the commit's short form; garbage: nothing.
  WriteFile(t.path / "repo" / ".git" / "HEAD", "0123456789abcdef0123456789abcdef01234567\n");
  EXPECT_EQ(GitBranch(t.path / "repo"), "0123456");
  WriteFile(t.path / "repo" / ".git" / "HEAD", "not a head\n");
  EXPECT_EQ(GitBranch(t.path / "repo"), "");
  WriteFile(t.path / "bad" / ".git", "something else\n");
  EXPECT_EQ(GitBranch(t.path / "bad"), "");
}

TEST(TuiChatView, TheFooterShowsBranchNameThinkingCacheAndTheCompactionMark) {
  testing::VtermScreen term{20, 200};
  InlineRenderer renderer{200, 20};
  ChatView view{&renderer};
  Editor editor;
  FooterInfo info{"/work/project", "fake-model", 200000};
  info.branch = "main";
  info.session_name = "port move";
  info.thinking = "high";
  info.compacts_at = 183616;
  view.SetFooter(info);
  agent::Event usage(agent::EventType::kUsage);
  usage.total.input = 2000;
  usage.total.cache_read = 8000;
  usage.total.output = 300;
  usage.usage.input = 2000;
  usage.usage.cache_read = 8000;
  view.OnEvent(usage);
  view.Refresh(editor);
  term.Feed(renderer.Frame());
  EXPECT_EQ(term.Transcript().back(),
            "/work/project (main)  \u201cport move\u201d  fake-model \u00b7 thinking high  \u219110k \u2193300 cached 8k"
            "  ctx 10k/200k (5%, compacts at 183.6k)  cost unknown  sandbox on");
  // Off: said so; thinking off and no branch: left out.
  info.branch.clear();
  info.thinking = "off";
  info.compacts_at = -1;
  info.session_name.clear();
  view.SetFooter(info);
  view.Refresh(editor);
  term.Feed(renderer.Frame());
  EXPECT_EQ(term.Transcript().back(),
            "/work/project  fake-model  \u219110k \u2193300 cached 8k  ctx 10k/200k (5%, auto-compaction off)"
            "  cost unknown  sandbox on");
  // The sandbox: running once the session sandbox started; off said loudly.
  info.sandbox = FooterInfo::Sandbox::kRunning;
  view.SetFooter(info);
  view.Refresh(editor);
  term.Feed(renderer.Frame());
  EXPECT_TRUE(term.Transcript().back().ends_with("cost unknown  sandbox running")) << term.Transcript().back();
  info.sandbox = FooterInfo::Sandbox::kOff;
  view.SetFooter(info);
  view.Refresh(editor);
  term.Feed(renderer.Frame());
  std::string last = term.Transcript().back();
  ASSERT_TRUE(last.ends_with("sandbox OFF")) << last;
  // In the warning colour, not the muted one.
  auto row = static_cast<int>(term.Transcript().size()) - 1;
  int end = term.cols() - 1;
  while (end > 0 && (term.Cell(row, end).chars[0] == 0 || term.Cell(row, end).chars[0] == ' ')) --end;
  auto off_cell = term.Cell(row, end);  // the F of OFF
  ASSERT_EQ(off_cell.chars[0], static_cast<uint32_t>('F'));
  auto cwd_cell = term.Cell(row, 0);
  EXPECT_FALSE(vterm_color_is_equal(&off_cell.fg, &cwd_cell.fg)) << "sandbox OFF is not marked";
  // A branch name from a hostile HEAD cannot drive the terminal.
  info.branch = "x\x1b]52;c;AAAA\x07\x1b[2J";
  view.SetFooter(info);
  view.Refresh(editor);
  term.Feed(renderer.Frame());
  EXPECT_EQ(term.written().find("\x1b]52"), std::string::npos);
  EXPECT_EQ(term.written().find("\x1b[2J"), std::string::npos);
  EXPECT_NE(term.Transcript().back().find("(x\u241b]52;c;AAAA"), std::string::npos) << term.Transcript().back();
}

// Too narrow for every field: the least needed give way (the cost first,
// then the compaction mark's detail, ...), so the footer stays one row; the
// folder, "working" and a sandbox that is off stay.
TEST(TuiChatView, ANarrowFooterDropsTheLeastNeededFieldsFirst) {
  for (int width : {200, 100, 80, 60, 40}) {
    testing::VtermScreen term{10, width};
    InlineRenderer renderer{width, 10};
    ChatView view{&renderer};
    Editor editor;
    FooterInfo info{"/work/project", "claude-sonnet-4-5", 200000};
    info.branch = "main";
    info.thinking = "high";
    info.compacts_at = 183616;
    info.sandbox = FooterInfo::Sandbox::kOff;
    view.SetFooter(info);
    agent::Event usage(agent::EventType::kUsage);
    usage.total.input = 2000;
    usage.total.cache_read = 8000;
    usage.total.output = 300;
    usage.usage.input = 10000;
    view.OnEvent(usage);
    view.OnEvent(agent::Event(agent::EventType::kAgentStarted));
    view.Refresh(editor);
    term.Feed(renderer.Frame());
    auto rows = term.Transcript();
    ASSERT_GE(rows.size(), 2u);
    std::string footer = rows.back();
    EXPECT_EQ(rows[rows.size() - 2], ">") << width << ": the footer is one row under the editor";
    EXPECT_EQ(footer.rfind("/work/project", 0), 0u) << footer;
    EXPECT_NE(footer.find("sandbox OFF"), std::string::npos) << footer;
    EXPECT_NE(footer.find("working"), std::string::npos) << footer;
    if (width == 200) {
      EXPECT_NE(footer.find("cost unknown"), std::string::npos) << footer;
      EXPECT_NE(footer.find("compacts at 183.6k"), std::string::npos) << footer;
    }
    if (width == 100) {
      EXPECT_EQ(footer.find("cost unknown"), std::string::npos) << footer;
      EXPECT_NE(footer.find("claude-sonnet-4-5 \u00b7 thinking high"), std::string::npos) << footer;
    }
    if (width <= 60) EXPECT_EQ(footer.find("compacts at"), std::string::npos) << footer;
  }
}

TEST(TuiChatView, TheQueueShowsAboveTheEditorOneLineAMessage) {
  testing::VtermScreen term{20, 120};
  InlineRenderer renderer{120, 20};
  ChatView view{&renderer};
  Editor editor;
  view.SetFooter({"/work/project", "fake-model"});
  agent::Event queue(agent::EventType::kQueueUpdated);
  queue.data = {{"steering", {"first steer\nwith a second line", "x\x1b[2J"}},
                {"follow_up", {"f1", "f2", "f3", "f4"}}};
  view.OnEvent(queue);
  view.Refresh(editor);
  term.Feed(renderer.Frame());
  auto rows = term.ScreenRows();
  auto first = std::find(rows.begin(), rows.end(), "  \u23f8 steer: first steer \u2026  (Alt+Up edits the queue)");
  ASSERT_NE(first, rows.end()) << ::testing::PrintToString(rows);
  EXPECT_EQ(*(first + 1), "  \u23f8 steer: x\u241b[2J");
  EXPECT_EQ(*(first + 2), "  \u23f8 follow-up: f1");
  EXPECT_EQ(*(first + 3), "  \u23f8 follow-up: f2");
  EXPECT_EQ(*(first + 4), "  \u2026 2 more queued");
  EXPECT_EQ(*(first + 5), ">");
  EXPECT_EQ(view.queued(), 6u);
  EXPECT_NE(term.Transcript().back().find("queued 6"), std::string::npos);
  EXPECT_EQ(term.written().find("\x1b[2J"), std::string::npos);
  // Emptied: the lines go.
  agent::Event empty(agent::EventType::kQueueUpdated);
  empty.data = {{"steering", Json::array()}, {"follow_up", Json::array()}};
  view.OnEvent(empty);
  view.Refresh(editor);
  term.Feed(renderer.Frame());
  rows = term.ScreenRows();
  for (const auto& r : rows) EXPECT_EQ(r.find("\u23f8"), std::string::npos) << r;
}

}  // namespace
}  // namespace sepp::front::tui
