// The output sidecar below the agent: lossless chunking, FTS5 queries a
// model cannot break or widen, scope isolation between projects and
// sessions, dedupe, retention, the capture rule and receipt, and the
// context_* tools (neighbours, export confined to its folder).
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <algorithm>
#include <random>

#include "agent/output_capture.h"
#include "base/ids.h"
#include "base/secrets.h"
#include "base/sha256.h"
#include "sidecar/chunker.h"
#include "sidecar/content_hash.h"
#include "sidecar/sidecar.h"
#include "sidecar/store.h"
#include "sqlite/fts_query.h"
#include "sqlite/sqlite_db.h"
#include "tools/context_tools.h"

namespace sepp::sidecar {
namespace {

namespace fs = std::filesystem;

class TempDir {
 public:
  TempDir() : path_(fs::temp_directory_path() / ("sepp-sidecar-test-" + ShortId())) {
    fs::create_directories(path_);
  }
  ~TempDir() { fs::remove_all(path_); }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

// A log of n lines with one rare line at rare_at.
std::string Log(int n, int rare_at, const std::string& rare) {
  std::string s;
  for (int i = 1; i <= n; ++i) {
    if (i == rare_at) s += rare + "\n";
    else s += "line " + std::to_string(i) + " compiling module alpha beta gamma delta\n";
    if (i % 97 == 0) s += "\n";  // some paragraphs
  }
  return s;
}

TEST(Chunker, IsLosslessBoundedAndNeverSplitsUtf8) {
  std::mt19937 rng(7);
  std::string text;
  const char* pieces[] = {"word ", "ü", "日本語", "\n", "\n\n", "x"};
  for (int i = 0; i < 60000; ++i) text += pieces[rng() % 6];
  text += std::string(10000, 'y');  // one line longer than a chunk
  text += "é";
  auto chunks = ChunkText(text);
  std::string joined;
  for (const auto& c : chunks) {
    EXPECT_LE(c.content.size(), kMaxChunkBytes);
    EXPECT_FALSE(c.content.empty());
    // A chunk never starts with a UTF-8 continuation byte.
    EXPECT_NE(static_cast<unsigned char>(c.content[0]) & 0xC0, 0x80);
    EXPECT_LE(c.title.size(), 120u);
    joined += c.content;
  }
  EXPECT_EQ(joined, text);
  EXPECT_GT(chunks.size(), 10u);
}

// The content key is OpenSSL's SHA-256; context_export checks an export
// with base/sha256: the two must agree on every input.
TEST(ContentHash, IsTheSha256OfBaseOnEveryInput) {
  std::mt19937 rng(9);
  for (size_t size : {0, 1, 55, 56, 63, 64, 65, 4096, 300000}) {
    std::string text(size, '\0');
    for (char& c : text) c = static_cast<char>(rng());
    EXPECT_EQ(sidecar::ContentHash(text), Sha256Hex(text)) << size;
  }
  EXPECT_EQ(sidecar::ContentHash("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(FtsQuery, QuotesEveryTokenAndKeepsPrefixAndPhrase) {
  using sqlite::FtsMatchQuery;
  EXPECT_EQ(FtsMatchQuery("foo bar"), "\"foo\" AND \"bar\"");
  EXPECT_EQ(FtsMatchQuery("foo bar", sqlite::FtsJoin::kAny), "\"foo\" OR \"bar\"");
  EXPECT_EQ(FtsMatchQuery("pref*"), "\"pref\"*");
  EXPECT_EQ(FtsMatchQuery("\"exact phrase\""), "\"exact phrase\"");
  EXPECT_EQ(FtsMatchQuery("a\"b"), "\"a\"\"b\"");
  EXPECT_EQ(FtsMatchQuery("title:secret"), "\"title:secret\"");
  EXPECT_EQ(FtsMatchQuery("  ( ) * - ^ "), "");
  EXPECT_EQ(FtsMatchQuery(""), "");
}

TEST(Store, ScopeKeepsProjectsAndSessionsApart) {
  TempDir dir;
  auto store = Store::Open(dir.path() / "context.db");
  ASSERT_TRUE(store.ok()) << store.error().message;
  Scope a1{"/proj/a", "s1"}, a2{"/proj/a", "s2"}, b1{"/proj/b", "s1"};
  auto src = (*store)->Put(a1, "bash", "{}", Log(2000, 1234, "NEEDLE_zq7 found here"));
  ASSERT_TRUE(src.ok()) << src.error().message;

  SearchOptions o;
  auto hits = (*store)->Search(a1, "NEEDLE_zq7", o);
  ASSERT_TRUE(hits.ok());
  ASSERT_EQ(hits->size(), 1u);
  EXPECT_NE((*hits)[0].content.find("NEEDLE_zq7 found here"), std::string::npos);
  EXPECT_EQ((*hits)[0].source_id, src->id);

  // Another session of the project: only when widened to the project.
  EXPECT_TRUE((*store)->Search(a2, "NEEDLE_zq7", o)->empty());
  o.whole_project = true;
  EXPECT_EQ((*store)->Search(a2, "NEEDLE_zq7", o)->size(), 1u);
  // Another project: never, not even widened, not by id.
  EXPECT_TRUE((*store)->Search(b1, "NEEDLE_zq7", o)->empty());
  EXPECT_FALSE((*store)->Source(b1, src->id, true)->has_value());
  EXPECT_TRUE((*store)->Chunks(b1, src->id, 1, 1000, true)->empty());
  EXPECT_TRUE((*store)->Source(a1, src->id, false)->has_value());
  EXPECT_EQ((*store)->Chunks(a1, src->id, 1, 1000, false)->size(),
            static_cast<size_t>(src->chunk_count));
}

TEST(Store, HostileQueriesNeverFailAndNeverWiden) {
  TempDir dir;
  auto store = Store::Open(dir.path() / "context.db");
  ASSERT_TRUE(store.ok());
  ASSERT_TRUE((*store)->Put({"/proj/b", "s"}, "bash", "", Log(400, 3, "OTHERPROJECT token")).ok());
  ASSERT_TRUE((*store)->Put({"/proj/a", "s"}, "bash", "", Log(400, 3, "mine token")).ok());
  const char* hostile[] = {"\"",        "\"\"\"",          "a\"b OR c",     "content:OTHERPROJECT",
                           "title:*",   "NEAR(token mine)", "token) OR (x", "* OR *",
                           "NOT mine",  "^token",           "{content}: x", "-token",
                           "token\\",   "' OR 1=1 --",      "OTHERPROJECT", "\x01\x02",
                           "token AND", "\xff\xfe bad utf8"};
  for (const char* q : hostile) {
    SearchOptions o;
    o.whole_project = true;
    auto hits = (*store)->Search({"/proj/a", "s"}, q, o);
    ASSERT_TRUE(hits.ok()) << q << ": " << hits.error().message;
    for (const auto& h : *hits) EXPECT_EQ(h.content.find("OTHERPROJECT"), std::string::npos) << q;
  }
  auto nul = (*store)->Search({"/proj/a", "s"}, std::string("tok\0en", 6), {});
  EXPECT_TRUE(nul.ok());
}

TEST(Store, DedupesWithinAScopeOnly) {
  TempDir dir;
  auto store = Store::Open(dir.path() / "context.db");
  ASSERT_TRUE(store.ok());
  std::string text = Log(500, 7, "x");
  auto first = (*store)->Put({"/p", "s"}, "bash", "", text);
  auto again = (*store)->Put({"/p", "s"}, "bash", "", text);
  auto other = (*store)->Put({"/p", "t"}, "bash", "", text);
  ASSERT_TRUE(first.ok() && again.ok() && other.ok());
  EXPECT_FALSE(first->duplicate);
  EXPECT_TRUE(again->duplicate);
  EXPECT_EQ(again->id, first->id);
  EXPECT_FALSE(other->duplicate);
  EXPECT_NE(other->id, first->id);
  EXPECT_EQ(first->content_hash, Sha256Hex(text));
}

TEST(Store, RetentionDropsOldSourcesAndTheOldestOverTheCap) {
  TempDir dir;
  fs::path file = dir.path() / "context.db";
  std::string old_id, keep_id;
  {
    auto store = Store::Open(file);
    ASSERT_TRUE(store.ok());
    old_id = (*store)->Put({"/p", "s"}, "bash", "", Log(300, 1, "ancient")).value().id;
    keep_id = (*store)->Put({"/p", "s"}, "bash", "", Log(300, 1, "recent")).value().id;
  }
  {  // age one source by ten days, from outside
    auto db = sqlite::SqliteDb::Open(file);
    ASSERT_TRUE(db.ok());
    auto q = sqlite::SqliteStmt::Prepare(**db, "UPDATE context_sources SET created_ms = created_ms - 864000000 WHERE id = ?1");
    ASSERT_TRUE(q.ok());
    q->Bind(1, old_id);
    ASSERT_TRUE(q->Run().ok());
  }
  auto store = Store::Open(file);  // retention runs at open
  ASSERT_TRUE(store.ok());
  EXPECT_FALSE((*store)->Source({"/p", "s"}, old_id, false)->has_value());
  EXPECT_TRUE((*store)->Source({"/p", "s"}, keep_id, false)->has_value());
  EXPECT_TRUE((*store)->Search({"/p", "s"}, "ancient", {})->empty());  // its index rows went too

  // Size cap: the oldest go first.
  auto capped = Store::Open(dir.path() / "capped.db", Retention{0, 40 * 1024});
  ASSERT_TRUE(capped.ok());
  std::vector<std::string> ids;
  for (int i = 0; i < 3; ++i)
    ids.push_back((*capped)->Put({"/p", "s"}, "bash", "", Log(400, 1, "cap" + std::to_string(i))).value().id);
  // Put keeps the cap as it stores (catalog_test.cc); a run now finds
  // nothing more to drop.
  auto gone = (*capped)->ApplyRetention();
  ASSERT_TRUE(gone.ok());
  EXPECT_EQ(*gone, 0);
  EXPECT_FALSE((*capped)->Source({"/p", "s"}, ids[0], false)->has_value());
  EXPECT_TRUE((*capped)->Source({"/p", "s"}, ids[2], false)->has_value());
}

class SidecarFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    auto s = Store::Open(dir_.path() / "context.db");
    ASSERT_TRUE(s.ok());
    store_ = std::move(*s);
    root_ = dir_.path() / "scratch";
    fs::create_directories(root_);
    sidecar_ = std::make_shared<Sidecar>(store_, "/proj/a", [] { return std::string("s1"); }, root_);
    tools::AddContextTools(registry_, sidecar_);
  }
  tools::ToolResult Call(const std::string& tool, const Json& args) {
    tools::ToolContext ctx;
    return tools::RunTool(*registry_.Find(tool), args, ctx);
  }
  TempDir dir_;
  fs::path root_;
  std::shared_ptr<Store> store_;
  std::shared_ptr<Sidecar> sidecar_;
  tools::ToolRegistry registry_;
};

std::string SourceIdOf(const std::string& receipt) {
  size_t at = receipt.find("Source: ");
  if (at == std::string::npos) return "";
  size_t end = receipt.find('\n', at);
  return receipt.substr(at + 8, end - at - 8);
}

TEST_F(SidecarFixture, CapturesOnlyOverTheThresholdAndNeverExplicitReads) {
  EXPECT_FALSE(sidecar_->Capture("bash", Json::object(), "short\n", "").has_value());
  std::string lines300;
  for (int i = 0; i < 300; ++i) lines300 += "line " + std::to_string(i) + "\n";
  EXPECT_FALSE(sidecar_->Capture("bash", Json::object(), lines300, "").has_value());
  EXPECT_FALSE(sidecar_->Capture("bash", Json::object(), std::string(24 * 1024, 'a'), "").has_value());
  EXPECT_TRUE(sidecar_->Capture("bash", Json::object(), lines300 + "one more", "").has_value());
  std::string big = Log(301, 0, "");
  EXPECT_TRUE(sidecar_->Capture("bash", Json::object(), big, "").has_value());
  EXPECT_TRUE(sidecar_->Capture("grep", Json::object(), std::string(25 * 1024, 'a'), "").has_value());
  // read with a range, the sidecar's own tools, and a receipt: never.
  EXPECT_FALSE(sidecar_->Capture("read", {{"path", "x"}, {"offset", 1}}, big, "").has_value());
  EXPECT_FALSE(sidecar_->Capture("read", {{"path", "x"}, {"limit", 900}}, big, "").has_value());
  EXPECT_FALSE(sidecar_->Capture("context_get", Json::object(), big, "").has_value());
  EXPECT_FALSE(sidecar_->Capture("memory_list", Json::object(), big, "").has_value());
  EXPECT_FALSE(sidecar_->Capture("bash", Json::object(), std::string(kReceiptMark) + big, "").has_value());
  // read without a range is captured like any tool.
  EXPECT_TRUE(sidecar_->Capture("read", {{"path", "y"}}, big + "y", "").has_value());
}

TEST_F(SidecarFixture, ReceiptHasTheSourceSizePreviewAndTrailerAndTheStoreIsRedacted) {
  const std::string secret = "sk-sidecar-test-secret-9f8e7d6c5b4a";
  RegisterSecret(secret);
  std::string text = Log(5000, 2500, "RARE_needle_q42 " + secret);
  auto receipt = sidecar_->Capture("bash", {{"command", "make"}}, text, "exit code 2");
  ASSERT_TRUE(receipt.has_value());
  EXPECT_EQ(receipt->rfind(kReceiptMark, 0), 0u) << *receipt;
  EXPECT_NE(receipt->find("Large bash output indexed locally"), std::string::npos);
  std::string lines = std::to_string(std::count(text.begin(), text.end(), '\n')) + " lines";
  EXPECT_NE(receipt->find(lines), std::string::npos) << *receipt;
  EXPECT_NE(receipt->find("line 1 compiling"), std::string::npos);
  EXPECT_NE(receipt->find("line 5000 compiling"), std::string::npos);
  EXPECT_NE(receipt->find("lines omitted; indexed in context sidecar"), std::string::npos);
  EXPECT_LT(receipt->size(), 10u * 1024);
  EXPECT_EQ(receipt->substr(receipt->size() - 11), "exit code 2");
  std::string id = SourceIdOf(*receipt);
  ASSERT_EQ(id.rfind("ctx_", 0), 0u) << *receipt;
  // Stored redacted: the search finds the line, without the key.
  auto hits = store_->Search({"/proj/a", "s1"}, "RARE_needle_q42", {});
  ASSERT_EQ(hits->size(), 1u);
  EXPECT_EQ(hits->front().content.find(secret), std::string::npos);
  EXPECT_NE(hits->front().content.find("[REDACTED]"), std::string::npos);
  // Not anywhere in the database files either.
  for (const char* f : {"context.db", "context.db-wal"}) {
    std::ifstream in(dir_.path() / f, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_EQ(bytes.find(secret), std::string::npos) << f;
  }
  // The same output again: reused.
  auto again = sidecar_->Capture("bash", {{"command", "make"}}, text, "");
  ASSERT_TRUE(again.has_value());
  EXPECT_NE(again->find("Duplicate large bash output"), std::string::npos);
  EXPECT_EQ(SourceIdOf(*again), id);
}

// The agent's hook: a truncated bash result is stored from its whole
// stream and its receipt keeps the sandbox notes and the outcome.
TEST_F(SidecarFixture, TheAgentStoresTheWholeStreamOfATruncatedResult) {
  std::string stream = Log(20000, 12345, "MIDDLE_ONLY_line");
  tools::ToolResult r;
  r.text = "head...\n[... 19000 lines omitted ...]\ntail\n[Output truncated: ...]\nexit code 1";
  r.truncated = true;
  r.details = {{"output_bytes", stream.size()}, {"outcome", "exit code 1"}};
  sandbox::Denial d;
  d.text = "write to /etc was refused";
  r.denials.push_back(d);
  agent::CaptureOversized(*sidecar_, "bash", {{"command", "make"}}, stream, r);
  EXPECT_EQ(r.text.rfind(kReceiptMark, 0), 0u) << r.text.substr(0, 300);
  EXPECT_NE(r.text.find("[sandbox] write to /etc was refused\nexit code 1"), std::string::npos) << r.text;
  EXPECT_EQ(r.text.find("[Output truncated"), std::string::npos);
  EXPECT_EQ(store_->Search({"/proj/a", "s1"}, "MIDDLE_ONLY_line", {})->size(), 1u);
  // Not truncated: the result text itself is what is stored.
  tools::ToolResult whole;
  whole.text = Log(400, 200, "WHOLE_TEXT_line");
  agent::CaptureOversized(*sidecar_, "grep", Json::object(), "", whole);
  EXPECT_EQ(whole.text.rfind(kReceiptMark, 0), 0u);
  EXPECT_EQ(store_->Search({"/proj/a", "s1"}, "WHOLE_TEXT_line", {})->size(), 1u);
  // Small: unchanged.
  tools::ToolResult small;
  small.text = "ok";
  agent::CaptureOversized(*sidecar_, "bash", Json::object(), "ok", small);
  EXPECT_EQ(small.text, "ok");
  // Streamed capture stops at its cap, saying so.
  std::string big;
  agent::AppendCapped(big, std::string(agent::kMaxCapturedBytes - 10, 'a'));
  agent::AppendCapped(big, std::string(100, 'b'));
  agent::AppendCapped(big, "more");
  EXPECT_LT(big.size(), agent::kMaxCapturedBytes + 200);
  EXPECT_NE(big.find("the sidecar keeps its first 64 MiB"), std::string::npos);
}

// A query of words every chunk has is answered newest first instead of
// scoring every chunk; a rare word among them still ranks by BM25.
TEST(Store, CommonWordsAnswerNewestFirst) {
  TempDir dir;
  auto store = Store::Open(dir.path() / "context.db");
  ASSERT_TRUE(store.ok());
  // Over 1,000 chunks with both words, then a small newer source.
  auto big = (*store)->Put({"/p", "s"}, "bash", "", Log(80000, 100, "UNIQUE_0"));
  ASSERT_TRUE(big.ok());
  ASSERT_GT(big->chunk_count, 1000);
  auto small = (*store)->Put({"/p", "s"}, "bash", "", Log(2000, 100, "UNIQUE_1"));
  ASSERT_TRUE(small.ok());
  std::string older = big->id, newer = small->id;
  auto common = (*store)->Search({"/p", "s"}, "compiling module", {});
  ASSERT_TRUE(common.ok());
  ASSERT_EQ(common->size(), 5u);
  EXPECT_EQ(common->front().source_id, newer);
  auto rare = (*store)->Search({"/p", "s"}, "compiling UNIQUE_0", {});
  ASSERT_TRUE(rare.ok());
  ASSERT_EQ(rare->size(), 1u);
  EXPECT_EQ(rare->front().source_id, older);
}

TEST_F(SidecarFixture, SearchGetWithNeighboursAndExport) {
  std::string text = Log(3000, 1500, "RARE_needle_q42 is here");
  auto receipt = sidecar_->Capture("bash", Json::object(), text, "");
  ASSERT_TRUE(receipt.has_value());
  std::string id = SourceIdOf(*receipt);

  auto found = Call("context_search", {{"query", "RARE_needle_q42"}});
  ASSERT_FALSE(found.is_error) << found.text;
  EXPECT_NE(found.text.find("RARE_needle_q42"), std::string::npos) << found.text;
  size_t at = found.text.find("Chunk: ");
  ASSERT_NE(at, std::string::npos);
  std::string chunk_id = found.text.substr(at + 7, found.text.find(' ', at + 7) - at - 7);
  EXPECT_EQ(chunk_id.rfind(id + "_", 0), 0u) << chunk_id;
  int64_t ordinal = std::stoll(chunk_id.substr(id.size() + 1));

  auto got = Call("context_get", {{"source_id", id}, {"chunk_id", chunk_id}, {"before", 1}, {"after", 1}});
  ASSERT_FALSE(got.is_error) << got.text;
  EXPECT_EQ(got.details["count"], 3);
  EXPECT_NE(got.text.find("RARE_needle_q42 is here"), std::string::npos);
  EXPECT_NE(got.text.find(ChunkId(id, ordinal - 1)), std::string::npos);
  EXPECT_NE(got.text.find(ChunkId(id, ordinal + 1)), std::string::npos);
  EXPECT_LT(got.text.find(ChunkId(id, ordinal - 1)), got.text.find(ChunkId(id, ordinal + 1)));
  // By ordinal, as a number and as a string.
  EXPECT_FALSE(Call("context_get", {{"source_id", id}, {"chunk_id", ordinal}}).is_error);
  EXPECT_FALSE(Call("context_get", {{"source_id", id}, {"chunk_id", std::to_string(ordinal)}}).is_error);
  // Bad input: clear errors.
  auto far = Call("context_get", {{"source_id", id}, {"chunk_id", 99999}});
  EXPECT_TRUE(far.is_error);
  EXPECT_NE(far.text.find("ordinals 1-"), std::string::npos) << far.text;
  EXPECT_TRUE(Call("context_get", {{"source_id", id}, {"chunk_id", 2}, {"before", 4}}).is_error);
  auto missing = Call("context_get", {{"source_id", "ctx_nope"}});
  EXPECT_TRUE(missing.is_error);
  EXPECT_NE(missing.text.find("was not found"), std::string::npos);

  // Whole export: lossless, verified, inside the scratch folder, 0600.
  auto ex = Call("context_export", {{"source_id", id}});
  ASSERT_FALSE(ex.is_error) << ex.text;
  EXPECT_TRUE(ex.details["verified"].get<bool>());
  fs::path out = ex.details["file_path"].get<std::string>();
  EXPECT_EQ(out.parent_path().parent_path(), root_);
  std::ifstream in(out, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(bytes, text);
  struct stat st;
  ASSERT_EQ(::stat(out.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  // A named file, one chunk with neighbours.
  auto part = Call("context_export", {{"source_id", id}, {"chunk_id", ordinal}, {"after", 1}, {"file_path", "sub/part.txt"}});
  ASSERT_FALSE(part.is_error) << part.text;
  EXPECT_EQ(part.details["count"], 2);
  EXPECT_TRUE(fs::exists(root_ / "sub/part.txt"));
}

TEST_F(SidecarFixture, ExportNeverLeavesItsFolder) {
  auto receipt = sidecar_->Capture("bash", Json::object(), Log(400, 1, "x"), "");
  std::string id = SourceIdOf(*receipt);
  fs::path outside = dir_.path() / "outside";
  fs::create_directories(outside);
  fs::create_symlink(outside, root_ / "linkdir");
  fs::create_symlink(outside / "target.txt", root_ / "linkfile.txt");
  for (const char* bad : {"../escape.txt", "/tmp/abs.txt", "a/../../escape.txt", "linkdir/x.txt",
                          "linkfile.txt", "", "."}) {
    auto r = Call("context_export", {{"source_id", id}, {"file_path", bad}});
    EXPECT_TRUE(r.is_error) << bad << ": " << r.text;
  }
  EXPECT_TRUE(fs::is_empty(outside));
  EXPECT_FALSE(fs::exists(dir_.path() / "escape.txt"));
  // Legitimate work next to it still succeeds.
  EXPECT_FALSE(Call("context_export", {{"source_id", id}, {"file_path", "ok/fine.txt"}}).is_error);
}

TEST_F(SidecarFixture, ToolsSeeOnlyTheirProject) {
  auto theirs = store_->Put({"/proj/b", "s1"}, "bash", "", Log(400, 9, "THEIR_secret_line"));
  ASSERT_TRUE(theirs.ok());
  auto s = Call("context_search", {{"query", "THEIR_secret_line"}, {"global", true}});
  EXPECT_EQ(s.details["count"], 0) << s.text;
  EXPECT_TRUE(Call("context_get", {{"source_id", theirs->id}, {"global", true}}).is_error);
  EXPECT_TRUE(Call("context_export", {{"source_id", theirs->id}, {"global", true}}).is_error);
  EXPECT_TRUE(fs::is_empty(root_));
}

}  // namespace
}  // namespace sepp::sidecar
