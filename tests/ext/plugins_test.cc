// WebAssembly plugins (src/ext/plugins, docs/plugins.md), with modules built
// from C source for each run: the manifest, the import-vs-grant refusal,
// limits that trap cleanly (fuel, memory, deadline, call depth), hostile
// guests (bad pointers and lengths, huge output), parallel calls, cancel,
// the capability modules, and confirmation keyed to the binary's hash.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

#include "base/file.h"
#include "base/ids.h"
#include "base/sha256.h"
#include "ext/plugins/abi.h"
#include "ext/plugins/manifest.h"
#include "ext/plugins/plugin.h"
#include "ext/plugins/plugins.h"
#include "support/build_wasm_plugin.h"
#include "wasm/decoder.h"

namespace sepp::ext::plugins {
namespace {
namespace fs = std::filesystem;

const fs::path kSrc = SEPP_SOURCE_DIR;

// Each module is built once per test binary run.
class PluginTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new fs::path(fs::temp_directory_path() / ("sepp-plugins-" + ShortId()));
    fs::create_directories(*dir_);
    for (auto [name, src] : {std::pair{"hello", kSrc / "examples/plugins/hello/hello.c"},
                             std::pair{"read_notes", kSrc / "examples/plugins/read-notes/read_notes.c"},
                             std::pair{"hostile", kSrc / "tests/ext/plugins/hostile.c"}}) {
      std::string err = testing_support::BuildWasmPlugin(src, *dir_ / (std::string(name) + ".wasm"));
      if (!err.empty()) *build_error_ = err;
    }
  }
  static void TearDownTestSuite() {
    std::error_code ec;
    fs::remove_all(*dir_, ec);
  }
  void SetUp() override {
    if (!build_error_->empty()) GTEST_SKIP() << *build_error_;
    ws_ = *dir_ / ("ws-" + ShortId());
    fs::create_directories(ws_ / "notes");
    std::ofstream(ws_ / "notes/todo.txt") << "buy milk\n";
    std::ofstream(ws_ / "outside.txt") << "not a note\n";
  }
  static std::string Bytes(const std::string& name) {
    return *ReadFile(*dir_ / (name + ".wasm"));
  }
  static PluginManifest Manifest(const std::string& name, const std::string& wasm) {
    PluginManifest m;
    m.name = name;
    m.version = "1";
    m.wasm = *dir_ / (wasm + ".wasm");
    m.sha256 = Sha256Hex(Bytes(wasm));
    m.source = *dir_ / "sepp-plugin.toml";
    m.scope = "user";
    return m;
  }
  std::shared_ptr<Plugin> LoadOk(const PluginManifest& m) {
    auto p = Plugin::Load(m, *ReadFile(m.wasm), ws_);
    EXPECT_TRUE(p.ok()) << (p.ok() ? "" : p.error().message);
    return p.ok() ? *p : nullptr;
  }

  static fs::path* dir_;
  static std::string* build_error_;
  fs::path ws_;
};
fs::path* PluginTest::dir_ = nullptr;
std::string* PluginTest::build_error_ = new std::string;

TEST_F(PluginTest, HelloDescribesAndGreets) {
  auto p = LoadOk(Manifest("hello", "hello"));
  ASSERT_TRUE(p);
  ASSERT_EQ(p->tools().size(), 1u);
  EXPECT_EQ(p->tools()[0].name, "greet");
  EXPECT_EQ(p->tools()[0].input_schema["required"][0], "name");
  auto r = p->CallTool("greet", {{"name", "Ada \"the\" Countess"}}, "c1", nullptr);
  EXPECT_TRUE(r.ok) << r.text;
  EXPECT_EQ(r.text, "Hello, Ada \"the\" Countess! (from a WebAssembly plugin)");
  auto bad = p->CallTool("greet", Json::object(), "c2", nullptr);
  EXPECT_FALSE(bad.ok);
  EXPECT_NE(bad.text.find("give a \"name\""), std::string::npos) << bad.text;
}

