// file_search and content_search (tools/search_tools.h) in this process:
// fuzzy ranking, the index kept fresh by inotify, git and frecency boosts,
// pagination, and the guard's denials (names and symlinks) next to the
// legitimate results that must still come back.
#include <gtest/gtest.h>
#include <unistd.h>

#include <bit>
#include <cstdlib>
#include <random>
#include <filesystem>
#include <fstream>

#include "sandbox/defaults.h"
#include "tools/frecency.h"
#include "tools/fuzzy.h"
#include "tools/path_index.h"
#include "tools/git_index.h"
#include "tools/search_tools.h"
#include "tools/tool.h"
#include "tool_test_util.h"

namespace sepp::tools::testing {
namespace {

namespace fs = std::filesystem;

bool Contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

class SearchToolsTest : public ToolTest {
 protected:
  SearchToolsTest() {
    AddSearchTools(registry_);
    ClearFileUses();
    policy_ = sandbox::DefaultToolPolicy(dir_.path());
    ctx_.policy = &policy_;
  }
  Json Run(const std::string& tool, const Json& args) {
    ToolResult r = RunTool(*registry_.Find(tool), args, ctx_);
    last_text_ = r.text;
    EXPECT_FALSE(r.is_error) << r.text;
    return r.details.is_object() ? r.details["result"] : Json();
  }
  static std::vector<std::string> Paths(const Json& result, const char* list = "items") {
    std::vector<std::string> out;
    for (const auto& i : result[list]) out.push_back(i["path"].get<std::string>());
    return out;
  }
  void Git(const std::string& args) {
    std::string cmd = "cd '" + dir_.path().string() + "' && git -c user.email=t@t -c user.name=t " + args +
                      " >/dev/null 2>&1";
    ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  }

