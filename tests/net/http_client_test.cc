// The HTTP client against the in-process server core and against raw
// sockets that misbehave on purpose.
#include "net/http_client.h"

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "net/http_server.h"
#include "test_sockets.h"

namespace sepp::net {
namespace {

using namespace std::chrono_literals;
using testing::OneShotServer;

std::string Url(const HttpServer& s, const std::string& path) {
  return "http://127.0.0.1:" + std::to_string(s.port()) + path;
}

TEST(HttpClient, FetchesAWholeResponseAndSendsTheRequestIntact) {
  HttpServerRequest seen;
  HttpServer server([&](const HttpServerRequest& req, ResponseWriter& w) {
    seen = req;
    w.Send(201, {{"Content-Type", "application/json"}, {"X-Request-Id", "r1"}}, R"({"ok":true})");
  });
  ASSERT_TRUE(server.Start().ok());
  HttpRequest req;
  req.url = Url(server, "/v1/messages?beta=1");
  req.headers = {{"x-api-key", "k"}, {"Content-Type", "application/json"}, {"Host", "ignored"}};
  req.body = R"({"model":"m"})";
  auto r = HttpFetch(req, nullptr);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->head.status, 201);
  EXPECT_EQ(r->head.Header("x-request-id"), "r1");
  EXPECT_EQ(r->body, R"({"ok":true})");
  EXPECT_EQ(seen.method, "POST");
  EXPECT_EQ(seen.target, "/v1/messages?beta=1");
  EXPECT_EQ(seen.Path(), "/v1/messages");
  EXPECT_EQ(seen.body, R"({"model":"m"})");
  EXPECT_EQ(seen.Header("X-API-KEY"), "k");
  EXPECT_EQ(seen.Header("Host"), "127.0.0.1:" + std::to_string(server.port()));
  EXPECT_EQ(seen.Header("Accept-Encoding"), "") << "we never ask for compression";
  EXPECT_NE(seen.Header("User-Agent").find("sepp/"), std::string::npos);
}

TEST(HttpClient, GetWithoutBodyAndLocalhostResolves) {
  HttpServer server([&](const HttpServerRequest& req, ResponseWriter& w) {
    w.Send(200, {}, req.method + " " + req.Header("Content-Length"));
  });
  ASSERT_TRUE(server.Start().ok());
  HttpRequest req;
  req.method = "GET";
  req.url = "http://localhost:" + std::to_string(server.port()) + "/x";
  auto r = HttpFetch(req, nullptr);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->body, "GET ");
}

TEST(HttpClient, StreamsChunkedPiecesAsTheyArrive) {
  HttpServer server([&](const HttpServerRequest&, ResponseWriter& w) {
    w.Begin(200, {{"Content-Type", "text/event-stream"}});
    for (int i = 0; i < 5; ++i) {
      w.Write("data: " + std::to_string(i) + "\n\n");
      std::this_thread::sleep_for(10ms);
    }
    w.End();
  });
  ASSERT_TRUE(server.Start().ok());
  HttpRequest req;
  req.url = Url(server, "/s");
  std::string all;
  int pieces = 0, status = 0;
  HttpHandlers h;
  h.on_head = [&](const HttpResponseHead& head) { status = head.status; };
  h.on_body = [&](std::string_view p) {
    ++pieces;
    all.append(p);
    return true;
  };
  Status s = HttpSend(req, h, nullptr);
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(status, 200);
  EXPECT_EQ(all, "data: 0\n\ndata: 1\n\ndata: 2\n\ndata: 3\n\ndata: 4\n\n");
  EXPECT_GE(pieces, 2) << "pieces are delivered as they come, not all at the end";
}

TEST(HttpClient, ReadsCloseDelimitedBodies) {
  HttpServer server([&](const HttpServerRequest&, ResponseWriter& w) {
    w.Begin(200, {}, /*chunked=*/false);
    w.Write("abc");
    w.Write("def");
    w.End();
  });
  ASSERT_TRUE(server.Start().ok());
  HttpRequest req;
  req.url = Url(server, "/");
  auto r = HttpFetch(req, nullptr);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->body, "abcdef");
}

