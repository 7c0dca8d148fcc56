// The upload-batch archive reader against real and hostile archives.
#include "front/serve/tar_reader.h"

#include <gtest/gtest.h>

#include <random>

#include "base/strings.h"

#include "serve/tar_builder.h"

namespace sepp::front::serve {
namespace {

using servetest::TarEnd;
using servetest::TarEntryBytes;

TEST(TarReader, ReadsFilesAndFoldersInOrder) {
  std::string tar = TarEntryBytes("src/", '5') + TarEntryBytes("src/a.txt", '0', "hello") +
                    TarEntryBytes("./b.bin", '0', std::string("\0\1\2", 3)) + TarEntryBytes("empty", '0') + TarEnd();
  auto r = ReadTar(tar);
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->size(), 4u);
  EXPECT_EQ((*r)[0].name, "src");
  EXPECT_TRUE((*r)[0].is_dir);
  EXPECT_EQ((*r)[1].name, "src/a.txt");
  EXPECT_EQ((*r)[1].data, "hello");
  EXPECT_EQ((*r)[2].name, "b.bin");
  EXPECT_EQ((*r)[2].data, std::string("\0\1\2", 3));
  EXPECT_EQ((*r)[3].data, "");
}

TEST(TarReader, TakesPaxAndGnuLongNames) {
  std::string longname(180, 'n');
  std::string record = "path=" + longname + "\n";
  std::string rec = std::to_string(record.size() + 4) + " " + record;  // length includes itself
  std::string tar = TarEntryBytes("PaxHeader", 'x', rec) + TarEntryBytes("short", '0', "p") +
                    TarEntryBytes("././@LongLink", 'L', "gnu/" + longname + std::string(1, '\0')) +
                    TarEntryBytes("short2", '0', "g") + TarEnd();
  auto r = ReadTar(tar);
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->size(), 2u);
  EXPECT_EQ((*r)[0].name, longname);
  EXPECT_EQ((*r)[1].name, "gnu/" + longname);
}

TEST(TarReader, RefusesWhatMayNotBeExtracted) {
  struct Case {
    std::string tar;
    const char* says;
  };
  std::string ok = TarEntryBytes("fine.txt", '0', "x");
  std::vector<Case> cases = {
      {ok + TarEntryBytes("../escape", '0', "x") + TarEnd(), "climbs out"},
      {ok + TarEntryBytes("a/../../escape", '0', "x") + TarEnd(), "climbs out"},
      {ok + TarEntryBytes("/etc/passwd", '0', "x") + TarEnd(), "absolute"},
      {ok + TarEntryBytes("link", '2', "", "/etc") + TarEnd(), "symlink"},
      {ok + TarEntryBytes("hard", '1', "", "/etc/passwd") + TarEnd(), "hard link"},
      {ok + TarEntryBytes("dev", '3') + TarEnd(), "special file"},
      {ok + TarEntryBytes("fifo", '6') + TarEnd(), "special file"},
      {ok + TarEntryBytes("bad", '0', "x", "", false) + TarEnd(), "checksum"},
      {ok + TarEntryBytes("a\tb", '0', "x") + TarEnd(), "control character"},
      {ok + TarEntryBytes("./", '0', "x") + TarEnd(), "names no file"},
      {TarEntryBytes("big", '0', std::string(1000, 'x')).substr(0, 900), "ends inside an entry"},
      {ok.substr(0, 300), "ends inside a header"},
      {TarEntryBytes("x", 'x', "99 path=y\n") + TarEnd(), "pax"},
      {TarEntryBytes("x", 'x', "17 linkpath=/etc\n") + TarEnd(), "link"},
      {std::string(512, 'A'), "checksum"},
  };
  for (const auto& c : cases) {
    auto r = ReadTar(c.tar);
    ASSERT_FALSE(r.ok()) << c.says;
    EXPECT_NE(r.error().message.find(c.says), std::string::npos) << r.error().message;
  }
}

TEST(TarReader, MutatedArchivesNeverCrashOrReadOutOfBounds) {
  std::string base = TarEntryBytes("d/", '5') + TarEntryBytes("d/f", '0', std::string(700, 'z')) +
                     TarEntryBytes("g", '0', "short") + TarEnd();
  std::mt19937 rng(1234);
  int parsed = 0;
  for (int i = 0; i < 3000; ++i) {
    std::string t = base;
    int flips = 1 + static_cast<int>(rng() % 8);
    for (int k = 0; k < flips; ++k) t[rng() % t.size()] = static_cast<char>(rng());
    if (rng() % 4 == 0) t.resize(rng() % t.size());
    auto r = ReadTar(t);
    if (!r.ok()) continue;
    ++parsed;
    for (const auto& e : *r) {
      EXPECT_FALSE(e.name.empty());
      for (const auto& part : Split(e.name, '/')) EXPECT_NE(part, "..") << e.name;
      EXPECT_NE(e.name.front(), '/');
      if (!e.data.empty()) {  // a view into the archive, never past it
        EXPECT_GE(e.data.data(), t.data());
        EXPECT_LE(e.data.data() + e.data.size(), t.data() + t.size());
      }
    }
  }
  EXPECT_GT(parsed, 0) << "some mutations (in data bytes) still parse";
}

}  // namespace
}  // namespace sepp::front::serve
