// The WASI preview 1 subset of plugins (src/ext/plugins/wasi.h), with a
// plugin built from C with wasi-libc for each run (tests/ext/plugins/
// wasi_files.c): stdio to the log, clocks, random, the environment of the
// granted names only, proc_exit as a clean end, and files only below the
// preopened grants. The attacks go through the raw WASI calls as well as
// through libc, so it is the host that refuses: `..`, an absolute path, a
// symlink that leads out, a secret file, a write without fs_write, and an
// import of path_open without any file grant.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "base/file.h"
#include "base/ids.h"
#include "base/sha256.h"
#include "ext/plugins/plugin.h"
#include "support/build_wasm_plugin.h"

namespace sepp::ext::plugins {
namespace {
namespace fs = std::filesystem;

class PluginWasiTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new fs::path(fs::temp_directory_path() / ("sepp-plugin-wasi-" + ShortId()));
    fs::create_directories(*dir_);
    *build_error_ = testing_support::BuildWasiCPlugin(fs::path(SEPP_SOURCE_DIR) / "tests/ext/plugins/wasi_files.c",
                                                      *dir_ / "wasi_files.wasm");
  }
  static void TearDownTestSuite() {
    std::error_code ec;
    fs::remove_all(*dir_, ec);
  }
  void SetUp() override {
    // scripts/setup installs wasi-libc: a missing toolchain fails here.
    ASSERT_EQ(*build_error_, "");
    ws_ = *dir_ / ("ws-" + ShortId());
    fs::create_directories(ws_ / "notes/sub");
    fs::create_directories(ws_ / "out");
    std::ofstream(ws_ / "notes/todo.txt") << "buy milk\n";
    std::ofstream(ws_ / "notes/.env") << "TOKEN=hunter2\n";
    std::ofstream(ws_ / "outside.txt") << "not a note\n";
    fs::create_symlink(ws_ / "outside.txt", ws_ / "notes/link.txt");
  }
  PluginManifest Manifest(Capabilities caps) {
    PluginManifest m;
    m.name = "wasi-files";
    m.version = "1";
    m.wasm = *dir_ / "wasi_files.wasm";
    m.sha256 = Sha256Hex(*ReadFile(m.wasm));
    m.source = *dir_ / "sepp-plugin.toml";
    m.scope = "user";
    m.capabilities = std::move(caps);
    return m;
  }
  std::shared_ptr<Plugin> Load(Capabilities caps) {
    auto p = Plugin::Load(Manifest(std::move(caps)), *ReadFile(*dir_ / "wasi_files.wasm"), ws_);
    EXPECT_TRUE(p.ok()) << (p.ok() ? "" : p.error().message);
    return p.ok() ? *p : nullptr;
  }
  static std::string Log(const CallOutcome& r) {
    std::string s;
    for (const auto& l : r.log) s += l + "\n";
    return s;
  }

  static fs::path* dir_;
  static std::string* build_error_;
  fs::path ws_;
};
fs::path* PluginWasiTest::dir_ = nullptr;
std::string* PluginWasiTest::build_error_ = new std::string;

TEST_F(PluginWasiTest, PathOpenWithoutAFileGrantIsRefusedBeforeInstantiation) {
  auto r = Plugin::Load(Manifest({}), *ReadFile(*dir_ / "wasi_files.wasm"), ws_);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, "refused");
  EXPECT_NE(r.error().message.find("wasi_snapshot_preview1.path_open, which needs the capability fs_read"),
            std::string::npos) << r.error().message;
}

