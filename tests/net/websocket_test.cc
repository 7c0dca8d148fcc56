// RFC 6455 on the server side: the handshake's accept key, the decoder under
// every rule a client can break (each with its close code), and a real
// upgraded connection through HttpServer: echo, ping/pong, fragmentation,
// and hostile frames answered with the right close code.
#include "net/websocket.h"

#include "net/http_wire.h"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "test_sockets.h"
#include "ws_test_client.h"

namespace sepp::net {
namespace {

using testing::WsFrame;
using testing::WsTestClient;

constexpr uint32_t kMask = 0x37fa213d;

TEST(WebSocket, AcceptKeyIsTheRfcExample) {
  // RFC 6455 1.3.
  EXPECT_EQ(WebSocketAccept("dGhlIHNhbXBsZSBub25jZQ=="), "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=");
}

TEST(WebSocket, HandshakeNeedsEveryPart) {
  HttpServerRequest r;
  r.method = "GET";
  r.headers = {{"Upgrade", "websocket"},
               {"Connection", "keep-alive, Upgrade"},
               {"Sec-WebSocket-Version", "13"},
               {"Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ=="}};
  auto ok = WebSocketHandshake(r);
  ASSERT_TRUE(ok.ok()) << ok.error().message;
  EXPECT_EQ(FindHeader(*ok, "Sec-WebSocket-Accept"), "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=");
  auto without = [&](const std::string& name, const std::string& value = "") {
    HttpServerRequest bad = r;
    for (auto& [k, v] : bad.headers)
      if (k == name) v = value;
    return WebSocketHandshake(bad);
  };
  EXPECT_FALSE(without("Upgrade").ok());
  EXPECT_FALSE(without("Connection", "keep-alive").ok());
  EXPECT_EQ(without("Sec-WebSocket-Version", "8").error().kind, "version");
  EXPECT_FALSE(without("Sec-WebSocket-Key", "short").ok());
  EXPECT_FALSE(without("Sec-WebSocket-Key", "").ok());
  HttpServerRequest post = r;
  post.method = "POST";
  EXPECT_FALSE(WebSocketHandshake(post).ok());
}

TEST(WebSocket, DecoderJoinsFragmentsAndLetsControlFramesThrough) {
  WsDecoder d(1 << 20);
  std::string bytes = EncodeMaskedWsFrame(WsOpcode::kText, "hel", kMask, false) +
                      EncodeMaskedWsFrame(WsOpcode::kPing, "p", kMask) +
                      EncodeMaskedWsFrame(WsOpcode::kContinuation, "lo", kMask, true) +
                      EncodeMaskedWsFrame(WsOpcode::kBinary, std::string(70000, 'b'), kMask) +
                      EncodeMaskedWsFrame(WsOpcode::kClose, WsClosePayload(1000, "bye"), kMask);
  // Byte by byte: every split of a frame must decode the same.
  std::vector<WsDecoder::Event> got;
  for (char c : bytes) {
    d.Feed(std::string_view(&c, 1));
    WsDecoder::Event ev;
    for (;;) {
      auto r = d.Next(&ev);
      ASSERT_TRUE(r.ok()) << r.error().message;
      if (!*r) break;
      got.push_back(ev);
    }
  }
  ASSERT_EQ(got.size(), 4u);
  EXPECT_EQ(got[0].opcode, WsOpcode::kPing);
  EXPECT_EQ(got[0].payload, "p");
  EXPECT_EQ(got[1].opcode, WsOpcode::kText);
  EXPECT_EQ(got[1].payload, "hello");
  EXPECT_EQ(got[2].opcode, WsOpcode::kBinary);
  EXPECT_EQ(got[2].payload.size(), 70000u);
  EXPECT_EQ(got[3].opcode, WsOpcode::kClose);
  EXPECT_EQ(got[3].close_code, 1000);
  EXPECT_EQ(got[3].payload, "bye");
}

// Feeds bytes to a fresh decoder; the close code of the violation, or 0.
int ViolationOf(const std::string& bytes, size_t max = 1000) {
  WsDecoder d(max);
  d.Feed(bytes);
  WsDecoder::Event ev;
  for (;;) {
    auto r = d.Next(&ev);
    if (!r.ok()) return d.close_code();
    if (!*r) return 0;
  }
}

TEST(WebSocket, HostileFramesGetTheirCloseCode) {
  EXPECT_EQ(ViolationOf(EncodeWsFrame(WsOpcode::kText, "unmasked")), ws_close::kProtocolError);
  std::string rsv = EncodeMaskedWsFrame(WsOpcode::kText, "x", kMask);
  rsv[0] = static_cast<char>(rsv[0] | 0x40);
  EXPECT_EQ(ViolationOf(rsv), ws_close::kProtocolError);
  std::string unknown = EncodeMaskedWsFrame(WsOpcode::kText, "x", kMask);
  unknown[0] = static_cast<char>(0x83);
  EXPECT_EQ(ViolationOf(unknown), ws_close::kProtocolError);
  EXPECT_EQ(ViolationOf(EncodeMaskedWsFrame(WsOpcode::kPing, std::string(126, 'p'), kMask)), ws_close::kProtocolError);
  EXPECT_EQ(ViolationOf(EncodeMaskedWsFrame(WsOpcode::kPing, "p", kMask, false)), ws_close::kProtocolError);
  EXPECT_EQ(ViolationOf(EncodeMaskedWsFrame(WsOpcode::kContinuation, "x", kMask)), ws_close::kProtocolError);
  EXPECT_EQ(ViolationOf(EncodeMaskedWsFrame(WsOpcode::kText, "a", kMask, false) +
                        EncodeMaskedWsFrame(WsOpcode::kText, "b", kMask)),
            ws_close::kProtocolError);
  EXPECT_EQ(ViolationOf(EncodeMaskedWsFrame(WsOpcode::kText, "\xc3\x28", kMask)), ws_close::kInvalidData);
  EXPECT_EQ(ViolationOf(EncodeMaskedWsFrame(WsOpcode::kText, "\xe2\x82", kMask, false) +
                        EncodeMaskedWsFrame(WsOpcode::kContinuation, "\xac", kMask)),
            0)
      << "UTF-8 split across fragments is valid";
  EXPECT_EQ(ViolationOf(EncodeMaskedWsFrame(WsOpcode::kClose, "x", kMask)), ws_close::kProtocolError);
  EXPECT_EQ(ViolationOf(EncodeMaskedWsFrame(WsOpcode::kClose, WsClosePayload(1005, ""), kMask)),
            ws_close::kProtocolError);
  EXPECT_EQ(ViolationOf(EncodeMaskedWsFrame(WsOpcode::kClose, WsClosePayload(999, ""), kMask)),
            ws_close::kProtocolError);
  EXPECT_EQ(ViolationOf(EncodeMaskedWsFrame(WsOpcode::kClose, WsClosePayload(1000, "\xff"), kMask)),
            ws_close::kInvalidData);
  // Too big: refused from the length alone, before any payload arrives.
  std::string big = EncodeMaskedWsFrame(WsOpcode::kBinary, std::string(2000, 'x'), kMask).substr(0, 8);
  EXPECT_EQ(ViolationOf(big), ws_close::kTooBig);
  EXPECT_EQ(ViolationOf(EncodeMaskedWsFrame(WsOpcode::kText, std::string(600, 'a'), kMask, false) +
                        EncodeMaskedWsFrame(WsOpcode::kContinuation, std::string(600, 'a'), kMask)),
            ws_close::kTooBig)
      << "the limit is on the message, not the fragment";
  std::string huge("\x82\xff\x80\x00\x00\x00\x00\x00\x00\x01", 10);  // 64-bit length, top bit set
  EXPECT_EQ(ViolationOf(huge), ws_close::kProtocolError);
}

// --- through the HTTP core ---

class WebSocketServer : public ::testing::Test {
 protected:
  void SetUp() override {
    server_ = std::make_unique<HttpServer>([](const HttpServerRequest& req, ResponseWriter& w) {
      auto hs = WebSocketHandshake(req);
      if (!hs.ok()) return (void)w.Send(400, {}, hs.error().message);
      auto up = w.Upgrade(*hs);
      if (!up.ok()) return;
      WebSocketConn ws(up->fd, std::move(up->early), 1024);
      WsDecoder::Event ev;
      while (!ws.closed()) {
        pollfd p = {ws.fd(), POLLIN, 0};
        if (poll(&p, 1, 10000) <= 0) return;
        for (;;) {
          auto got = ws.Receive(&ev);
          if (!got.ok() || !*got) break;
          if (ev.opcode == WsOpcode::kText || ev.opcode == WsOpcode::kBinary) ws.Send(ev.opcode, "echo:" + ev.payload);
        }
      }
    });
    ASSERT_TRUE(server_->Start().ok());
  }
  std::unique_ptr<HttpServer> server_;
};

TEST_F(WebSocketServer, EchoesPingsAndClosesCleanly) {
  WsTestClient ws(server_->port(), "/ws");
  const std::string& head = ws.head();
  EXPECT_EQ(head.rfind("HTTP/1.1 101 Switching Protocols\r\n", 0), 0u) << head;
  EXPECT_NE(head.find("Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n"), std::string::npos) << head;
  EXPECT_NE(head.find("Connection: Upgrade\r\n"), std::string::npos) << head;
  ws.SendBytes(EncodeMaskedWsFrame(WsOpcode::kText, "he", kMask, false) +
               EncodeMaskedWsFrame(WsOpcode::kPing, "are you there", kMask) +
               EncodeMaskedWsFrame(WsOpcode::kContinuation, "llo", kMask) +
               EncodeMaskedWsFrame(WsOpcode::kBinary, std::string("\0\1\2", 3), kMask) +
               EncodeMaskedWsFrame(WsOpcode::kClose, WsClosePayload(1000, ""), kMask));
  WsFrame pong = ws.Next(), text = ws.Next(), binary = ws.Next(), close = ws.Next();
  EXPECT_EQ(pong.opcode, 10);
  EXPECT_EQ(pong.payload, "are you there");
  EXPECT_EQ(text.opcode, 1);
  EXPECT_EQ(text.payload, "echo:hello");
  EXPECT_EQ(binary.opcode, 2);
  EXPECT_EQ(binary.payload, std::string("echo:\0\1\2", 8));
  EXPECT_EQ(close.opcode, 8);
  EXPECT_EQ(close.close_code(), 1000);
  EXPECT_EQ(ws.Next().opcode, -1) << "and the server closes";
}

TEST_F(WebSocketServer, HostileFramesAreAnsweredWithTheirCloseCodeAndTheServerGoesOn) {
  struct Case {
    std::string bytes;
    int code;
  };
  std::string rsv = EncodeMaskedWsFrame(WsOpcode::kText, "x", kMask);
  rsv[0] = static_cast<char>(rsv[0] | 0x20);
  for (const Case& c : {Case{EncodeWsFrame(WsOpcode::kText, "not masked"), 1002}, Case{rsv, 1002},
                        Case{EncodeMaskedWsFrame(WsOpcode::kText, std::string(2000, 'a'), kMask), 1009},
                        Case{EncodeMaskedWsFrame(WsOpcode::kText, "\xff\xfe", kMask), 1007},
                        Case{EncodeMaskedWsFrame(WsOpcode::kContinuation, "x", kMask), 1002}}) {
    WsTestClient ws(server_->port(), "/ws");
    ASSERT_EQ(ws.status(), 101) << ws.head();
    ws.SendBytes(c.bytes);
    WsFrame f = ws.Next();
    EXPECT_EQ(f.opcode, 8);
    EXPECT_EQ(f.close_code(), c.code) << f.payload;
  }
  // A plain request to the route is refused, and the server still upgrades.
  int fd = testing::ConnectLocal(server_->port());
  testing::SendRaw(fd, "GET /ws HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  EXPECT_EQ(testing::ReadUntilClose(fd).rfind("HTTP/1.1 400 ", 0), 0u);
  close(fd);
  EXPECT_EQ(WsTestClient(server_->port(), "/ws").status(), 101);
}

TEST_F(WebSocketServer, StopEndsAnOpenSocket) {
  WsTestClient ws(server_->port(), "/ws");
  ASSERT_EQ(ws.status(), 101);
  server_->Stop();  // returns although the handler waits for frames
  EXPECT_EQ(ws.Next().opcode, -1);
}

}  // namespace
}  // namespace sepp::net
