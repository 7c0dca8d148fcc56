// End to end: `sepp -p` with the example WebAssembly plugins (built from
// source) against the fake provider: unconfirmed → not loaded; confirmed →
// the model calls plugin__hello__greet and reads its answer; a plugin that
// imports an ungranted capability is refused naming the import; `sepp
// plugin audit` maps a module's imports to capabilities.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

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

class PluginE2E : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("sepp-e2e-plugin-" + ShortId());
    ws_ = root_ / "ws";
    home_ = root_ / "home";
    fs::create_directories(ws_ / "notes");
    std::ofstream(ws_ / "notes/todo.txt") << "buy milk\n";
    std::string err = Install("hello", kSrc / "examples/plugins/hello/hello.c", "");
    if (err.empty()) err = Install("read-notes", kSrc / "examples/plugins/read-notes/read_notes.c", "");
    if (!err.empty()) GTEST_SKIP() << err;
    ASSERT_TRUE(fp_.Start().ok());
  }
  void TearDown() override {
    fp_.Stop();
    std::error_code ec;
    fs::remove_all(root_, ec);
  }
  // "" when built and installed, else why not.
  std::string Install(const std::string& name, const fs::path& src, const std::string& caps) {
    fs::path dir = home_ / ".sepp/plugins" / name;
    fs::create_directories(dir);
    std::string wasm = src.stem().string() + ".wasm";
    std::string err = testing_support::BuildWasmPlugin(src, dir / wasm);
    if (!err.empty()) return err;
    std::ofstream(dir / "sepp-plugin.toml")
        << "name = \"" << name << "\"\nversion = \"0.1.0\"\nwasm = \"" << wasm << "\"\nsha256 = \""
        << Sha256Hex(*ReadFile(dir / wasm)) << "\"\n" << caps;
    return "";
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
             {"ANTHROPIC_API_KEY", "sk-e2e-plugin-secret-key-0123456789"}};
    o.cwd = ws_.string();
    return RunSepp(o);
  }
  static std::vector<std::string> ToolNames(const fake::RecordedRequest& r) {
    std::vector<std::string> out;
    for (const auto& t : r.body.value("tools", Json::array())) out.push_back(t.value("name", ""));
    return out;
  }

  fs::path root_, ws_, home_;
  fake::FakeProvider fp_;
};

TEST_F(PluginE2E, ConfirmedPluginToolIsCalledByTheModel) {
  auto before = Sepp({"-p", "hi"}, {{{"text", "ok"}}});
  EXPECT_EQ(before.exit_code, 0) << before.err;
  EXPECT_NE(before.err.find("plugin hello not loaded"), std::string::npos) << before.err;
  ASSERT_FALSE(fp_.requests().empty());
  for (const auto& n : ToolNames(fp_.requests()[0])) EXPECT_EQ(n.rfind("plugin__", 0), std::string::npos) << n;

  auto trust = Sepp({"plugin", "trust", "hello"}, Json::array());
  ASSERT_EQ(trust.exit_code, 0) << trust.err;
  EXPECT_NE(trust.out.find("may: nothing beyond running itself"), std::string::npos) << trust.out;

  Json call = {{"name", "plugin__hello__greet"}, {"arguments", {{"name", "Grace"}}}};
  auto r = Sepp({"-p", "greet Grace"}, {{{"tool_calls", {call}}}, {{"text", "Done."}}});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "Done.\n");
  auto reqs = fp_.requests();
  ASSERT_GE(reqs.size(), 2u);
  auto names = ToolNames(reqs[reqs.size() - 2]);
  EXPECT_NE(std::find(names.begin(), names.end(), "plugin__hello__greet"), names.end());
  std::string body = DumpJson(reqs.back().body);
  EXPECT_NE(body.find("Hello, Grace! (from a WebAssembly plugin)"), std::string::npos) << body;
}

TEST_F(PluginE2E, PluginImportingAnUngrantedCapabilityIsRefused) {
  auto trust = Sepp({"plugin", "trust", "read-notes"}, Json::array());
  ASSERT_EQ(trust.exit_code, 0) << trust.err;
  auto r = Sepp({"-p", "hi"}, {{{"text", "ok"}}});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("plugin read-notes refused"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("imports sepp:fs_read.read_file"), std::string::npos) << r.err;
  for (const auto& n : ToolNames(fp_.requests().back()))
    EXPECT_EQ(n.rfind("plugin__read-notes", 0), std::string::npos) << n;

  auto audit = Sepp({"plugin", "audit", (home_ / ".sepp/plugins/read-notes/read_notes.wasm").string()},
                    Json::array());
  EXPECT_EQ(audit.exit_code, 0) << audit.err;
  EXPECT_NE(audit.out.find("sepp:fs_read.read_file -> fs_read"), std::string::npos) << audit.out;
  EXPECT_NE(audit.out.find("sepp:core.output_write -> core (always linked)"), std::string::npos);
  // The same audit as `sepp ext audit`, and the listing names the refusal's cause.
  auto ext_audit = Sepp({"ext", "audit", (home_ / ".sepp/plugins/read-notes/read_notes.wasm").string()},
                        Json::array());
  EXPECT_EQ(ext_audit.exit_code, 0) << ext_audit.err;
  EXPECT_EQ(ext_audit.out, audit.out);
  auto listed = Sepp({"ext", "list", "--json"}, Json::array());
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  bool seen = false;
  const Json listing = Json::parse(listed.out);  // kept: the loop reads into it
  for (const auto& e : listing["extensions"])
    if (e["kind"] == "plugin" && e["name"] == "read-notes") {
      seen = true;
      EXPECT_EQ(e["tier"], 3);
      EXPECT_FALSE(e["loaded"].get<bool>()) << e;
      EXPECT_NE(DumpJson(e["errors"]).find("sepp:fs_read.read_file"), std::string::npos) << e;
    }
  EXPECT_TRUE(seen) << listed.out;

  // Granted in the manifest: a new declaration, so asked again, then loaded.
  ASSERT_EQ(Install("read-notes", kSrc / "examples/plugins/read-notes/read_notes.c",
                    "[capabilities]\nfs_read = [\"./notes\"]\n"), "");
  auto changed = Sepp({"-p", "hi"}, {{{"text", "ok"}}});
  EXPECT_NE(changed.err.find("changed since they were confirmed"), std::string::npos) << changed.err;
  ASSERT_EQ(Sepp({"plugin", "trust", "read-notes"}, Json::array()).exit_code, 0);
  Json call = {{"name", "plugin__read-notes__read_note"}, {"arguments", {{"path", "notes/todo.txt"}}}};
  auto read = Sepp({"-p", "read"}, {{{"tool_calls", {call}}}, {{"text", "Done."}}});
  EXPECT_EQ(read.exit_code, 0) << read.err;
  EXPECT_NE(DumpJson(fp_.requests().back().body).find("buy milk"), std::string::npos);
}

}  // namespace
}  // namespace sepp::e2e
