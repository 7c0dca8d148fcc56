// The sidecar's catalog: context_list, context_stats and context_purge over
// the store (pages, filters, what receipts saved), the schema's move to
// version 2, retention from the environment and while a long-lived process
// stores, and the tools given hostile arguments (ids, scopes, sizes): none
// fails the call in a way that is not an error naming the argument, and
// none reaches another project.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <string>

#include "base/clock.h"
#include "base/ids.h"
#include "sidecar/sidecar.h"
#include "sidecar/store.h"
#include "sqlite/sqlite_db.h"
#include "tools/context_tools.h"

namespace sepp::sidecar {
namespace {

namespace fs = std::filesystem;

class Dir {
 public:
  Dir() : path_(fs::temp_directory_path() / ("sepp-catalog-test-" + ShortId())) { fs::create_directories(path_); }
  ~Dir() { fs::remove_all(path_); }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

std::string Lines(int n, const std::string& tag) {
  std::string s;
  for (int i = 0; i < n; ++i) s += tag + " line " + std::to_string(i) + " of the build log\n";
  return s;
}

// Moves a source's creation back by `days`, from outside the store.
void Age(const fs::path& file, const std::string& id, int days) {
  auto db = sqlite::SqliteDb::Open(file);
  ASSERT_TRUE(db.ok());
  auto q = sqlite::SqliteStmt::Prepare(**db, "UPDATE context_sources SET created_ms = created_ms - ?2 WHERE id = ?1");
  ASSERT_TRUE(q.ok());
  q->Bind(1, id).Bind(2, static_cast<int64_t>(days) * 86400000);
  ASSERT_TRUE(q->Run().ok());
}

TEST(Catalog, ListPagesNewestFirstAndNeverLeavesTheProject) {
  Dir dir;
  auto store = Store::Open(dir.path() / "context.db");
  ASSERT_TRUE(store.ok());
  Scope a1{"/proj/a", "s1"}, a2{"/proj/a", "s2"}, b1{"/proj/b", "s1"};
  std::vector<std::string> mine;
  for (int i = 0; i < 3; ++i)
    mine.push_back((*store)->Put(a1, i == 1 ? "grep" : "bash", "{\"i\":" + std::to_string(i) + "}",
                                 "TITLE" + std::to_string(i) + "\n" + Lines(400, "a1")).value().id);
  std::string other_session = (*store)->Put(a2, "bash", "", Lines(400, "a2")).value().id;
  std::string other_project = (*store)->Put(b1, "bash", "", Lines(400, "b1")).value().id;

  auto all = (*store)->List(a1, {});
  ASSERT_TRUE(all.ok()) << all.error().message;
  ASSERT_EQ(all->total, 3);
  ASSERT_EQ(all->sources.size(), 3u);
  EXPECT_EQ(all->sources[0].info.id, mine[2]);  // newest first
  EXPECT_EQ(all->sources[2].info.id, mine[0]);
  EXPECT_EQ(all->sources[0].title, "TITLE2");
  EXPECT_LE(all->sources[0].preview.size(), 240u);
  EXPECT_EQ(all->sources[0].preview.rfind("TITLE2\na1 line 0", 0), 0u);

  ListOptions page;
  page.limit = 2;
  EXPECT_EQ((*store)->List(a1, page)->sources.size(), 2u);
  page.offset = 2;
  auto second = (*store)->List(a1, page);
  ASSERT_EQ(second->sources.size(), 1u);
  EXPECT_EQ(second->sources[0].info.id, mine[0]);
  EXPECT_EQ(second->total, 3);

  ListOptions tool;
  tool.tool_name = "grep";
  ASSERT_EQ((*store)->List(a1, tool)->total, 1);
  ListOptions project;
  project.whole_project = true;
  EXPECT_EQ((*store)->List(a1, project)->total, 4);
  project.session_id = "s2";
  auto s2 = (*store)->List(a1, project);
  ASSERT_EQ(s2->total, 1);
  EXPECT_EQ(s2->sources[0].info.id, other_session);
  // Another project's source is not listed, whatever the filters say.
  ListOptions by_id;
  by_id.source_id = other_project;
  by_id.whole_project = true;
  EXPECT_EQ((*store)->List(a1, by_id)->total, 0);
  by_id.session_id = "s1";
  EXPECT_EQ((*store)->List(a1, by_id)->total, 0);

  Age(dir.path() / "context.db", mine[0], 3);
  ListOptions older;
  older.older_than_ms = NowMs() - 2 * 86400000ll;
  auto old_ones = (*store)->List(a1, older);
  ASSERT_EQ(old_ones->total, 1);
  EXPECT_EQ(old_ones->sources[0].info.id, mine[0]);
  ListOptions newer;
  newer.newer_than_ms = NowMs() - 2 * 86400000ll;
  EXPECT_EQ((*store)->List(a1, newer)->total, 2);
}

TEST(Catalog, StatsCountWhatReceiptsKeptOutAndRepeatsAreStoredOnce) {
  Dir dir;
  auto s = Store::Open(dir.path() / "context.db");
  ASSERT_TRUE(s.ok());
  std::shared_ptr<Store> store = std::move(*s);
  Sidecar sc(store, "/proj/a", [] { return std::string("s1"); }, dir.path());
  std::string big = Lines(3000, "stats");
  auto first = sc.Capture("bash", Json::object(), big, "");
  auto again = sc.Capture("bash", Json::object(), big, "");
  ASSERT_TRUE(first && again);
  EXPECT_NE(again->find("Duplicate large bash output"), std::string::npos);
  auto st = store->Stats({"/proj/a", "s1"}, false);
  ASSERT_TRUE(st.ok()) << st.error().message;
  EXPECT_EQ(st->sources, 1);  // stored once
  EXPECT_EQ(st->stored_bytes, static_cast<int64_t>(big.size()));
  EXPECT_EQ(st->captured_bytes, 2 * static_cast<int64_t>(big.size()));
  EXPECT_EQ(st->returned_bytes, static_cast<int64_t>(first->size() + again->size()));
  EXPECT_LT(st->returned_bytes * 10, st->captured_bytes);
  EXPECT_GT(st->db_file_bytes, 0);
  EXPECT_GT(st->newest_ms, 0);
  // Another project sees none of it.
  EXPECT_EQ(store->Stats({"/proj/b", "s1"}, true)->sources, 0);
  EXPECT_EQ(store->Stats({"/proj/b", "s1"}, true)->captured_bytes, 0);
}

TEST(Catalog, AVersionOneFileGainsTheNewColumnsAndKeepsItsSources) {
  Dir dir;
  fs::path file = dir.path() / "context.db";
  {
    auto db = sqlite::SqliteDb::Open(file);
    ASSERT_TRUE(db.ok());
    ASSERT_TRUE((*db)->Exec(
        "CREATE TABLE context_sources(id TEXT PRIMARY KEY, project TEXT NOT NULL, session_id TEXT NOT NULL,"
        " tool_name TEXT NOT NULL, input_summary TEXT NOT NULL, created_ms INTEGER NOT NULL,"
        " byte_count INTEGER NOT NULL, line_count INTEGER NOT NULL, chunk_count INTEGER NOT NULL,"
        " content_hash TEXT NOT NULL);"
        "INSERT INTO context_sources VALUES ('ctx_old_00000001', '/p', 's', 'bash', '', "
        "strftime('%s','now') * 1000, 10, 1, 0, 'h');"
        "PRAGMA user_version = 1;").ok());
  }
  auto store = Store::Open(file);
  ASSERT_TRUE(store.ok()) << store.error().message;
  auto page = (*store)->List({"/p", "s"}, {});
  ASSERT_TRUE(page.ok()) << page.error().message;
  ASSERT_EQ(page->total, 1);
  EXPECT_EQ(page->sources[0].title, "");  // no chunks: no title, no failure
  auto st = (*store)->Stats({"/p", "s"}, false);
  ASSERT_TRUE(st.ok()) << st.error().message;
  EXPECT_EQ(st->captured_bytes, 0);
  ASSERT_TRUE((*store)->NoteCapture("ctx_old_00000001", 10, 3).ok());
  EXPECT_EQ((*store)->Stats({"/p", "s"}, false)->returned_bytes, 3);
  // Opening again does not add the columns twice.
  store->reset();
  EXPECT_TRUE(Store::Open(file).ok());
}

int64_t CountChunkRows(const fs::path& file) {
  auto db = sqlite::SqliteDb::Open(file);
  auto q = sqlite::SqliteStmt::Prepare(**db, "SELECT COUNT(*) FROM context_chunks");
  auto row = q->Step();
  return row.ok() && *row ? q->Int(0) : -1;
}

// Dedupe: the same output stored by another session or another project is
// one set of chunks (and index rows) shared by their sources; each scope
// still sees only its own source, and the chunks go with the last of them.
TEST(Catalog, TheSameOutputIsStoredOnceWhoeverStoresIt) {
  Dir dir;
  fs::path file = dir.path() / "context.db";
  auto store = Store::Open(file);
  ASSERT_TRUE(store.ok());
  std::string text = Lines(2000, "shared") + "RARE_dedupe_word\n";
  Scope a1{"/proj/a", "s1"}, a2{"/proj/a", "s2"}, b1{"/proj/b", "s1"};
  auto first = (*store)->Put(a1, "bash", "", text);
  ASSERT_TRUE(first.ok());
  int64_t rows = CountChunkRows(file);
  ASSERT_EQ(rows, first->chunk_count);
  auto second = (*store)->Put(a2, "bash", "", text);
  auto third = (*store)->Put(b1, "grep", "", text);
  ASSERT_TRUE(second.ok() && third.ok());
  EXPECT_NE(second->id, first->id);
  EXPECT_EQ(second->chunk_count, first->chunk_count);
  EXPECT_EQ(CountChunkRows(file), rows);  // stored once
  // Each scope reads its own source, whole, under its own id.
  for (auto [scope, id] : {std::pair{a1, first->id}, std::pair{a2, second->id}, std::pair{b1, third->id}}) {
    auto chunks = (*store)->Chunks(scope, id, 1, 100000, false);
    ASSERT_TRUE(chunks.ok());
    std::string joined;
    for (const auto& c : *chunks) {
      EXPECT_EQ(c.source_id, id);
      joined += c.content;
    }
    EXPECT_EQ(joined, text);
    auto hits = (*store)->Search(scope, "RARE_dedupe_word", {});
    ASSERT_EQ(hits->size(), 1u);
    EXPECT_EQ((*hits)[0].source_id, id);
  }
  // The project b sees nothing of a's sources, shared chunks or not.
  SearchOptions wide;
  wide.whole_project = true;
  auto b_hits = (*store)->Search(b1, "RARE_dedupe_word", wide);
  ASSERT_EQ(b_hits->size(), 1u);
  EXPECT_EQ((*b_hits)[0].source_id, third->id);
  EXPECT_TRUE((*store)->Chunks(b1, first->id, 1, 100, true)->empty());
  // The first (the chunks' owner) goes: the others still read everything.
  PurgeOptions owner;
  owner.source_id = first->id;
  ASSERT_EQ((*store)->PurgeWhere(a1, owner).value(), 1);
  EXPECT_EQ(CountChunkRows(file), rows);
  EXPECT_EQ((*store)->Chunks(a2, second->id, 1, 100000, false)->size(), static_cast<size_t>(rows));
  // The last one goes: so do the chunks and their index rows.
  ASSERT_EQ((*store)->Purge(a2, false).value(), 1);
  ASSERT_EQ((*store)->Purge(b1, true).value(), 1);
  EXPECT_EQ(CountChunkRows(file), 0);
  EXPECT_TRUE((*store)->Search(b1, "RARE_dedupe_word", wide)->empty());
  // Stored again after that: stored anew.
  auto again = (*store)->Put(b1, "bash", "", text);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(CountChunkRows(file), rows);
  EXPECT_EQ((*store)->Search(b1, "RARE_dedupe_word", {})->size(), 1u);
}

class EnvGuard {
 public:
  explicit EnvGuard(const char* name) : name_(name) {
    if (const char* v = getenv(name)) old_ = v, had_ = true;
  }
  ~EnvGuard() { had_ ? setenv(name_, old_.c_str(), 1) : unsetenv(name_); }
  void Set(const char* v) { setenv(name_, v, 1); }

