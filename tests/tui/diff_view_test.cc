// Edits drawn as diffs: line numbers from the hunk headers, removed and
// added lines in their colours, the words that changed in a changed line
// marked inverse (and nothing else marked), drawn into libvterm from the
// edit tool's real result format (tools::UnifiedDiff), and hostile text in a
// diff shown, not obeyed.
#include "front/tui/diff_view.h"

#include <gtest/gtest.h>

#include "front/tui/chat_view.h"
#include "front/tui/session_diff.h"
#include "tools/diff.h"
#include "tui/vterm_screen.h"

namespace sepp::front::tui {
namespace {

std::string Marked(std::string_view text, const std::vector<std::pair<size_t, size_t>>& ranges) {
  std::string out;
  for (auto [b, e] : ranges) out += "[" + std::string(text.substr(b, e - b)) + "]";
  return out;
}

TEST(TuiDiffView, ChangedWordsAreTheOnesThatDiffer) {
  std::string a = "  int count = compute(items, 3);";
  std::string b = "  int total = compute(items, 4);";
  WordChanges c = ChangedWords(a, b);
  EXPECT_EQ(Marked(a, c.in_old), "[count][3]");
  EXPECT_EQ(Marked(b, c.in_new), "[total][4]");
  // An inserted word marks only the new line.
  c = ChangedWords("return x;", "return x + 1;");
  EXPECT_EQ(c.in_old.size(), 0u);
  EXPECT_EQ(Marked("return x + 1;", c.in_new), "[ + 1]");
  // Lines that share nothing but spaces are a rewrite: nothing is marked.
  c = ChangedWords("alpha beta", "gamma delta");
  EXPECT_TRUE(c.in_old.empty() && c.in_new.empty());
  // A very long line is not compared word by word (the table would be big).
  std::string long_a, long_b;
  for (int i = 0; i < 1000; ++i) long_a += "w" + std::to_string(i) + " ", long_b += "v" + std::to_string(i) + " ";
  c = ChangedWords(long_a, long_b);
  EXPECT_TRUE(c.in_old.empty() && c.in_new.empty());
}

TEST(TuiDiffView, LinesCarryTheirOldAndNewNumbers) {
  std::string old_text, new_text;
  for (int i = 1; i <= 20; ++i) old_text += "line " + std::to_string(i) + "\n";
  new_text = old_text;
  new_text.replace(new_text.find("line 12\n"), 8, "line twelve\nline 12b\n");
  std::string diff = tools::UnifiedDiff(old_text, new_text, "f.txt", "f.txt");
  auto lines = DiffLines(diff, Theme::Dark());
  std::vector<std::string> text;
  for (const auto& l : lines) text.push_back(l.PlainText());
  ASSERT_EQ(text.size(), 10u) << diff;
  EXPECT_EQ(text[0], "        \u22ee");
  EXPECT_EQ(text[1], "   9  9   line 9");
  EXPECT_EQ(text[4], "  12    - line 12");
  EXPECT_EQ(text[5], "     12 + line twelve");
  EXPECT_EQ(text[6], "     13 + line 12b");
  EXPECT_EQ(text[7], "  13 14   line 13");
  // "12" became "twelve": those words are marked, the shared "line" is not.
  const Line& removed = lines[4];
  bool marked_12 = false, marked_line = false;
  for (const auto& s : removed.spans) {
    if (s.style.inverse && s.text == "12") marked_12 = true;
    if (s.style.inverse && s.text.find("line") != std::string::npos) marked_line = true;
  }
  EXPECT_TRUE(marked_12);
  EXPECT_FALSE(marked_line);
  // Cut to max_lines, saying how many were left out.
  size_t omitted = 0;
  EXPECT_EQ(DiffLines(diff, Theme::Dark(), 3, &omitted).size(), 3u);
  EXPECT_EQ(omitted, 7u);
}

TEST(TuiDiffView, HostileTextAndMalformedHunksAreShownNotObeyed) {
  // No hunk header: nothing is a diff line; a broken header does not crash.
  EXPECT_TRUE(DiffLines("just text\n-not a diff\n", Theme::Dark()).empty());
  auto lines = DiffLines("@@ -x +y @@\n-a\x1b[2Jb\n+a\x1b]52;c;AAAA\x07" "b\n", Theme::Dark());
  std::string encoded;
  for (const auto& l : lines) AppendEncoded(l, &encoded);
  EXPECT_EQ(encoded.find("\x1b[2J"), std::string::npos);
  EXPECT_EQ(encoded.find("\x1b]52"), std::string::npos);
  EXPECT_NE(encoded.find("\u241b"), std::string::npos) << "ESC shown as its control picture";
}

TEST(TuiDiffView, AnEditInTheChatViewIsDrawnAsADiffWithTheChangeMarked) {
  testing::VtermScreen term{40, 100};
  InlineRenderer renderer{100, 40};
  ChatView view{&renderer};
  Editor editor;
  view.SetFooter({"/work/project", "fake-model"});
  std::string old_text = "fn main() {\n    let port = 8080;\n    serve(port);\n}\n";
  std::string new_text = "fn main() {\n    let port = 9090;\n    serve(port);\n}\n";
  tools::DiffStats stats;
  agent::Event e(agent::EventType::kToolFinished);
  e.call_id = "call-1";
  e.tool = "edit";
  e.summary = "edit src/main.rs";
  e.result = "Edited src/main.rs (1 edit, +1 -1 lines).\n" +
             tools::UnifiedDiff(old_text, new_text, "src/main.rs", "src/main.rs", 3, &stats);
  view.OnEvent(e);
  view.Refresh(editor);
  term.Feed(renderer.Frame());
  auto rows = term.ScreenRows();
  auto header = std::find(rows.begin(), rows.end(), "\u2713 edit src/main.rs");
  ASSERT_NE(header, rows.end());
  int top = static_cast<int>(header - rows.begin());
  EXPECT_EQ(rows[top + 1], "  Edited src/main.rs (1 edit, +1 -1 lines).");
  EXPECT_EQ(rows[top + 3], "  1 1   fn main() {");
  EXPECT_EQ(rows[top + 4], "  2   -     let port = 8080;");
  EXPECT_EQ(rows[top + 5], "    2 +     let port = 9090;");
  EXPECT_EQ(rows[top + 7], "  4 4   }");
  EXPECT_EQ(std::count(rows.begin(), rows.end(), "  ---"), 0) << "no file header lines";
  // On the terminal: the changed number is inverse, the rest of the line is not.
  std::string removed = rows[top + 4];
  int col_number = static_cast<int>(removed.find("8080"));
  int col_port = static_cast<int>(removed.find("port"));
  EXPECT_TRUE(term.Cell(top + 4, col_number).attrs.reverse);
  EXPECT_TRUE(term.Cell(top + 5, col_number).attrs.reverse);
  EXPECT_FALSE(term.Cell(top + 4, col_port).attrs.reverse);
  EXPECT_FALSE(term.Cell(top + 3, col_port).attrs.reverse);

  // A failed edit shows its error as before, not a diff.
  agent::Event failed(agent::EventType::kToolFinished);
  failed.tool = "edit";
  failed.summary = "edit src/other.rs";
  failed.result = "old_string not found in src/other.rs\n@@ -1 +1 @@";
  failed.is_error = true;
  view.OnEvent(failed);
  view.Refresh(editor);
  term.Feed(renderer.Frame());
  rows = term.ScreenRows();
  auto err = std::find(rows.begin(), rows.end(), "\u2717 edit src/other.rs");
  ASSERT_NE(err, rows.end());
  EXPECT_EQ(*(err + 1), "  old_string not found in src/other.rs");
}

TEST(TuiSessionDiff, EditsAndCreatedFilesBecomeDiffsAndFailedCallsAreLeftOut) {
  EXPECT_TRUE(DiffOfSession({llm::Message::User("hello")}).text.empty());
  llm::Message calls;
  calls.role = llm::Role::kAssistant;
  calls.content = {llm::ContentBlock::ToolCall("e1", "edit", {{"path", "a.txt"}}),
                   llm::ContentBlock::ToolCall("e2", "edit", {{"path", "b.txt"}}),
                   llm::ContentBlock::ToolCall("w1", "write", {{"path", "new.txt"}, {"content", "one\ntwo\n"}}),
                   llm::ContentBlock::ToolCall("w2", "write", {{"path", "a.txt"}, {"content", "whole\n"}}),
                   llm::ContentBlock::ToolCall("b1", "bash", {{"command", "echo x > c.txt"}})};
  std::string edit_diff = tools::UnifiedDiff("x = 1\n", "x = 2\n", "a.txt", "a.txt");
  std::vector<llm::Message> messages = {
      llm::Message::User("change things"), calls,
      llm::Message::ToolResult("e1", "edit", "Edited a.txt (1 edit, +1 -1 lines).\n" + edit_diff, false),
      llm::Message::ToolResult("e2", "edit", "old_string not found in b.txt", true),
      llm::Message::ToolResult("w1", "write", "Created new.txt: 8 bytes, 2 lines.", false),
      llm::Message::ToolResult("w2", "write", "Wrote a.txt: 6 bytes, 1 line.", false),
      llm::Message::ToolResult("b1", "bash", "", false)};
  SessionDiff d = DiffOfSession(messages);
  EXPECT_EQ(d.edits, 1u);
  EXPECT_EQ(d.writes, 2u);
  EXPECT_EQ(d.files, (std::vector<std::string>{"a.txt", "new.txt"}));
  EXPECT_EQ(d.text.find("2 files changed by 1 edit and 2 writes in this session"), 0u) << d.text;
  EXPECT_NE(d.text.find(edit_diff), std::string::npos) << d.text;
  EXPECT_NE(d.text.find("--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1,2 @@\n+one\n+two\n"), std::string::npos) << d.text;
  EXPECT_NE(d.text.find("=== Wrote a.txt: 6 bytes, 1 line. (written whole"), std::string::npos) << d.text;
  EXPECT_EQ(d.text.find("b.txt"), std::string::npos) << "the failed edit changed nothing";
  EXPECT_NE(d.text.find("through bash are not tracked"), std::string::npos);
}

}  // namespace
}  // namespace sepp::front::tui