TEST_F(PluginTest, ImportOfAnUngrantedCapabilityIsRefusedNamingIt) {
  PluginManifest m = Manifest("read-notes", "read_notes");
  auto refused = Plugin::Load(m, Bytes("read_notes"), ws_);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().kind, "refused");
  EXPECT_NE(refused.error().message.find("sepp:fs_read.read_file"), std::string::npos)
      << refused.error().message;
  EXPECT_NE(refused.error().message.find("fs_read"), std::string::npos);
  // env is granted, fs_read is not: still refused.
  m.capabilities.env = {"HOME"};
  EXPECT_FALSE(Plugin::Load(m, Bytes("read_notes"), ws_).ok());
  // Granted: it reads within the grant and nothing beside it.
  m.capabilities.fs_read = {"./notes"};
  auto p = LoadOk(m);
  ASSERT_TRUE(p);
  auto note = p->CallTool("read_note", {{"path", "notes/todo.txt"}}, "c", nullptr);
  EXPECT_TRUE(note.ok) << note.text;
  EXPECT_EQ(note.text, "buy milk\n");
  for (const std::string& path : std::vector<std::string>{
           "outside.txt", "notes/../outside.txt", (ws_ / "outside.txt").string(), "/etc/passwd"}) {
    auto r = p->CallTool("read_note", {{"path", path}}, "c", nullptr);
    EXPECT_FALSE(r.ok) << path;
    EXPECT_NE(r.text.find("outside the plugin's granted fs_read paths"), std::string::npos) << r.text;
  }
  // A symlink inside the grant that leads out is resolved first.
  fs::create_symlink(ws_ / "outside.txt", ws_ / "notes/link.txt");
  auto link = p->CallTool("read_note", {{"path", "notes/link.txt"}}, "c", nullptr);
  EXPECT_FALSE(link.ok);
  EXPECT_EQ(link.text.find("not a note"), std::string::npos) << link.text;
}

TEST_F(PluginTest, ImportOutsideTheAbiIsRefused) {
  fs::path src = *dir_ / "wasi.c";
  std::ofstream(src) << "#include \"sepp_plugin.h\"\n"
                        "SEPP_IMPORT(\"wasi_snapshot_preview1\", \"sock_accept\") int32_t acc(int32_t, int32_t, int32_t);\n"
                        "SEPP_EXPORT(\"sepp_abi_version\") int32_t v(void) { return acc(0, 0, 0); }\n";
  ASSERT_EQ(testing_support::BuildWasmPlugin(src, *dir_ / "wasi.wasm"), "");
  PluginManifest m = Manifest("wasi", "wasi");
  m.capabilities.fs_read = {"./"};
  m.capabilities.fs_write = {"./"};
  m.capabilities.env = {"HOME"};
  auto r = Plugin::Load(m, Bytes("wasi"), ws_);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("wasi_snapshot_preview1.sock_accept"), std::string::npos);
  EXPECT_NE(r.error().message.find("plugins get no sockets"), std::string::npos) << r.error().message;
  // An ABI name with the wrong type is refused too, not linked.
  std::ofstream(src) << "#include \"sepp_plugin.h\"\n"
                        "SEPP_IMPORT(\"sepp:core\", \"input_len\") int64_t len64(int32_t);\n"
                        "SEPP_EXPORT(\"sepp_abi_version\") int32_t v(void) { return (int32_t)len64(1); }\n";
  ASSERT_EQ(testing_support::BuildWasmPlugin(src, *dir_ / "wasi.wasm"), "");
  auto typed = Plugin::Load(Manifest("wasi", "wasi"), Bytes("wasi"), ws_);
  ASSERT_FALSE(typed.ok());
  EXPECT_NE(typed.error().message.find("sepp:core.input_len as"), std::string::npos) << typed.error().message;
}

