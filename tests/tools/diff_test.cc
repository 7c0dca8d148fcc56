#include "tools/diff.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <random>

#include "tool_test_util.h"

namespace sepp::tools {
namespace {

std::string Lines(std::initializer_list<const char*> lines) {
  std::string s;
  for (const char* l : lines) s += std::string(l) + "\n";
  return s;
}

TEST(UnifiedDiff, EqualTextsGiveNothing) { EXPECT_EQ(UnifiedDiff("a\n", "a\n", "f", "f"), ""); }

TEST(UnifiedDiff, OneLineChangedInTheMiddle) {
  std::string a = Lines({"1", "2", "3", "4", "5", "6", "7", "8", "9"});
  std::string b = Lines({"1", "2", "3", "4", "five", "6", "7", "8", "9"});
  DiffStats st;
  EXPECT_EQ(UnifiedDiff(a, b, "x.cc", "x.cc", 3, &st),
            "--- a/x.cc\n+++ b/x.cc\n"
            "@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n");
  EXPECT_EQ(st.added, 1u);
  EXPECT_EQ(st.removed, 1u);
}

TEST(UnifiedDiff, SeparateHunksAndMergedHunks) {
  std::string a, b;
  for (int i = 1; i <= 20; ++i) {
    a += std::to_string(i) + "\n";
    b += (i == 2 || i == 18 ? "x" : std::to_string(i)) + "\n";
  }
  EXPECT_EQ(UnifiedDiff(a, b, "f", "f"),
            "--- a/f\n+++ b/f\n"
            "@@ -1,5 +1,5 @@\n 1\n-2\n+x\n 3\n 4\n 5\n"
            "@@ -15,6 +15,6 @@\n 15\n 16\n 17\n-18\n+x\n 19\n 20\n");
  // Changes 6 lines apart share one hunk (their contexts touch).
  std::string c, d;
  for (int i = 1; i <= 12; ++i) {
    c += std::to_string(i) + "\n";
    d += (i == 3 || i == 10 ? "y" : std::to_string(i)) + "\n";
  }
  EXPECT_EQ(UnifiedDiff(c, d, "f", "f"),
            "--- a/f\n+++ b/f\n"
            "@@ -1,12 +1,12 @@\n 1\n 2\n-3\n+y\n 4\n 5\n 6\n 7\n 8\n 9\n-10\n+y\n 11\n 12\n");
}

TEST(UnifiedDiff, InsertionsDeletionsAndSingleLineCounts) {
  EXPECT_EQ(UnifiedDiff("", "a\nb\n", "n", "n"), "--- a/n\n+++ b/n\n@@ -0,0 +1,2 @@\n+a\n+b\n");
  EXPECT_EQ(UnifiedDiff("a\n", "", "n", "n"), "--- a/n\n+++ b/n\n@@ -1 +0,0 @@\n-a\n");
  EXPECT_EQ(UnifiedDiff("a\nc\n", "a\nb\nc\n", "n", "n"),
            "--- a/n\n+++ b/n\n@@ -1,2 +1,3 @@\n a\n+b\n c\n");
}

TEST(UnifiedDiff, MissingFinalNewlineIsMarked) {
  EXPECT_EQ(UnifiedDiff("a\nb", "a\nb\n", "n", "n"),
            "--- a/n\n+++ b/n\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n");
}

// Property: `patch` applied to the old text with our diff gives the new text.
TEST(UnifiedDiff, RandomDiffsApplyWithPatch) {
  testing::TempDir dir;
  std::mt19937 rng(42);
  for (int round = 0; round < 30; ++round) {
    std::vector<std::string> a;
    int n = static_cast<int>(rng() % 40);
    for (int i = 0; i < n; ++i) a.push_back("line " + std::to_string(rng() % 8));
    std::vector<std::string> b = a;
    int changes = 1 + static_cast<int>(rng() % 6);
    for (int c = 0; c < changes; ++c) {
      size_t pos = b.empty() ? 0 : rng() % (b.size() + 1);
      switch (rng() % 3) {
        case 0: b.insert(b.begin() + static_cast<long>(pos), "new " + std::to_string(rng() % 5)); break;
        case 1: if (pos < b.size()) b.erase(b.begin() + static_cast<long>(pos)); break;
        default: if (pos < b.size()) b[pos] = "changed"; break;
      }
    }
    std::string ta, tb;
    for (auto& l : a) ta += l + "\n";
    for (auto& l : b) tb += l + "\n";
    std::string diff = UnifiedDiff(ta, tb, "f.txt", "f.txt");
    if (ta == tb) {
      EXPECT_EQ(diff, "");
      continue;
    }
    dir.Write("f.txt", ta);
    dir.Write("d.patch", diff);
    std::string cmd = "cd '" + dir.path().string() + "' && patch -s -p1 < d.patch 2>&1";
    ASSERT_EQ(std::system(cmd.c_str()), 0) << diff;
    EXPECT_EQ(dir.Read("f.txt"), tb) << diff;
  }
}

TEST(UnifiedDiff, VeryDifferentLargeTextsStillDiff) {
  std::string a, b;
  for (int i = 0; i < 5000; ++i) {
    a += "a" + std::to_string(i) + "\n";
    b += "b" + std::to_string(i) + "\n";
  }
  DiffStats st;
  std::string d = UnifiedDiff(a, b, "f", "f", 3, &st);
  EXPECT_EQ(st.added, 5000u);
  EXPECT_EQ(st.removed, 5000u);
  EXPECT_NE(d.find("@@ -1,5000 +1,5000 @@"), std::string::npos);
}

}  // namespace
}  // namespace sepp::tools
