// MCP servers confined by the sandbox: the client against the scripted
// probe server (servers/probe_server.mjs), hostile server behaviour, the
// attack tests (each next to the legitimate work that must still succeed),
// real servers from npm (node/, installed by scripts/setup), configuration
// and confirmation.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include "base/file.h"
#include "ext/capabilities.h"
#include "ext/mcp/client.h"
#include "ext/mcp/config.h"
#include "ext/mcp/servers.h"
#include "ext/mcp/stdio_transport.h"
#include "sandbox/probe.h"
#include "sandbox/run.h"

namespace sepp::ext::mcp {
namespace {
namespace fs = std::filesystem;

constexpr const char* kSshSecret = "MCP-TEST-SSH-PRIVATE-KEY";
const fs::path kTests = fs::path(SEPP_SOURCE_DIR) / "tests/mcp";
const fs::path kProbe = kTests / "servers/probe_server.mjs";
const fs::path kModules = kTests / "node/node_modules/@modelcontextprotocol";

class McpTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(fs::exists(SEPP_NODE)) << "node is not installed: run scripts/setup";
    char tmpl[] = "/tmp/sepp-mcp-test-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    root_ = tmpl;
    ws_ = root_ / "home/project";
    fs::create_directories(ws_ / "out");
    fs::create_directories(root_ / "home/.ssh");
    std::ofstream(root_ / "home/.ssh/id_rsa") << kSshSecret << "\n";
    std::ofstream(ws_ / "data.txt") << "workspace data\n";
    old_home_ = getenv("HOME") ? getenv("HOME") : "";
    setenv("HOME", (root_ / "home").c_str(), 1);
    setenv("SEPP_HOME", (root_ / "sepp-home").c_str(), 1);
    if (auto s = sandbox::CheckEnforceable(ToPolicy({}, ws_)); !s.ok())
      GTEST_SKIP() << "the sandbox cannot be enforced here: " << s.error().message;
  }
  void TearDown() override {
    setenv("HOME", old_home_.c_str(), 1);
    unsetenv("SEPP_HOME");
    std::error_code ec;
    fs::remove_all(root_, ec);
  }

  ServerConfig Probe(const std::string& mode = "normal", Capabilities caps = {}) {
    ServerConfig c;
    c.name = "probe";
    c.command = {SEPP_NODE, kProbe.string(), mode};
    c.capabilities = std::move(caps);
    c.tool_timeout_s = 20;
    return c;
  }
  StartOptions Opts() {
    StartOptions o;
    o.workspace = ws_;
    return o;
  }
  // Calls a tool of a started server; the text and whether it failed.
  static std::pair<std::string, bool> Call(McpServer& server, const std::string& tool, Json args) {
    for (const auto& t : server.Tools()) {
      if (t.name != tool) continue;
      auto impl = MakeMcpTool(std::shared_ptr<McpServer>(&server, [](McpServer*) {}), t);
      tools::ToolContext ctx;
      ctx.cwd = "/";
      auto r = impl->Run(args, ctx);
      return {r.text, r.is_error};
    }
    return {"no tool " + tool, true};
  }

  fs::path root_, ws_;
  std::string old_home_;
};

// --- the protocol ------------------------------------------------------------

TEST_F(McpTest, NegotiatesTheLatestVersionAndListsTools) {
  auto s = StartServer(Probe(), Opts());
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ((*s)->client().server().protocol_version, "2025-11-25");
  EXPECT_EQ((*s)->client().server().name, "probe");
  auto tools = (*s)->Tools();
  ASSERT_FALSE(tools.empty());
  EXPECT_EQ(ToolName("probe", tools[0].name), "mcp__probe__read");
  EXPECT_EQ(ToolName("my server", "a.b"), "mcp__my_server__a_b");
}

TEST_F(McpTest, AcceptsAnOlderVersionItKnowsAndRefusesAnUnknownOne) {
  auto old = StartServer(Probe("old-version"), Opts());
  ASSERT_TRUE(old.ok()) << old.error().message;
  EXPECT_EQ((*old)->client().server().protocol_version, "2025-03-26");
  auto bad = StartServer(Probe("bad-version"), Opts());
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("\"1999-01-01\""), std::string::npos) << bad.error().message;
  EXPECT_NE(bad.error().message.find("2025-06-18"), std::string::npos) << bad.error().message;
}