 private:
  const char* name_;
  std::string old_;
  bool had_ = false;
};

TEST(Catalog, RetentionComesFromTheEnvironmentAndBadValuesSayWhich) {
  EnvGuard days("SEPP_CONTEXT_RETENTION_DAYS"), mb("SEPP_CONTEXT_MAX_MB");
  unsetenv("SEPP_CONTEXT_RETENTION_DAYS");
  unsetenv("SEPP_CONTEXT_MAX_MB");
  auto d = RetentionFromEnvironment();
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->max_age_days, 7);
  EXPECT_EQ(d->max_total_bytes, 512ll << 20);
  days.Set("3");
  mb.Set("off");
  EXPECT_EQ(RetentionFromEnvironment()->max_age_days, 3);
  EXPECT_EQ(RetentionFromEnvironment()->max_total_bytes, 0);
  days.Set(" keep ");
  mb.Set("64");
  EXPECT_EQ(RetentionFromEnvironment()->max_age_days, 0);
  EXPECT_EQ(RetentionFromEnvironment()->max_total_bytes, 64ll << 20);
  for (const char* bad : {"-1", "1e3", "seven", "99999999999999", "3 days", "0x10", "36501"}) {
    days.Set(bad);
    auto r = RetentionFromEnvironment();
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.error().message.find("SEPP_CONTEXT_RETENTION_DAYS"), std::string::npos) << r.error().message;
  }
  days.Set("1");
  mb.Set("9999999999");
  auto r = RetentionFromEnvironment();
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("SEPP_CONTEXT_MAX_MB"), std::string::npos);
}

