// What only the JSONL store has: its file layout, torn writes, hostile files.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/stat.h>

#include <random>

#include "base/fd.h"
#include "base/file.h"
#include "base/strings.h"
#include "session/jsonl_store.h"
#include "session/session_test_util.h"
#include "session/store.h"

namespace sepp::session {
namespace {

using testing::AssistantMessage;
using testing::TempDir;
using testing::UserMessage;

// The value of a result that must be ok.
template <class T>
T Take(Result<T>&& r) {
  if (!r.ok()) ADD_FAILURE() << r.error().message;
  return std::move(r).value();
}

void AppendRaw(const std::string& path, const std::string& bytes) {
  UniqueFd fd(::open(path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC));
  ASSERT_TRUE(fd.valid());
  ASSERT_TRUE(WriteAll(fd.get(), bytes).ok());
}

// Every non-empty line of the file parses as a JSON object.
void ExpectCleanFile(const std::string& path) {
  std::string text = *ReadFile(path);
  ASSERT_FALSE(text.empty());
  EXPECT_EQ(text.back(), '\n');
  for (const std::string& line : SplitLines(text)) {
    auto j = ParseJson(line);
    EXPECT_TRUE(j.ok() && j->is_object()) << line.substr(0, 200);
  }
}

class JsonlStoreTest : public ::testing::Test {
 protected:
  void SetUp() override { store_ = Take(OpenStore(StoreKind::kJsonl, dir_.path())); }

  // A closed session with two messages; returns its id and path.
  std::pair<std::string, std::string> MakeSession() {
    auto s = Take(store_->Create(NewSession{"/work/p", "anthropic", "m", ""}));
    EXPECT_TRUE(s->AppendMessage(UserMessage("one")).ok());
    EXPECT_TRUE(s->AppendMessage(AssistantMessage("two")).ok());
    return {s->id(), s->location()};
  }