TEST_F(McpTest, ProgressCancellationTimeoutAndStructuredContent) {
  auto s = StartServer(Probe(), Opts());
  ASSERT_TRUE(s.ok()) << s.error().message;
  McpClient& c = (*s)->client();
  std::vector<double> progress;
  RequestOptions opts;
  opts.on_progress = [&](double p, std::optional<double> total, const std::string&) {
    progress.push_back(p);
    EXPECT_EQ(total.value_or(0), 3);
  };
  auto slow = c.Request("tools/call", {{"name", "slow"}, {"arguments", {{"steps", 3}}}}, opts);
  ASSERT_TRUE(slow.ok()) << slow.error().message;
  EXPECT_EQ(progress, (std::vector<double>{1, 2, 3}));

  // A call cancelled (here before it is answered) stops waiting, and the
  // server is told which request to drop.
  CancelToken cancel;
  cancel.Cancel();
  RequestOptions copts;
  copts.cancel = &cancel;
  auto hung = c.Request("tools/call", {{"name", "hang"}}, copts);
  ASSERT_FALSE(hung.ok());
  EXPECT_EQ(hung.error().kind, "cancelled");
  RequestOptions topts;
  topts.timeout_s = 0.2;
  auto timed = c.Request("tools/call", {{"name", "hang"}}, topts);
  ASSERT_FALSE(timed.ok());
  EXPECT_EQ(timed.error().kind, "timeout");
  auto after = c.Request("tools/call", {{"name", "slow"}, {"arguments", {{"steps", 1}}}});
  ASSERT_TRUE(after.ok());
  std::string told = DumpJson(*after);
  // Ids 1-4: initialize, tools/list, prompts/list, the first slow call.
  EXPECT_NE(told.find("cancelled so far: [5,6]"), std::string::npos) << told;

  auto [text, failed] = Call(**s, "structured", Json::object());
  EXPECT_FALSE(failed);
  EXPECT_NE(text.find("\"answer\": 42"), std::string::npos) << text;
}

TEST_F(McpTest, ListChangedDropsAToolTheServerNoLongerOffers) {
  auto s = StartServer(Probe(), Opts());
  ASSERT_TRUE(s.ok()) << s.error().message;
  ToolInfo hang;
  for (const auto& t : (*s)->Tools())
    if (t.name == "hang") hang = t;
  ASSERT_EQ(hang.name, "hang");
  auto hang_tool = MakeMcpTool(*s, hang);
  EXPECT_FALSE(Call(**s, "change_tools", Json::object()).second);
  tools::ToolContext ctx;
  auto r = hang_tool->Run(Json::object(), ctx);
  EXPECT_TRUE(r.is_error);
  EXPECT_NE(r.text.find("no longer offers hang"), std::string::npos) << r.text;
}

// --- hostile servers ---------------------------------------------------------

TEST_F(McpTest, AHugeMessageDropsTheConnection) {
  auto s = StartServer(Probe("huge"), Opts());
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("larger than 16 MiB"), std::string::npos) << s.error().message;
}

TEST_F(McpTest, NonJsonLinesAndStrayIdsAreIgnored) {
  auto junk = StartServer(Probe("junk"), Opts());
  ASSERT_TRUE(junk.ok()) << junk.error().message;
  EXPECT_NE((*junk)->client().transport().Diagnostics().find("3 line(s) on stdout were not JSON-RPC"),
            std::string::npos);
  // Responses to ids never sent are dropped; the real answer counts, and a
  // second answer to the same id is not taken.
  auto ooo = StartServer(Probe("out-of-order"), Opts());
  ASSERT_TRUE(ooo.ok()) << ooo.error().message;
  EXPECT_EQ((*ooo)->client().server().protocol_version, "2025-11-25");
  EXPECT_FALSE(Call(**ooo, "env", {{"name", "PATH"}}).second);
}

