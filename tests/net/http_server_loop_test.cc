// The server core's event loop under hostile and awkward clients: heads
// trickled byte by byte, many idle connections, oversized heads, half-closed
// sockets, a client that does not read its answer, pipelined requests that
// mix answers on the loop and on workers; next to well-behaved clients that
// must still be served at once.
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <atomic>
#include <mutex>
#include <set>
#include <thread>

#include <gtest/gtest.h>

#include "net/http_client.h"
#include "net/http_server.h"
#include "test_sockets.h"

namespace sepp::net {
namespace {

bool StartsWith(const std::string& s, const std::string& p) { return s.rfind(p, 0) == 0; }

size_t Count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
  return n;
}

// /inline/... answered on the loop, everything else on a worker; each
// answer names the path and where it ran.
struct Recorder {
  std::mutex mu;
  std::set<std::thread::id> inline_threads, worker_threads;

  HttpServerOptions Options(HttpServerOptions o = {}) {
    o.answer_inline = [](const HttpServerRequest& r) { return StartsWith(r.target, "/inline"); };
    return o;
  }
  HttpHandler Handler() {
    return [this](const HttpServerRequest& req, ResponseWriter& w) {
      bool on_loop = StartsWith(req.target, "/inline");
      {
        std::lock_guard<std::mutex> lock(mu);
        (on_loop ? inline_threads : worker_threads).insert(std::this_thread::get_id());
      }
      w.Send(200, {{"Content-Type", "text/plain"}}, (on_loop ? "loop " : "worker ") + req.target + " " + req.body);
    };
  }
};

HttpResponse Get(int port, const std::string& path) {
  HttpRequest req;
  req.method = "GET";
  req.url = "http://127.0.0.1:" + std::to_string(port) + path;
  auto r = HttpFetch(req, nullptr);
  return r.ok() ? *r : HttpResponse{};
}

TEST(HttpServerLoop, InlineRequestsRunOnOneLoopThreadOthersOnWorkers) {
  Recorder rec;
  HttpServer server(rec.Handler(), rec.Options());
  ASSERT_TRUE(server.Start().ok());
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(Get(server.port(), "/inline/" + std::to_string(i)).body, "loop /inline/" + std::to_string(i) + " ");
    EXPECT_EQ(Get(server.port(), "/work").body, "worker /work ");
  }
  std::lock_guard<std::mutex> lock(rec.mu);
  EXPECT_EQ(rec.inline_threads.size(), 1u) << "every inline answer comes from the event loop";
  EXPECT_EQ(rec.inline_threads.count(std::this_thread::get_id()), 0u);
  for (auto id : rec.worker_threads) EXPECT_EQ(rec.inline_threads.count(id), 0u) << "workers are not the loop";
}

TEST(HttpServerLoop, PipelinedAnswersKeepTheOrderOfTheRequests) {
  Recorder rec;
  HttpServer server(rec.Handler(), rec.Options());
  ASSERT_TRUE(server.Start().ok());
  int fd = testing::ConnectLocal(server.port());
  testing::SendRaw(fd,
                   "GET /work1 HTTP/1.1\r\n\r\n"
                   "GET /inline2 HTTP/1.1\r\n\r\n"
                   "POST /work3 HTTP/1.1\r\nContent-Length: 3\r\n\r\nabc"
                   "POST /inline4 HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nxy\r\n0\r\n\r\n"
                   "GET /inline5 HTTP/1.1\r\nConnection: close\r\n\r\n");
  std::string out = testing::ReadUntilClose(fd);
  close(fd);
  size_t a = out.find("worker /work1 "), b = out.find("loop /inline2 "), c = out.find("worker /work3 abc"),
         d = out.find("loop /inline4 xy"), e = out.find("loop /inline5 ");
  ASSERT_NE(e, std::string::npos) << out;
  EXPECT_TRUE(a < b && b < c && c < d && d < e) << out;
  EXPECT_EQ(Count(out, "HTTP/1.1 200 OK"), 5u) << out;
}

TEST(HttpServerLoop, AHeadTrickledByteByByteIsServed) {
  Recorder rec;
  HttpServer server(rec.Handler(), rec.Options());
  ASSERT_TRUE(server.Start().ok());
  for (std::string path : {"/inline/trickle", "/work/trickle"}) {
    int fd = testing::ConnectLocal(server.port());
    std::string req = "POST " + path + " HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nConnection: close\r\n\r\nbody";
    for (char ch : req) {
      testing::SendRaw(fd, std::string(1, ch));
      // Each byte its own segment, so the loop sees every partial head.
      std::this_thread::yield();
    }
    std::string out = testing::ReadUntilClose(fd);
    close(fd);
    EXPECT_TRUE(StartsWith(out, "HTTP/1.1 200 OK\r\n")) << out;
    EXPECT_NE(out.find(path + " body"), std::string::npos) << out;
  }
}

