// The reference MCP servers from npm (tests/mcp/node, pinned, installed by
// scripts/setup), each run confined by sepp's sandbox with only what it
// declares, and what each must and must not be able to do.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>

#include "ext/mcp/resource_tools.h"
#include "ext/mcp/servers.h"
#include "sandbox/held_child.h"
#include "sandbox/probe.h"

namespace sepp::ext::mcp {
namespace {
namespace fs = std::filesystem;

constexpr const char* kSshSecret = "REAL-SERVER-SSH-SECRET";
const fs::path kModules = fs::path(SEPP_SOURCE_DIR) / "tests/mcp/node/node_modules/@modelcontextprotocol";

class RealServersTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(fs::exists(SEPP_NODE)) << "node is not installed: run scripts/setup";
    ASSERT_TRUE(fs::exists(kModules / "server-everything/dist/index.js"))
        << "the MCP servers from npm are missing: run scripts/setup (npm ci in tests/mcp/node)";
    char tmpl[] = "/tmp/sepp-mcp-real-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    root_ = tmpl;
    ws_ = root_ / "home/project";
    fs::create_directories(ws_ / "out");
    fs::create_directories(root_ / "home/.ssh");
    std::ofstream(root_ / "home/.ssh/id_rsa") << kSshSecret << "\n";
    std::ofstream(ws_ / "notes.txt") << "the notes\n";
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

  std::shared_ptr<McpServer> Start(const std::string& name, std::vector<std::string> args,
                                   Capabilities caps = {}, bool roots = true) {
    ServerConfig c;
    c.name = name;
    c.command = {SEPP_NODE, (kModules / ("server-" + name) / "dist/index.js").string()};
    c.command.insert(c.command.end(), args.begin(), args.end());
    c.capabilities = std::move(caps);
    c.startup_timeout_s = 30;
    StartOptions opts;
    opts.workspace = ws_;
    opts.offer_roots = roots;
    auto s = StartServer(c, opts);
    EXPECT_TRUE(s.ok()) << name << ": " << (s.ok() ? "" : s.error().message);
    return s.ok() ? *s : nullptr;
  }
  static tools::ToolResult Call(const std::shared_ptr<McpServer>& s, const std::string& tool, Json args,
                                std::string* progress = nullptr) {
    for (const auto& t : s->Tools()) {
      if (t.name != tool) continue;
      tools::ToolContext ctx;
      if (progress) ctx.on_output = [progress](std::string_view p) { progress->append(p); };
      return MakeMcpTool(s, t)->Run(args, ctx);
    }
    tools::ToolResult r;
    r.text = "no tool " + tool;
    r.is_error = true;
    return r;
  }

