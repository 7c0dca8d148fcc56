// sepp:net and sepp:exec (src/ext/plugins/capability_hosts.h), attacked by a
// real plugin (tests/ext/plugins/net_exec.c, built from source) next to the
// legitimate use that must still work: a domain outside the grant refused
// while the granted one answers (through the plugin's egress proxy, from a
// loopback test server); a program outside exec refused, and a granted
// shell that tries to start another program stopped by the sandbox, while
// the granted program runs; neither module linked without its grant.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "base/file.h"
#include "base/ids.h"
#include "base/sha256.h"
#include "ext/plugins/plugin.h"
#include "net/http_server.h"
#include "support/build_wasm_plugin.h"

namespace sepp::ext::plugins {
namespace {
namespace fs = std::filesystem;

class PluginNetExecTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new fs::path(fs::temp_directory_path() / ("sepp-plugin-netexec-" + ShortId()));
    fs::create_directories(*dir_);
    *build_error_ = testing_support::BuildWasmPlugin(fs::path(SEPP_SOURCE_DIR) / "tests/ext/plugins/net_exec.c",
                                                     *dir_ / "net_exec.wasm");
  }
  static void TearDownTestSuite() {
    std::error_code ec;
    fs::remove_all(*dir_, ec);
  }
  void SetUp() override {
    ASSERT_EQ(*build_error_, "");
    ws_ = *dir_ / ("ws-" + ShortId());
    fs::create_directories(ws_);
    std::ofstream(ws_ / "data.txt") << "plugin data\n";
  }
  Result<std::shared_ptr<Plugin>> Load(Capabilities caps) {
    PluginManifest m;
    m.name = "net-exec";
    m.version = "1";
    m.wasm = *dir_ / "net_exec.wasm";
    m.sha256 = Sha256Hex(*ReadFile(m.wasm));
    m.source = *dir_ / "sepp-plugin.toml";
    m.scope = "user";
    m.capabilities = std::move(caps);
    m.limits.timeout_ms = 10000;
    return Plugin::Load(m, *ReadFile(m.wasm), ws_);
  }
  // "<status> <payload>" as the plugin saw it.
  static std::string Call(Plugin& p, const std::string& tool, const Json& request) {
    auto r = p.CallTool(tool, {{"request", DumpJson(request)}}, "c", nullptr);
    EXPECT_TRUE(r.ok) << r.text;
    return r.text;
  }

  static fs::path* dir_;
  static std::string* build_error_;
  fs::path ws_;
};
fs::path* PluginNetExecTest::dir_ = nullptr;
std::string* PluginNetExecTest::build_error_ = new std::string;

TEST_F(PluginNetExecTest, NeitherModuleIsLinkedWithoutItsGrant) {
  Capabilities caps;
  caps.exec = {"echo"};
  auto no_net = Load(caps);
  ASSERT_FALSE(no_net.ok());
  EXPECT_NE(no_net.error().message.find("sepp:net.http, which needs the capability net"), std::string::npos)
      << no_net.error().message;
  caps = {};
  caps.net = {"example.com"};
  auto no_exec = Load(caps);
  ASSERT_FALSE(no_exec.ok());
  EXPECT_NE(no_exec.error().message.find("sepp:exec.run, which needs the capability exec"), std::string::npos)
      << no_exec.error().message;
}