// A process that lives for days (sepp serve) opens the store once: the size
// cap is kept while it stores, not only at the next open.
TEST(Catalog, TheSizeCapHoldsWhileAProcessKeepsStoring) {
  Dir dir;
  auto store = Store::Open(dir.path() / "context.db", Retention{0, 256 * 1024});
  ASSERT_TRUE(store.ok());
  std::string first;
  for (int i = 0; i < 40; ++i) {
    auto put = (*store)->Put({"/p", "s"}, "bash", "", Lines(400, "round" + std::to_string(i)));
    ASSERT_TRUE(put.ok());
    if (i == 0) first = put->id;
  }
  auto st = (*store)->Stats({"/p", "s"}, false);
  // Each output is about 13 KiB: 40 of them would be 520 KiB; the cap is
  // run whenever an eighth of it was added, so at most an eighth over.
  EXPECT_LE(st->stored_bytes, 256 * 1024 + 256 * 1024 / 8 + 16 * 1024);
  EXPECT_FALSE((*store)->Source({"/p", "s"}, first, false)->has_value());
  EXPECT_GT(st->sources, 10);
}

class CatalogTools : public ::testing::Test {
 protected:
  void SetUp() override {
    auto s = Store::Open(dir_.path() / "context.db");
    ASSERT_TRUE(s.ok());
    store_ = std::move(*s);
    fs::create_directories(dir_.path() / "proj/a");
    project_ = fs::weakly_canonical(dir_.path() / "proj/a").string();
    sc_ = std::make_shared<Sidecar>(store_, project_, [this] { return session_; }, dir_.path());
    tools::AddContextTools(registry_, sc_);
  }
  tools::ToolResult Call(const std::string& tool, const Json& args) {
    tools::ToolContext ctx;
    return tools::RunTool(*registry_.Find(tool), args, ctx);
  }
  std::string Put(const std::string& project, const std::string& session, const std::string& tag) {
    return store_->Put({project, session}, "bash", "", Lines(400, tag)).value().id;
  }
  Dir dir_;
  std::string project_;
  std::string session_ = "s1";
  std::shared_ptr<Store> store_;
  std::shared_ptr<Sidecar> sc_;
  tools::ToolRegistry registry_;
};

