// Network mode "proxy": an allowed name served by a local test server is
// reachable through sepp's proxy (plain HTTP and CONNECT); everything else
// gets a refusal naming the policy, and direct connections stay impossible.
#include <arpa/inet.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <thread>

#include "sandbox/proxy.h"
#include "sandbox_fixture.h"

namespace sepp::sandbox {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// A tiny HTTP server on the host's loopback answering every request.
class TestServer {
 public:
  TestServer() {
    fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a);
    socklen_t len = sizeof a;
    getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len);
    port_ = ntohs(a.sin_port);
    listen(fd_, 16);
    thread_ = std::thread([this] {
      while (!stop_) {
        pollfd p{fd_, POLLIN, 0};
        if (poll(&p, 1, 100) <= 0) continue;
        int c = accept(fd_, nullptr, nullptr);
        if (c < 0) continue;
        char buf[4096];
        std::string req;
        while (req.find("\r\n\r\n") == std::string::npos) {
          ssize_t n = recv(c, buf, sizeof buf, 0);
          if (n <= 0) break;
          req.append(buf, static_cast<size_t>(n));
        }
        std::string first = req.substr(0, req.find("\r\n"));
        std::string body = "served " + first + "\n";
        std::string resp = "HTTP/1.1 200 OK\r\nContent-Length: " + std::to_string(body.size()) +
                           "\r\nConnection: close\r\n\r\n" + body;
        send(c, resp.data(), resp.size(), MSG_NOSIGNAL);
        close(c);
      }
    });
  }
  ~TestServer() {
    stop_ = true;
    thread_.join();
    close(fd_);
  }
  int port() const { return port_; }

 private:
  int fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

class ProxyTest : public SandboxTest {
 protected:
  void SetUp() override {
    SandboxTest::SetUp();
    policy_.net = NetMode::kProxy;
    policy_.allow_domains = {"localhost", "*.example.com"};
  }
  // A raw request to the proxy from inside, with bash's /dev/tcp.
  Outcome ViaProxy(const std::string& request) {
    return Sh("exec 3<>/dev/tcp/127.0.0.1/" + std::to_string(kProxyPort) + " && printf '" +
              request + "' >&3 && cat <&3");
  }
};

TEST_F(ProxyTest, AllowedNameIsReachableOverHttpAndConnect) {
  TestServer server;
  std::string port = std::to_string(server.port());
  auto get = ViaProxy("GET http://localhost:" + port + "/hello HTTP/1.1\\r\\nHost: localhost\\r\\n\\r\\n");
  EXPECT_THAT(get.output, HasSubstr("served GET /hello HTTP/1.1")) << get.output;
  auto tunnel = ViaProxy("CONNECT localhost:" + port + " HTTP/1.1\\r\\n\\r\\nGET /t HTTP/1.1\\r\\n\\r\\n");
  EXPECT_THAT(tunnel.output, HasSubstr("200 Connection established"));
  EXPECT_THAT(tunnel.output, HasSubstr("served GET /t"));
  auto env = Sh("echo $HTTPS_PROXY $http_proxy");
  EXPECT_THAT(env.output, HasSubstr("http://127.0.0.1:3128 http://127.0.0.1:3128"));
}

TEST_F(ProxyTest, PythonUsesTheProxy) {
  if (access("/usr/bin/python3", X_OK) != 0) GTEST_SKIP() << "python3 is not installed";
  TestServer server;
  auto r = Sh("/usr/bin/python3 -c \"import urllib.request as u; print(u.urlopen('http://localhost:" +
              std::to_string(server.port()) + "/py').read().decode())\"");
  EXPECT_THAT(r.output, HasSubstr("served GET /py")) << r.output;
}

TEST_F(ProxyTest, OtherNamesAndAddressesAreRefusedWithAReason) {
  TestServer server;
  std::string port = std::to_string(server.port());
  auto other = ViaProxy("GET http://evil.test/ HTTP/1.1\\r\\n\\r\\n");
  EXPECT_THAT(other.output, HasSubstr("403 Forbidden"));
  EXPECT_THAT(other.output, HasSubstr("not on the sandbox policy's domain allowlist"));
  ASSERT_FALSE(other.denials.empty());
  EXPECT_THAT(other.denials[0], HasSubstr("refused evil.test"));
  // The host's loopback by address is not the allowed name.
  auto ip = ViaProxy("CONNECT 127.0.0.1:" + port + " HTTP/1.1\\r\\n\\r\\n");
  EXPECT_THAT(ip.output, HasSubstr("403 Forbidden"));
  EXPECT_THAT(ip.output, Not(HasSubstr("served")));
  // The wildcard does not cover the bare domain.
  EXPECT_THAT(ViaProxy("CONNECT example.com:443 HTTP/1.1\\r\\n\\r\\n").output, HasSubstr("403"));
}

TEST_F(ProxyTest, NothingButTheProxyIsReachable) {
  TestServer server;
  std::string port = std::to_string(server.port());
  auto direct = Sh("exec 3<>/dev/tcp/127.0.0.1/" + port + " && echo connected");
  EXPECT_THAT(direct.output, Not(HasSubstr("connected")));
  auto other_port = Sh("exec 3<>/dev/tcp/127.0.0.1/80 && echo connected");
  EXPECT_THAT(other_port.output, Not(HasSubstr("connected")));
  auto udp = Sh("echo x > /dev/udp/127.0.0.1/53 && echo sent; echo x > /dev/udp/8.8.8.8/53 && echo sent2");
  EXPECT_THAT(udp.output, Not(HasSubstr("sent2")));
  EXPECT_TRUE(Attack({"listen-tcp", "8080"}).output.rfind("BLOCKED", 0) == 0);
}

TEST(ProxyDomains, Matching) {
  std::vector<std::string> allow = {"api.example.com", "*.github.com"};
  EXPECT_TRUE(DomainAllowed(allow, "api.example.com"));
  EXPECT_TRUE(DomainAllowed(allow, "API.Example.COM."));
  EXPECT_FALSE(DomainAllowed(allow, "example.com"));
  EXPECT_FALSE(DomainAllowed(allow, "api.example.com.evil.net"));
  EXPECT_TRUE(DomainAllowed(allow, "raw.github.com"));
  EXPECT_TRUE(DomainAllowed(allow, "a.b.github.com"));
  EXPECT_FALSE(DomainAllowed(allow, "github.com"));
  EXPECT_FALSE(DomainAllowed(allow, "evilgithub.com"));
  EXPECT_FALSE(DomainAllowed(allow, ""));
}

}  // namespace
}  // namespace sepp::sandbox
