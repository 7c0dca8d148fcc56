// GET /v1/processes/{id}/terminal/ws end to end: sepp serve as a child, a
// shell on a pty in the sandbox, driven over a WebSocket in sandbox-agent's
// frames (typed input echoed, a resize seen by `stty size`, the exit closing
// the socket with its status); next to the attacks: no token, a wrong one,
// a plain GET, a process without a terminal, hostile frames.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "base/base64.h"
#include "base/json.h"
#include "net/ws_test_client.h"
#include "serve/serve_child.h"

namespace sepp::servetest {
namespace {

namespace fs = std::filesystem;
using net::testing::WsFrame;
using net::testing::WsTestClient;

constexpr const char* kToken = "terminal-test-token-0123456789";

class TerminalWs : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/sepp-serve-term-XXXXXX";
    root_ = mkdtemp(tmpl);
    fs::create_directories(root_ / "home");
    fs::create_directories(root_ / "project");
    server_ = std::make_unique<ServeChild>(
        (root_ / "project").string(),
        std::map<std::string, std::string>{{"HOME", (root_ / "home").string()},
                                           {"SEPP_HOME", (root_ / "home").string()},
                                           {"ANTHROPIC_BASE_URL", "http://127.0.0.1:9"},
                                           {"ANTHROPIC_API_KEY", "test-key-not-secret"}},
        std::vector<std::string>{"--token", kToken});
  }
  void TearDown() override {
    if (HasFailure()) {
      int status = server_->Stop(10);
      ADD_FAILURE() << "the server's exit status " << status << ", its stderr:\n" << server_->stderr_text();
    }
    server_.reset();
    fs::remove_all(root_);
  }
  // Starts a process; its id.
  std::string Start(const Json& spec) {
    auto r = Fetch("POST", server_->url("/v1/processes"),
                   {{"Authorization", std::string("Bearer ") + kToken}, {"Content-Type", "application/json"}},
                   spec.dump());
    EXPECT_EQ(r.head.status, 200) << r.body;
    auto j = ParseJson(r.body);
    return j.ok() ? j->value("id", "") : "";
  }
  static std::string Path(const std::string& id) { return "/v1/processes/" + id + "/terminal/ws"; }
  static std::string WithToken(const std::string& id) { return Path(id) + "?access_token=" + kToken; }
  static Json Control(const WsFrame& f) {
    auto j = ParseJson(f.payload);
    return f.opcode == 1 && j.ok() ? *j : Json();
  }

  fs::path root_;
  std::unique_ptr<ServeChild> server_;
};

TEST_F(TerminalWs, AShellIsTypedToResizedAndEndsWithItsStatus) {
  std::string id = Start({{"command", "sh"}, {"tty", true}});
  ASSERT_FALSE(id.empty());
  WsTestClient ws(server_->port(), WithToken(id));
  ASSERT_EQ(ws.status(), 101) << ws.head();
  EXPECT_EQ(Control(ws.Next()), (Json{{"type", "ready"}, {"processId", id}}));

  // The SDK sends typed text without an encoding: utf8.
  ws.SendText(R"({"type":"input","data":"echo ws-$((6*7))\n"})");
  std::string out = ws.ReadOutputUntil("ws-42");
  EXPECT_NE(out.find("ws-42"), std::string::npos) << out;
  EXPECT_NE(out.find("echo ws-$((6*7))"), std::string::npos) << "the terminal echoes what is typed: " << out;

  ws.SendText(R"({"type":"resize","cols":101,"rows":33})");
  ws.SendText(Json{{"type", "input"}, {"data", Base64Encode("stty size\n")}, {"encoding", "base64"}}.dump());
  out = ws.ReadOutputUntil("33 101");
  EXPECT_NE(out.find("33 101"), std::string::npos) << out;

  // A frame it cannot use gets an error frame; the terminal goes on.
  ws.SendText("this is not json");
  WsFrame error;
  ws.ReadOutputUntil("\x01-never-printed", &error);
  EXPECT_EQ(Control(error).value("type", ""), "error") << error.payload;
  ws.Send(net::WsOpcode::kBinary, "echo bin-$((2+3))\n");  // a binary frame is typed as it is
  out = ws.ReadOutputUntil("bin-5");
  EXPECT_NE(out.find("bin-5"), std::string::npos) << out;

  ws.SendText(R"({"type":"input","data":"exit 7\n"})");
  WsFrame exit_frame;
  ws.ReadOutputUntil("\x01-never-printed", &exit_frame);
  EXPECT_EQ(Control(exit_frame), (Json{{"type", "exit"}, {"exitCode", 7}})) << exit_frame.payload;
  WsFrame close = ws.Next();
  EXPECT_EQ(close.opcode, 8);
  EXPECT_EQ(close.close_code(), 1000);
  EXPECT_EQ(ws.Next().opcode, -1) << "the server closes the socket";

  // A client arriving after the end still gets the output it missed and the status.
  WsTestClient late(server_->port(), WithToken(id));
  ASSERT_EQ(late.status(), 101);
  EXPECT_EQ(Control(late.Next()).value("type", ""), "ready");
  WsFrame late_exit;
  out = late.ReadOutputUntil("\x01-never-printed", &late_exit);
  EXPECT_NE(out.find("bin-5"), std::string::npos) << out;
  EXPECT_EQ(Control(late_exit).value("exitCode", -1), 7);
}