TEST_F(PluginTest, AuditMapsImportsToCapabilities) {
  std::string bytes = Bytes("read_notes");
  auto module = wasm::DecodeModule(std::span(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()));
  ASSERT_TRUE(module.ok());
  bool saw_fs = false, saw_core = false;
  for (const auto& u : AuditImports(**module)) {
    if (u.module == "sepp:fs_read" && u.name == "read_file") saw_fs = u.capability == "fs_read";
    if (u.module == "sepp:core" && u.name == "output_write") saw_core = u.capability == "core";
  }
  EXPECT_TRUE(saw_fs);
  EXPECT_TRUE(saw_core);
}

TEST_F(PluginTest, WrongHashIsRefused) {
  PluginManifest m = Manifest("hello", "hello");
  std::string bytes = Bytes("hello");
  bytes.back() ^= 1;
  auto r = Plugin::Load(m, bytes, ws_);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("has sha256"), std::string::npos) << r.error().message;
}

TEST_F(PluginTest, LimitsTrapCleanlyAndTheNextCallWorks) {
  PluginManifest m = Manifest("hostile", "hostile");
  m.limits.fuel_per_call = 200'000;
  m.limits.max_memory_pages = 64;
  m.limits.max_call_depth = 500;
  auto p = LoadOk(m);
  ASSERT_TRUE(p);
  auto fuel = p->CallTool("spin", Json::object(), "c", nullptr);
  EXPECT_FALSE(fuel.ok);
  EXPECT_NE(fuel.text.find("ran out of fuel"), std::string::npos) << fuel.text;
  EXPECT_EQ(p->CallTool("ok", Json::object(), "c", nullptr).text, "fine");  // refilled, fresh instance

  auto deep = p->CallTool("recurse", Json::object(), "c", nullptr);
  EXPECT_FALSE(deep.ok);
  EXPECT_NE(deep.text.find("deeper than 500"), std::string::npos) << deep.text;

  auto grow = p->CallTool("grow", Json::object(), "c", nullptr);
  EXPECT_TRUE(grow.ok) << grow.text;
  EXPECT_EQ(grow.text, "grow refused");
  auto oob = p->CallTool("oob", Json::object(), "c", nullptr);
  EXPECT_FALSE(oob.ok);
  EXPECT_NE(oob.text.find("out of bounds memory access"), std::string::npos) << oob.text;
  EXPECT_EQ(p->CallTool("ok", Json::object(), "c", nullptr).text, "fine");
}

TEST_F(PluginTest, DeadlineInterruptsARunawayCall) {
  PluginManifest m = Manifest("hostile", "hostile");
  m.limits.fuel_per_call = 1ull << 50;  // fuel would last for hours
  m.limits.timeout_ms = 50;
  auto p = LoadOk(m);
  ASSERT_TRUE(p);
  auto r = p->CallTool("spin", Json::object(), "c", nullptr);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.text.find("over its 50 ms time limit"), std::string::npos) << r.text;
  EXPECT_EQ(p->CallTool("ok", Json::object(), "c", nullptr).text, "fine");
}

TEST_F(PluginTest, CancelInterruptsTheCall) {
  PluginManifest m = Manifest("hostile", "hostile");
  m.limits.fuel_per_call = 1ull << 50;
  m.limits.timeout_ms = 600'000;
  auto p = LoadOk(m);
  ASSERT_TRUE(p);
  CancelToken cancel;
  // Cancelled from another thread while the call spins (the thread cancels
  // at once; whether before or during the call, it must end the call).
  std::thread t([&] { cancel.Cancel(); });
  auto r = p->CallTool("spin", Json::object(), "c", &cancel);
  t.join();
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.text.find("cancelled"), std::string::npos) << r.text;
  EXPECT_EQ(p->CallTool("ok", Json::object(), "c", nullptr).text, "fine");
}

