// Store::PurgeFolder, what `sepp remove` runs: every source of a folder and
// of the folders in it goes, with its chunks and index rows; a sibling whose
// name starts the same ("/w/feat2" beside "/w/feat"), a parent, and paths
// with LIKE's wildcards in them are untouched; chunks another project's
// source shares stay readable for it.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "base/ids.h"
#include "sidecar/store.h"

namespace sepp::sidecar {
namespace {

namespace fs = std::filesystem;

std::string Log(const std::string& tag) {
  std::string s;
  for (int i = 0; i < 400; ++i) s += tag + " line " + std::to_string(i) + " of the build log\n";
  return s;
}

TEST(PurgeFolder, TakesTheFolderAndItsSubfoldersAndNothingElse) {
  fs::path dir = fs::temp_directory_path() / ("sepp-purge-folder-" + ShortId());
  fs::create_directories(dir);
  auto store = Store::Open(dir / "context.db");
  ASSERT_TRUE(store.ok()) << store.error().message;
  Scope root{"/w/feat", "s1"}, sub{"/w/feat/src", "s2"}, sibling{"/w/feat2", "s3"}, parent{"/w", "s4"},
      wild{"/w/fe%t_", "s5"};
  for (const auto& [scope, tag] : std::vector<std::pair<Scope, std::string>>{
           {root, "ROOTWORD"}, {sub, "SUBWORD"}, {sibling, "SIBLINGWORD"}, {parent, "PARENTWORD"},
           {wild, "WILDWORD"}})
    ASSERT_TRUE((*store)->Put(scope, "bash", "", Log(tag)).ok());
  // The same output in the folder and in the sibling: the chunks are shared.
  auto shared = (*store)->Put(root, "bash", "", Log("SHAREDWORD"));
  ASSERT_TRUE(shared.ok());
  ASSERT_TRUE((*store)->Put(sibling, "bash", "", Log("SHAREDWORD")).ok());

  auto bad = (*store)->PurgeFolder("relative/path");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("not an absolute folder"), std::string::npos);

  SearchOptions all;
  all.whole_project = true;
  // A folder named with LIKE's wildcards takes only itself ("/w/fe%t_" as
  // a LIKE pattern would take "/w/feat2").
  EXPECT_EQ((*store)->PurgeFolder("/w/fe%t_").value(), 1);
  EXPECT_TRUE((*store)->Search(wild, "WILDWORD", all)->empty());
  EXPECT_FALSE((*store)->Search(sibling, "SIBLINGWORD", all)->empty());

  auto n = (*store)->PurgeFolder("/w/feat/");  // a trailing '/' is the same folder
  ASSERT_TRUE(n.ok()) << n.error().message;
  EXPECT_EQ(*n, 3);  // ROOTWORD, SUBWORD, and its SHAREDWORD source
  for (const auto& [scope, word] : std::vector<std::pair<Scope, std::string>>{
           {root, "ROOTWORD"}, {root, "SHAREDWORD"}, {sub, "SUBWORD"}})
    EXPECT_TRUE((*store)->Search(scope, word, all)->empty()) << word;
  for (const auto& [scope, word] : std::vector<std::pair<Scope, std::string>>{
           {sibling, "SIBLINGWORD"}, {sibling, "SHAREDWORD"}, {parent, "PARENTWORD"}})
    EXPECT_FALSE((*store)->Search(scope, word, all)->empty()) << word;
  EXPECT_EQ((*store)->PurgeFolder("/w/nothing-here").value(), 0);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace sepp::sidecar
