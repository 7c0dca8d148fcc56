// The file tools through a front end's FileAccess (an editor's buffers):
// read, edit and write use it instead of the disk, in this process even when
// the session has a tool worker, and the PathGuard refuses denied paths and
// writes outside the workspace before the FileAccess is ever asked.
#include <gtest/gtest.h>

#include <map>
#include <mutex>

#include "tools/file_access.h"
#include "worker_fixture.h"

namespace sepp::tools {
namespace {

namespace fs = std::filesystem;
using testing::kSecret;
using testing::WorkerTest;

// In-memory buffers keyed by path, recording every request.
class FakeBuffers : public FileAccess {
 public:
  bool reads() const override { return reads_; }
  bool writes() const override { return writes_; }
  Result<std::string> ReadText(const fs::path& path, CancelToken*) override {
    std::lock_guard lock(mu);
    asked.push_back("read " + path.string());
    if (!error.empty()) return Error::Make(error, "timeout");
    auto it = buffers.find(path.string());
    if (it == buffers.end()) return Error::Make("the editor refused: no such file");
    return it->second;
  }
  Result<void> WriteText(const fs::path& path, const std::string& content, CancelToken*) override {
    std::lock_guard lock(mu);
    asked.push_back("write " + path.string());
    if (!error.empty()) return Error::Make(error, "timeout");
    buffers[path.string()] = content;
    return {};
  }