TEST_F(McpTest, ACrashingServerIsReportedWithWhatItSaid) {
  auto s = StartServer(Probe("crash"), Opts());
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("exited with status 3"), std::string::npos) << s.error().message;
  EXPECT_NE(s.error().message.find("crashing on purpose"), std::string::npos) << s.error().message;
}

TEST_F(McpTest, ANonexistentCommandIsAClearError) {
  ServerConfig c = Probe();
  c.command = {"no-such-mcp-server-xyz"};
  auto s = StartServer(c, Opts());
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("cannot run no-such-mcp-server-xyz"), std::string::npos)
      << s.error().message;
}

// --- attacks: what a confined server cannot do, next to what it can ----------

TEST_F(McpTest, FilesOnlyAsDeclaredAndSecretsMaskedEvenUnderADeclaredHome) {
  Capabilities caps;
  caps.fs_read = {"~", "./"};
  caps.fs_write = {"./out"};
  auto s = StartServer(Probe("normal", caps), Opts());
  ASSERT_TRUE(s.ok()) << s.error().message;
  auto [data, data_failed] = Call(**s, "read", {{"path", (ws_ / "data.txt").string()}});
  EXPECT_FALSE(data_failed) << data;
  EXPECT_EQ(data, "workspace data\n");
  auto [ssh, ssh_failed] = Call(**s, "read", {{"path", (root_ / "home/.ssh/id_rsa").string()}});
  EXPECT_EQ(ssh.find(kSshSecret), std::string::npos) << ssh;
  EXPECT_TRUE(ssh_failed || ssh.empty()) << ssh;

  auto [w, w_failed] = Call(**s, "write", {{"path", (ws_ / "out/ok.txt").string()}, {"text", "fine"}});
  EXPECT_FALSE(w_failed) << w;
  std::ifstream ok(ws_ / "out/ok.txt");
  std::string got;
  std::getline(ok, got);
  EXPECT_EQ(got, "fine");
  auto [bad, bad_failed] = Call(**s, "write", {{"path", (ws_ / "planted.txt").string()}});
  EXPECT_TRUE(bad_failed) << bad;
  EXPECT_FALSE(fs::exists(ws_ / "planted.txt"));
  // Outside every declared path: not even visible.
  auto [etc, etc_failed] = Call(**s, "read", {{"path", (root_ / "sepp-home").string()}});
  EXPECT_TRUE(etc_failed);
}

int ListenOnLoopback(int* port) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || listen(fd, 8) != 0) return -1;
  socklen_t len = sizeof a;
  getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  *port = ntohs(a.sin_port);
  return fd;
}

TEST_F(McpTest, NoNetworkWithoutNet) {
  int port = 0;
  int listener = ListenOnLoopback(&port);
  ASSERT_GE(listener, 0);
  Json target = {{"host", "127.0.0.1"}, {"port", port}};
  auto offline = StartServer(Probe(), Opts());
  ASSERT_TRUE(offline.ok()) << offline.error().message;
  auto [text, failed] = Call(**offline, "connect", target);
  EXPECT_TRUE(failed) << text;
  // Declared: the same connection goes through.
  Capabilities caps;
  caps.net = {"*"};
  auto online = StartServer(Probe("normal", caps), Opts());
  ASSERT_TRUE(online.ok()) << online.error().message;
  auto [text2, failed2] = Call(**online, "connect", target);
  EXPECT_FALSE(failed2) << text2;
  close(listener);
}

TEST_F(McpTest, OnlyTheDeclaredPrograms) {
  Capabilities caps;
  caps.exec = {"ls"};
  auto s = StartServer(Probe("normal", caps), Opts());
  ASSERT_TRUE(s.ok()) << s.error().message;
  auto [ls, ls_failed] = Call(**s, "run", {{"program", "ls"}, {"args", {"/"}}});
  EXPECT_FALSE(ls_failed) << ls;
  EXPECT_NE(ls.find("usr"), std::string::npos) << ls;
  auto [cat, cat_failed] = Call(**s, "run", {{"program", "cat"}, {"args", {"/etc/hostname"}}});
  EXPECT_TRUE(cat_failed) << cat;
  EXPECT_NE(cat.find("EACCES"), std::string::npos) << cat;
  auto [sh, sh_failed] = Call(**s, "run", {{"program", "sh"}, {"args", {"-c", "echo escaped"}}});
  EXPECT_TRUE(sh_failed) << sh;
  // Without exec: not even ls.
  auto none = StartServer(Probe(), Opts());
  ASSERT_TRUE(none.ok()) << none.error().message;
  EXPECT_TRUE(Call(**none, "run", {{"program", "ls"}}).second);
}