TEST_F(TerminalWs, TheTokenIsRequiredAndOnlyTerminalsUpgrade) {
  std::string id = Start({{"command", "sh"}, {"tty", true}});
  ASSERT_FALSE(id.empty());
  EXPECT_EQ(WsTestClient(server_->port(), Path(id)).status(), 401);
  EXPECT_EQ(WsTestClient(server_->port(), Path(id) + "?access_token=wrong").status(), 401);
  EXPECT_EQ(WsTestClient(server_->port(), Path(id), "Authorization: Bearer wrong\r\n").status(), 401);
  // The query token opens only the terminal: everywhere else it is no credential.
  auto other = Fetch("GET", server_->url(std::string("/v1/processes?access_token=") + kToken));
  EXPECT_EQ(other.head.status, 401) << other.body;
  EXPECT_EQ(WsTestClient(server_->port(), Path(id), std::string("Authorization: Bearer ") + kToken + "\r\n").status(),
            101);
  // Authenticated, but not a WebSocket / no such process / no terminal.
  auto plain = Fetch("GET", server_->url(WithToken(id)));
  EXPECT_EQ(plain.head.status, 400) << plain.body;
  EXPECT_EQ(WsTestClient(server_->port(), WithToken("proc_999")).status(), 404);
  std::string piped = Start({{"command", "sleep"}, {"args", {"30"}}});
  EXPECT_EQ(WsTestClient(server_->port(), WithToken(piped)).status(), 409);
}

TEST_F(TerminalWs, HostileFramesCloseWithTheirCodeAndTheShellStaysUsable) {
  std::string id = Start({{"command", "sh"}, {"tty", true}});
  ASSERT_FALSE(id.empty());
  struct Case {
    std::string bytes;
    int code;
  };
  for (const Case& c : {Case{net::EncodeWsFrame(net::WsOpcode::kText, R"({"type":"close"})"), 1002},
                        Case{net::EncodeMaskedWsFrame(net::WsOpcode::kText, std::string(1 << 20, 'a'), 7), 1009},
                        Case{net::EncodeMaskedWsFrame(net::WsOpcode::kText, "\xc0\xaf", 7), 1007},
                        Case{net::EncodeMaskedWsFrame(net::WsOpcode::kPing, std::string(200, 'p'), 7), 1002}}) {
    WsTestClient ws(server_->port(), WithToken(id));
    ASSERT_EQ(ws.status(), 101);
    EXPECT_EQ(Control(ws.Next()).value("type", ""), "ready");
    ws.SendBytes(c.bytes);
    WsFrame f;
    ws.ReadOutputUntil("\x01-never-printed", &f);
    EXPECT_EQ(f.opcode, 8);
    EXPECT_EQ(f.close_code(), c.code);
  }
  // After all that, a well-behaved client types into the same shell.
  WsTestClient ws(server_->port(), WithToken(id));
  ASSERT_EQ(ws.status(), 101);
  ws.Next();
  ws.Send(net::WsOpcode::kPing, "still there?");
  ws.SendText(R"({"type":"input","data":"echo alive-$((1+1))\n"})");
  std::string out;
  bool ponged = false;
  for (int i = 0; i < 200 && out.find("alive-2") == std::string::npos; ++i) {
    WsFrame f = ws.Next();
    if (f.opcode == 10) ponged = f.payload == "still there?";
    else if (f.opcode == 2) out += f.payload;
    else break;
  }
  EXPECT_TRUE(ponged);
  EXPECT_NE(out.find("alive-2"), std::string::npos) << out;
  ws.SendText(R"({"type":"close"})");
  WsFrame f;
  ws.ReadOutputUntil("\x01-never-printed", &f);
  EXPECT_EQ(f.opcode, 8);
  EXPECT_EQ(f.close_code(), 1000);
}

}  // namespace
}  // namespace sepp::servetest