TEST_F(PluginTest, HostileGuestPointersLengthsAndOutputs) {
  auto p = LoadOk(Manifest("hostile", "hostile"));
  ASSERT_TRUE(p);
  for (const char* tool : {"bad_output", "bad_input"}) {
    auto r = p->CallTool(tool, Json::object(), "c", nullptr);
    EXPECT_FALSE(r.ok) << tool;
    EXPECT_NE(r.text.find("out of bounds"), std::string::npos) << tool << ": " << r.text;
  }
  auto neg = p->CallTool("negative_length", Json::object(), "c", nullptr);
  EXPECT_FALSE(neg.ok);
  EXPECT_NE(neg.text.find("negative length"), std::string::npos) << neg.text;
  auto huge = p->CallTool("huge", Json::object(), "c", nullptr);
  EXPECT_FALSE(huge.ok);
  EXPECT_NE(huge.text.find("output over 1 MiB"), std::string::npos) << huge.text;
  auto fail = p->CallTool("fail", Json::object(), "c", nullptr);
  EXPECT_FALSE(fail.ok);
  EXPECT_EQ(fail.text, "it failed on purpose");
  auto result = p->CallTool("result", Json::object(), "c", nullptr);
  EXPECT_FALSE(result.ok);  // is_error in the result object
  EXPECT_EQ(result.text, "first\nsecond");
  auto flood = p->CallTool("log_flood", Json::object(), "c", nullptr);
  EXPECT_TRUE(flood.ok);
  size_t logged = 0;
  for (const auto& l : flood.log) logged += l.size();
  EXPECT_LE(logged, kMaxLogBytes + 64 * flood.log.size());
  EXPECT_LT(flood.log.size(), 1000u);  // capped, not all thousand
}

TEST_F(PluginTest, ParallelCallsAreSafe) {
  auto p = LoadOk(Manifest("hello", "hello"));
  ASSERT_TRUE(p);
  auto tool = MakePluginTool(p, p->tools()[0]);
  EXPECT_EQ(tool->name(), "plugin__hello__greet");
  std::vector<std::thread> threads;
  std::atomic<int> right{0};
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 50; ++i) {
        std::string who = "t" + std::to_string(t) + "i" + std::to_string(i);
        tools::ToolContext ctx;
        auto r = tool->Run({{"name", who}}, ctx);
        if (!r.is_error && r.text == "Hello, " + who + "! (from a WebAssembly plugin)") ++right;
      }
    });
  for (auto& th : threads) th.join();
  EXPECT_EQ(right.load(), 400);
}

TEST_F(PluginTest, MemoryCapBelowTheModulesMinimumRefusesToInstantiate) {
  PluginManifest m = Manifest("hello", "hello");
  m.limits.max_memory_pages = 1;  // clang's module asks for 2 pages
  auto r = Plugin::Load(m, Bytes("hello"), ws_);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("cannot instantiate"), std::string::npos) << r.error().message;
}

TEST(PluginManifestTest, ParsesAndNamesFileAndLineOfErrors) {
  std::string ok = "name = \"a-b\"\nversion = \"1\"\nwasm = \"a.wasm\"\nsha256 = \"" +
                   std::string(64, 'a') + "\"\n[capabilities]\nenv = [\"HOME\"]\n[limits]\ntimeout_ms = 10\n";
  auto m = ParseManifest(ok, "/p/sepp-plugin.toml");
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_EQ(m->wasm, fs::path("/p/a.wasm"));
  EXPECT_EQ(m->limits.timeout_ms, 10u);
  EXPECT_EQ(m->capabilities.env, std::vector<std::string>{"HOME"});
  struct Case { std::string text, want; };
  for (const auto& c : std::vector<Case>{
           {ok + "fuel = 1\n", "sepp-plugin.toml:9: limits.fuel: unknown limit"},
           {"name = \"A\"\n" + ok.substr(ok.find('\n') + 1), "sepp-plugin.toml:1: name: \"A\" must be"},
           {ok.substr(0, ok.find("sha256")), "sha256 is missing"},
           {"name = \"a\"\nversion = \"1\"\nwasm = \"../x.wasm\"\nsha256 = \"" + std::string(64, 'a') + "\"\n",
            "sepp-plugin.toml:3: wasm: \"../x.wasm\" must be a file name"},
           {ok + "max_memory_pages = 0\n", "limits.max_memory_pages: expected an integer from 1"},
           {"[capabilities]\nnet = [\"http://x\"]\n", "capabilities.net"},
           {ok + "[extra]\n", "extra: unknown key"},
       }) {
    auto r = ParseManifest(c.text, "/p/sepp-plugin.toml");
    ASSERT_FALSE(r.ok()) << c.text;
    if (!c.want.empty()) {
      EXPECT_NE(r.error().message.find(c.want), std::string::npos) << r.error().message;
    }
    EXPECT_NE(r.error().message.find("sepp-plugin.toml"), std::string::npos) << r.error().message;
  }
}