TEST(HttpClient, CutStreamIsAnIoError) {
  HttpServer server([&](const HttpServerRequest&, ResponseWriter& w) {
    w.Begin(200, {});
    w.Write("partial");
    w.Abort();
  });
  ASSERT_TRUE(server.Start().ok());
  HttpRequest req;
  req.url = Url(server, "/");
  std::string got;
  HttpHandlers h;
  h.on_body = [&](std::string_view p) {
    got.append(p);
    return true;
  };
  Status s = HttpSend(req, h, nullptr);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().kind, "io");
  EXPECT_NE(s.error().message.find("closed in the middle of the response"), std::string::npos) << s.error().message;
  EXPECT_EQ(got, "partial");
}

TEST(HttpClient, ConsumerCanStopEarly) {
  HttpServer server([&](const HttpServerRequest&, ResponseWriter& w) {
    w.Begin(200, {});
    for (int i = 0; i < 100 && w.Write("x"); ++i) std::this_thread::sleep_for(5ms);
    w.End();
  });
  ASSERT_TRUE(server.Start().ok());
  HttpRequest req;
  req.url = Url(server, "/");
  HttpHandlers h;
  h.on_body = [&](std::string_view) { return false; };
  EXPECT_TRUE(HttpSend(req, h, nullptr).ok());
}

TEST(HttpClient, RefusedConnectionSaysWhatToCheck) {
  int port;
  int fd = testing::ListenLocal(&port);
  close(fd);  // now nothing listens there
  HttpRequest req;
  req.url = "http://127.0.0.1:" + std::to_string(port) + "/v1/messages";
  auto r = HttpFetch(req, nullptr);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, "connect");
  EXPECT_EQ(r.error().message, "cannot reach 127.0.0.1:" + std::to_string(port) +
                                   ": Connection refused — check the URL and your network/proxy settings");
}

TEST(HttpClient, BadUrlAndHeaderInjection) {
  HttpRequest req;
  req.url = "ftp://x";
  EXPECT_EQ(HttpFetch(req, nullptr).error().kind, "bad_url");
  req.url = "http://127.0.0.1:1/";
  req.headers = {{"X", "a\r\nInjected: 1"}};
  EXPECT_EQ(HttpFetch(req, nullptr).error().kind, "bad_request");
}

TEST(HttpClient, IdleTimeoutNamesTheHostAndTheWait) {
  OneShotServer raw([](int fd, const std::string&) { std::this_thread::sleep_for(1500ms); });
  HttpRequest req;
  req.url = raw.url("/slow");
  req.read_timeout_s = 0.3;
  auto r = HttpFetch(req, nullptr);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, "timeout");
  EXPECT_EQ(r.error().message,
            "timed out after 0.3 s waiting for 127.0.0.1:" + std::to_string(raw.port()) + " to send data");
}

TEST(HttpClient, CancelAbortsAStreamAtOnce) {
  HttpServer server([&](const HttpServerRequest&, ResponseWriter& w) {
    w.Begin(200, {});
    for (int i = 0; i < 200 && w.Write("tick\n"); ++i) std::this_thread::sleep_for(20ms);
  });
  ASSERT_TRUE(server.Start().ok());
  CancelToken cancel;
  HttpRequest req;
  req.url = Url(server, "/");
  HttpHandlers h;
  std::atomic<int> got{0};
  h.on_body = [&](std::string_view) {
    ++got;
    return true;
  };
  std::thread canceller([&] {
    while (got.load() == 0) std::this_thread::sleep_for(5ms);
    cancel.Cancel();
  });
  auto start = std::chrono::steady_clock::now();
  Status s = HttpSend(req, h, &cancel);
  canceller.join();
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().kind, "aborted");
  EXPECT_LT(std::chrono::steady_clock::now() - start, 3s) << "the stream would have run 4 s";
}

TEST(HttpClient, AlreadyCancelledNeverConnects) {
  CancelToken cancel;
  cancel.Cancel();
  HttpRequest req;
  req.url = "http://127.0.0.1:1/";
  auto r = HttpFetch(req, &cancel);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, "aborted");
}

TEST(HttpClient, SkipsInterimResponses) {
  OneShotServer raw([](int fd, const std::string&) {
    testing::SendRaw(fd, "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi");
  });
  HttpRequest req;
  req.url = raw.url();
  auto r = HttpFetch(req, nullptr);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->head.status, 200);
  EXPECT_EQ(r->body, "hi");
}

