// The event loop answers a keep-alive request declared inline without one
// heap allocation (parse storage, the request and the output buffer are the
// connection's, reused): counted by replacing operator new in this binary.
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>

#include <gtest/gtest.h>

#include "net/http_server.h"
#include "test_sockets.h"

namespace {
std::atomic<long> g_allocations{0};
}

void* operator new(size_t n) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
void* operator new[](size_t n) { return operator new(n); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, size_t) noexcept { std::free(p); }
void operator delete[](void* p, size_t) noexcept { std::free(p); }

namespace sepp::net {
namespace {

TEST(HttpServerAlloc, AnInlineKeepAliveRequestAllocatesNothing) {
  static const Headers kJson = {{"Content-Type", "application/json"}};
  HttpServerOptions o;
  o.answer_inline = [](const HttpServerRequest& r) { return r.target == "/v1/health"; };
  HttpServer server([](const HttpServerRequest&, ResponseWriter& w) { w.Send(200, kJson, R"({"status":"ok"})"); },
                    o);
  ASSERT_TRUE(server.Start().ok());
  int fd = testing::ConnectLocal(server.port());
  ASSERT_GE(fd, 0);
  // wrk's request, byte for byte.
  static const char kRequest[] = "GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1:2468\r\n\r\n";
  static const char kAnswer[] = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 15\r\n\r\n{\"status\":\"ok\"}";
  char buf[512];
  // No gtest assertion inside the loop: they allocate.
  auto round_trip = [&] {
    if (send(fd, kRequest, sizeof kRequest - 1, MSG_NOSIGNAL) != static_cast<ssize_t>(sizeof kRequest - 1)) return false;
    size_t got = 0;
    while (got < sizeof kAnswer - 1) {
      ssize_t n = recv(fd, buf + got, sizeof buf - got, 0);
      if (n <= 0) return false;
      got += static_cast<size_t>(n);
    }
    return got == sizeof kAnswer - 1 && std::memcmp(buf, kAnswer, got) == 0;
  };
  bool ok = true;
  for (int i = 0; i < 50; ++i) ok &= round_trip();  // the buffers reach their size
  // The counter counts (the check could not fail otherwise).
  long probe = g_allocations.load();
  auto* volatile counted = new std::string(100, 'x');
  delete counted;
  ASSERT_GT(g_allocations.load(), probe);
  long before = g_allocations.load();
  for (int i = 0; i < 2000; ++i) ok &= round_trip();
  long during = g_allocations.load() - before;
  close(fd);
  EXPECT_TRUE(ok) << std::string(buf, 100);
  EXPECT_EQ(during, 0) << "heap allocations in 2000 inline requests";
}

}  // namespace
}  // namespace sepp::net
