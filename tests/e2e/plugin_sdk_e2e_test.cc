// End to end, one plugin per SDK, each built from source for the run and
// called by the model through `sepp -p` against the fake provider: C with
// wasi-libc (examples/plugins/word-count: stdio and a file through the WASI
// preopen), Rust with std (examples/plugins/shout: println! and the clock)
// and AssemblyScript (examples/plugins/reverse). A plugin whose manifest
// lacks the grant its imports need is refused, naming the import. The
// toolchains come from scripts/setup: a missing one fails, it does not skip.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>

#include "base/file.h"
#include "base/ids.h"
#include "base/json.h"
#include "base/sha256.h"
#include "e2e/run_sepp.h"
#include "support/build_wasm_plugin.h"
#include "support/fake_provider.h"

namespace sepp::e2e {
namespace {
namespace fs = std::filesystem;

const fs::path kSrc = SEPP_SOURCE_DIR;
using Builder = std::function<std::string(const fs::path&, const fs::path&)>;

class PluginSdkE2E : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("sepp-e2e-sdk-" + ShortId());
    ws_ = root_ / "ws";
    home_ = root_ / "home";
    fs::create_directories(ws_ / "docs");
    std::ofstream(ws_ / "docs/poem.txt") << "so much depends\nupon\na red wheel barrow\n";
    ASSERT_TRUE(fp_.Start().ok());
  }
  void TearDown() override {
    fp_.Stop();
    std::error_code ec;
    fs::remove_all(root_, ec);
  }
  // Builds src with build into the plugin folder of name, writes its
  // manifest (with caps) and confirms it.
  void Install(const std::string& name, const fs::path& src, const Builder& build, const std::string& caps,
               bool trust = true) {
    fs::path dir = home_ / ".sepp/plugins" / name;
    fs::create_directories(dir);
    std::string wasm = src.stem().string() + ".wasm";
    ASSERT_EQ(build(src, dir / wasm), "");
    std::ofstream(dir / "sepp-plugin.toml")
        << "name = \"" << name << "\"\nversion = \"0.1.0\"\nwasm = \"" << wasm << "\"\nsha256 = \""
        << Sha256Hex(*ReadFile(dir / wasm)) << "\"\n" << caps;
    if (trust) {
      auto t = Sepp({"plugin", "trust", name}, Json::array());
      ASSERT_EQ(t.exit_code, 0) << t.err;
    }
  }
  RunOutput Sepp(std::vector<std::string> args, const Json& script) {
    fp_.SetScript({{"responses", script}});
    RunOptions o;
    o.args = std::move(args);
    o.env = {{"PATH", "/usr/local/bin:/usr/bin:/bin"},
             {"HOME", home_.string()},
             {"SEPP_HOME", (home_ / ".sepp").string()},
             {"SEPP_PROVIDER", "anthropic"},
             {"LANG", "C.UTF-8"},
             {"ANTHROPIC_BASE_URL", fp_.base_url()},
             {"ANTHROPIC_API_KEY", "sk-e2e-plugin-sdk-secret-0123456789"}};
    o.cwd = ws_.string();
    return RunSepp(o);
  }
  // The model calls tool with args; returns what the tool result said (the
  // last request's body).
  std::string CallByModel(const std::string& tool, const Json& args) {
    Json call = {{"name", tool}, {"arguments", args}};
    auto r = Sepp({"-p", "use the plugin"}, {{{"tool_calls", {call}}}, {{"text", "Done."}}});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, "Done.\n") << r.err;
    EXPECT_EQ(r.err.find("not loaded"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("refused"), std::string::npos) << r.err;
    auto reqs = fp_.requests();
    return reqs.empty() ? "" : DumpJson(reqs.back().body);
  }

  fs::path root_, ws_, home_;
  fake::FakeProvider fp_;
};

TEST_F(PluginSdkE2E, CWithWasiLibcReadsAFileThroughItsGrant) {
  Install("word-count", kSrc / "examples/plugins/word-count/word_count.c", testing_support::BuildWasiCPlugin,
          "[capabilities]\nfs_read = [\"./docs\"]\n");
  std::string body = CallByModel("plugin__word-count__count_words", {{"path", "docs/poem.txt"}});
  EXPECT_NE(body.find("docs/poem.txt: 3 lines, 8 words, 40 bytes"), std::string::npos) << body;
}

TEST_F(PluginSdkE2E, RustWithStdShouts) {
  Install("shout", kSrc / "examples/plugins/shout/lib.rs", testing_support::BuildRustPlugin, "");
  std::string body = CallByModel("plugin__shout__shout", {{"text", "quiet please"}});
  EXPECT_NE(body.find("QUIET PLEASE! (from Rust)"), std::string::npos) << body;
}

TEST_F(PluginSdkE2E, AssemblyScriptReverses) {
  Install("reverse", kSrc / "examples/plugins/reverse/reverse.ts", testing_support::BuildAssemblyScriptPlugin, "");
  std::string body = CallByModel("plugin__reverse__reverse", {{"text", "stressed"}});
  EXPECT_NE(body.find("desserts (from AssemblyScript)"), std::string::npos) << body;
}

TEST_F(PluginSdkE2E, WasiPluginWithoutItsFileGrantIsRefusedNamingTheImport) {
  Install("word-count", kSrc / "examples/plugins/word-count/word_count.c", testing_support::BuildWasiCPlugin, "");
  auto r = Sepp({"-p", "hi"}, {{{"text", "ok"}}});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("plugin word-count refused"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("wasi_snapshot_preview1.path_open, which needs the capability fs_read"),
            std::string::npos) << r.err;
  for (const auto& t : fp_.requests().back().body.value("tools", Json::array()))
    EXPECT_EQ(t.value("name", "").rfind("plugin__word-count", 0), std::string::npos) << t;
}

}  // namespace
}  // namespace sepp::e2e