TEST(HttpClient, ErrorStatusIsAResponseNotAnError) {
  OneShotServer raw([](int fd, const std::string&) {
    testing::SendRaw(fd, "HTTP/1.1 429 Too Many Requests\r\nRetry-After: 3\r\nContent-Length: 4\r\n\r\nslow");
  });
  HttpRequest req;
  req.url = raw.url();
  auto r = HttpFetch(req, nullptr);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->head.status, 429);
  EXPECT_EQ(r->head.Header("retry-after"), "3");
}

// Responses that break the protocol in different ways: each must give an
// "io" error, never a hang or a crash.
TEST(HttpClient, HostileResponsesGiveIoErrors) {
  const std::string cases[] = {
      "",                                                             // closed at once
      "garbage\r\n\r\n",                                              // no status line
      "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort",           // body too short
      "HTTP/1.1 200 OK\r\nContent-Length: 1x\r\n\r\n",                // bad length
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",  // bad chunk size
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab",  // cut chunk
      "HTTP/1.1 200 OK\r\nX: " + std::string(70000, 'a') + "\r\n\r\n",  // huge head
      "HTTP/1.1 200 OK\r\n folded\r\n\r\n",                           // obs-fold
  };
  for (const auto& bytes : cases) {
    OneShotServer raw([&](int fd, const std::string&) { testing::SendRaw(fd, bytes); });
    HttpRequest req;
    req.url = raw.url();
    auto r = HttpFetch(req, nullptr);
    ASSERT_FALSE(r.ok()) << bytes.substr(0, 60);
    EXPECT_EQ(r.error().kind, "io") << r.error().message;
  }
}

// Keep-alive: a provider conversation makes one request per turn to the
// same host; over TLS every new connection costs two handshakes.
struct PeerLog {
  std::mutex mu;
  std::vector<std::string> peers;
  void Add(const std::string& p) {
    std::lock_guard<std::mutex> lock(mu);
    peers.push_back(p);
  }
  size_t Distinct() {
    std::lock_guard<std::mutex> lock(mu);
    return std::set<std::string>(peers.begin(), peers.end()).size();
  }
};

TEST(HttpClient, KeepsTheConnectionForTheNextCall) {
  PeerLog log;
  HttpServer server([&](const HttpServerRequest& req, ResponseWriter& w) {
    log.Add(req.peer);
    if (req.Path() == "/stream") {
      w.Begin(200, {{"Content-Type", "text/event-stream"}});
      w.Write("data: a\n\n");
      w.Write("data: b\n\n");
      w.End();
    } else {
      w.Send(200, {}, "ok " + req.body);
    }
  });
  ASSERT_TRUE(server.Start().ok());
  for (const char* path : {"/a", "/stream", "/b", "/stream", "/c"}) {
    HttpRequest req;
    req.url = Url(server, path);
    req.body = path;
    auto r = HttpFetch(req, nullptr);
    ASSERT_TRUE(r.ok()) << r.error().message;
    EXPECT_EQ(r->head.status, 200);
  }
  EXPECT_EQ(log.peers.size(), 5u);
  EXPECT_EQ(log.Distinct(), 1u) << "every call after the first reuses the connection";
}

// The streamed provider path stops reading once the decoder has its whole
// answer, a few bytes before the body's end (the last event's tail, the
// chunked terminator). Those few bytes are read, so the connection is kept
// for the next turn; a long rest is not waited for.
TEST(HttpClient, AStreamStoppedNearItsEndKeepsTheConnection) {
  PeerLog log;
  HttpServer server([&](const HttpServerRequest& req, ResponseWriter& w) {
    log.Add(req.peer);
    if (req.Path() == "/sized") {
      w.Send(200, {{"Content-Type", "text/event-stream"}}, "data: done\n\ndata: [DONE]\n\n");
      return;
    }
    w.Begin(200, {{"Content-Type", "text/event-stream"}});
    w.Write("data: done\n\n");
    w.Write("data: [DONE]\n\n");
    w.End();
  });
  ASSERT_TRUE(server.Start().ok());
  for (const char* path : {"/chunked", "/sized", "/chunked"}) {
    HttpRequest req;
    req.url = Url(server, path);
    int pieces = 0;
    HttpHandlers stop_after_first;
    stop_after_first.on_body = [&](std::string_view) { return ++pieces < 1; };
    ASSERT_TRUE(HttpSend(req, stop_after_first, nullptr).ok());
    EXPECT_EQ(pieces, 1);
  }
  EXPECT_EQ(log.peers.size(), 3u);
  EXPECT_EQ(log.Distinct(), 1u) << ::testing::PrintToString(log.peers);
}

