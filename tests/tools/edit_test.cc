#include <gtest/gtest.h>
#include <sys/stat.h>

#include "base/strings.h"
#include "tool_test_util.h"

namespace sepp::tools {
namespace {

class EditTest : public testing::ToolTest {
 protected:
  std::unique_ptr<Tool> edit_ = MakeEditTool();
};

TEST_F(EditTest, SingleEditWithExactDiff) {
  dir_.Write("src/x.cc", "int main() {\n  return 1;\n}\n");
  ToolResult r = Call(*edit_, {{"path", "src/x.cc"}, {"old_string", "return 1;"}, {"new_string", "return 0;"}});
  ASSERT_FALSE(r.is_error) << r.text;
  EXPECT_EQ(dir_.Read("src/x.cc"), "int main() {\n  return 0;\n}\n");
  const std::string diff =
      "--- a/src/x.cc\n+++ b/src/x.cc\n@@ -1,3 +1,3 @@\n int main() {\n-  return 1;\n+  return 0;\n }\n";
  EXPECT_EQ(r.text, "Edited src/x.cc (1 edit, +1 -1 lines).\n" + diff);
  EXPECT_EQ(r.details["diff"], diff);
  EXPECT_EQ(r.details["first_changed_line"], 2);
}

TEST_F(EditTest, MultiEditsAppliedInOrder) {
  dir_.Write("f.txt", "alpha\nbeta\ngamma\n");
  ToolResult r = Call(*edit_, {{"path", "f.txt"},
                               {"edits", Json::array({{{"old_string", "alpha"}, {"new_string", "ALPHA"}},
                                                      {{"old_string", "ALPHA\nbeta"}, {"new_string", "one"}},
                                                      {{"old_string", "gamma\n"}, {"new_string", ""}}})}});
  ASSERT_FALSE(r.is_error) << r.text;
  EXPECT_EQ(dir_.Read("f.txt"), "one\n");
  EXPECT_NE(r.text.find("(3 edits, +1 -3 lines)"), std::string::npos) << r.text;
}

TEST_F(EditTest, AllOrNothing) {
  dir_.Write("f.txt", "a\nb\nc\n");
  ToolResult r = Call(*edit_, {{"path", "f.txt"},
                               {"edits", Json::array({{{"old_string", "a"}, {"new_string", "A"}},
                                                      {{"old_string", "zzz"}, {"new_string", "Z"}}})}});
  EXPECT_TRUE(r.is_error);
  EXPECT_TRUE(StartsWith(r.text, "edits[1]: old_string was not found in f.txt. No changes were made."))
      << r.text;
  EXPECT_EQ(dir_.Read("f.txt"), "a\nb\nc\n");
}

TEST_F(EditTest, NoMatchQuotesClosestLine) {
  dir_.Write("f.py", "def main():\n    print('hello world')\n    return 0\n");
  ToolResult r = Call(*edit_, {{"path", "f.py"}, {"old_string", "print('hello wrld')"}, {"new_string", "x"}});
  EXPECT_TRUE(r.is_error);
  EXPECT_NE(r.text.find("The closest text is at line 2:\n     2\t    print('hello world')\n"),
            std::string::npos)
      << r.text;
}

TEST_F(EditTest, NoMatchWhitespaceOnlyDifference) {
  dir_.Write("f.py", "if x:\n\tdo()\n\tmore()\n");
  ToolResult r = Call(*edit_, {{"path", "f.py"}, {"old_string", "    do()\n    more()"}, {"new_string", "x"}});
  EXPECT_TRUE(r.is_error);
  EXPECT_NE(r.text.find("differs only in whitespace"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("starts at line 2"), std::string::npos) << r.text;
}

TEST_F(EditTest, LineNumbersCopiedFromReadAreExplained) {
  dir_.Write("f", "alpha\nbeta\n");
  ToolResult r = Call(*edit_, {{"path", "f"}, {"old_string", "     1\talpha\n     2\tbeta"}, {"new_string", "x"}});
  EXPECT_TRUE(r.is_error);
  EXPECT_NE(r.text.find("line numbers that read shows"), std::string::npos) << r.text;
}

TEST_F(EditTest, EarlierEditConsumedTheText) {
  dir_.Write("f", "abc\n");
  ToolResult r = Call(*edit_, {{"path", "f"},
                               {"edits", Json::array({{{"old_string", "abc"}, {"new_string", "xyz"}},
                                                      {{"old_string", "abc"}, {"new_string", "q"}}})}});
  EXPECT_TRUE(r.is_error);
  EXPECT_NE(r.text.find("an earlier edit changed that text"), std::string::npos) << r.text;
}

TEST_F(EditTest, MultipleMatchesGiveCountAndLines) {
  dir_.Write("f", "x = 1\ny = 2\nx = 1\nz\nx = 1\n");
  ToolResult r = Call(*edit_, {{"path", "f"}, {"old_string", "x = 1"}, {"new_string", "x = 3"}});
  EXPECT_TRUE(r.is_error);
  EXPECT_EQ(r.text, "old_string matches 3 times in f (at lines 1, 3, 5). Include more surrounding "
                    "lines in old_string so that it matches exactly once. No changes were made.");
  EXPECT_EQ(dir_.Read("f"), "x = 1\ny = 2\nx = 1\nz\nx = 1\n");
}

TEST_F(EditTest, CrlfFileAcceptsLfOldString) {
  dir_.Write("dos.txt", "one\r\ntwo\r\nthree\r\n");
  ToolResult r = Call(*edit_, {{"path", "dos.txt"}, {"old_string", "one\ntwo"}, {"new_string", "1\n2"}});
  ASSERT_FALSE(r.is_error) << r.text;
  EXPECT_EQ(dir_.Read("dos.txt"), "1\r\n2\r\nthree\r\n");
}

TEST_F(EditTest, KeepsModeAndHandlesNonUtf8) {
  dir_.Write("s.sh", "echo caf\xE9\n");
  ::chmod((dir_.path() / "s.sh").c_str(), 0755);
  ToolResult r = Call(*edit_, {{"path", "s.sh"}, {"old_string", "echo"}, {"new_string", "printf"}});
  ASSERT_FALSE(r.is_error) << r.text;
  EXPECT_EQ(dir_.Read("s.sh"), "printf caf\xE9\n");
  EXPECT_TRUE(IsValidUtf8(r.text));
  EXPECT_TRUE(IsValidUtf8(r.details["diff"].get<std::string>()));
  struct stat st;
  ::stat((dir_.path() / "s.sh").c_str(), &st);
  EXPECT_EQ(st.st_mode & 0777, 0755u);
}

TEST_F(EditTest, ArgumentErrors) {
  dir_.Write("f", "abc\n");
  auto err = [&](const Json& args) {
    ToolResult r = Call(*edit_, args);
    EXPECT_TRUE(r.is_error) << args.dump();
    return r.text;
  };
  EXPECT_NE(err({{"old_string", "a"}, {"new_string", "b"}}).find("\"path\""), std::string::npos);
  EXPECT_NE(err({{"path", "f"}}).find("old_string"), std::string::npos);
  EXPECT_NE(err({{"path", "f"}, {"old_string", "a"}}).find("\"new_string\""), std::string::npos);
  EXPECT_NE(err({{"path", "f"}, {"old_string", 1}, {"new_string", "b"}}).find("expected a string"),
            std::string::npos);
  EXPECT_NE(err({{"path", "f"}, {"old_string", "a"}, {"new_string", "b"}, {"edits", Json::array()}})
                .find("not both"),
            std::string::npos);
  EXPECT_NE(err({{"path", "f"}, {"edits", "a->b"}}).find("expected an array"), std::string::npos);
  EXPECT_NE(err({{"path", "f"}, {"edits", Json::array()}}).find("empty"), std::string::npos);
  EXPECT_NE(err({{"path", "f"}, {"edits", Json::array({1})}}).find("edits[0]"), std::string::npos);
  EXPECT_NE(err({{"path", "f"}, {"edits", Json::array({{{"old_string", "a"}}})}}).find("edits[0]"),
            std::string::npos);
  EXPECT_NE(err({{"path", "f"}, {"old_string", ""}, {"new_string", "b"}}).find("empty"),
            std::string::npos);
  EXPECT_NE(err({{"path", "f"}, {"old_string", "a"}, {"new_string", "a"}}).find("the same"),
            std::string::npos);
  EXPECT_NE(err({{"path", "nope"}, {"old_string", "a"}, {"new_string", "b"}}).find("use write"),
            std::string::npos);
  EXPECT_EQ(dir_.Read("f"), "abc\n");
}

TEST_F(EditTest, Summary) { EXPECT_EQ(edit_->Summary({{"path", "src/x.cc"}}), "edit src/x.cc"); }

}  // namespace
}  // namespace sepp::tools
