// The interaction parts of the terminal UI, each on its own: the prompt
// history (persisted, browsed, searched), undo/redo in the editor, the
// command table and fuzzy matching, .gitignore-aware file completion,
// OSC 52 (plain and through tmux), code blocks for /copy, the permission
// modal, the picker and the full-screen viewer.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>

#include "base/file.h"
#include "base/secrets.h"
#include "front/tui/clipboard.h"
#include "front/tui/editor.h"
#include "front/tui/file_index.h"
#include "front/tui/permission_modal.h"
#include "front/tui/picker.h"
#include "front/tui/prompt_history.h"
#include "front/tui/slash_commands.h"
#include "front/tui/viewer.h"
#include "tui/vterm_screen.h"

namespace sepp::front::tui {
namespace {

namespace fs = std::filesystem;

std::vector<InputEvent> Keys(std::string_view bytes) {
  KeyDecoder d;
  auto events = d.Feed(bytes);
  auto rest = d.Flush();
  events.insert(events.end(), rest.begin(), rest.end());
  return events;
}

class TempDir {
 public:
  TempDir() : path_(fs::temp_directory_path() / ("sepp-tui-parts-" + std::to_string(std::random_device{}()))) {
    fs::create_directories(path_);
  }
  ~TempDir() { fs::remove_all(path_); }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

void WriteText(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << text;
}

std::string Base64Decode(std::string_view in) {
  std::string out;
  int val = 0, bits = -8;
  for (char c : in) {
    const char* table = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const char* p = std::strchr(table, c);
    if (c == '=' || !p || !c) break;
    val = (val << 6) + static_cast<int>(p - table);
    bits += 6;
    if (bits >= 0) {
      out.push_back(static_cast<char>((val >> bits) & 0xFF));
      bits -= 8;
    }
  }
  return out;
}

TEST(TuiHistory, PromptsSurviveReopeningAndAreBrowsedNewestFirst) {
  TempDir dir;
  fs::path file = dir.path() / "history" / "p.jsonl";
  {
    PromptHistory h(file);
    EXPECT_EQ(h.Add("first"), "");
    EXPECT_EQ(h.Add("second\nwith a newline"), "");
    EXPECT_EQ(h.Add("second\nwith a newline"), "") << "a repeat is kept once";
    EXPECT_EQ(h.Add("third"), "");
  }
  // A damaged line (a crash mid-write, a hand edit) is skipped, not fatal.
  std::ofstream(file, std::ios::app) << "{not json\n" << R"({"text": 5})" << "\n";
  PromptHistory h(file);
  ASSERT_EQ(h.entries().size(), 3u);
  EXPECT_EQ(h.Older("draft"), "third");
  EXPECT_EQ(h.Older("ignored"), "second\nwith a newline");
  EXPECT_EQ(h.Older(""), "first");
  EXPECT_FALSE(h.Older("").has_value()) << "nothing older than the first";
  EXPECT_EQ(h.Newer(), "second\nwith a newline");
  EXPECT_EQ(h.Newer(), "third");
  EXPECT_EQ(h.Newer(), "draft") << "past the newest: the text being written comes back";
  EXPECT_FALSE(h.Newer().has_value());
  EXPECT_EQ(h.Search("SECOND", 3), 1);
  EXPECT_EQ(h.Search("i", 3), 2) << "the newest match first";
  EXPECT_EQ(h.Search("i", 2), 1) << "then older ones";
  EXPECT_EQ(h.Search("nowhere", 3), -1);
  EXPECT_EQ(fs::status(file).permissions() & fs::perms::others_read, fs::perms::none);
}

TEST(TuiHistory, AProviderKeyInAPromptNeverReachesTheFile) {
  TempDir dir;
  RegisterSecret("sk-tui-history-secret-0123456789");
  fs::path file = dir.path() / "h.jsonl";
  PromptHistory h(file);
  h.Add("use the key sk-tui-history-secret-0123456789 please");
  auto text = ReadFile(file);
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(text->find("sk-tui-history-secret"), std::string::npos) << *text;
  EXPECT_NE(text->find("use the key"), std::string::npos) << *text;
  EXPECT_EQ(h.entries().back().find("sk-tui-history-secret"), std::string::npos);
}

TEST(TuiHistory, AnUnwritableFileSaysSoAndTheHistoryStillWorks) {
  TempDir dir;
  WriteText(dir.path() / "blocker", "a file where the folder should be");
  PromptHistory h(dir.path() / "blocker" / "h.jsonl");
  std::string msg = h.Add("kept in memory");
  EXPECT_NE(msg.find("cannot save the prompt history"), std::string::npos) << msg;
  EXPECT_EQ(h.Older(""), "kept in memory");
}

TEST(TuiEditorUndo, ATypingRunIsOneStepAndRedoRestoresIt) {
  Editor ed;
  for (const auto& e : Keys("hello world")) ed.Handle(e);
  for (const auto& e : Keys("\x17")) ed.Handle(e);  // Ctrl+W kills "world"
  EXPECT_EQ(ed.text(), "hello ");
  for (const auto& e : Keys("\x1f")) ed.Handle(e);  // Ctrl+_ undo
  EXPECT_EQ(ed.text(), "hello world");
  for (const auto& e : Keys("\x1f")) ed.Handle(e);  // the word "world" typed
  EXPECT_EQ(ed.text(), "hello ");
  for (const auto& e : Keys("\x1f\x1f")) ed.Handle(e);
  EXPECT_EQ(ed.text(), "");
  for (const auto& e : Keys("\x1b_")) ed.Handle(e);  // Alt+_ redo
  EXPECT_EQ(ed.text(), "hello");
  for (const auto& e : Keys("\x1b[122;6u")) ed.Handle(e);  // kitty Ctrl+Shift+Z redo
  EXPECT_EQ(ed.text(), "hello ");
  for (const auto& e : Keys("!")) ed.Handle(e);  // a new edit drops the redo list
  for (const auto& e : Keys("\x1b_")) ed.Handle(e);
  EXPECT_EQ(ed.text(), "hello !");
  ed.SetText("from history");
  for (const auto& e : Keys("\x1a")) ed.Handle(e);  // Ctrl+Z
  EXPECT_EQ(ed.text(), "hello !") << "a text pulled from the history can be undone";
}

TEST(TuiEditor, UpOnTheFirstLineAndDownOnTheLastAskForTheHistory) {
  Editor ed;
  ed.SetText("one\ntwo");
  EXPECT_EQ(ed.Handle(Keys("\x1b[B")[0]), Editor::Action::kHistoryNext);
  EXPECT_EQ(ed.Handle(Keys("\x1b[A")[0]), Editor::Action::kNone) << "moves to the first line";
  EXPECT_EQ(ed.Handle(Keys("\x1b[A")[0]), Editor::Action::kHistoryPrev);
  EXPECT_EQ(ed.Handle(Keys("\x12")[0]), Editor::Action::kSearch);    // Ctrl+R
  EXPECT_EQ(ed.Handle(Keys("\x07")[0]), Editor::Action::kExternal);  // Ctrl+G
  EXPECT_EQ(ed.Handle(Keys("\t")[0]), Editor::Action::kComplete);
  EXPECT_EQ(ed.Handle(Keys("\x18")[0]), Editor::Action::kCalls);     // Ctrl+X
  EXPECT_EQ(ed.text(), "one\ntwo");
}

TEST(TuiCommands, TheTableFindsFuzzilyAndKeepsBuiltinsFromBeingShadowed) {
  CommandTable t;
  std::string ran;
  EXPECT_TRUE(t.Add({"model", "[id]", "change the model", [&](const std::string& a) { ran = "model:" + a; }}));
  EXPECT_TRUE(t.Add({"compact", "[focus]", "summarise", [&](const std::string& a) { ran = "compact:" + a; }}));
  EXPECT_TRUE(t.Add({"copy", "", "copy", {}}));
  EXPECT_FALSE(t.Add({"model", "", "a template with a built-in's name", {}}));
  EXPECT_EQ(t.Find("model")->description, "change the model");
  auto m = t.Matching("co");
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m[0]->name, "copy") << "both are prefixes: the shorter first";
  EXPECT_EQ(t.Matching("cmpt").size(), 1u) << "in order, not contiguous";
  EXPECT_TRUE(t.Matching("xyz").empty());
  EXPECT_EQ(t.Matching("").size(), 3u);
  std::string name, args;
  ASSERT_TRUE(ParseSlash("/compact  keep the API notes \n", &name, &args));
  EXPECT_EQ(name, "compact");
  EXPECT_EQ(args, "keep the API notes");
  t.Find(name)->run(args);
  EXPECT_EQ(ran, "compact:keep the API notes");
  EXPECT_FALSE(ParseSlash("//not a command", &name, &args));
  EXPECT_FALSE(ParseSlash("plain text", &name, &args));
  EXPECT_FALSE(ParseSlash("/", &name, &args));
  EXPECT_GT(FuzzyScore("mod", "model"), FuzzyScore("mod", "my-own-demo"));
}

TEST(TuiFileIndex, GitignoreRulesHideWhatGitWould) {
  EXPECT_TRUE(GitignoreMatches("*.o", "src/a.o", false));
  EXPECT_TRUE(GitignoreMatches("build/", "build", true));
  EXPECT_FALSE(GitignoreMatches("build/", "build", false)) << "a folder rule does not hide a file";
  EXPECT_TRUE(GitignoreMatches("/out", "out", true));
  EXPECT_FALSE(GitignoreMatches("/out", "src/out", true)) << "anchored to its folder";
  EXPECT_TRUE(GitignoreMatches("docs/*.tmp", "docs/x.tmp", false));
  EXPECT_FALSE(GitignoreMatches("docs/*.tmp", "docs/sub/x.tmp", false)) << "* does not cross '/'";
  EXPECT_TRUE(GitignoreMatches("**/cache", "a/b/cache", true));

  TempDir dir;
  WriteText(dir.path() / ".gitignore", "build/\n*.log\n# a comment\n!keep.log\n");
  WriteText(dir.path() / "src" / "main.cc", "");
  WriteText(dir.path() / "src" / ".gitignore", "generated.h\n");
  WriteText(dir.path() / "src" / "generated.h", "");
  WriteText(dir.path() / "generated.h", "");  // the src/ rule does not reach here
  WriteText(dir.path() / "build" / "main.o", "");
  WriteText(dir.path() / "run.log", "");
  WriteText(dir.path() / ".git" / "HEAD", "");
  WriteText(dir.path() / "README.md", "");
  FileIndex index(dir.path());
  auto paths = index.paths();
  std::sort(paths.begin(), paths.end());
  EXPECT_EQ(paths, (std::vector<std::string>{".gitignore", "README.md", "generated.h", "src/", "src/.gitignore",
                                             "src/main.cc"}));
  auto m = index.Matching("main", 5);
  ASSERT_FALSE(m.empty());
  EXPECT_EQ(m[0], "src/main.cc");
  // Typing narrows among the last matches; a shorter or different query
  // looks at everything again (nothing stale survives a Backspace).
  EXPECT_EQ(index.Matching("REA", 10), std::vector<std::string>{"README.md"});
  EXPECT_EQ(index.Matching("READx", 10), std::vector<std::string>{});
  EXPECT_EQ(index.Matching("READ", 10), std::vector<std::string>{"README.md"}) << "Backspace: not the empty list";
  EXPECT_EQ(index.Matching("gen", 10), std::vector<std::string>{"generated.h"});
  EXPECT_EQ(index.Matching("", 2).size(), 2u) << "'@' alone lists the first paths";
  EXPECT_FALSE(index.Matching("m", 10).empty()) << "after an empty query every path is looked at";
}

TEST(TuiClipboard, Osc52CarriesTheTextAndTmuxGetsItWrapped) {
  std::string text = "int main() {\n  return 0;\n}\n\u00e9";
  std::string seq = Osc52(text, false);
  ASSERT_EQ(seq.rfind("\x1b]52;c;", 0), 0u);
  ASSERT_EQ(seq.back(), '\x07');
  EXPECT_EQ(Base64Decode(seq.substr(7, seq.size() - 8)), text);
  for (size_t n = 0; n < 5; ++n) {  // every padding length
    std::string t = text.substr(0, n);
    std::string s = Osc52(t, false);
    EXPECT_EQ(Base64Decode(s.substr(7, s.size() - 8)), t);
  }
  std::string tmux = Osc52(text, true);
  ASSERT_EQ(tmux.rfind("\x1bPtmux;\x1b\x1b]52;c;", 0), 0u) << "every ESC inside doubled";
  EXPECT_EQ(tmux.substr(tmux.size() - 3), "\x07\x1b\\");
  // The payload cannot end the sequence early: no ESC or BEL inside it.
  std::string payload = seq.substr(7, seq.size() - 8);
  EXPECT_EQ(payload.find_first_of("\x1b\x07"), std::string::npos);
}

TEST(TuiClipboard, CodeBlocksAreFoundWithEitherFence) {
  auto blocks = CodeBlocks("Here:\n```cpp\nint x;\n```\ntext\n~~~~\na ``` inside\n~~~~\n  ```\nunclosed\n");
  ASSERT_EQ(blocks.size(), 3u);
  EXPECT_EQ(blocks[0], "int x;\n");
  EXPECT_EQ(blocks[1], "a ``` inside\n");
  EXPECT_EQ(blocks[2], "unclosed\n");
  EXPECT_TRUE(CodeBlocks("no code here").empty());
}

runtime::PendingPermission Request(const std::string& id) {
  runtime::PendingPermission p;
  p.request.id = id;
  p.request.tool = "bash";
  p.request.args = {{"command", "curl https://pypi.org/simple/"}};
  p.request.widenings = {{agent::Widening::Kind::kDomain, "pypi.org"}};
  p.request.justification = "install the package the task needs";
  p.request.denials = {{sandbox::DenialKind::kNetwork, "pypi.org", "connection to pypi.org refused"}};
  return p;
}

std::string Text(const std::vector<Line>& lines) {
  std::string s;
  for (const auto& l : lines) s += l.PlainText() + "\n";
  return s;
}

TEST(TuiPermissionModal, ShowsWhatWasRefusedAndAnswersOneRequestAtATime) {
  PermissionModal m;
  m.Open(Request("perm-1"));
  m.Open(Request("perm-2"));
  m.Open(Request("perm-1"));  // a repeat is ignored
  std::string shown = Text(m.Render());
  EXPECT_NE(shown.find("(1 of 2)"), std::string::npos) << shown;
  EXPECT_NE(shown.find("curl https://pypi.org/simple/"), std::string::npos) << shown;
  EXPECT_NE(shown.find("network access to pypi.org"), std::string::npos) << shown;
  EXPECT_NE(shown.find("install the package"), std::string::npos) << shown;
  EXPECT_NE(shown.find("refused: network pypi.org"), std::string::npos) << shown;
  // Keys that mean nothing here do nothing (letters of a prompt are not answers).
  for (const auto& e : Keys("hello\x01")) EXPECT_FALSE(m.Handle(e).has_value()) << Describe(e);
  // Down twice: "always for this project" shows the exact policy change.
  for (const auto& e : Keys("\x1b[B\x1b[B")) EXPECT_FALSE(m.Handle(e).has_value());
  shown = Text(m.Render());
  EXPECT_NE(shown.find(agent::DescribeAsPolicyToml(Request("x").request.widenings).substr(0, 10)), std::string::npos)
      << shown;
  auto a = m.Handle(Keys("\r")[0]);
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(a->request_id, "perm-1");
  EXPECT_EQ(a->answer.choice, agent::PermissionChoice::kAllowProject);
  EXPECT_EQ(a->answer.source, "user");
  ASSERT_TRUE(m.open());
  EXPECT_EQ(m.current_id(), "perm-2");
  EXPECT_NE(Text(m.Render()).find("\u203a 1. allow once"), std::string::npos) << "the choice starts over";
  m.Open(Request("perm-3"));
  m.Drop("perm-3");  // resolved elsewhere (timeout)
  a = m.Handle(Keys("2")[0]);
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(a->answer.choice, agent::PermissionChoice::kAllowSession);
  EXPECT_FALSE(m.open());
  m.Open(Request("perm-4"));
  a = m.Handle(Keys("\x1b")[0]);
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(a->answer.choice, agent::PermissionChoice::kDeny);
  EXPECT_FALSE(a->answer.message.empty()) << "the model is told it was the user";
}

TEST(TuiPermissionModal, HostileTextFromTheModelCannotDriveTheTerminal) {
  PermissionModal m;
  auto p = Request("perm-1");
  p.request.args = {{"command", "echo \x1b]52;c;aGk=\x07 \x1b[2J"}};
  p.request.justification = "trust me\x1b[31m red";
  m.Open(p);
  std::string bytes;
  for (const auto& l : m.Render()) AppendEncoded(l, &bytes);
  EXPECT_EQ(bytes.find("\x1b]52"), std::string::npos);
  EXPECT_EQ(bytes.find("\x1b[2J"), std::string::npos);
  EXPECT_EQ(bytes.find("\x1b[31m red"), std::string::npos);
  EXPECT_NE(bytes.find("\u241b[31m red"), std::string::npos) << "shown, not obeyed";
}

TEST(TuiPicker, FiltersMovesAndChooses) {
  Picker p;
  std::string chosen;
  p.Open("pick", {{"a", "alpha", ""}, {"b", "beta", "second"}, {"c", "gamma", ""}},
         [&](const std::string& k) { chosen = k; }, "b");
  EXPECT_NE(Text(p.Render()).find("\u203a beta  second"), std::string::npos) << "starts on the given key";
  for (const auto& e : Keys("ga")) p.Handle(e);
  EXPECT_NE(Text(p.Render()).find("1 of 3"), std::string::npos) << Text(p.Render());
  p.Handle(Keys("\r")[0]);
  EXPECT_EQ(chosen, "c");
  EXPECT_FALSE(p.open());
  p.Open("pick", {{"a", "alpha", ""}}, [&](const std::string& k) { chosen = k; });
  p.Handle(Keys("\x1b")[0]);
  EXPECT_FALSE(p.open());
  EXPECT_EQ(chosen, "c") << "Esc chooses nothing";
}

// /tree's folding: Left hides an item's subtree, Right shows it again; a
// filter searches every item, folded or not; a choice may reopen the picker.
TEST(TuiPicker, SubtreesFoldAndAFilterSearchesThemAll) {
  Picker p;
  std::string chosen;
  std::vector<Picker::Item> items = {{"r", "root", "", 3}, {"a", "  branch a", "", 1}, {"a1", "    a child", "", 0},
                                     {"b", "  branch b", "", 0}, {"s", "second root", "", 0}};
  p.Open("tree", items, [&](const std::string& k) { chosen = k; }, "a");
  EXPECT_NE(Text(p.Render()).find("5 of 5"), std::string::npos) << Text(p.Render());
  p.Handle(Keys("\x1b[D")[0]);  // Left on "branch a"
  std::string text = Text(p.Render());
  EXPECT_EQ(text.find("a child"), std::string::npos) << text;
  EXPECT_NE(text.find("\u203a   branch a  \u25b8 1 folded"), std::string::npos) << text;
  EXPECT_NE(text.find("4 of 5"), std::string::npos) << text;
  p.Handle(Keys("\x1b[A")[0]);  // up to the root, fold it all
  p.Handle(Keys("\x1b[D")[0]);
  text = Text(p.Render());
  EXPECT_EQ(text.find("branch b"), std::string::npos) << text;
  EXPECT_NE(text.find("second root"), std::string::npos) << text;
  // A search finds inside folded subtrees.
  for (const auto& e : Keys("child")) p.Handle(e);
  EXPECT_NE(Text(p.Render()).find("a child"), std::string::npos) << Text(p.Render());
  for (int i = 0; i < 5; ++i) p.Handle(Keys("\x7f")[0]);
  p.Handle(Keys("\x1b[C")[0]);  // Right unfolds the root; branch a stays folded
  text = Text(p.Render());
  EXPECT_NE(text.find("branch b"), std::string::npos) << text;
  EXPECT_EQ(text.find("a child"), std::string::npos) << text;
  // Left on an item with nothing under it does nothing.
  p.Handle(Keys("\x1b[B")[0]);
  p.Handle(Keys("\x1b[B")[0]);
  p.Handle(Keys("\x1b[D")[0]);
  EXPECT_NE(Text(p.Render()).find("4 of 5"), std::string::npos) << Text(p.Render());
  // The chooser may open the picker again from inside its own callback.
  p.Open("first", {{"x", "x", ""}}, [&](const std::string& k) {
    p.Open("second", {{"y", "y", ""}}, [&chosen, k](const std::string& k2) { chosen = k + k2; });
  });
  p.Handle(Keys("\r")[0]);
  ASSERT_TRUE(p.open());
  p.Handle(Keys("\r")[0]);
  EXPECT_EQ(chosen, "xy");
}

TEST(TuiViewer, UsesTheAlternateScreenScrollsAndSearches) {
  std::string text;
  for (int i = 1; i <= 100; ++i) text += "line " + std::to_string(i) + (i == 70 ? " needle" : "") + "\n";
  testing::VtermScreen term(10, 40);
  term.Feed("main screen text\r\n");
  Viewer v;
  v.Open("tool output", text, 40, 10);
  term.Feed(v.Frame());
  EXPECT_EQ(term.Row(0), "line 1");
  EXPECT_NE(term.Row(9).find("tool output  1-9/101"), std::string::npos) << term.Row(9);
  for (const auto& e : Keys(" ")) v.Handle(e);
  term.Feed(v.Frame());
  EXPECT_EQ(term.Row(0), "line 10");
  for (const auto& e : Keys("/needle\r")) v.Handle(e);
  term.Feed(v.Frame());
  EXPECT_EQ(term.Row(0), "line 70 needle");
  for (const auto& e : Keys("G")) v.Handle(e);
  EXPECT_EQ(v.top(), 101u - 9u);
  for (const auto& e : Keys("q")) v.Handle(e);
  EXPECT_FALSE(v.open());
  term.Feed(v.Close());
  EXPECT_EQ(term.Row(0), "main screen text") << "the main screen is as it was";
  EXPECT_EQ(term.written().find("\x1b[2J"), std::string::npos);
  EXPECT_EQ(term.written().find("\x1b[3J"), std::string::npos);
}

}  // namespace
}  // namespace sepp::front::tui