TEST(HttpClient, FetchStopsAtItsBodyBound) {
  HttpServer server([&](const HttpServerRequest&, ResponseWriter& w) {
    w.Begin(200, {});
    for (int i = 0; i < 64; ++i)
      if (!w.Write(std::string(1024, 'x'))) return;
    w.End();
  });
  ASSERT_TRUE(server.Start().ok());
  HttpRequest req;
  req.method = "GET";
  req.url = Url(server, "/big");
  auto small = HttpFetch(req, nullptr, 10000);
  ASSERT_FALSE(small.ok());
  EXPECT_EQ(small.error().kind, "io");
  EXPECT_NE(small.error().message.find("larger than 10000 bytes"), std::string::npos) << small.error().message;
  auto whole = HttpFetch(req, nullptr, 65536);
  ASSERT_TRUE(whole.ok()) << whole.error().message;
  EXPECT_EQ(whole->body.size(), 65536u);
}

TEST(HttpClient, ConnectionsThatCannotCarryAnotherRequestAreNotKept) {
  PeerLog log;
  HttpServer server([&](const HttpServerRequest& req, ResponseWriter& w) {
    log.Add(req.peer);
    if (req.Path() == "/close-delimited") {
      w.Begin(200, {}, /*chunked=*/false);
      w.Write("until the end");
      w.End();
    } else if (req.Path() == "/long") {
      w.Send(200, {}, std::string(100000, 'x'));
    } else if (req.Path() == "/cut") {
      w.Begin(200, {});
      w.Write("half");
      w.Abort();
    } else {
      w.Send(200, {}, "fine");
    }
  });
  ASSERT_TRUE(server.Start().ok());
  HttpRequest req;
  req.method = "GET";
  req.url = Url(server, "/close-delimited");
  ASSERT_TRUE(HttpFetch(req, nullptr).ok());
  req.url = Url(server, "/long");  // the consumer stops early: the rest is unread
  HttpHandlers stop_early;
  stop_early.on_body = [](std::string_view) { return false; };
  ASSERT_TRUE(HttpSend(req, stop_early, nullptr).ok());
  req.url = Url(server, "/cut");
  EXPECT_FALSE(HttpFetch(req, nullptr).ok());
  req.url = Url(server, "/fine");
  ASSERT_TRUE(HttpFetch(req, nullptr).ok());
  EXPECT_EQ(log.Distinct(), 4u) << "each call needed a new connection: "
                                << ::testing::PrintToString(log.peers);
}

// "Connection: close" and HTTP/1.0 answers end the connection's use.
TEST(HttpClient, ServersThatSayCloseAreNotAskedAgain) {
  for (const char* answer : {"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok",
                             "HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok"}) {
    int port = 0;
    int listener = testing::ListenLocal(&port);
    std::atomic<int> accepted{0};
    std::thread server([&] {
      for (int i = 0; i < 2; ++i) {
        int c = accept(listener, nullptr, nullptr);
        ++accepted;
        testing::ReadHead(c);
        testing::SendRaw(c, answer);
        testing::ReadUntilClose(c, 2000);  // keep it open until the client lets go
        close(c);
      }
    });
    HttpRequest req;
    req.method = "GET";
    req.url = "http://127.0.0.1:" + std::to_string(port) + "/";
    ASSERT_TRUE(HttpFetch(req, nullptr).ok());
    auto again = HttpFetch(req, nullptr);
    ASSERT_TRUE(again.ok()) << again.error().message;
    server.join();
    close(listener);
    EXPECT_EQ(accepted.load(), 2) << answer;
  }
}