// Discovery, confirmation keyed to the binary and the declaration.
TEST_F(PluginTest, UnconfirmedNotLoadedAndChangedHashAsksAgain) {
  fs::path home = ws_ / "sepp-home";
  fs::create_directories(home / "plugins/hello");
  fs::copy_file(*dir_ / "hello.wasm", home / "plugins/hello/hello.wasm");
  auto write_manifest = [&](const std::string& hash) {
    std::ofstream(home / "plugins/hello/sepp-plugin.toml")
        << "name = \"hello\"\nversion = \"1\"\nwasm = \"hello.wasm\"\nsha256 = \"" << hash << "\"\n";
  };
  write_manifest(Sha256Hex(Bytes("hello")));
  const char* old = std::getenv("SEPP_HOME");
  std::string saved = old ? old : "";
  setenv("SEPP_HOME", home.c_str(), 1);
  std::vector<std::string> warnings;
  auto first = Plugins::Load(ws_, &warnings);
  ASSERT_EQ(first->infos().size(), 1u);
  EXPECT_FALSE(first->infos()[0].loaded);
  EXPECT_NE(first->infos()[0].errors[0].find("sepp plugin trust hello"), std::string::npos);
  EXPECT_TRUE(first->MakeTools().empty());

  auto found = FindPlugins(ws_, &warnings);
  ASSERT_EQ(found.size(), 1u);
  ASSERT_TRUE(Confirm(ConfirmName("hello"), ConfirmKey(*found[0].manifest)).ok());
  auto second = Plugins::Load(ws_, &warnings);
  ASSERT_TRUE(second->infos()[0].loaded) << second->infos()[0].errors[0];
  ASSERT_EQ(second->MakeTools().size(), 1u);

  // Rebuilt binary, manifest updated to its hash: a new key, asked again.
  std::string changed = Bytes("hello") + std::string("\0\0", 2);  // trailing bytes: a different binary
  std::ofstream(home / "plugins/hello/hello.wasm", std::ios::binary) << changed;
  write_manifest(Sha256Hex(changed));
  auto third = Plugins::Load(ws_, &warnings);
  EXPECT_FALSE(third->infos()[0].loaded);
  EXPECT_EQ(third->infos()[0].trust, "changed since confirmed");
  EXPECT_NE(third->infos()[0].errors[0].find("changed since they were confirmed"), std::string::npos);

  // A project plugin in an untrusted project is not even read.
  fs::create_directories(ws_ / ".sepp/plugins/proj");
  warnings.clear();
  auto fourth = FindPlugins(ws_, &warnings);
  EXPECT_EQ(fourth.size(), 1u);
  ASSERT_FALSE(warnings.empty());
  EXPECT_NE(warnings.back().find(".sepp/plugins"), std::string::npos) << warnings.back();
  if (old) setenv("SEPP_HOME", saved.c_str(), 1);
  else unsetenv("SEPP_HOME");
}

}  // namespace
}  // namespace sepp::ext::plugins