  bool reads_ = true, writes_ = true;
  std::mutex mu;
  std::map<std::string, std::string> buffers;
  std::vector<std::string> asked;
  std::string error;  // when set, every request fails with it
};

class FileAccessTest : public WorkerTest {
 protected:
  ToolResult UseVia(const std::string& tool, const Json& args) {
    ToolContext ctx = Context();
    ctx.file_access = &buffers_;
    return RunTool(*registry_->Find(tool), args, ctx);
  }
  std::string file() const { return (ws_ / "notes.txt").string(); }
  FakeBuffers buffers_;
};

TEST_F(FileAccessTest, ReadSeesTheBufferNotTheDisk) {
  Put(ws_ / "notes.txt", "saved\n");
  buffers_.buffers[file()] = "one\nunsaved two\nthree\n";
  ToolResult r = UseVia("read", {{"path", "notes.txt"}, {"offset", 2}, {"limit", 1}});
  ASSERT_FALSE(r.is_error) << r.text;
  EXPECT_EQ(r.text, "     2\tunsaved two\n[Showing lines 2-2 of 3. Use offset=3 to continue.]");
  EXPECT_EQ(r.details["total_lines"], 3);
  EXPECT_EQ(buffers_.asked, std::vector<std::string>{"read " + file()});
  // Without the access the same call reads the disk (in the worker).
  EXPECT_EQ(Use("read", {{"path", "notes.txt"}}).text, "     1\tsaved\n");
}

TEST_F(FileAccessTest, EditReadsAndWritesTheBufferOnly) {
  Put(ws_ / "notes.txt", "helo disk\n");
  buffers_.buffers[file()] = "helo buffer\n";
  ToolResult r = UseVia("edit", {{"path", "notes.txt"}, {"old_string", "helo"}, {"new_string", "hello"}});
  ASSERT_FALSE(r.is_error) << r.text;
  EXPECT_EQ(buffers_.buffers[file()], "hello buffer\n");
  EXPECT_EQ(Get(ws_ / "notes.txt"), "helo disk\n");
  EXPECT_NE(r.details["diff"].get<std::string>().find("+hello buffer"), std::string::npos);
  // Text only on disk is not what the edit sees.
  r = UseVia("edit", {{"path", "notes.txt"}, {"old_string", "disk"}, {"new_string", "x"}});
  EXPECT_TRUE(r.is_error);
  EXPECT_NE(r.text.find("not found"), std::string::npos) << r.text;
}

TEST_F(FileAccessTest, WriteLandsInTheBufferAndNotOnDisk) {
  ToolResult r = UseVia("write", {{"path", "new.txt"}, {"content", "fresh\n"}});
  ASSERT_FALSE(r.is_error) << r.text;
  EXPECT_EQ(buffers_.buffers[(ws_ / "new.txt").string()], "fresh\n");
  EXPECT_FALSE(fs::exists(ws_ / "new.txt"));
  EXPECT_NE(r.text.find("Created new.txt"), std::string::npos) << r.text;
}

TEST_F(FileAccessTest, DeniedPathsNeverReachTheAccess) {
  std::string key = (home_ / ".ssh/id_ed25519").string();
  buffers_.buffers[key] = kSecret;  // even a buffer that holds it is never asked
  for (const auto& [tool, args] : std::vector<std::pair<std::string, Json>>{
           {"read", {{"path", key}}},
           {"read", {{"path", "~/.ssh/id_ed25519"}}},
           {"edit", {{"path", key}, {"old_string", "S"}, {"new_string", "T"}}},
           {"write", {{"path", key}, {"content", "x"}}},
           {"write", {{"path", (root_ / "outside.txt").string()}, {"content", "x"}}},
           {"write", {{"path", ".git/hooks/pre-commit"}, {"content", "x"}}}}) {
    ToolResult r = UseVia(tool, args);
    EXPECT_TRUE(r.is_error) << tool << " " << args.dump();
    EXPECT_TRUE(r.details.value("denied", false)) << r.text;
    EXPECT_EQ(r.text.find(kSecret), std::string::npos);
  }
  EXPECT_TRUE(buffers_.asked.empty()) << buffers_.asked.front();
  EXPECT_EQ(buffers_.buffers[key], kSecret);
  // A link in the workspace to the key is refused the same way.
  fs::create_symlink(key, ws_ / "key-link");
  EXPECT_TRUE(UseVia("read", {{"path", "key-link"}}).details.value("denied", false));
  EXPECT_TRUE(buffers_.asked.empty());
}

TEST_F(FileAccessTest, AFailingAccessIsAClearErrorAndEditChangesNothing) {
  buffers_.buffers[file()] = "a\n";
  buffers_.error = "the editor did not answer fs/read_text_file within 50 ms";
  ToolResult r = UseVia("read", {{"path", "notes.txt"}});
  EXPECT_TRUE(r.is_error);
  EXPECT_EQ(r.text, "Cannot read notes.txt: " + buffers_.error + ".");
  r = UseVia("edit", {{"path", "notes.txt"}, {"old_string", "a"}, {"new_string", "b"}});
  EXPECT_TRUE(r.is_error);
  EXPECT_EQ(buffers_.asked.back(), "read " + file());  // no write after the failed read
  EXPECT_EQ(buffers_.buffers[file()], "a\n");
}

TEST_F(FileAccessTest, OnlyTheOfferedDirectionGoesThrough) {
  Put(ws_ / "notes.txt", "disk\n");
  buffers_.buffers[file()] = "buffer\n";
  buffers_.writes_ = false;  // reads only: write and edit stay on the disk, in the worker
  EXPECT_EQ(UseVia("read", {{"path", "notes.txt"}}).text, "     1\tbuffer\n");
  ToolResult r = UseVia("write", {{"path", "notes.txt"}, {"content", "written\n"}});
  ASSERT_FALSE(r.is_error) << r.text;
  EXPECT_EQ(Get(ws_ / "notes.txt"), "written\n");
  r = UseVia("edit", {{"path", "notes.txt"}, {"old_string", "written"}, {"new_string", "edited"}});
  ASSERT_FALSE(r.is_error) << r.text;
  EXPECT_EQ(Get(ws_ / "notes.txt"), "edited\n");
  EXPECT_EQ(buffers_.buffers[file()], "buffer\n");
}

}  // namespace
}  // namespace sepp::tools
