// Issue 12 through the permission gate, end to end over pi's RPC against
// the scripted fake provider: an unconfirmed WebAssembly plugin (the hello
// example, built from source) is asked about at the first prompt with its
// module's sha256 and its capabilities. Refused: not loaded, its tool is
// not offered, the session goes on and `sepp ext list` says why. Allowed:
// the model calls its tool in that very session. A rebuilt module (another
// hash) is asked about again.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "base/file.h"
#include "base/ids.h"
#include "base/sha256.h"
#include "e2e/run_sepp.h"
#include "rpc/rpc_child.h"
#include "support/build_wasm_plugin.h"
#include "support/fake_provider.h"

namespace sepp::e2e {
namespace {
namespace fs = std::filesystem;

class PluginConfirmRpc : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("sepp-e2e-confirm-" + ShortId());
    ws_ = root_ / "ws";
    home_ = root_ / "home";
    dir_ = home_ / ".sepp/plugins/hello";
    fs::create_directories(ws_);
    fs::create_directories(dir_);
    std::string err = testing_support::BuildWasmPlugin(fs::path(SEPP_SOURCE_DIR) / "examples/plugins/hello/hello.c",
                                                       dir_ / "hello.wasm");
    if (!err.empty()) GTEST_SKIP() << err;
    WriteManifest();
    ASSERT_TRUE(fp_.Start().ok());
  }
  void TearDown() override {
    fp_.Stop();
    std::error_code ec;
    fs::remove_all(root_, ec);
  }
  std::string WasmHash() { return Sha256Hex(*ReadFile(dir_ / "hello.wasm")); }
  void WriteManifest() {
    std::ofstream(dir_ / "sepp-plugin.toml") << "name = \"hello\"\nversion = \"0.1.0\"\nwasm = \"hello.wasm\"\n"
                                             << "sha256 = \"" << WasmHash() << "\"\n";
  }
  std::map<std::string, std::string> Env() {
    return {{"PATH", "/usr/local/bin:/usr/bin:/bin"},
            {"HOME", home_.string()},
            {"SEPP_HOME", (home_ / ".sepp").string()},
            {"ANTHROPIC_BASE_URL", fp_.base_url()},
            {"ANTHROPIC_API_KEY", "sk-e2e-confirm-0123456789"}};
  }
  std::string Stderr() {
    std::ifstream in(root_ / "stderr.txt");
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
  // One RPC session: prompts, answers the extension request with `value`
  // and returns it (null when none came).
  Json Session(const std::string& value) {
    rpc_test::Child c;
    EXPECT_TRUE(c.Start({SeppPath(), "--mode", "rpc"}, Env(), ws_.string(), (root_ / "stderr.txt").string()));
    EXPECT_TRUE(c.Send(Json{{"id", "p"}, {"type", "prompt"}, {"message", "greet Grace"}}));
    Json asked;
    while (auto j = c.Next(60)) {
      if (j->value("type", "") == "extension_ui_request") {
        asked = *j;
        c.Send(Json{{"type", "extension_ui_response"}, {"id", (*j)["id"]}, {"value", value}});
      }
      if (j->value("type", "") == "agent_settled") break;
    }
    c.CloseStdin();
    EXPECT_EQ(c.Wait(), 0) << Stderr();
    return asked;
  }
  static bool Offers(const fake::RecordedRequest& r, const std::string& tool) {
    for (const auto& t : r.body.value("tools", Json::array()))
      if (t.value("name", "") == tool) return true;
    return false;
  }
  Json ExtEntry() {
    RunOptions o;
    o.args = {"ext", "list", "--json"};
    o.env = Env();
    o.cwd = ws_.string();
    auto r = RunSepp(o);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    auto j = ParseJson(r.out);
    if (!j.ok()) return nullptr;
    for (const Json& e : (*j)["extensions"])
      if (e.value("kind", "") == "plugin" && e.value("name", "") == "hello") return e;
    return nullptr;
  }

  fs::path root_, ws_, home_, dir_;
  fake::FakeProvider fp_;
};

TEST_F(PluginConfirmRpc, RefusedItIsNotLoadedAllowedItsToolIsCalledAndANewHashAsksAgain) {
  fp_.SetScript({{"responses", {{{"text", "no plugin"}}}}});
  Json asked = Session("Deny");
  ASSERT_TRUE(asked.is_object()) << "no confirmation question: " << Stderr();
  const Json& perm = asked["sepp"]["permission"];
  EXPECT_EQ(perm["kind"], "extension");
  EXPECT_EQ(perm["subject"], "hello");
  EXPECT_EQ(perm["items"][0]["sha256"], WasmHash());
  EXPECT_EQ(perm["items"][0]["detail"], "plugin");
  EXPECT_EQ(perm["items"][0]["capabilities"], Json::array({"nothing beyond running itself"}));
  EXPECT_EQ(asked["options"], Json::array({"Allow", "Deny"}));
  ASSERT_EQ(fp_.requests().size(), 1u);
  EXPECT_FALSE(Offers(fp_.requests()[0], "plugin__hello__greet")) << "a refused plugin's tool was offered";
  EXPECT_NE(Stderr().find("plugin hello not loaded: the user refused it in a session"), std::string::npos)
      << Stderr();
  Json entry = ExtEntry();
  ASSERT_TRUE(entry.is_object());
  EXPECT_FALSE(entry["loaded"].get<bool>());
  EXPECT_NE(entry["errors"].dump().find("the user refused it in a session"), std::string::npos) << entry.dump();

  // Allowed: loaded at once; the model calls its tool in this session.
  Json call = {{"name", "plugin__hello__greet"}, {"arguments", {{"name", "Grace"}}}};
  fp_.SetScript({{"responses", {{{"tool_calls", {call}}}, {{"text", "Done."}}}}});
  ASSERT_TRUE(Session("Allow").is_object());
  auto reqs = fp_.requests();
  ASSERT_GE(reqs.size(), 3u) << Stderr();
  EXPECT_TRUE(Offers(reqs[1], "plugin__hello__greet"));
  EXPECT_NE(DumpJson(reqs.back().body).find("Hello, Grace! (from a WebAssembly plugin)"), std::string::npos)
      << DumpJson(reqs.back().body);
  EXPECT_TRUE(ExtEntry()["loaded"].get<bool>());

  // Confirmed as it is: the next session does not ask.
  fp_.SetScript({{"responses", {{{"text", "quiet"}}}}});
  EXPECT_TRUE(Session("Deny").is_null()) << "asked again about a confirmed plugin";

  // The module changes (a custom section appended: still valid, another
  // hash): asked again, and refused it is not loaded.
  {
    std::ofstream wasm(dir_ / "hello.wasm", std::ios::binary | std::ios::app);
    const char section[] = {0x00, 0x05, 0x04, 'n', 'o', 't', 'e'};
    wasm.write(section, sizeof section);
  }
  WriteManifest();
  fp_.SetScript({{"responses", {{{"text", "changed"}}}}});
  size_t before = fp_.requests().size();
  Json again = Session("Deny");
  ASSERT_TRUE(again.is_object()) << "a changed module was not asked about: " << Stderr();
  EXPECT_EQ(again["sepp"]["permission"]["items"][0]["sha256"], WasmHash());
  EXPECT_NE(again["sepp"]["permission"]["justification"].get<std::string>().find("changed since you confirmed"),
            std::string::npos);
  ASSERT_GT(fp_.requests().size(), before);
  EXPECT_FALSE(Offers(fp_.requests().back(), "plugin__hello__greet"));
}

// Headless, `sepp ext trust NAME` confirms a plugin (or an MCP server) as
// `sepp plugin trust` does; an unknown name is an error that says where to look.
TEST_F(PluginConfirmRpc, ExtTrustIsTheHeadlessWay) {
  RunOptions o;
  o.env = Env();
  o.cwd = ws_.string();
  o.args = {"ext", "trust", "hello"};
  auto r = RunSepp(o);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("confirmed"), std::string::npos) << r.out;
  EXPECT_TRUE(ExtEntry()["loaded"].get<bool>());
  o.args = {"ext", "trust", "no-such-extension"};
  auto missing = RunSepp(o);
  EXPECT_NE(missing.exit_code, 0);
  EXPECT_FALSE(missing.err.empty());
}