// The server closes a kept-alive connection just as the next request goes
// out on it (it reads the request, then closes without a word): the request
// is sent again on a new connection and the caller never notices.
TEST(HttpClient, AKeptConnectionClosedUnderTheRequestIsRetriedOnANewOne) {
  int port = 0;
  int listener = testing::ListenLocal(&port);
  std::atomic<int> accepted{0};
  std::thread server([&] {
    int c1 = accept(listener, nullptr, nullptr);
    ++accepted;
    testing::ReadHead(c1);
    testing::SendRaw(c1, "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nfirst");
    testing::ReadHead(c1);  // the second request arrives on the kept connection...
    close(c1);              // ...and is dropped unanswered
    int c2 = accept(listener, nullptr, nullptr);
    ++accepted;
    testing::ReadHead(c2);
    testing::SendRaw(c2, "HTTP/1.1 200 OK\r\nContent-Length: 6\r\nConnection: close\r\n\r\nsecond");
    close(c2);
  });
  HttpRequest req;
  req.method = "GET";
  req.url = "http://127.0.0.1:" + std::to_string(port) + "/";
  auto first = HttpFetch(req, nullptr);
  ASSERT_TRUE(first.ok()) << first.error().message;
  EXPECT_EQ(first->body, "first");
  auto second = HttpFetch(req, nullptr);
  ASSERT_TRUE(second.ok()) << second.error().message;
  EXPECT_EQ(second->body, "second");
  server.join();
  close(listener);
  EXPECT_EQ(accepted.load(), 2);
}

// A connection the server closed while it sat idle is noticed and dropped
// before use; an answer that started and then broke is never retried (the
// request may have been acted on).
TEST(HttpClient, DeadIdleConnectionsAreDroppedAndBrokenAnswersNotRetried) {
  std::atomic<bool> c1_closed{false};
  int port = 0;
  int listener = testing::ListenLocal(&port);
  std::thread server([&] {
    int c1 = accept(listener, nullptr, nullptr);
    testing::ReadHead(c1);
    testing::SendRaw(c1, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
    close(c1);  // idle close, before the client's next call
    c1_closed = true;
    int c2 = accept(listener, nullptr, nullptr);
    testing::ReadHead(c2);
    testing::SendRaw(c2, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
    testing::ReadHead(c2);
    testing::SendRaw(c2, "HTTP/1.1 200 OK\r\nContent-Le");  // breaks mid-head
    close(c2);
  });
  HttpRequest req;
  req.method = "GET";
  req.url = "http://127.0.0.1:" + std::to_string(port) + "/";
  ASSERT_TRUE(HttpFetch(req, nullptr).ok());
  // The next call must find the kept connection closed by the server: wait
  // for the close (on loopback its FIN is queued by the time close returns).
  for (int i = 0; i < 3000 && !c1_closed; ++i) std::this_thread::sleep_for(1ms);
  ASSERT_TRUE(c1_closed);
  ASSERT_TRUE(HttpFetch(req, nullptr).ok()) << "the dead connection was skipped";
  auto broken = HttpFetch(req, nullptr);
  EXPECT_FALSE(broken.ok());
  server.join();
  close(listener);
}

TEST(HttpClient, HeadResponseHasNoBody) {
  OneShotServer raw([](int fd, const std::string& head) {
    EXPECT_EQ(head.rfind("HEAD / HTTP/1.1\r\n", 0), 0u);
    testing::SendRaw(fd, "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n");
    std::this_thread::sleep_for(1500ms);
  });
  HttpRequest req;
  req.method = "HEAD";
  req.url = raw.url();
  req.read_timeout_s = 1;
  auto r = HttpFetch(req, nullptr);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->body, "");
}

}  // namespace
}  // namespace sepp::net

namespace sepp::net {
namespace {

// A listener whose accept queue is full drops further SYNs, so connect()
// hangs: the connect timeout must end it with a message naming the wait.
TEST(HttpClient, ConnectTimeout) {
  int port;
  int fd = testing::ListenLocal(&port);
  listen(fd, 0);
  std::vector<int> fillers;
  for (int i = 0; i < 8; ++i) {
    int c = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    sockaddr_in a = {};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons(static_cast<uint16_t>(port));
    connect(c, reinterpret_cast<sockaddr*>(&a), sizeof a);
    fillers.push_back(c);
  }
  std::this_thread::sleep_for(50ms);
  HttpRequest req;
  req.url = "http://127.0.0.1:" + std::to_string(port) + "/";
  req.connect_timeout_s = 0.5;
  req.read_timeout_s = 1;  // never hang here, whatever the kernel does
  auto r = HttpFetch(req, nullptr);
  for (int c : fillers) close(c);
  close(fd);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, "timeout") << r.error().message;
  EXPECT_EQ(r.error().message.rfind("timed out after 0.5 s waiting for 127.0.0.1:" + std::to_string(port) +
                                        " to accept the connection",
                                    0),
            0u)
      << r.error().message;
}

}  // namespace
}  // namespace sepp::net
