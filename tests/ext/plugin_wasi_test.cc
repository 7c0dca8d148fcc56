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
#include <random>
#include <set>

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
  // Its first file import is named (path_open or path_filestat_get).
  EXPECT_NE(r.error().message.find("imports wasi_snapshot_preview1.path_"), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find("which needs the capability fs_read"), std::string::npos) << r.error().message;
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

// Random WASI calls with hostile arguments (pointers out of memory or into
// the guest's own data, huge lengths and counts, unknown and closed fds,
// escaping paths, bytes with NUL), made by the guest itself through the raw
// imports: every call must end as a result or a clean trap, nothing outside
// the write grant may change, and the plugin must work afterwards.
TEST_F(PluginWasiTest, FuzzedWasiCallsNeverEscapeOrCrash) {
  Capabilities caps;
  caps.fs_read = {"./notes"};
  caps.fs_write = {"./out"};  // fd 3 is ./out, fd 4 ./notes
  auto p = Load(caps);
  ASSERT_TRUE(p);
  auto tree = [&] {
    std::set<std::string> files;
    for (const auto& e : fs::recursive_directory_iterator(ws_))
      if (!e.path().string().starts_with((ws_ / "out").string()))
        files.insert(e.path().string() + (e.is_regular_file() ? ":" + *ReadFile(e.path()) : ""));
    return files;
  };
  const auto before = tree();
  const unsigned seed = 20261201;
  std::mt19937 rng(seed);
  auto pick = [&](std::initializer_list<int64_t> xs) { return *(xs.begin() + rng() % xs.size()); };
  const std::vector<std::string> texts = {"todo.txt", "../outside.txt", "sub/../../outside.txt", "/etc/passwd",
                                          ".env", "link.txt", "new.txt", "..", "", "sub",
                                          std::string("to\0do.txt", 7), "../../../../../../tmp/x"};
  int ok = 0, trapped = 0;
  for (int i = 0; i < 1500; ++i) {
    Json a = Json::array();
    for (int k = 0; k < 9; ++k) {
      switch (rng() % 4) {
        case 0: a.push_back(pick({-1, 0, 1, 2, 3, 4, 5, 6, 63, 64, 1000, 0x7fffffff})); break;  // fds
        case 1: a.push_back(pick({-7777, -7778, -7778, 0, 4, 65532, 0x7ffffff0, 0xfffffff0})); break;
        case 2: a.push_back(pick({0, 1, 2, 8, 24, 64, 1024, 65536, 1 << 24, 0x7fffffff, 0xffffffff})); break;
        default: a.push_back(static_cast<int64_t>(rng() % 200000)); break;
      }
    }
    Json args = {{"fn", static_cast<int>(rng() % 16)}, {"a", a}, {"text", texts[rng() % texts.size()]}};
    auto r = p->CallTool("raw", args, "fuzz", nullptr);
    (r.ok ? ok : trapped)++;
    // (What an ok call wrote is not checked: the call may have overwritten the
    // guest's own strings, its format string included.)
    if (!r.ok) EXPECT_NE(r.text.find("plugin wasi-files trapped"), std::string::npos) << "seed " << seed << " call " << i << ": " << args << " -> " << r.text;
  }
  EXPECT_GT(ok, 500) << trapped << " trapped";  // most calls reach the host and return
  EXPECT_EQ(tree(), before) << "a fuzzed call changed something outside the write grant (seed " << seed << ")";
  EXPECT_FALSE(fs::exists("/tmp/x"));
  auto after = p->CallTool("read", {{"path", "notes/todo.txt"}}, "c", nullptr);
  EXPECT_TRUE(after.ok) << after.text;
  EXPECT_EQ(after.text, "buy milk\n");
}

}  // namespace
}  // namespace sepp::ext::plugins
