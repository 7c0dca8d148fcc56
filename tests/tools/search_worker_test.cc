// file_search and content_search in the session sandbox's tool worker: the
// index lives in the worker, the kernel confines what it reads, and no
// spelling of the planted key (a symlink to it, to its folder, the fake
// home searched directly) reaches a result, while the workspace's files do.
#include <gtest/gtest.h>

#include <filesystem>

#include "tools/search_tools.h"
#include "worker_fixture.h"

namespace sepp::tools::testing {
namespace {

namespace fs = std::filesystem;

bool Has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

class SearchWorkerTest : public WorkerTest {
 public:
  void SetUp() override {
    WorkerTest::SetUp();
    if (IsSkipped()) return;
    AddSearchTools(*registry_);
  }
};

TEST_F(SearchWorkerTest, SearchesRunInTheWorkerAndNeverShowTheKey) {
  Put(ws_ / "src/keys.txt", "where SECRETKEY-h16 would be\n");
  Put(ws_ / ".env", std::string(kSecret) + "\n");
  fs::create_symlink(home_ / ".ssh/id_ed25519", ws_ / "src/id_link");
  fs::create_symlink(home_ / ".ssh", ws_ / "src/ssh_dir");
  fs::create_symlink(home_, ws_ / "home_link");
  for (const Json& args : {Json{{"mode", "search"}, {"query", "id"}, {"includeHidden", true}},
                           Json{{"mode", "search"}, {"query", "ed25519"}, {"includeHidden", true}},
                           Json{{"mode", "tree"}, {"maxDepth", 6}, {"includeHidden", true}}}) {
    ToolResult r = Use("file_search", args);
    ASSERT_FALSE(r.is_error) << r.text;
    EXPECT_FALSE(Has(r.text, "id_link")) << r.text;
    EXPECT_FALSE(Has(r.text, "ssh_dir")) << r.text;
    EXPECT_FALSE(Has(r.text, "id_ed25519")) << r.text;
    EXPECT_FALSE(Has(r.text, "\".env\"")) << r.text;
    // Made and kept in the worker, not in this process.
    EXPECT_GT(worker_->sandbox_pid(), 0);
  }
  ToolResult legit = Use("file_search", {{"mode", "search"}, {"query", "keys"}});
  EXPECT_TRUE(Has(legit.text, "src/keys.txt")) << legit.text;
  ToolResult c = Use("content_search", {{"query", "SECRETKEY"}, {"ignoreCase", false}});
  ASSERT_FALSE(c.is_error) << c.text;
  EXPECT_FALSE(Has(c.text, kSecret)) << c.text;
  EXPECT_TRUE(Has(c.text, "src/keys.txt")) << c.text;
  // The fake home itself, and the key's folder through the link.
  for (const std::string& p : {home_.string(), std::string("src/ssh_dir"), std::string("home_link/.ssh")}) {
    ToolResult h = Use("content_search", {{"query", "SECRETKEY"}, {"path", p}});
    EXPECT_FALSE(Has(h.text, kSecret)) << p << ": " << h.text;
    ToolResult f = Use("file_search", {{"mode", "tree"}, {"path", p}, {"includeHidden", true}});
    EXPECT_FALSE(Has(f.text, "id_ed25519")) << p << ": " << f.text;
  }
  // The index in the worker stays fresh: a file made from outside is found.
  Put(ws_ / "src/late_arrival.txt", "x\n");
  ToolResult late = Use("file_search", {{"mode", "search"}, {"query", "latearrival"}});
  EXPECT_TRUE(Has(late.text, "src/late_arrival.txt")) << late.text;
}

}  // namespace
}  // namespace sepp::tools::testing