// Tier 3 in every front end: a confirmed plugin's tool is a tool of an ACP
// session too (AddPlugins beside AddMcpServers), called by the model there.
TEST_F(PluginConfirmRpc, AConfirmedPluginsToolIsCalledInAnAcpSession) {
  RunOptions o;
  o.env = Env();
  o.cwd = ws_.string();
  o.args = {"ext", "trust", "hello"};
  ASSERT_EQ(RunSepp(o).exit_code, 0);
  Json call = {{"name", "plugin__hello__greet"}, {"arguments", {{"name", "Ada"}}}};
  fp_.SetScript({{"responses", {{{"tool_calls", {call}}}, {{"text", "Greeted."}}}}});
  rpc_test::Child c;
  ASSERT_TRUE(c.Start({SeppPath(), "--acp"}, Env(), ws_.string(), (root_ / "stderr.txt").string()));
  auto response = [&](int id) {
    while (auto j = c.Next(60))
      if (j->contains("id") && (*j)["id"] == id && !j->contains("method")) return *j;
    return Json();
  };
  ASSERT_TRUE(c.Send(Json{{"jsonrpc", "2.0"}, {"id", 0}, {"method", "initialize"},
                          {"params", {{"protocolVersion", 1}, {"clientCapabilities", Json::object()}}}}));
  ASSERT_TRUE(response(0).contains("result")) << Stderr();
  ASSERT_TRUE(c.Send(Json{{"jsonrpc", "2.0"}, {"id", 1}, {"method", "session/new"},
                          {"params", {{"cwd", ws_.string()}, {"mcpServers", Json::array()}}}}));
  Json created = response(1);
  ASSERT_TRUE(created.contains("result")) << created.dump() << Stderr();
  ASSERT_TRUE(c.Send(Json{{"jsonrpc", "2.0"}, {"id", 2}, {"method", "session/prompt"},
                          {"params", {{"sessionId", created["result"]["sessionId"]},
                                      {"prompt", {{{"type", "text"}, {"text", "greet Ada"}}}}}}}));
  Json done = response(2);
  EXPECT_EQ(done["result"]["stopReason"], "end_turn") << done.dump() << Stderr();
  c.CloseStdin();
  EXPECT_EQ(c.Wait(), 0) << Stderr();
  auto reqs = fp_.requests();
  ASSERT_EQ(reqs.size(), 2u) << Stderr();
  EXPECT_TRUE(Offers(reqs[0], "plugin__hello__greet")) << "the ACP session does not offer the plugin's tool";
  EXPECT_NE(DumpJson(reqs[1].body).find("Hello, Ada! (from a WebAssembly plugin)"), std::string::npos)
      << DumpJson(reqs[1].body);
}

}  // namespace
}  // namespace sepp::e2e