TEST_F(CatalogTools, AllSixAreRegistered) {
  for (const char* name : {"context_search", "context_get", "context_export", "context_list",
                           "context_stats", "context_purge"}) {
    tools::Tool* t = registry_.Find(name);
    ASSERT_NE(t, nullptr) << name;
    EXPECT_EQ(t->parameters()["type"], "object") << name;
  }
}

TEST_F(CatalogTools, ListShowsThisSessionThenTheProjectAndRefusesOtherProjects) {
  std::string mine = Put(project_, "s1", "mine");
  std::string sibling = Put(project_, "s2", "sibling");
  std::string foreign = Put("/elsewhere", "s1", "foreign");
  auto r = Call("context_list", Json::object());
  ASSERT_FALSE(r.is_error) << r.text;
  EXPECT_NE(r.text.find(mine), std::string::npos);
  EXPECT_EQ(r.text.find(sibling), std::string::npos);
  EXPECT_EQ(r.details["total"], 1);
  auto g = Call("context_list", {{"global", true}});
  EXPECT_NE(g.text.find(sibling), std::string::npos);
  EXPECT_EQ(g.text.find(foreign), std::string::npos);
  EXPECT_EQ(Call("context_list", {{"session_id", "s2"}}).details["total"], 1);
  EXPECT_EQ(Call("context_list", {{"project_path", project_}}).details["total"], 1);
  // A trailing "." is the same project.
  EXPECT_FALSE(Call("context_list", {{"project_path", project_ + "/."}}).is_error);

  // Hostile arguments: an error naming the argument, never another project.
  const Json hostile[] = {
      {{"project_path", "/elsewhere"}},
      {{"project_path", project_ + "/../../elsewhere"}},
      {{"project_path", "relative/a"}},
      {{"project_path", std::string("/x\0y", 4)}},
      {{"project_path", 7}},
      {{"limit", "10"}},
      {{"offset", -1}},
      {{"offset", 1.5}},
      {{"offset", 1e30}},
      {{"newer_than_days", -1}},
      {{"older_than_days", 1e12}},
      {{"older_than_days", "3"}},
      {{"session_id", std::string(10000, 's')}},
      {{"session_id", std::string("s1\0x", 4)}},
      {{"session_id", Json::array()}},
      {{"global", "yes"}},
      {{"tool_name", 3}},
      Json::array(),
      Json("text"),
  };
  for (const Json& args : hostile) {
    auto h = Call("context_list", args);
    EXPECT_TRUE(h.is_error) << args.dump() << " -> " << h.text;
    EXPECT_EQ(h.text.find(foreign), std::string::npos) << args.dump();
  }
  for (const Json& args : {Json{{"source_id", foreign}, {"global", true}},
                           Json{{"source_id", "' OR 1=1 --"}, {"global", true}},
                           Json{{"session_id", "' OR ''='"}}, Json{{"limit", 1e300}},
                           Json{{"limit", -5}}, Json{{"offset", 1000000}}}) {
    auto h = Call("context_list", args);
    EXPECT_FALSE(h.is_error) << args.dump() << " -> " << h.text;
    EXPECT_EQ(h.text.find(foreign), std::string::npos) << args.dump();
  }
  EXPECT_EQ(Call("context_list", {{"limit", 1e300}, {"global", true}}).details["count"], 2);
}