TEST_F(PluginNetExecTest, HttpReachesOnlyTheGrantedDomains) {
  net::HttpServer server([](const net::HttpServerRequest& req, net::ResponseWriter& w) {
    w.Send(200, {{"Content-Type", "text/plain"}}, "hello from " + req.Path() + " via " + req.method);
  });
  ASSERT_TRUE(server.Start().ok());
  std::string port = std::to_string(server.port());
  Capabilities caps;
  caps.net = {"localhost", "*.example.com"};  // loopback only because it is listed exactly
  caps.exec = {"echo"};
  auto p = Load(caps);
  ASSERT_TRUE(p.ok()) << p.error().message;
  std::string ok = Call(**p, "http", {{"url", "http://localhost:" + port + "/greeting"}});
  ASSERT_GT(std::stoi(ok), 0) << ok;  // the payload's size
  auto payload = ParseJson(ok.substr(ok.find(' ') + 1));
  ASSERT_TRUE(payload.ok()) << ok;
  EXPECT_EQ((*payload)["status"], 200);
  EXPECT_EQ((*payload)["body"], "hello from /greeting via GET");
  // The same server by another name, or by address: not granted, refused
  // before anything is sent.
  for (const std::string& url : {"http://127.0.0.1:" + port + "/x", "http://[::1]:" + port + "/x",
                                 std::string("http://example.org/"), std::string("https://evil.test/")}) {
    std::string r = Call(**p, "http", {{"url", url}});
    EXPECT_EQ(r.rfind("-1 ", 0), 0u) << url << ": " << r;
    EXPECT_NE(r.find("not among the plugin's granted net domains"), std::string::npos) << r;
  }
  // example.com itself is not under *.example.com.
  std::string bare = Call(**p, "http", {{"url", "http://example.com/"}});
  EXPECT_EQ(bare.rfind("-1 ", 0), 0u) << bare;
  // A bad request is a failure, not a trap.
  std::string bad = Call(**p, "http", {{"method", "GET"}});
  EXPECT_EQ(bad.rfind("-2 ", 0), 0u) << bad;
}

TEST_F(PluginNetExecTest, ExecRunsExactlyTheDeclaredPrograms) {
  Capabilities caps;
  caps.net = {"example.com"};
  caps.exec = {"sh", "echo"};
  caps.fs_read = {"./"};
  caps.env = {"PLUGIN_NAME", "ANTHROPIC_API_KEY"};  // the key is declared, and still withheld
  setenv("PLUGIN_NAME", "net-exec", 1);
  setenv("ANTHROPIC_API_KEY", "sk-plugin-exec-secret", 1);
  auto p = Load(caps);
  ASSERT_TRUE(p.ok()) << p.error().message;
  std::string ok = Call(**p, "exec", {{"argv", {"echo", "granted", "program"}}});
  if (ok.rfind("-2 ", 0) == 0 && ok.find("sandbox") != std::string::npos)
    GTEST_SKIP() << "the sandbox cannot be enforced here: " << ok;
  ASSERT_GT(std::stoi(ok), 0) << ok;
  auto payload = ParseJson(ok.substr(ok.find(' ') + 1));
  ASSERT_TRUE(payload.ok()) << ok;
  EXPECT_EQ((*payload)["exit_code"], 0) << ok;
  EXPECT_EQ((*payload)["output"], "granted program\n") << ok;
  // A program outside exec: refused by the host, never started.
  for (const std::string& prog : {"cat", "/bin/cat", "./echo", "bash"}) {
    std::string r = Call(**p, "exec", {{"argv", {prog, "data.txt"}}});
    EXPECT_EQ(r.rfind("-1 ", 0), 0u) << prog << ": " << r;
    EXPECT_NE(r.find("not among the plugin's granted exec programs"), std::string::npos) << r;
  }
  // The granted shell reads what the plugin may read, and cannot start a
  // program outside exec (the sandbox's exec_only), nor escape to a
  // provider key.
  std::string sh_ok = Call(**p, "exec", {{"argv", {"sh", "-c", "read line < data.txt; echo \"$line\""}}});
  EXPECT_NE(sh_ok.find("plugin data"), std::string::npos) << sh_ok;
  std::string env = Call(**p, "exec", {{"argv", {"sh", "-c", "echo \"$PLUGIN_NAME ${ANTHROPIC_API_KEY:-no key}\""}}});
  EXPECT_NE(env.find("net-exec no key"), std::string::npos) << env;
  EXPECT_EQ(env.find("sk-plugin-exec-secret"), std::string::npos) << env;
  unsetenv("ANTHROPIC_API_KEY");
  std::string sh_cat = Call(**p, "exec", {{"argv", {"sh", "-c", "cat data.txt"}}});
  auto cat = ParseJson(sh_cat.substr(sh_cat.find(' ') + 1));
  ASSERT_TRUE(cat.ok()) << sh_cat;
  EXPECT_NE((*cat)["exit_code"], 0) << sh_cat;
  EXPECT_NE((*cat)["output"].get<std::string>().find("cat: Permission denied"), std::string::npos) << sh_cat;
  EXPECT_FALSE((*cat)["denials"].empty()) << sh_cat;
  EXPECT_EQ((*cat)["output"].get<std::string>().find("plugin data"), std::string::npos) << sh_cat;
}

}  // namespace
}  // namespace sepp::ext::plugins