TEST_F(McpTest, EnvironmentOnlyAsDeclared) {
  setenv("MCP_TEST_TOKEN", "token-value", 1);
  setenv("ANTHROPIC_API_KEY", "sk-ant-not-for-servers", 1);
  auto bare = StartServer(Probe(), Opts());
  ASSERT_TRUE(bare.ok()) << bare.error().message;
  EXPECT_EQ(Call(**bare, "env", {{"name", "MCP_TEST_TOKEN"}}).first, "(unset)");
  EXPECT_EQ(Call(**bare, "env", {{"name", "ANTHROPIC_API_KEY"}}).first, "(unset)");
  Capabilities caps;
  caps.env = {"MCP_TEST_TOKEN"};
  auto granted = StartServer(Probe("normal", caps), Opts());
  ASSERT_TRUE(granted.ok()) << granted.error().message;
  EXPECT_EQ(Call(**granted, "env", {{"name", "MCP_TEST_TOKEN"}}).first, "token-value");
  EXPECT_EQ(Call(**granted, "env", {{"name", "ANTHROPIC_API_KEY"}}).first, "(unset)");
  unsetenv("MCP_TEST_TOKEN");
  unsetenv("ANTHROPIC_API_KEY");
}

TEST(HeldChild, ExecLimitHoldsForRunToo) {
  sandbox::Policy p = ToPolicy({.exec = {"true"}}, "/usr");
  std::string out;
  auto r = sandbox::Run({{"sh", "-c", "/usr/bin/true && echo A; cat </dev/null && echo B"}, "/usr"}, p,
                        [&](std::string_view s) { out.append(s); }, nullptr);
  if (!r.ok() && r.error().kind == "sandbox_unavailable") GTEST_SKIP() << r.error().message;
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_NE(out.find("A"), std::string::npos) << out;
  EXPECT_EQ(out.find("B"), std::string::npos) << out;
  EXPECT_NE(out.find("ermission denied"), std::string::npos) << out;
}

TEST(HeldChild, KillEndsTheWholeTree) {
  sandbox::Policy p = ToPolicy({}, "/usr");
  p.exec_only.reset();
  sandbox::HeldSpec spec{{"sh", "-c", "sleep 1000 & echo started; exec cat"}, "/usr"};
  auto held = sandbox::HeldChild::Start(spec, p);
  if (!held.ok() && held.error().kind == "sandbox_unavailable") GTEST_SKIP() << held.error().message;
  ASSERT_TRUE(held.ok()) << held.error().message;
  char buf[64];
  ASSERT_GT(read((*held)->stdout_fd(), buf, sizeof buf), 0);
  ASSERT_TRUE((*held)->WriteStdin("echo\n").ok());
  ASSERT_GT(read((*held)->stdout_fd(), buf, sizeof buf), 0);  // cat echoes
  // The host pid of the sleep, a child of pid 1.
  std::ifstream children("/proc/" + std::to_string((*held)->pid()) + "/task/" +
                         std::to_string((*held)->pid()) + "/children");
  pid_t sleep_pid = 0;
  children >> sleep_pid;
  ASSERT_GT(sleep_pid, 0);
  (*held)->Kill();
  int status = (*held)->Wait();
  EXPECT_TRUE(WIFSIGNALED(status));
  // The kernel killed the rest of the namespace: the sleep is gone (or a
  // zombie waiting for the host's init to reap it).
  for (int i = 0; i < 500; ++i) {
    std::ifstream stat("/proc/" + std::to_string(sleep_pid) + "/stat");
    std::string line;
    if (!std::getline(stat, line) || line.find(") Z") != std::string::npos) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ADD_FAILURE() << "the sleep outlived its sandbox";
}

}  // namespace
}  // namespace sepp::ext::mcp