  fs::path root_, ws_;
  std::string old_home_;
};

TEST_F(RealServersTest, EverythingToolsProgressAndStructuredContent) {
  auto s = Start("everything", {"stdio"});
  ASSERT_TRUE(s);
  auto echo = Call(s, "echo", {{"message", "hello from sepp"}});
  EXPECT_FALSE(echo.is_error) << echo.text;
  EXPECT_NE(echo.text.find("hello from sepp"), std::string::npos) << echo.text;
  auto sum = Call(s, "get-sum", {{"a", 2}, {"b", 40}});
  EXPECT_NE(sum.text.find("42"), std::string::npos) << sum.text;
  std::string progress;
  auto lro = Call(s, "trigger-long-running-operation", {{"duration", 0.05}, {"steps", 3}}, &progress);
  EXPECT_FALSE(lro.is_error) << lro.text;
  EXPECT_NE(progress.find("progress 3/3"), std::string::npos) << progress;
  auto structured = Call(s, "get-structured-content", {{"location", "New York"}});
  EXPECT_FALSE(structured.is_error) << structured.text;
  EXPECT_TRUE(structured.details.contains("structured_content")) << structured.text;
  auto prompts = s->client().ListPrompts();
  ASSERT_TRUE(prompts.ok()) << prompts.error().message;
  EXPECT_FALSE(prompts->empty());
  auto resources = s->client().ListResources();
  ASSERT_TRUE(resources.ok()) << resources.error().message;
  EXPECT_FALSE(resources->empty());
}

// The server is told the whole disk is its allowed folder (and offered no
// roots that would narrow it): the sandbox alone keeps it to what it declared.
// Resources through the two resource tools: listed, then one read; a
// server that does not offer resources gets none; a wrong name is a clear error.
TEST_F(RealServersTest, EverythingResourcesListedAndRead) {
  auto s = Start("everything", {"stdio"});
  ASSERT_TRUE(s);
  auto tools = MakeResourceTools({s});
  ASSERT_EQ(tools.size(), 2u);
  EXPECT_EQ(tools[0]->name(), "mcp_list_resources");
  tools::ToolContext ctx;
  auto list = tools[0]->Run(Json::object(), ctx);
  ASSERT_FALSE(list.is_error) << list.text;
  ASSERT_TRUE(list.details["resources"].is_array());
  ASSERT_FALSE(list.details["resources"].empty()) << list.text;
  std::string uri = list.details["resources"][0]["uri"];
  auto read = tools[1]->Run({{"server", "everything"}, {"uri", uri}}, ctx);
  ASSERT_FALSE(read.is_error) << read.text;
  EXPECT_NE(read.text, "(empty resource)");
  auto wrong = tools[1]->Run({{"server", "nope"}, {"uri", uri}}, ctx);
  EXPECT_TRUE(wrong.is_error);
  EXPECT_NE(wrong.text.find("no MCP server named nope"), std::string::npos) << wrong.text;
  auto missing = tools[1]->Run({{"server", "everything"}, {"uri", "demo://no/such/resource"}}, ctx);
  EXPECT_TRUE(missing.is_error) << missing.text;

  auto thinking = Start("sequential-thinking", {});
  ASSERT_TRUE(thinking);
  EXPECT_TRUE(MakeResourceTools({thinking}).empty()) << "no resources capability, no resource tools";
}

TEST_F(RealServersTest, FilesystemServerWithTheWholeDiskStaysInsideItsDeclaration) {
  Capabilities caps;
  caps.fs_read = {"./", "~"};
  caps.fs_write = {"./out"};
  auto s = Start("filesystem", {"/"}, caps, /*roots=*/false);
  ASSERT_TRUE(s);
  auto notes = Call(s, "read_text_file", {{"path", (ws_ / "notes.txt").string()}});
  EXPECT_FALSE(notes.is_error) << notes.text;
  EXPECT_NE(notes.text.find("the notes"), std::string::npos) << notes.text;
  auto ssh = Call(s, "read_text_file", {{"path", (root_ / "home/.ssh/id_rsa").string()}});
  EXPECT_EQ(ssh.text.find(kSshSecret), std::string::npos) << ssh.text;

  auto ok = Call(s, "write_file", {{"path", (ws_ / "out/result.txt").string()}, {"content", "done"}});
  EXPECT_FALSE(ok.is_error) << ok.text;
  EXPECT_TRUE(fs::exists(ws_ / "out/result.txt"));
  auto outside = Call(s, "write_file", {{"path", (ws_ / "planted.txt").string()}, {"content", "x"}});
  EXPECT_TRUE(outside.is_error) << outside.text;
  EXPECT_FALSE(fs::exists(ws_ / "planted.txt"));
  auto home = Call(s, "write_file", {{"path", (root_ / "home/.bashrc").string()}, {"content", "x"}});
  EXPECT_TRUE(home.is_error) << home.text;
  EXPECT_FALSE(fs::exists(root_ / "home/.bashrc"));
}

TEST_F(RealServersTest, MemoryServerKeepsItsGraphWhereItMayWrite) {
  Capabilities caps;
  caps.fs_write = {"./out"};
  setenv("MEMORY_FILE_PATH", (ws_ / "out/memory.jsonl").c_str(), 1);
  caps.env = {"MEMORY_FILE_PATH"};
  auto s = Start("memory", {}, caps);
  unsetenv("MEMORY_FILE_PATH");
  ASSERT_TRUE(s);
  auto created = Call(s, "create_entities",
                      {{"entities", {{{"name", "sepp"}, {"entityType", "project"},
                                      {"observations", {"confines MCP servers"}}}}}});
  EXPECT_FALSE(created.is_error) << created.text;
  auto graph = Call(s, "read_graph", Json::object());
  EXPECT_NE(graph.text.find("confines MCP servers"), std::string::npos) << graph.text;
  EXPECT_TRUE(fs::exists(ws_ / "out/memory.jsonl"));
}

TEST_F(RealServersTest, SequentialThinking) {
  auto s = Start("sequential-thinking", {});
  ASSERT_TRUE(s);
  auto r = Call(s, "sequentialthinking", {{"thought", "first, list the tools"},
                                          {"nextThoughtNeeded", false},
                                          {"thoughtNumber", 1},
                                          {"totalThoughts", 1}});
  EXPECT_FALSE(r.is_error) << r.text;
  EXPECT_NE(r.text.find("thoughtNumber"), std::string::npos) << r.text;
}

int FreeLoopbackPort() {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  socklen_t len = sizeof a;
  getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  close(fd);
  return ntohs(a.sin_port);
}

// Streamable HTTP: server-everything serving HTTP (itself confined, with the
// host network so that sepp can reach it), sepp connecting by URL.
TEST_F(RealServersTest, EverythingOverStreamableHttp) {
  int port = FreeLoopbackPort();
  ServerConfig host;
  host.name = "everything-http";
  host.command = {SEPP_NODE, (kModules / "server-everything/dist/index.js").string(), "streamableHttp"};
  host.capabilities.net = {"*"};
  host.env["PORT"] = std::to_string(port);
  sandbox::Policy policy = ServerPolicy(host, ws_);
  auto held = sandbox::HeldChild::Start({host.command, ServerCwd(host, policy, ws_)}, policy);
  ASSERT_TRUE(held.ok()) << held.error().message;
  // Wait for "listening on port" on its stderr.
  std::string said;
  char buf[4096];
  while (said.find("listening on port") == std::string::npos) {
    pollfd p = {(*held)->stderr_fd(), POLLIN, 0};
    ASSERT_GT(poll(&p, 1, 30000), 0) << "the HTTP server did not start: " << said;
    ssize_t r = read((*held)->stderr_fd(), buf, sizeof buf);
    ASSERT_GT(r, 0) << said;
    said.append(buf, static_cast<size_t>(r));
  }
  ServerConfig remote;
  remote.name = "remote";
  remote.url = "http://127.0.0.1:" + std::to_string(port) + "/mcp";
  StartOptions opts;
  opts.workspace = ws_;
  auto s = StartServer(remote, opts);
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ((*s)->client().server().protocol_version, "2025-11-25");
  auto echo = Call(*s, "echo", {{"message", "over http"}});
  EXPECT_FALSE(echo.is_error) << echo.text;
  EXPECT_NE(echo.text.find("over http"), std::string::npos) << echo.text;
  std::string progress;
  auto lro = Call(*s, "trigger-long-running-operation", {{"duration", 0.05}, {"steps", 2}}, &progress);
  EXPECT_FALSE(lro.is_error) << lro.text;
  EXPECT_NE(progress.find("progress 2/2"), std::string::npos) << progress;
}

TEST_F(RealServersTest, AnUnreachableUrlIsAClearError) {
  ServerConfig remote;
  remote.name = "gone";
  remote.url = "http://127.0.0.1:" + std::to_string(FreeLoopbackPort()) + "/mcp";
  remote.startup_timeout_s = 10;
  StartOptions opts;
  opts.workspace = ws_;
  auto s = StartServer(remote, opts);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("cannot be reached"), std::string::npos) << s.error().message;
}

}  // namespace
}  // namespace sepp::ext::mcp