TEST_F(PluginWasiTest, ReadsInsideTheGrantThroughLibcAndNothingBeside) {
  Capabilities caps;
  caps.fs_read = {"./notes"};
  auto p = Load(caps);
  ASSERT_TRUE(p);
  auto ok = p->CallTool("read", {{"path", "notes/todo.txt"}}, "c", nullptr);
  EXPECT_TRUE(ok.ok) << ok.text;
  EXPECT_EQ(ok.text, "buy milk\n");
  auto listed = p->CallTool("list", {{"path", "notes"}}, "c", nullptr);
  EXPECT_TRUE(listed.ok) << listed.text;
  EXPECT_NE(listed.text.find("todo.txt\n"), std::string::npos) << listed.text;
  EXPECT_NE(listed.text.find("sub\n"), std::string::npos) << listed.text;
  EXPECT_EQ(listed.text.find(".env"), std::string::npos) << "a secret file is not even listed: " << listed.text;
  // Through libc: outside the preopen, `..` out of it, absolute, a symlink
  // that leads out, a secret file inside the grant.
  for (const std::string& path : {std::string("outside.txt"), std::string("notes/../outside.txt"),
                                  (ws_ / "outside.txt").string(), std::string("/etc/passwd"),
                                  std::string("notes/link.txt"), std::string("notes/.env")}) {
    auto r = p->CallTool("read", {{"path", path}}, "c", nullptr);
    EXPECT_FALSE(r.ok) << path << ": " << r.text;
    EXPECT_EQ(r.text.find("not a note"), std::string::npos) << path;
    EXPECT_EQ(r.text.find("hunter2"), std::string::npos) << path;
  }
  // A write through the read grant.
  auto w = p->CallTool("write", {{"path", "notes/new.txt"}, {"text", "x"}}, "c", nullptr);
  EXPECT_FALSE(w.ok) << w.text;
  EXPECT_FALSE(fs::exists(ws_ / "notes/new.txt"));
}

TEST_F(PluginWasiTest, RawPathOpenIsConfinedByTheHost) {
  Capabilities caps;
  caps.fs_read = {"./notes"};
  auto p = Load(caps);
  ASSERT_TRUE(p);
  // fd 3 is the preopen of ./notes: the same file by its relative name reads.
  auto ok = p->CallTool("raw_open", {{"path", "todo.txt"}}, "c", nullptr);
  EXPECT_EQ(ok.text, "opened and read: buy milk\n");
  auto sub = p->CallTool("raw_open", {{"path", "sub/../todo.txt"}}, "c", nullptr);
  EXPECT_EQ(sub.text, "opened and read: buy milk\n");
  // ENOTCAPABLE (76) for each escape, with the reason in the log.
  for (const std::string& path : {std::string("../outside.txt"), std::string("sub/../../outside.txt"),
                                  std::string("/etc/passwd"), (ws_ / "outside.txt").string(),
                                  std::string("link.txt"), std::string(".env")}) {
    auto r = p->CallTool("raw_open", {{"path", path}}, "c", nullptr);
    EXPECT_EQ(r.text, "errno 76") << path;
    EXPECT_NE(Log(r).find("wasi: refused"), std::string::npos) << path << ": " << Log(r);
  }
  auto w = p->CallTool("raw_open", {{"path", "todo.txt"}, {"text", "w"}}, "c", nullptr);
  EXPECT_EQ(w.text, "errno 76");
  EXPECT_EQ(*ReadFile(ws_ / "notes/todo.txt"), "buy milk\n");
}

