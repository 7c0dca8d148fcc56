// The server core under hostile clients: malformed heads, huge heads, slow
// senders, smuggling attempts; and keep-alive for well-behaved ones.
#include "net/http_server.h"

#include <chrono>
#include <thread>

#include <gtest/gtest.h>

#include "net/http_client.h"
#include "test_sockets.h"

namespace sepp::net {
namespace {

using namespace std::chrono_literals;

HttpHandler Echo() {
  return [](const HttpServerRequest& req, ResponseWriter& w) {
    w.Send(200, {{"Content-Type", "text/plain"}}, req.method + " " + req.target + " " + req.body);
  };
}

// Sends raw bytes on a fresh connection and returns everything the server
// answers until it closes (or 5 s pass).
std::string RoundTrip(int port, const std::string& bytes, bool half_close = false) {
  int fd = testing::ConnectLocal(port);
  testing::SendRaw(fd, bytes);
  if (half_close) shutdown(fd, SHUT_WR);
  std::string out = testing::ReadUntilClose(fd);
  close(fd);
  return out;
}

bool StartsWith(const std::string& s, const std::string& p) { return s.rfind(p, 0) == 0; }

TEST(HttpServer, ReportsItsPortAndServes) {
  HttpServer server(Echo());
  ASSERT_TRUE(server.Start().ok());
  EXPECT_GT(server.port(), 0);
  std::string out = RoundTrip(server.port(), "POST /a?b HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nConnection: close\r\n\r\nxyz");
  EXPECT_TRUE(StartsWith(out, "HTTP/1.1 200 OK\r\n")) << out;
  EXPECT_NE(out.find("\r\n\r\nPOST /a?b xyz"), std::string::npos) << out;
}

TEST(HttpServer, KeepAliveServesPipelinedRequests) {
  HttpServer server(Echo());
  ASSERT_TRUE(server.Start().ok());
  std::string out = RoundTrip(server.port(),
                              "GET /1 HTTP/1.1\r\nHost: x\r\n\r\n"
                              "POST /2 HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n"
                              "GET /3 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  EXPECT_NE(out.find("GET /1 "), std::string::npos) << out;
  EXPECT_NE(out.find("POST /2 abc"), std::string::npos) << out;
  EXPECT_NE(out.find("GET /3 "), std::string::npos) << out;
}

TEST(HttpServer, MalformedRequestsGet400AndAClose) {
  HttpServer server(Echo());
  ASSERT_TRUE(server.Start().ok());
  for (const char* bad : {"GARBAGE\r\n\r\n", "GET / HTTP/9.9\r\n\r\n", "GET /\x01 HTTP/1.1\r\n\r\n",
                          "GET / HTTP/1.1\r\n folded: x\r\n\r\n", "GET / HTTP/1.1\r\nBad Name: x\r\n\r\n",
                          "POST / HTTP/1.1\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n",
                          "POST / HTTP/1.1\r\nContent-Length: -1\r\n\r\n",
                          "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n"}) {
    std::string out = RoundTrip(server.port(), bad);
    EXPECT_TRUE(StartsWith(out, "HTTP/1.1 400 ")) << bad << " -> " << out;
  }
  EXPECT_TRUE(StartsWith(RoundTrip(server.port(), "POST / HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\n"),
                         "HTTP/1.1 501 "));
}

TEST(HttpServer, HugeHeadsAndBodiesAreRefused) {
  HttpServerOptions options;
  options.max_head_bytes = 4096;
  options.max_body_bytes = 1000;
  HttpServer server(Echo(), options);
  ASSERT_TRUE(server.Start().ok());
  std::string huge = "GET / HTTP/1.1\r\nX: " + std::string(100000, 'a') + "\r\n\r\n";
  EXPECT_TRUE(StartsWith(RoundTrip(server.port(), huge), "HTTP/1.1 431 "));
  EXPECT_TRUE(StartsWith(RoundTrip(server.port(), "POST / HTTP/1.1\r\nContent-Length: 5000\r\n\r\n"), "HTTP/1.1 413 "));
  std::string chunked = "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n800\r\n" + std::string(2048, 'b') + "\r\n";
  EXPECT_TRUE(StartsWith(RoundTrip(server.port(), chunked), "HTTP/1.1 413 "));
}

TEST(HttpServer, SlowClientsDoNotBlockOthersAndTimeOut) {
  HttpServerOptions options;
  options.head_timeout_s = 0.5;
  HttpServer server(Echo(), options);
  ASSERT_TRUE(server.Start().ok());
  // Ten connections that send half a request line and stall.
  std::vector<int> slow;
  for (int i = 0; i < 10; ++i) {
    slow.push_back(testing::ConnectLocal(server.port()));
    testing::SendRaw(slow.back(), "GET /slo");
  }
  HttpRequest req;
  req.method = "GET";
  req.url = "http://127.0.0.1:" + std::to_string(server.port()) + "/fast";
  auto r = HttpFetch(req, nullptr);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->body, "GET /fast ");
  // The slow ones are answered 408 and dropped once their head time is up.
  for (int fd : slow) {
    EXPECT_TRUE(StartsWith(testing::ReadUntilClose(fd), "HTTP/1.1 408 "));
    close(fd);
  }
}

TEST(HttpServer, ClientVanishingMidRequestIsHarmless) {
  HttpServer server(Echo());
  ASSERT_TRUE(server.Start().ok());
  EXPECT_EQ(RoundTrip(server.port(), "POST / HTTP/1.1\r\nContent-Length: 100\r\n\r\nabc", true), "");
  EXPECT_EQ(RoundTrip(server.port(), "GET / HTT", true), "");
  HttpRequest req;
  req.method = "GET";
  req.url = "http://127.0.0.1:" + std::to_string(server.port()) + "/";
  EXPECT_TRUE(HttpFetch(req, nullptr).ok());
}

TEST(HttpServer, HandlerWithoutAnswerGives500AndHeadersCannotBeSplit) {
  HttpServer server([](const HttpServerRequest& req, ResponseWriter& w) {
    if (req.target == "/split") w.Send(200, {{"X", "a\r\nInjected: yes"}, {"Y", "ok"}}, "body");
  });
  ASSERT_TRUE(server.Start().ok());
  std::string out = RoundTrip(server.port(), "GET /none HTTP/1.1\r\nConnection: close\r\n\r\n");
  EXPECT_TRUE(StartsWith(out, "HTTP/1.1 500 ")) << out;
  out = RoundTrip(server.port(), "GET /split HTTP/1.1\r\nConnection: close\r\n\r\n");
  EXPECT_EQ(out.find("Injected"), std::string::npos) << out;
  EXPECT_NE(out.find("Y: ok"), std::string::npos);
}

TEST(HttpServer, StopEndsStreamingHandlers) {
  std::atomic<bool> started{false};
  auto server = std::make_unique<HttpServer>([&](const HttpServerRequest&, ResponseWriter& w) {
    w.Begin(200, {});
    started = true;
    while (!w.client_gone()) std::this_thread::sleep_for(10ms);
  });
  ASSERT_TRUE(server->Start().ok());
  int fd = testing::ConnectLocal(server->port());
  testing::SendRaw(fd, "GET / HTTP/1.1\r\n\r\n");
  while (!started) std::this_thread::sleep_for(5ms);
  server->Stop();  // must return although the handler loops until the client is gone
  close(fd);
}

TEST(HttpServer, BusyPortIsAClearError) {
  HttpServer a(Echo());
  ASSERT_TRUE(a.Start().ok());
  HttpServerOptions options;
  options.port = a.port();
  HttpServer b(Echo(), options);
  Status s = b.Start();
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("cannot listen on 127.0.0.1:" + std::to_string(a.port())), std::string::npos);
}

}  // namespace
}  // namespace sepp::net