TEST_F(CatalogTools, StatsReportsTheScopeAndTheRetention) {
  std::string big = Lines(3000, "st");
  ASSERT_TRUE(sc_->Capture("bash", Json::object(), big, ""));
  session_ = "s2";
  ASSERT_TRUE(sc_->Capture("bash", Json::object(), Lines(3000, "other"), ""));
  session_ = "s1";
  auto r = Call("context_stats", Json::object());
  ASSERT_FALSE(r.is_error) << r.text;
  EXPECT_EQ(r.details["sources"], 1);
  EXPECT_EQ(r.details["bytes_captured"], big.size());
  EXPECT_GT(r.details["reduction_pct"].get<double>(), 90.0);
  EXPECT_NE(r.text.find("Retention: 7 days, 512.0 MB"), std::string::npos) << r.text;
  EXPECT_EQ(Call("context_stats", {{"global", true}}).details["sources"], 2);
  EXPECT_TRUE(Call("context_stats", {{"global", 1}}).is_error);
}

TEST_F(CatalogTools, PurgeNeedsAFilterAndDeletesOnlyWhatItNames) {
  std::string a = Put(project_, "s1", "a");
  std::string b = Put(project_, "s1", "b");
  std::string sibling = Put(project_, "s2", "sibling");
  std::string foreign = Put("/elsewhere", "s1", "foreign");

  auto none = Call("context_purge", Json::object());
  EXPECT_TRUE(none.is_error);
  EXPECT_NE(none.text.find("\"s1\""), std::string::npos) << none.text;  // names this session's id
  EXPECT_TRUE(Call("context_purge", {{"expired", false}}).is_error);
  // Another project's source is "not found", and stays.
  auto cross = Call("context_purge", {{"source_id", foreign}, {"global", true}});
  EXPECT_TRUE(cross.is_error);
  EXPECT_NE(cross.text.find("was not found"), std::string::npos);
  EXPECT_TRUE(Call("context_purge", {{"project_path", "/elsewhere"}, {"global", true}}).is_error);
  for (const Json& args : {Json{{"older_than_days", -3}}, Json{{"older_than_days", "1"}},
                           Json{{"source_id", 12}}, Json{{"session_id", std::string(300, 'x')}},
                           Json{{"expired", "true"}}})
    EXPECT_TRUE(Call("context_purge", args).is_error) << args.dump();
  EXPECT_TRUE(store_->Source({"/elsewhere", "s1"}, foreign, false)->has_value());

  // One source.
  auto one = Call("context_purge", {{"source_id", a}});
  ASSERT_FALSE(one.is_error) << one.text;
  EXPECT_EQ(one.details["deleted"], 1);
  EXPECT_TRUE(Call("context_get", {{"source_id", a}}).is_error);
  EXPECT_FALSE(Call("context_get", {{"source_id", b}}).is_error);

  // Expired: older than the retention (7 days).
  Age(dir_.path() / "context.db", b, 8);
  auto expired = Call("context_purge", {{"expired", true}});
  EXPECT_EQ(expired.details["deleted"], 1) << expired.text;
  EXPECT_TRUE(store_->Source({project_, "s2"}, sibling, false)->has_value());

  // The whole project: this project's sessions, not another project.
  auto all = Call("context_purge", {{"global", true}});
  EXPECT_EQ(all.details["deleted"], 1) << all.text;
  EXPECT_FALSE(store_->Source({project_, "s2"}, sibling, false)->has_value());
  EXPECT_TRUE(store_->Source({"/elsewhere", "s1"}, foreign, false)->has_value());
}

}  // namespace
}  // namespace sepp::sidecar