  ToolRegistry registry_;
  sandbox::Policy policy_;
  std::string last_text_;
};

TEST(FuzzyQueryTest, MatchesInOrderWithTyposAndPrefersNames) {
  FuzzyQuery q("sessidx");
  std::string a = "src/session/session_index.cc", b = "docs/sessions/index.md", c = "src/main.cc";
  EXPECT_GT(q.Score(a, a.rfind('/') + 1, CharMask(a)), 0);
  EXPECT_EQ(q.Score(c, c.rfind('/') + 1, CharMask(c)), 0);
  // One typo in eight characters is forgiven; two missing characters are not.
  FuzzyQuery typo("sesxionindex");
  EXPECT_GT(typo.Score(a, a.rfind('/') + 1, CharMask(a)), 0);
  FuzzyQuery bad("sqzqionindex");
  EXPECT_GT(bad.max_typos(), 0);
  EXPECT_EQ(bad.Score(a, a.rfind('/') + 1, CharMask(a)), 0);
  // A run in the file name beats letters spread over the folders.
  FuzzyQuery name("index");
  std::string spread = "i/n/d/e/x.txt", file = "a/index.txt";
  EXPECT_GT(name.Score(file, 2, CharMask(file)), name.Score(spread, 8, CharMask(spread)));
  (void)b;
}

// The scorer as first written: the straightforward dynamic programme over
// every query position at every path character. FuzzyQuery::Score skips the
// positions a character does not hit; it must give the same scores.
int ReferenceScore(const std::string& query, std::string_view path, size_t name_start) {
  constexpr int kNegInf = -1'000'000;
  std::string lower;
  bool smart = false;
  for (unsigned char c : query) {
    if (c >= 'A' && c <= 'Z') smart = true;
    lower.push_back(static_cast<char>(c >= 'A' && c <= 'Z' ? c + 32 : c));
  }
  const int m = static_cast<int>(lower.size());
  if (m == 0) return 0;
  const int max_typos = m < 4 ? 0 : std::min(2, m / 4);
  auto lower_of = [](unsigned char c) { return c >= 'A' && c <= 'Z' ? c + 32 : c; };
  auto sep = [](unsigned char c) { return c == '/' || c == '_' || c == '-' || c == '.' || c == ' '; };
  std::vector<int> best(m + 1, kNegInf), bt(m + 1, 0), run(m + 1, kNegInf), rt(m + 1, 0);
  best[0] = 0;
  auto skip = [&] {
    for (int j = 0; j < m; ++j)
      if (best[j] > kNegInf && bt[j] < max_typos && best[j] - 30 > best[j + 1])
        best[j + 1] = best[j] - 30, bt[j + 1] = bt[j] + 1;
  };
  skip();
  for (size_t i = 0; i < path.size(); ++i) {
    unsigned char c = path[i];
    unsigned char prev = i ? static_cast<unsigned char>(path[i - 1]) : '/';
    int bonus = 16 + (sep(prev) ? 24 : (c >= 'A' && c <= 'Z' && prev >= 'a' && prev <= 'z') ? 16 : 0) +
                (i >= name_start ? 12 : 0);
    std::vector<int> nrun(m + 1, kNegInf), nrt(m + 1, 0);
    for (int j = m - 1; j >= 0; --j) {
      if (lower_of(c) != static_cast<unsigned char>(lower[j])) continue;
      int b = bonus + (smart && query[j] == static_cast<char>(c) ? 4 : 0);
      int s = kNegInf, t = 0;
      if (best[j] > kNegInf) s = best[j] + b, t = bt[j];
      if (run[j] > kNegInf && run[j] + b + 18 > s) s = run[j] + b + 18, t = rt[j];
      if (s == kNegInf) continue;
      nrun[j + 1] = s, nrt[j + 1] = t;
      if (s > best[j + 1]) best[j + 1] = s, bt[j + 1] = t;
    }
    run = nrun, rt = nrt;
    skip();
  }
  if (best[m] <= kNegInf) return 0;
  return best[m] <= 0 ? 1 : best[m];
}

TEST(FuzzyQueryTest, ScoresAreThoseOfTheFullDynamicProgramme) {
  std::mt19937 rng(7);
  const std::string alphabet = "abcdeisxAB_/.-0";
  int matched = 0;
  std::vector<std::string> paths;
  for (int round = 0; round < 20000; ++round) {
    std::string path, query;
    for (size_t n = 1 + rng() % 40; n; --n) path.push_back(alphabet[rng() % alphabet.size()]);
    for (size_t n = 1 + rng() % 9; n; --n) query.push_back(alphabet[rng() % 11]);
    size_t name_start = path.rfind('/') == std::string::npos ? 0 : path.rfind('/') + 1;
    FuzzyQuery q(query);
    int got = q.Score(path, name_start, CharMask(path));
    int want = ReferenceScore(query, path, name_start);
    paths.push_back(path);
    if (got) ++matched;
    ASSERT_EQ(got, want) << "query " << query << " path " << path;
  }
  EXPECT_GT(matched, 1000);  // the comparison covers real matches, not only refusals
  // A scanner going through sorted paths resumes from the folders they
  // share with the one before: the same scores as each path on its own.
  std::sort(paths.begin(), paths.end());
  for (const char* word : {"abde", "sxa", "b_i.0", "ABcd", "aaaaaaaa"}) {
    FuzzyQuery q(word);
    FuzzyScanner scanner(q);
    for (const std::string& path : paths) {
      size_t name_start = path.rfind('/') == std::string::npos ? 0 : path.rfind('/') + 1;
      ASSERT_EQ(scanner.Score(path, name_start, CharMask(path)),
                ReferenceScore(word, path, name_start)) << word << " " << path;
    }
  }
}

// An entry keeps where its last '.'-segment starts; hidden below a prefix
// must be exactly "a segment below the prefix starts with '.'".
TEST(PathIndexTest, HiddenBelowAPrefixIsThatOfTheSegmentsBelowIt) {
  std::mt19937 rng(11);
  const std::string alphabet = "ab./";
  for (int round = 0; round < 20000; ++round) {
    std::string rel;
    for (size_t n = 1 + rng() % 16; n; --n) rel.push_back(alphabet[rng() % alphabet.size()]);
    IndexedPath e;
    e.rel = rel;
    e.hidden_at = LastHiddenSegment(rel);
    // Every prefix a search can have: "" or up to and including a '/'.
    for (size_t p = 0; p <= rel.size(); ++p) {
      if (p && rel[p - 1] != '/') continue;
      std::string_view below = std::string_view(rel).substr(p);
      bool want = (!below.empty() && below[0] == '.') || below.find("/.") != std::string_view::npos;
      ASSERT_EQ(HiddenBelow(e, p), want) << rel << " below " << rel.substr(0, p);
    }
  }
}

TEST_F(SearchToolsTest, FuzzySearchRanksTheExactFileNameFirstAndHonoursGitignore) {
  dir_.Write("src/widget.cc", "x");
  dir_.Write("src/widgets/big_widget_test.cc", "x");
  dir_.Write("docs/wide/gadget.md", "x");
  dir_.Write("build/widget.cc", "x");
  dir_.Write(".gitignore", "build/\n");
  dir_.Write(".hidden/widget.cc", "x");
  Json r = Run("file_search", {{"mode", "search"}, {"query", "widget"}});
  auto paths = Paths(r);
  ASSERT_FALSE(paths.empty()) << last_text_;
  EXPECT_EQ(paths[0], "src/widget.cc") << last_text_;
  EXPECT_EQ(r["items"][0]["score"]["match_type"], "exact_filename");
  for (const auto& p : paths) {
    EXPECT_FALSE(Contains(p, "build/")) << p;    // .gitignore'd
    EXPECT_FALSE(Contains(p, ".hidden")) << p;   // dot folder, not asked for
  }
  // With a typo the file is still found.
  paths = Paths(Run("file_search", {{"mode", "search"}, {"query", "wdiget"}}));
  EXPECT_NE(std::find(paths.begin(), paths.end(), "src/widget.cc"), paths.end()) << last_text_;
  // includeHidden and a glob.
  paths = Paths(Run("file_search", {{"mode", "search"}, {"query", "widget"}, {"includeHidden", true}}));
  EXPECT_NE(std::find(paths.begin(), paths.end(), ".hidden/widget.cc"), paths.end()) << last_text_;
  paths = Paths(Run("file_search", {{"mode", "search"}, {"match", "glob"}, {"query", "**/*_test.cc"}}));
  EXPECT_EQ(paths, std::vector<std::string>{"src/widgets/big_widget_test.cc"}) << last_text_;
  // type and path narrow it; the paths stay relative to the working directory.
  paths = Paths(Run("file_search", {{"mode", "search"}, {"query", "wid"}, {"type", "directory"}}));
  EXPECT_NE(std::find(paths.begin(), paths.end(), "src/widgets"), paths.end()) << last_text_;
  for (const auto& p : Paths(Run("file_search", {{"mode", "search"}, {"query", "d"}, {"path", "docs"}})))
    EXPECT_EQ(p.rfind("docs/", 0), 0u) << p;
}

TEST_F(SearchToolsTest, ResultsArePaginatedAndBadArgumentsSayWhatToDo) {
  for (int i = 0; i < 30; ++i) dir_.Write("f/item" + std::to_string(i) + ".txt", "x");
  Json p1 = Run("file_search", {{"mode", "search"}, {"query", "item"}, {"maxResults", 10}});
  ASSERT_EQ(p1["items"].size(), 10u);
  ASSERT_TRUE(p1["next_offset"].is_number());
  Json p2 = Run("file_search", {{"mode", "search"}, {"query", "item"}, {"maxResults", 10},
                                {"offset", p1["next_offset"]}});
  ASSERT_EQ(p2["items"].size(), 10u);
  EXPECT_NE(p1["items"][0]["path"], p2["items"][0]["path"]);
  EXPECT_EQ(p1["total_matched"], 30);
  ToolResult bad = RunTool(*registry_.Find("file_search"), {{"mode", "search"}}, ctx_);
  EXPECT_TRUE(bad.is_error);
  EXPECT_TRUE(Contains(bad.text, "query")) << bad.text;
  bad = RunTool(*registry_.Find("file_search"), {{"mode", "walk"}}, ctx_);
  EXPECT_TRUE(bad.is_error);
  EXPECT_TRUE(Contains(bad.text, "\"search\" or \"tree\"")) << bad.text;
  bad = RunTool(*registry_.Find("content_search"), {{"query", "x"}, {"contextLines", 9}}, ctx_);
  EXPECT_TRUE(bad.is_error);
  EXPECT_TRUE(Contains(bad.text, "contextLines")) << bad.text;
  bad = RunTool(*registry_.Find("file_search"), {{"mode", "tree"}, {"path", "nowhere"}}, ctx_);
  EXPECT_TRUE(bad.is_error);
}

// Only the shown page is fully ranked (and asks git): pages must still be
// exact slices of the one full ranking, git and frecency boosts included.
TEST_F(SearchToolsTest, PagesAreSlicesOfTheFullRankingWithTheirBoosts) {
  for (int i = 0; i < 120; ++i)
    dir_.Write("m" + std::to_string(i % 7) + "/mod_" + std::to_string(i) + (i % 3 ? ".cc" : ".h"), "x\n");
  Git("init -q");
  Git("add -A");
  Git("commit -q -m init");
  for (int i = 0; i < 120; i += 11) dir_.Write("m" + std::to_string(i % 7) + "/mod_" + std::to_string(i) +
                                                (i % 3 ? ".cc" : ".h"), "changed\n");
  ToolResult read = RunTool(*MakeReadTool(), {{"path", "m3/mod_52.cc"}}, ctx_);
  ASSERT_FALSE(read.is_error) << read.text;
  Json all = Run("file_search", {{"mode", "search"}, {"query", "mod1"}, {"maxResults", 1000}});
  std::vector<std::string> full = Paths(all);
  ASSERT_GT(full.size(), 30u);
  std::vector<std::string> paged;
  Json offset = 0;
  while (offset.is_number()) {
    Json page = Run("file_search", {{"mode", "search"}, {"query", "mod1"}, {"maxResults", 7}, {"offset", offset}});
    EXPECT_EQ(page["total_matched"], all["total_matched"]);
    for (auto& p : Paths(page)) paged.push_back(p);
    offset = page["next_offset"];
  }
  EXPECT_EQ(paged, full);
  bool saw_modified = false;
  for (const auto& item : all["items"]) saw_modified |= item["git_status"] == "modified";
  EXPECT_TRUE(saw_modified) << last_text_;
}

// A large index is scored in two halves on two threads: matches from both
// halves come back, ranked together, and the counts add up.
TEST_F(SearchToolsTest, ALargeIndexScoredInTwoHalvesGivesOneRanking) {
  fs::create_directories(dir_.path() / "m");
  for (int i = 0; i < 4200; ++i) std::ofstream(dir_.path() / "m" / ("fill_" + std::to_string(i) + ".txt"));
  dir_.Write("a/quokka.txt", "x");
  dir_.Write("a/deep/quokka_two.md", "x");
  dir_.Write("z/quokka.txt", "x");
  dir_.Write("z/x/quokka_notes.txt", "x");
  Json r = Run("file_search", {{"mode", "search"}, {"query", "quokka"}, {"type", "file"}});
  EXPECT_EQ(r["total_matched"], 4) << last_text_;
  EXPECT_EQ(r["total_files"], 4204);
  auto paths = Paths(r);
  ASSERT_EQ(paths.size(), 4u) << last_text_;
  EXPECT_EQ(paths[0], "a/quokka.txt");  // exact names first, equal scores by path
  EXPECT_EQ(paths[1], "z/quokka.txt");
  std::sort(paths.begin() + 2, paths.end());
  EXPECT_EQ(paths[2], "a/deep/quokka_two.md");
  EXPECT_EQ(paths[3], "z/x/quokka_notes.txt");
}

// A search keeps only the matches that could still be on the page asked
// for (search_tools.cc: the floor). On a random tree, large enough to be
// scored in two halves, with git changes and used files, random queries
// (typos included) give every page exactly as the slice of the full
// ranking (maxResults 300, which keeps every match when fewer match),
// with the same count.
TEST_F(SearchToolsTest, ABoundedSearchGivesExactlyTheTopOfTheFullRanking) {
  std::mt19937 rng(5);
  const std::string letters = "abcdefghilmnoprstuvw_";
  auto word = [&](size_t n) {
    std::string w;
    while (w.size() < n) w.push_back(letters[rng() % letters.size()]);
    return w;
  };
  std::vector<std::string> paths;
  for (int d = 0; d < 60; ++d) {
    std::string dir = word(3 + rng() % 5) + "/" + word(2 + rng() % 6);
    fs::create_directories(dir_.path() / dir);
    for (int f = 0; f < 72; ++f) {
      std::string rel = dir + "/" + word(3 + rng() % 9) + (rng() % 2 ? ".cc" : "_Test.md");
      std::ofstream(dir_.path() / rel) << "x";
      paths.push_back(rel);
    }
  }
  Git("init -q");
  Git("add -A");
  Git("commit -q -m init");
  for (int i = 0; i < 600; ++i) std::ofstream(dir_.path() / paths[rng() % paths.size()]) << "changed";
  std::vector<std::string> used;
  for (int i = 0; i < 8; ++i) {
    used.push_back(paths[rng() % paths.size()]);
    ToolResult read = RunTool(*MakeReadTool(), {{"path", used.back()}}, ctx_);
    ASSERT_FALSE(read.is_error) << read.text;
  }
  int compared = 0, pages = 0;
  for (int round = 0; round < 60; ++round) {
    // Queries where every boost counts: a whole file name (+40 %), part
    // of one (+16 %), a used file's, or any part of a path with a typo.
    const std::string& p = round % 4 == 0 ? used[rng() % used.size()] : paths[rng() % paths.size()];
    std::string name = p.substr(p.rfind('/') + 1);
    std::string stem = name.substr(0, name.find('.'));
    std::string q;
    switch (round % 3) {
      case 0: q = stem; break;
      case 1: q = stem.substr(0, std::max<size_t>(4, stem.size() - 2)); break;
      default:
        q = p.substr(rng() % (p.size() - 6), 5 + rng() % 4);
        if (rng() % 2) std::swap(q[1], q[2]);  // a typo
    }
    if (rng() % 4 == 0) q += " " + p.substr(0, 2);  // two words
    Json all = Run("file_search", {{"mode", "search"}, {"query", q}, {"maxResults", 300}});
    if (all["total_matched"].get<size_t>() > 300) continue;  // then 300 is a bound too
    std::vector<std::string> full = Paths(all);
    ++compared;
    for (size_t limit : {1, 3, 20}) {
      size_t offset = rng() % 3 == 0 ? rng() % 40 : 0;
      Json page = Run("file_search", {{"mode", "search"}, {"query", q}, {"maxResults", limit},
                                      {"offset", offset}});
      EXPECT_EQ(page["total_matched"], all["total_matched"]) << q;
      std::vector<std::string> want(full.begin() + std::min(offset, full.size()),
                                    full.begin() + std::min(offset + limit, full.size()));
      ASSERT_EQ(Paths(page), want) << "query \"" << q << "\" limit " << limit << " offset " << offset;
      pages += full.size() > offset + limit;  // the page is a strict slice: something was left out
    }
  }
  EXPECT_GT(compared, 40);
  EXPECT_GT(pages, 80);  // the comparisons cover pages that leave matches out
}

TEST_F(SearchToolsTest, TheIndexFollowsCreatesDeletesAndNewFoldersThroughInotify) {
  dir_.Write("a/one.txt", "x");
  auto paths = Paths(Run("file_search", {{"mode", "search"}, {"query", "zebra"}}));
  EXPECT_TRUE(paths.empty());
  dir_.Write("a/zebra.txt", "x");
  dir_.Write("new/deep/zebra_two.txt", "x");
  paths = Paths(Run("file_search", {{"mode", "search"}, {"query", "zebra"}, {"type", "file"}}));
  EXPECT_EQ(paths, (std::vector<std::string>{"a/zebra.txt", "new/deep/zebra_two.txt"})) << last_text_;
  EXPECT_EQ(registry_.Find("file_search") != nullptr, true);
  fs::remove(dir_.path() / "a/zebra.txt");
  fs::rename(dir_.path() / "new", dir_.path() / "old");
  paths = Paths(Run("file_search", {{"mode", "search"}, {"query", "zebra"}, {"type", "file"}}));
  EXPECT_EQ(paths, (std::vector<std::string>{"old/deep/zebra_two.txt"})) << last_text_;
  // A new .gitignore takes effect too.
  dir_.Write(".gitignore", "old/\n");
  paths = Paths(Run("file_search", {{"mode", "search"}, {"query", "zebra"}, {"type", "file"}}));
  EXPECT_TRUE(paths.empty()) << last_text_;
}

TEST_F(SearchToolsTest, ChangedInGitAndUsedBySessionRankFirst) {
  dir_.Write("a/config.txt", "one\n");
  dir_.Write("b/config.txt", "one\n");
  dir_.Write("c/config.txt", "one\n");
  Git("init -q");
  Git("add -A");
  Git("commit -q -m init");
  Json r = Run("file_search", {{"mode", "search"}, {"query", "config"}});
  ASSERT_EQ(r["items"].size(), 3u);
  EXPECT_EQ(r["items"][0]["path"], "a/config.txt");  // equal scores: by path
  EXPECT_EQ(r["items"][0]["git_status"], "clean");
  dir_.Write("c/config.txt", "one changed\n");  // another size: git sees it changed
  r = Run("file_search", {{"mode", "search"}, {"query", "config"}});
  EXPECT_EQ(r["items"][0]["path"], "c/config.txt") << last_text_;
  EXPECT_EQ(r["items"][0]["git_status"], "modified");
  // After a commit it is clean again.
  Git("commit -q -am change");
  r = Run("file_search", {{"mode", "search"}, {"query", "config"}});
  EXPECT_EQ(r["items"][0]["path"], "a/config.txt") << last_text_;
  // A read by the session ranks b first.
  ToolResult read = RunTool(*MakeReadTool(), {{"path", "b/config.txt"}}, ctx_);
  ASSERT_FALSE(read.is_error) << read.text;
  r = Run("file_search", {{"mode", "search"}, {"query", "config"}});
  EXPECT_EQ(r["items"][0]["path"], "b/config.txt") << last_text_;
}

TEST_F(SearchToolsTest, DeniedNamesAndSymlinksToSecretsNeverAppear) {
  TempDir outside;
  outside.Write("id_ed25519", "PRIVATEKEY-search-token\n");
  policy_.deny_paths.push_back(outside.path().string());
  dir_.Write(".env", "API=search-token\n");
  dir_.Write("conf/.env.production", "API=search-token\n");
  dir_.Write("conf/.env.example", "API=placeholder search-token\n");  // allowed by the policy
  dir_.Write("src/app.txt", "uses search-token here\n");
  fs::create_symlink(outside.path() / "id_ed25519", dir_.path() / "src/key_link");
  fs::create_symlink(outside.path(), dir_.path() / "src/outside_dir");
  for (bool hidden : {false, true}) {
    std::string all;
    for (const char* q : {"s", "key", "link", "outside", "env", "production", "id"})
      all += Run("file_search", {{"mode", "search"}, {"query", q}, {"includeHidden", hidden},
                                 {"maxResults", 1000}}).dump();
    EXPECT_FALSE(Contains(all, "key_link")) << all;
    EXPECT_FALSE(Contains(all, "outside_dir")) << all;
    EXPECT_FALSE(Contains(all, "id_ed25519")) << all;
    EXPECT_FALSE(Contains(all, "\".env\"")) << all;
    EXPECT_FALSE(Contains(all, ".env.production")) << all;
    if (hidden) EXPECT_TRUE(Contains(all, ".env.example")) << all;
    EXPECT_TRUE(Contains(all, "src/app.txt")) << all;
    all = Run("file_search", {{"mode", "tree"}, {"includeHidden", hidden}, {"maxDepth", 5}}).dump();
    EXPECT_FALSE(Contains(all, "key_link")) << all;
    EXPECT_FALSE(Contains(all, "outside_dir")) << all;
    EXPECT_FALSE(Contains(all, ".env.production")) << all;
    EXPECT_TRUE(Contains(all, "src/app.txt")) << all;
  }
  Json r = Run("content_search", {{"query", "search-token"}});
  std::string all = r.dump();
  EXPECT_FALSE(Contains(all, "PRIVATEKEY")) << all;
  EXPECT_FALSE(Contains(all, "API=search")) << all;
  EXPECT_TRUE(Contains(all, "src/app.txt")) << all;
  // A search rooted at the secret folder or through the link is refused.
  ToolResult denied = RunTool(*registry_.Find("content_search"), {{"query", "x"}, {"path", outside.path().string()}}, ctx_);
  EXPECT_TRUE(denied.is_error);
  EXPECT_FALSE(denied.denials.empty()) << denied.text;
  denied = RunTool(*registry_.Find("file_search"), {{"mode", "tree"}, {"path", "src/outside_dir"}}, ctx_);
  EXPECT_TRUE(denied.is_error);
  EXPECT_FALSE(Contains(denied.text, "id_ed25519")) << denied.text;
}

TEST_F(SearchToolsTest, ContentSearchLiteralRegexSmartCaseContextAndPages) {
  dir_.Write("a.py", "import os\n\ndef handle_request(req):\n    return handle(req)\n");
  dir_.Write("b.txt", "line one\nHandle_Request mixed\nline three\n");
  dir_.Write("bin.dat", std::string("handle_request\0\0\0", 17));
  dir_.Write("big.txt", std::string(5000, 'x') + "handle_request\n");
  Json r = Run("content_search", {{"query", "handle_request"}});
  ASSERT_EQ(r["total_matched"], 3) << last_text_;  // a.py, b.txt (smart case), big.txt; not the binary
  EXPECT_EQ(r["matches"][0]["path"], "a.py");  // a definition ranks first
  EXPECT_EQ(r["matches"][0]["line"], 3);
  EXPECT_EQ(r["matches"][0]["is_definition"], true);
  EXPECT_EQ(r["matches"][0]["ranges"][0], Json::array({4, 18}));
  // Upper case in the query: case-sensitive.
  r = Run("content_search", {{"query", "Handle_Request"}, {"contextLines", 1}});
  ASSERT_EQ(r["total_matched"], 1) << last_text_;
  EXPECT_EQ(r["matches"][0]["before"], Json::array({"line one"}));
  EXPECT_EQ(r["matches"][0]["after"], Json::array({"line three"}));
  r = Run("content_search", {{"query", "handle_request"}, {"ignoreCase", false}});
  EXPECT_EQ(r["total_matched"], 2) << last_text_;
  r = Run("content_search", {{"query", "handle_request"}, {"maxFileBytes", 1000}});
  EXPECT_EQ(r["total_matched"], 2) << last_text_;
  r = Run("content_search", {{"query", "^def \\w+\\("}, {"match", "regex"}});
  ASSERT_EQ(r["total_matched"], 1) << last_text_;
  EXPECT_EQ(r["mode"], "Regex");
  r = Run("content_search", {{"query", "handle(req"}, {"match", "regex"}});
  EXPECT_TRUE(r["regex_fallback_error"].is_string()) << last_text_;
  EXPECT_EQ(r["total_matched"], 1) << last_text_;  // searched as plain text
  // Pages by file.
  r = Run("content_search", {{"query", "line"}, {"maxResults", 1}});
  EXPECT_EQ(r["matches"].size(), 1u);
  EXPECT_TRUE(r["next_file_offset"].is_null()) << last_text_;  // one file holds both lines
  r = Run("content_search", {{"query", "handle_request"}, {"maxResults", 1}});
  ASSERT_TRUE(r["next_file_offset"].is_number()) << last_text_;
  Json r2 = Run("content_search", {{"query", "handle_request"}, {"maxResults", 1}, {"offset", r["next_file_offset"]}});
  EXPECT_NE(r2["matches"][0]["path"], r["matches"][0]["path"]);
}

TEST_F(SearchToolsTest, ContentChangesAreSeenByTheNextSearch) {
  for (int i = 0; i < 50; ++i) dir_.Write("d/f" + std::to_string(i) + ".txt", "nothing here " + std::to_string(i) + "\n");
  Json r = Run("content_search", {{"query", "quokka"}});
  EXPECT_EQ(r["total_matched"], 0);
  r = Run("content_search", {{"query", "quokka"}});  // warm: the filters rule the files out
  EXPECT_EQ(r["filtered_file_count"], 50) << last_text_;
  dir_.Write("d/f7.txt", "a quokka appears\n");      // rewritten in place
  dir_.Write("d/new.txt", "another quokka\n");       // created
  r = Run("content_search", {{"query", "quokka"}});
  EXPECT_EQ(r["total_matched"], 2) << last_text_;
}

TEST_F(SearchToolsTest, GitIndexesOfVersionsTwoAndFourAreRead) {
  dir_.Write("a.txt", "x");
  dir_.Write("b/c.txt", "x");
  dir_.Write("b/d/e.txt", "x");
  Git("init -q");
  Git("add -A");
  for (const char* version : {"2", "4"}) {
    Git(std::string("update-index --index-version ") + version);
    std::ifstream in(dir_.path() / ".git/index", std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    auto index = ParseGitIndex(bytes);
    ASSERT_TRUE(index.ok()) << version << ": " << index.error().message;
    EXPECT_EQ(index->size(), 3u) << version;
    for (const char* path : {"a.txt", "b/c.txt", "b/d/e.txt"}) {
      const GitIndexEntry* e = index->Find(path);
      ASSERT_NE(e, nullptr) << version << " " << path;
      EXPECT_EQ(e->size, 1u);
      EXPECT_FALSE(e->conflict);
    }
    EXPECT_EQ(index->Find("b"), nullptr);
    EXPECT_EQ(index->Find("b/c"), nullptr);
  }
}

TEST(GitIndexTest, MalformedIndexesAreErrorsNotCrashes) {
  EXPECT_FALSE(ParseGitIndex("").ok());
  EXPECT_FALSE(ParseGitIndex("DIRC\0\0\0\x09\0\0\0\x01").ok());
  std::string cut("DIRC\0\0\0\x02\0\0\0\x05", 12);
  cut += std::string(40, '\0');
  auto r = ParseGitIndex(cut);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.error().message.find("cut short") != std::string::npos) << r.error().message;
  // Random bytes after a valid header never crash.
  std::srand(7);
  for (int n = 0; n < 2000; ++n) {
    std::string b("DIRC\0\0\0\x04\0\0\0\x03", 12);
    for (int i = 0; i < n % 300; ++i) b.push_back(static_cast<char>(std::rand()));
    (void)ParseGitIndex(b);
  }
}

}  // namespace
}  // namespace sepp::tools::testing