namespace sepp::net {
namespace {

TEST(HttpServer, ConnectionLimitAnswers503) {
  HttpServerOptions options;
  options.max_connections = 2;
  HttpServer server(Echo(), options);
  ASSERT_TRUE(server.Start().ok());
  int a = testing::ConnectLocal(server.port());
  int b = testing::ConnectLocal(server.port());
  // The server has taken both once each has answered a request (and they
  // stay open: keep-alive).
  for (int fd : {a, b}) {
    testing::SendRaw(fd, "GET / HTTP/1.1\r\n\r\n");
    ASSERT_TRUE(StartsWith(testing::ReadHead(fd), "HTTP/1.1 200 "));
  }
  std::string out = RoundTrip(server.port(), "GET / HTTP/1.1\r\n\r\n");
  EXPECT_TRUE(StartsWith(out, "HTTP/1.1 503 ")) << out;
  close(a);
  close(b);
}

}  // namespace
}  // namespace sepp::net

namespace sepp::net {
namespace {

TEST(HttpServer, HandlerNoticesAClientThatLeftWithoutWriting) {
  std::atomic<bool> noticed{false}, started{false};
  HttpServer server([&](const HttpServerRequest&, ResponseWriter& w) {
    w.Begin(200, {{"Content-Type", "text/event-stream"}});
    started = true;
    for (int i = 0; i < 500 && !w.client_gone(); ++i) std::this_thread::sleep_for(10ms);
    noticed = w.client_gone();
  });
  ASSERT_TRUE(server.Start().ok());
  int fd = testing::ConnectLocal(server.port());
  testing::SendRaw(fd, "GET /events HTTP/1.1\r\n\r\n");
  // Leave once the handler runs: leaving earlier would test the accept path.
  for (int i = 0; i < 3000 && !started; ++i) std::this_thread::sleep_for(5ms);
  ASSERT_TRUE(started);
  close(fd);
  for (int i = 0; i < 300 && !noticed; ++i) std::this_thread::sleep_for(10ms);
  EXPECT_TRUE(noticed);
}

}  // namespace
}  // namespace sepp::net