TEST_F(PluginWasiTest, WritesOnlyInsideTheWriteGrant) {
  Capabilities caps;
  caps.fs_read = {"./notes"};
  caps.fs_write = {"./out"};
  auto p = Load(caps);
  ASSERT_TRUE(p);
  auto w = p->CallTool("write", {{"path", "out/result.txt"}, {"text", "forty-two"}}, "c", nullptr);
  EXPECT_TRUE(w.ok) << w.text << Log(w);
  EXPECT_EQ(*ReadFile(ws_ / "out/result.txt"), "forty-two");
  auto back = p->CallTool("read", {{"path", "out/result.txt"}}, "c", nullptr);
  EXPECT_EQ(back.text, "forty-two");
  // fd 3 is ./out (write grants come first): `..` to the notes or out of
  // the workspace is refused for writing, and nothing is written.
  for (const std::string& path : {std::string("../notes/todo.txt"), std::string("../outside.txt"),
                                  std::string("/tmp/sepp-wasi-pwned")}) {
    auto r = p->CallTool("raw_open", {{"path", path}, {"text", "w"}}, "c", nullptr);
    EXPECT_EQ(r.text, "errno 76") << path;
  }
  EXPECT_EQ(*ReadFile(ws_ / "notes/todo.txt"), "buy milk\n");
  EXPECT_EQ(*ReadFile(ws_ / "outside.txt"), "not a note\n");
  EXPECT_FALSE(fs::exists("/tmp/sepp-wasi-pwned"));
  auto lib = p->CallTool("write", {{"path", "notes/todo.txt"}, {"text", "pwned"}}, "c", nullptr);
  EXPECT_FALSE(lib.ok);
  EXPECT_EQ(*ReadFile(ws_ / "notes/todo.txt"), "buy milk\n");
}

TEST_F(PluginWasiTest, StdioGoesToTheLogAndEnvironHoldsOnlyGrantedNames) {
  setenv("PLUGIN_VISIBLE", "yes", 1);
  setenv("PLUGIN_HIDDEN", "no", 1);
  setenv("ANTHROPIC_API_KEY", "sk-wasi-test-secret", 1);
  Capabilities caps;
  caps.fs_read = {"./notes"};
  caps.env = {"PLUGIN_VISIBLE", "ANTHROPIC_API_KEY"};
  auto p = Load(caps);
  ASSERT_TRUE(p);
  auto env = p->CallTool("env", Json::object(), "c", nullptr);
  EXPECT_EQ(env.text, "PLUGIN_VISIBLE=yes\nPLUGIN_HIDDEN=(unset)\nANTHROPIC_API_KEY=(unset)\ncount=1");
  auto printed = p->CallTool("print", Json::object(), "c", nullptr);
  EXPECT_TRUE(printed.ok);
  EXPECT_EQ(printed.text, "printed");
  EXPECT_EQ(Log(printed), "info: to stdout 1\nwarn: to stderr\ninfo: no newline at the end\n");
  auto clock = p->CallTool("clock", Json::object(), "c", nullptr);
  EXPECT_EQ(clock.text, "year>=2024:1 mono>0:1 entropy:1 nonzero:1");
  // Without an env grant the environment is empty.
  auto bare = Load([] { Capabilities c; c.fs_read = {"./notes"}; return c; }());
  ASSERT_TRUE(bare);
  EXPECT_EQ(bare->CallTool("env", Json::object(), "c", nullptr).text,
            "PLUGIN_VISIBLE=(unset)\nPLUGIN_HIDDEN=(unset)\nANTHROPIC_API_KEY=(unset)\ncount=0");
  unsetenv("ANTHROPIC_API_KEY");
}

TEST_F(PluginWasiTest, ProcExitEndsTheCallCleanlyAndTheNextCallWorks) {
  Capabilities caps;
  caps.fs_read = {"./notes"};
  auto p = Load(caps);
  ASSERT_TRUE(p);
  auto zero = p->CallTool("exit", {{"text", "0"}}, "c", nullptr);
  EXPECT_TRUE(zero.ok) << zero.text;
  EXPECT_EQ(zero.text, "before exit");
  auto three = p->CallTool("exit", {{"text", "3"}}, "c", nullptr);
  EXPECT_FALSE(three.ok);
  EXPECT_NE(three.text.find("status 3"), std::string::npos) << three.text;
  auto after = p->CallTool("read", {{"path", "notes/todo.txt"}}, "c", nullptr);
  EXPECT_TRUE(after.ok) << after.text;
  EXPECT_EQ(after.text, "buy milk\n");
}

}  // namespace
}  // namespace sepp::ext::plugins
