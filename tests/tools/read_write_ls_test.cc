#include <gtest/gtest.h>
#include <sys/stat.h>

#include "base/strings.h"
#include "tool_test_util.h"

namespace sepp::tools {
namespace {

using testing::ToolTest;

class ReadTest : public ToolTest {
 protected:
  std::unique_ptr<Tool> read_ = MakeReadTool();
};

TEST_F(ReadTest, ShowsNumberedLines) {
  dir_.Write("a.txt", "alpha\nbeta\ngamma\n");
  ToolResult r = Call(*read_, {{"path", "a.txt"}});
  EXPECT_FALSE(r.is_error) << r.text;
  EXPECT_EQ(r.text, "     1\talpha\n     2\tbeta\n     3\tgamma\n");
  EXPECT_FALSE(r.truncated);
  EXPECT_EQ(r.details["total_lines"], 3);
}

TEST_F(ReadTest, AbsolutePathAndNoTrailingNewline) {
  dir_.Write("b.txt", "one\ntwo");
  ToolResult r = Call(*read_, {{"path", (dir_.path() / "b.txt").string()}});
  EXPECT_EQ(r.text, "     1\tone\n     2\ttwo\n");
}

TEST_F(ReadTest, OffsetAndLimitWithContinuationNote) {
  std::string s;
  for (int i = 1; i <= 10; ++i) s += "l" + std::to_string(i) + "\n";
  dir_.Write("c.txt", s);
  ToolResult r = Call(*read_, {{"path", "c.txt"}, {"offset", 3}, {"limit", 2}});
  EXPECT_EQ(r.text, "     3\tl3\n     4\tl4\n[Showing lines 3-4 of 10. Use offset=5 to continue.]");
  EXPECT_TRUE(r.truncated);
  r = Call(*read_, {{"path", "c.txt"}, {"offset", 9}});
  EXPECT_EQ(r.text, "     9\tl9\n    10\tl10\n");
  EXPECT_FALSE(r.truncated);
}

TEST_F(ReadTest, OffsetPastEndIsError) {
  dir_.Write("c.txt", "x\ny\n");
  ToolResult r = Call(*read_, {{"path", "c.txt"}, {"offset", 5}});
  EXPECT_TRUE(r.is_error);
  EXPECT_NE(r.text.find("past the end"), std::string::npos);
  EXPECT_NE(r.text.find("2 lines"), std::string::npos);
}

TEST_F(ReadTest, LongFileCutAt2000Lines) {
  std::string s;
  for (int i = 1; i <= 2500; ++i) s += "row\n";
  dir_.Write("long.txt", s);
  ToolResult r = Call(*read_, {{"path", "long.txt"}});
  EXPECT_TRUE(r.truncated);
  EXPECT_NE(r.text.find("[Showing lines 1-2000 of 2500. Use offset=2001 to continue.]"),
            std::string::npos);
}

TEST_F(ReadTest, ByteBudgetCutsBeforeLineLimit) {
  std::string s;
  for (int i = 1; i <= 1000; ++i) s += std::string(199, 'a') + "\n";  // 200 KB
  dir_.Write("wide.txt", s);
  ToolResult r = Call(*read_, {{"path", "wide.txt"}});
  EXPECT_TRUE(r.truncated);
  EXPECT_LE(r.text.size(), 51u * 1024);
  EXPECT_NE(r.text.find("of 1000. Use offset="), std::string::npos);
}

TEST_F(ReadTest, VeryLongLineIsCut) {
  dir_.Write("min.js", std::string(10000, 'x') + "\n");
  ToolResult r = Call(*read_, {{"path", "min.js"}});
  EXPECT_NE(r.text.find("… [8000 more bytes]"), std::string::npos);
}

TEST_F(ReadTest, InvalidUtf8IsReplaced) {
  dir_.Write("latin1.txt", "caf\xE9 ok\n");
  ToolResult r = Call(*read_, {{"path", "latin1.txt"}});
  EXPECT_FALSE(r.is_error);
  EXPECT_TRUE(IsValidUtf8(r.text));
  EXPECT_NE(r.text.find("caf\xEF\xBF\xBD ok"), std::string::npos);
}

TEST_F(ReadTest, CrlfShownWithoutCarriageReturns) {
  dir_.Write("dos.txt", "a\r\nb\r\n");
  EXPECT_EQ(Call(*read_, {{"path", "dos.txt"}}).text, "     1\ta\n     2\tb\n");
}

TEST_F(ReadTest, BinaryFileIsDescribed) {
  std::string bin("\x7f" "ELF\0\0\0\x01\x02\x03", 10);
  bin += std::string(5000, '\0');
  dir_.Write("prog", bin);
  ToolResult r = Call(*read_, {{"path", "prog"}});
  EXPECT_FALSE(r.is_error);
  EXPECT_NE(r.text.find("binary file"), std::string::npos);
  EXPECT_NE(r.text.find("KB"), std::string::npos);
  EXPECT_EQ(r.text.find("ELF"), std::string::npos);
  EXPECT_TRUE(IsValidUtf8(r.text));
}

TEST_F(ReadTest, RandomBytesWithoutNulAreBinary) {
  std::string noise;
  for (int i = 0; i < 4000; ++i) noise += static_cast<char>(0x80 + (i * 37) % 0x7f);
  dir_.Write("noise.dat", noise);
  EXPECT_NE(Call(*read_, {{"path", "noise.dat"}}).text.find("binary file"), std::string::npos);
}

TEST_F(ReadTest, ImageIsOutOfScope) {
  dir_.Write("pic.png", std::string("\x89PNG\r\n\x1a\n", 8) + std::string(100, '\0'));
  ToolResult r = Call(*read_, {{"path", "pic.png"}});
  EXPECT_TRUE(r.is_error);
  EXPECT_NE(r.text.find("PNG image"), std::string::npos);
  EXPECT_NE(r.text.find("not supported"), std::string::npos);
}

TEST_F(ReadTest, EmptyFile) {
  dir_.Write("empty", "");
  ToolResult r = Call(*read_, {{"path", "empty"}});
  EXPECT_FALSE(r.is_error);
  EXPECT_NE(r.text.find("is empty"), std::string::npos);
}

TEST_F(ReadTest, MissingFileSuggestsSimilarNames) {
  dir_.Write("src/main.cc", "x");
  dir_.Write("src/other.h", "x");
  ToolResult r = Call(*read_, {{"path", "src/mian.cc"}});
  EXPECT_TRUE(r.is_error);
  EXPECT_NE(r.text.find("No such file or directory: src/mian.cc"), std::string::npos);
  EXPECT_NE(r.text.find("main.cc"), std::string::npos) << r.text;
  EXPECT_EQ(r.text.find("other.h"), std::string::npos);
  r = Call(*read_, {{"path", "nope/x.txt"}});
  EXPECT_NE(r.text.find("The folder nope/ does not exist"), std::string::npos) << r.text;
}

TEST_F(ReadTest, DirectorySuggestsLs) {
  dir_.Mkdir("sub");
  ToolResult r = Call(*read_, {{"path", "sub"}});
  EXPECT_TRUE(r.is_error);
  EXPECT_NE(r.text.find("is a directory"), std::string::npos);
  EXPECT_NE(r.text.find("ls"), std::string::npos);
}

TEST_F(ReadTest, HostileArguments) {
  EXPECT_NE(Call(*read_, Json::object()).text.find("Missing required argument \"path\" (string)"),
            std::string::npos);
  EXPECT_NE(Call(*read_, {{"path", 42}}).text.find("\"path\": expected a string, got integer"),
            std::string::npos);
  EXPECT_TRUE(Call(*read_, {{"path", "a"}, {"offset", "3"}}).is_error);
  EXPECT_EQ(Call(*read_, {{"path", "a"}, {"offset", 0}}).text,
            "Invalid argument \"offset\": 0 is out of range; it must be at least 1.");
  EXPECT_EQ(Call(*read_, {{"path", "a"}, {"offset", 1e300}}).text,
            "Invalid argument \"offset\": expected an integer, got number.");
  // A NUL would cut the path short at the system call: "a\0/etc" must not read "a".
  dir_.Write("a", "secret\n");
  EXPECT_NE(Call(*read_, {{"path", std::string("a\0/etc", 6)}}).text.find("NUL"), std::string::npos);
  EXPECT_TRUE(Call(*read_, {{"path", ""}}).is_error);
  EXPECT_TRUE(Call(*read_, {{"path", "a"}, {"limit", -5}}).is_error);
  EXPECT_TRUE(Call(*read_, {{"path", "a"}, {"limit", 1.5}}).is_error);
  EXPECT_TRUE(Call(*read_, Json::array({1, 2})).is_error);
  EXPECT_TRUE(Call(*read_, "path").is_error);
  ToolResult long_path = Call(*read_, {{"path", std::string(100000, 'a')}});
  EXPECT_TRUE(long_path.is_error);
  EXPECT_LT(long_path.text.size(), 200u);
  EXPECT_FALSE(Call(*read_, {{"path", "a"}, {"offset", 1.0}}).is_error);
}

TEST_F(ReadTest, Summary) {
  EXPECT_EQ(read_->Summary({{"path", "src/main.cpp"}}), "read src/main.cpp");
  EXPECT_EQ(read_->Summary({{"path", "a"}, {"offset", 10}}), "read a:10");
  EXPECT_EQ(read_->Summary(Json()), "read");
  EXPECT_EQ(read_->Summary({{"path", 3}}), "read");
}

class WriteTest : public ToolTest {
 protected:
  std::unique_ptr<Tool> write_ = MakeWriteTool();
};

TEST_F(WriteTest, CreatesFileAndParents) {
  ToolResult r = Call(*write_, {{"path", "deep/er/new.txt"}, {"content", "a\nb\n"}});
  EXPECT_FALSE(r.is_error) << r.text;
  EXPECT_EQ(r.text, "Created deep/er/new.txt: 4 bytes, 2 lines.");
  EXPECT_EQ(dir_.Read("deep/er/new.txt"), "a\nb\n");
  EXPECT_EQ(r.details["created"], true);
}

TEST_F(WriteTest, ReplacesAndKeepsMode) {
  dir_.Write("run.sh", "old");
  ::chmod((dir_.path() / "run.sh").c_str(), 0751);
  ToolResult r = Call(*write_, {{"path", "run.sh"}, {"content", "#!/bin/sh\necho hi"}});
  EXPECT_EQ(r.text, "Wrote run.sh: 17 bytes, 2 lines.");
  EXPECT_EQ(dir_.Read("run.sh"), "#!/bin/sh\necho hi");
  struct stat st;
  ASSERT_EQ(::stat((dir_.path() / "run.sh").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0751u);
}

TEST_F(WriteTest, EmptyContentAndNoTempLeftBehind) {
  EXPECT_FALSE(Call(*write_, {{"path", "e"}, {"content", ""}}).is_error);
  EXPECT_EQ(dir_.Read("e"), "");
  int n = 0;
  for (auto& e : std::filesystem::directory_iterator(dir_.path())) n += e.is_regular_file();
  EXPECT_EQ(n, 1);
}

TEST_F(WriteTest, WritesThroughSymlink) {
  dir_.Write("target.txt", "old");
  std::filesystem::create_symlink("target.txt", dir_.path() / "link.txt");
  EXPECT_FALSE(Call(*write_, {{"path", "link.txt"}, {"content", "new"}}).is_error);
  EXPECT_TRUE(std::filesystem::is_symlink(dir_.path() / "link.txt"));
  EXPECT_EQ(dir_.Read("target.txt"), "new");
}

TEST_F(WriteTest, Errors) {
  dir_.Mkdir("d");
  EXPECT_NE(Call(*write_, {{"path", "d"}, {"content", "x"}}).text.find("is a directory"),
            std::string::npos);
  EXPECT_NE(Call(*write_, {{"path", "x"}}).text.find("\"content\""), std::string::npos);
  EXPECT_NE(Call(*write_, {{"path", "x"}, {"content", Json::array()}}).text.find("got array"),
            std::string::npos);
  EXPECT_TRUE(Call(*write_, {{"path", ""}, {"content", "x"}}).is_error);
  EXPECT_NE(Call(*write_, {{"path", "newdir/"}, {"content", "x"}}).text.find("names a folder"), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(dir_.path() / "newdir"));
  dir_.Write("file", "x");
  ToolResult r = Call(*write_, {{"path", "file/inside"}, {"content", "x"}});
  EXPECT_TRUE(r.is_error);
  EXPECT_NE(r.text.find("Cannot write file/inside"), std::string::npos) << r.text;
}

TEST_F(WriteTest, LargeContent) {
  std::string big(5 << 20, 'z');
  ToolResult r = Call(*write_, {{"path", "big"}, {"content", big}});
  EXPECT_FALSE(r.is_error);
  EXPECT_EQ(std::filesystem::file_size(dir_.path() / "big"), big.size());
}

class LsTest : public ToolTest {
 protected:
  std::unique_ptr<Tool> ls_ = MakeLsTool();
};

TEST_F(LsTest, SortedWithFolderSlashes) {
  dir_.Write("b.txt", "");
  dir_.Write("A.md", "");
  dir_.Write(".hidden", "");
  dir_.Mkdir("src");
  std::filesystem::create_symlink("src", dir_.path() / "link");
  ToolResult r = Call(*ls_, Json::object());
  EXPECT_FALSE(r.is_error);
  EXPECT_EQ(r.text, ".hidden\nA.md\nb.txt\nlink/\nsrc/\n");
  EXPECT_EQ(Call(*ls_, {{"path", "src"}}).text, "src is empty.");
}

TEST_F(LsTest, LimitWithNote) {
  for (int i = 0; i < 20; ++i) dir_.Write("f" + std::to_string(100 + i), "");
  ToolResult r = Call(*ls_, {{"path", "."}, {"limit", 5}});
  EXPECT_TRUE(r.truncated);
  EXPECT_TRUE(StartsWith(r.text, "f100\nf101\nf102\nf103\nf104\n[Showing 5 of 20 entries."));
}

TEST_F(LsTest, Errors) {
  dir_.Write("file", "");
  EXPECT_NE(Call(*ls_, {{"path", "file"}}).text.find("is a file"), std::string::npos);
  EXPECT_TRUE(Call(*ls_, {{"path", "missing"}}).is_error);
  EXPECT_TRUE(Call(*ls_, {{"path", true}}).is_error);
  EXPECT_TRUE(Call(*ls_, {{"limit", 0}}).is_error);
}

TEST(Registry, BuiltinsAndRetain) {
  auto reg = MakeBuiltinTools();
  std::vector<std::string> names;
  for (Tool* t : reg->All()) names.push_back(t->name());
  EXPECT_EQ(Join(names, ","), "read,write,edit,bash,ls,find,grep");
  ASSERT_NE(reg->Find("read"), nullptr);
  EXPECT_EQ(reg->Find("nope"), nullptr);
  for (Tool* t : reg->All()) {
    Json schema = t->parameters();
    EXPECT_EQ(schema["type"], "object") << t->name();
    EXPECT_FALSE(t->description().empty());
  }
  // Add replaces a tool of the same name (an extension overriding a built-in).
  size_t before = reg->All().size();
  reg->Add(MakeReadTool());
  EXPECT_EQ(reg->All().size(), before);
  reg->Add(nullptr);
  EXPECT_EQ(reg->All().size(), before);
  reg->Retain({"read"});
  EXPECT_EQ(reg->All().size(), 1u);
  EXPECT_EQ(reg->Find("ls"), nullptr);
}

}  // namespace
}  // namespace sepp::tools