TEST(HttpServerLoop, ManyIdleConnectionsNeitherBlockOthersNorStayForever) {
  Recorder rec;
  HttpServerOptions o;
  o.idle_timeout_s = 0.5;
  o.max_connections = 400;
  HttpServer server(rec.Handler(), rec.Options(o));
  ASSERT_TRUE(server.Start().ok());
  std::vector<int> idle;
  for (int i = 0; i < 300; ++i) idle.push_back(testing::ConnectLocal(server.port()));
  for (int fd : idle) ASSERT_GE(fd, 0);
  // Served at once next to 300 silent connections.
  EXPECT_EQ(Get(server.port(), "/inline/busy").body, "loop /inline/busy ");
  EXPECT_EQ(Get(server.port(), "/work/busy").body, "worker /work/busy ");
  // The idle ones are closed once their idle time is up (EOF, no answer).
  for (int fd : idle) {
    EXPECT_EQ(testing::ReadUntilClose(fd, 10000), "");
    close(fd);
  }
}

TEST(HttpServerLoop, AHeadGrowingPastTheLimitIsRefusedWithoutWaitingForItsEnd) {
  Recorder rec;
  HttpServerOptions o;
  o.max_head_bytes = 2048;
  HttpServer server(rec.Handler(), rec.Options(o));
  ASSERT_TRUE(server.Start().ok());
  int fd = testing::ConnectLocal(server.port());
  testing::SendRaw(fd, "GET /inline HTTP/1.1\r\n");
  // Header lines keep coming, the blank line never does.
  for (int i = 0; i < 10; ++i) testing::SendRaw(fd, "X-Filler: " + std::string(400, 'f') + "\r\n");
  std::string out = testing::ReadUntilClose(fd);
  close(fd);
  EXPECT_TRUE(StartsWith(out, "HTTP/1.1 431 ")) << out;
  EXPECT_EQ(Get(server.port(), "/inline/after").body, "loop /inline/after ");
}

TEST(HttpServerLoop, HalfClosedClientsGetEveryAnswerThenTheClose) {
  Recorder rec;
  HttpServer server(rec.Handler(), rec.Options());
  ASSERT_TRUE(server.Start().ok());
  int fd = testing::ConnectLocal(server.port());
  testing::SendRaw(fd, "GET /inline/a HTTP/1.1\r\n\r\nGET /work/b HTTP/1.1\r\n\r\nGET /inline/c HTTP/1.1\r\n\r\n");
  shutdown(fd, SHUT_WR);  // nothing more will come; the answers must
  std::string out = testing::ReadUntilClose(fd);
  close(fd);
  EXPECT_NE(out.find("loop /inline/a"), std::string::npos) << out;
  EXPECT_NE(out.find("worker /work/b"), std::string::npos) << out;
  EXPECT_NE(out.find("loop /inline/c"), std::string::npos) << out;
  // Half a head, then the half-close: dropped without an answer.
  int half = testing::ConnectLocal(server.port());
  testing::SendRaw(half, "GET /inline/never HTT");
  shutdown(half, SHUT_WR);
  EXPECT_EQ(testing::ReadUntilClose(half), "");
  close(half);
}

TEST(HttpServerLoop, OldAndClosingClientsAreClosedAfterTheirAnswer) {
  Recorder rec;
  HttpServer server(rec.Handler(), rec.Options());
  ASSERT_TRUE(server.Start().ok());
  for (std::string path : {"/inline/x", "/work/x"}) {
    // ReadUntilClose returns only once the server closes.
    int fd = testing::ConnectLocal(server.port());
    testing::SendRaw(fd, "GET " + path + " HTTP/1.0\r\n\r\n");
    std::string out = testing::ReadUntilClose(fd);
    close(fd);
    EXPECT_NE(out.find("Connection: close"), std::string::npos) << out;
    EXPECT_NE(out.find(path), std::string::npos) << out;
    fd = testing::ConnectLocal(server.port());
    testing::SendRaw(fd, "GET " + path + " HTTP/1.1\r\nConnection: close\r\n\r\nGET /never HTTP/1.1\r\n\r\n");
    out = testing::ReadUntilClose(fd);
    close(fd);
    EXPECT_EQ(Count(out, "HTTP/1.1 200"), 1u) << "nothing is answered after Connection: close: " << out;
  }
}