  TempDir dir_;
  std::unique_ptr<Store> store_;
};

TEST_F(JsonlStoreTest, LayoutAndHeader) {
  auto s = Take(store_->Create(NewSession{"/work/p", "anthropic", "m", ""}));
  std::filesystem::path path = s->location();
  EXPECT_EQ(path.parent_path(), dir_.path() / CwdFolderName("/work/p"));
  EXPECT_TRUE(EndsWith(path.filename().string(), "_" + s->id() + ".jsonl"));
  struct stat st;
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  std::string text = *ReadFile(path);
  EXPECT_TRUE(StartsWith(text, "{\"type\":\"session\",\"version\":1,\"id\":\"" + s->id() + "\""))
      << text;
  ASSERT_TRUE(s->AppendMessage(UserMessage("x")).ok());
  text = *ReadFile(path);
  auto lines = SplitLines(text);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_TRUE(StartsWith(lines[1], "{\"type\":\"message\",\"id\":\"")) << lines[1];
}

TEST_F(JsonlStoreTest, CwdFolderNamesDoNotCollide) {
  EXPECT_NE(CwdFolderName("/a-b"), CwdFolderName("/a/b"));
  EXPECT_EQ(CwdFolderName("/work/main"), CwdFolderName("/work/main"));
  EXPECT_TRUE(StartsWith(CwdFolderName("/work/main"), "work-main_"));
  EXPECT_TRUE(StartsWith(CwdFolderName("/"), "root_"));
  EXPECT_EQ(CwdFolderName("/../..").find('/'), std::string::npos);
  EXPECT_LE(CwdFolderName("/" + std::string(500, 'z')).size(), 60u);
}

TEST_F(JsonlStoreTest, TornLastLineIsIgnoredThenRepairedByTheNextWriter) {
  auto [id, path] = MakeSession();
  AppendRaw(path, "{\"type\":\"message\",\"id\":\"torn\",\"parentId\":null,\"mess");
  {
    auto r = Take(store_->Open(id, OpenMode::kReadOnly));
    EXPECT_EQ(r->size(), 2u);
    EXPECT_FALSE(r->Find("torn"));
  }
  auto w = Take(store_->Open(id, OpenMode::kAppend));
  EXPECT_EQ(w->size(), 2u);
  auto n = w->AppendMessage(UserMessage("three"));
  ASSERT_TRUE(n.ok());
  w.reset();
  ExpectCleanFile(path);
  auto r = Take(store_->Open(id, OpenMode::kReadOnly));
  EXPECT_EQ(r->size(), 3u);
  EXPECT_EQ(r->leaf(), *n);
  EXPECT_EQ(r->Path().size(), 3u);
}

TEST_F(JsonlStoreTest, CompleteLastLineWithoutNewlineIsKept) {
  auto [id, path] = MakeSession();
  std::string parent;
  {
    auto r = Take(store_->Open(id, OpenMode::kReadOnly));
    parent = r->leaf();
  }
  AppendRaw(path, "{\"type\":\"message\",\"id\":\"whole\",\"parentId\":\"" + parent +
                      "\",\"message\":{\"role\":\"user\",\"content\":[]}}");
  auto w = Take(store_->Open(id, OpenMode::kAppend));
  EXPECT_EQ(w->leaf(), "whole");
  ASSERT_TRUE(w->AppendMessage(UserMessage("next")).ok());
  w.reset();
  ExpectCleanFile(path);
  EXPECT_EQ((*store_->Open(id, OpenMode::kReadOnly))->size(), 4u);
}

TEST_F(JsonlStoreTest, HostileLinesAreSkippedNotFatal) {
  auto [id, path] = MakeSession();
  std::string leaf = (*store_->Open(id, OpenMode::kReadOnly))->leaf();
  std::string huge_text(4 << 20, 'h');  // a 4 MB entry: big but legitimate
  std::string lines;
  lines += "this is not json\n";
  lines += "[1,2,3]\n";
  lines += "{\"type\":\"message\"}\n";                          // no id
  lines += "{\"id\":\"noType\"}\n";                             // no type
  lines += "{\"type\":\"x\",\"id\":\"badparent\",\"parentId\":7}\n";
  lines += "\n   \n";                                           // blank lines
  lines += "{\"type\":\"note\",\"id\":\"utf8\",\"parentId\":\"" + leaf +
           "\",\"text\":\"bad \xff\xfe bytes \xc0\xaf\"}\n";   // invalid UTF-8
  lines += "{\"type\":\"note\",\"id\":\"cycle1\",\"parentId\":\"cycle2\"}\n";
  lines += "{\"type\":\"note\",\"id\":\"cycle2\",\"parentId\":\"cycle1\"}\n";
  lines += "{\"type\":\"note\",\"id\":\"self\",\"parentId\":\"self\"}\n";
  lines += "{\"type\":\"note\",\"id\":\"utf8\",\"parentId\":null,\"dup\":true}\n";  // duplicate id
  lines += "{\"type\":\"note\",\"id\":\"huge\",\"parentId\":\"utf8\",\"text\":\"" + huge_text +
           "\"}\n";
  lines += std::string(3 << 20, '{') + "\n";                  // 3 MB of garbage
  lines += "\x00\x01\x02\n";
  AppendRaw(path, lines);

  auto w = store_->Open(id, OpenMode::kAppend);
  ASSERT_TRUE(w.ok()) << w.error().message;
  auto& s = *w;
  const Entry* utf8 = s->Find("utf8");
  ASSERT_TRUE(utf8);
  EXPECT_FALSE(utf8->data().contains("dup"));  // the first of a duplicate id wins
  EXPECT_TRUE(IsValidUtf8(utf8->data()["text"].get<std::string>()));
  EXPECT_NE(utf8->data()["text"].get<std::string>().find("\xEF\xBF\xBD"), std::string::npos);
  ASSERT_TRUE(s->Find("huge"));
  EXPECT_EQ(s->Find("huge")->data()["text"].get<std::string>().size(), huge_text.size());
  EXPECT_FALSE(s->Find("noType"));
  EXPECT_FALSE(s->Find("badparent"));
  // Paths terminate whatever the parent links say.
  EXPECT_EQ(s->Path("cycle1").size(), 1u);
  EXPECT_EQ(s->Path("cycle2").size(), 2u);
  EXPECT_EQ(s->Path("self").size(), 1u);
  EXPECT_EQ(s->Path("huge").size(), 4u);
  EXPECT_EQ(s->leaf(), "huge");
  ASSERT_TRUE(s->AppendMessage(UserMessage("still works")).ok());
  auto list = store_->List(std::nullopt);
  ASSERT_TRUE(list.ok());
  EXPECT_EQ(list->size(), 1u);
}

TEST_F(JsonlStoreTest, FilesThatAreNotSessionsAreRefusedAndSkipped) {
  auto [id, path] = MakeSession();
  auto dir = std::filesystem::path(path).parent_path();
  std::string bad_id = "0000000000000000000000000000beef";
  ASSERT_TRUE(WriteFileAtomic(dir / ("x_" + bad_id + ".jsonl"), "garbage\n{\"type\":\"message\"}\n").ok());
  std::string empty_id = "0000000000000000000000000000abcd";
  ASSERT_TRUE(WriteFileAtomic(dir / ("x_" + empty_id + ".jsonl"), "").ok());
  std::string torn_id = "0000000000000000000000000000cafe";
  ASSERT_TRUE(WriteFileAtomic(dir / ("x_" + torn_id + ".jsonl"), "{\"type\":\"sess").ok());
  ASSERT_TRUE(WriteFileAtomic(dir / "notes.txt", "not a session").ok());
  for (const std::string& b : {bad_id, empty_id, torn_id}) {
    auto r = store_->Open(b, OpenMode::kReadOnly);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().kind, "invalid_header");
    EXPECT_NE(r.error().message.find("not a sepp session file"), std::string::npos);
  }
  auto list = store_->List(std::nullopt);
  ASSERT_TRUE(list.ok());
  ASSERT_EQ(list->size(), 1u);
  EXPECT_EQ((*list)[0].id, id);
}

// Random damage to a real session file: parsing never crashes or throws, and
// whatever it accepts can be indexed, walked, rendered field by field.
TEST_F(JsonlStoreTest, RandomlyDamagedFilesNeverCrash) {
  auto [id, path] = MakeSession();
  {
    auto w = Take(store_->Open(id, OpenMode::kAppend));
    ASSERT_TRUE(w->Label(w->leaf(), "l").ok());
    ASSERT_TRUE(w->Append("compaction", Json{{"summary", "s"}, {"first_kept_id", w->leaf()}}).ok());
  }
  const std::string original = *ReadFile(path);
  std::mt19937 rng(99);
  const char bytes[] = "{}[]\",:\\\n\x00\xff\xc3 nulltrue0";
  for (int i = 0; i < 2000; ++i) {
    std::string text = original;
    for (int k = 0; k < 1 + static_cast<int>(rng() % 6); ++k) {
      size_t at = rng() % text.size();
      switch (rng() % 4) {
        case 0: text[at] = bytes[rng() % (sizeof bytes - 1)]; break;
        case 1: text.erase(at, 1 + rng() % 16); break;
        case 2: text.insert(at, 1, bytes[rng() % (sizeof bytes - 1)]); break;
        default: text.resize(at + 1);  // truncation, as by a crash
      }
      if (text.empty()) text = "x";
    }
    auto c = ParseJsonlSession(text, "fuzz");
    if (!c.ok()) continue;
    Session s(c->header, c->entries, nullptr, "fuzz");
    for (const Entry& e : s.entries()) {
      (void)e.data.get();
      EXPECT_LE(s.Path(e.id).size(), s.size());
    }
    (void)s.Leaves();
  }
}

TEST_F(JsonlStoreTest, ParseCountsBadLinesAndFindsTheTornTail) {
  std::string header = "{\"type\":\"session\",\"version\":1,\"id\":\"abc\",\"cwd\":\"/\"}\n";
  auto c = ParseJsonlSession(header + "junk\n{\"type\":\"a\",\"id\":\"1\"}\n{\"type\":\"a\",\"id", "t");
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->bad_lines, 1u);
  EXPECT_EQ(c->entries.size(), 1u);
  EXPECT_EQ(c->torn_offset, header.size() + 5 + 22);
  EXPECT_FALSE(c->missing_final_newline);
  auto d = ParseJsonlSession(header + "{\"type\":\"a\",\"id\":\"1\"}", "t");
  ASSERT_TRUE(d.ok());
  EXPECT_TRUE(d->missing_final_newline);
  EXPECT_EQ(d->torn_offset, std::string::npos);
  EXPECT_EQ(d->header.cwd, "/");
  EXPECT_FALSE(ParseJsonlSession("{\"type\":\"message\",\"id\":\"x\"}\n", "t").ok());
  EXPECT_FALSE(ParseJsonlSession("{\"type\":\"session\",\"id\":\"../x\"}\n", "t").ok());
}

}  // namespace
}  // namespace sepp::session