TEST(HttpServerLoop, AClientThatDoesNotReadDoesNotStallTheLoop) {
  const std::string big(4 << 20, 'z');
  HttpServerOptions o;
  o.answer_inline = [](const HttpServerRequest&) { return true; };
  HttpServer server(
      [&](const HttpServerRequest& req, ResponseWriter& w) {
        w.Send(200, {}, req.target == "/big" ? std::string_view(big) : std::string_view("small"));
      },
      o);
  ASSERT_TRUE(server.Start().ok());
  int hog = testing::ConnectLocal(server.port());
  // Four answers of 4 MB, far more than the socket buffers hold, unread.
  testing::SendRaw(hog, "GET /big HTTP/1.1\r\n\r\nGET /big HTTP/1.1\r\n\r\nGET /big HTTP/1.1\r\n\r\n"
                        "GET /big HTTP/1.1\r\nConnection: close\r\n\r\n");
  for (int i = 0; i < 20; ++i) EXPECT_EQ(Get(server.port(), "/small").body, "small");
  std::string out = testing::ReadUntilClose(hog, 30000);
  close(hog);
  EXPECT_EQ(Count(out, "HTTP/1.1 200 OK"), 4u);
  EXPECT_EQ(static_cast<size_t>(std::count(out.begin(), out.end(), 'z')), 4 * big.size()) << "every answer arrived whole";
}

TEST(HttpServerLoop, ExpectContinueIsAnsweredBeforeTheBody) {
  Recorder rec;
  HttpServer server(rec.Handler(), rec.Options());
  ASSERT_TRUE(server.Start().ok());
  for (std::string path : {"/inline/up", "/work/up"}) {
    int fd = testing::ConnectLocal(server.port());
    testing::SendRaw(fd, "POST " + path + " HTTP/1.1\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n");
    // The body is sent only after the 100: a server that waited for the
    // body first would never answer.
    EXPECT_TRUE(StartsWith(testing::ReadHead(fd), "HTTP/1.1 100 Continue")) << path;
    testing::SendRaw(fd, "hello");
    EXPECT_TRUE(StartsWith(testing::ReadHead(fd), "HTTP/1.1 200 OK")) << path;
    close(fd);
  }
}

// A child between fork and exec holds a copy of every descriptor (the
// processes API starts its children so): a connection the loop closes then
// stays in the epoll set unless the loop removes it first, and its events
// would arrive with a pointer to the freed connection.
TEST(HttpServerLoop, ConnectionsClosedWhileAForkedChildHoldsTheirDescriptorsAreForgotten) {
  Recorder rec;
  HttpServer server(rec.Handler(), rec.Options());
  ASSERT_TRUE(server.Start().ok());
  std::vector<int> clients;
  for (int i = 0; i < 20; ++i) {
    clients.push_back(testing::ConnectLocal(server.port()));
    testing::SendRaw(clients.back(), "GET /inline/held HTTP/1.1\r\n\r\n");
    ASSERT_TRUE(StartsWith(testing::ReadHead(clients.back()), "HTTP/1.1 200 "));
  }
  int release[2];
  ASSERT_EQ(pipe(release), 0);
  pid_t child = fork();
  if (child == 0) {  // holds the server's descriptors until told to go
    prctl(PR_SET_PDEATHSIG, SIGKILL);  // a test that hangs or dies takes it along
    for (int fd : clients) close(fd);  // (not the clients': they must reach EOF)
    char c;
    (void)!read(release[0], &c, 1);
    _exit(0);
  }
  ASSERT_GT(child, 0);
  // Every client leaves (EOF and resets, which stay readable): the loop
  // closes their connections while the child still holds them.
  for (int fd : clients) close(fd);
  // New connections reuse the freed memory; each must get its own answer.
  for (int i = 0; i < 200; ++i) {
    HttpResponse r = Get(server.port(), "/inline/after-" + std::to_string(i));
    ASSERT_EQ(r.body, "loop /inline/after-" + std::to_string(i) + " ");
  }
  (void)!write(release[1], "x", 1);
  int status = 0;
  waitpid(child, &status, 0);
  close(release[0]);
  close(release[1]);
  EXPECT_EQ(Get(server.port(), "/work/end").body, "worker /work/end ");
}

}  // namespace
}  // namespace sepp::net
