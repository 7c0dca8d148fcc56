// TLS against certificates made at test time (SSL_CERT_FILE points at a
// throwaway CA), and proxies through a tiny in-test CONNECT proxy.
#include <poll.h>
#include <stdlib.h>

#include <atomic>
#include <map>
#include <optional>

#include <gtest/gtest.h>

#include "base/file.h"
#include "net/http_client.h"
#include "net/tls.h"
#include "test_tls.h"

namespace sepp::net {
namespace {

using testing::KeyAndCert;
using testing::MakeCert;
using testing::TlsServer;

std::string Ok200(const std::string& body) {
  return "HTTP/1.1 200 OK\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
}

class TlsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ca_ = MakeCert("sepp test CA", "", true, nullptr);
    leaf_ = MakeCert("localhost", "DNS:localhost,DNS:fake-api.test,IP:127.0.0.1", false, &ca_);
    ca_path_ = ::testing::TempDir() + "/sepp_test_ca_" +
               ::testing::UnitTest::GetInstance()->current_test_info()->name() + ".pem";
    ASSERT_TRUE(WriteFileAtomic(ca_path_, ca_.cert_pem).ok());
    for (const char* v : {"SSL_CERT_FILE", "SSL_CERT_DIR"}) {
      const char* old = getenv(v);
      saved_[v] = old ? std::optional<std::string>(old) : std::nullopt;
    }
    unsetenv("SSL_CERT_DIR");
    setenv("SSL_CERT_FILE", ca_path_.c_str(), 1);
  }
  void TearDown() override {
    for (const auto& [k, v] : saved_) {
      if (v) setenv(k.c_str(), v->c_str(), 1);
      else unsetenv(k.c_str());
    }
    for (const char* v : {"HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "NO_PROXY", "no_proxy"}) unsetenv(v);
  }
  KeyAndCert ca_, leaf_;
  std::string ca_path_;
  std::map<std::string, std::optional<std::string>> saved_;
};

TEST_F(TlsTest, VerifiedFetchByNameSendsSni) {
  TlsServer server(leaf_, [](const std::string& head) { return Ok200("secure " + head.substr(0, head.find('\r'))); });
  HttpRequest req;
  req.method = "GET";
  req.url = "https://localhost:" + std::to_string(server.port()) + "/v1/models";
  auto r = HttpFetch(req, nullptr);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->body, "secure GET /v1/models HTTP/1.1");
  ASSERT_EQ(server.sni().size(), 1u);
  EXPECT_EQ(server.sni()[0], "localhost");
}


// Over TLS a new connection costs a TCP and a TLS handshake; later calls to
// the same host reuse the first connection (one handshake for three calls).
TEST_F(TlsTest, LaterCallsReuseTheTlsConnection) {
  TlsServer server(leaf_, [](const std::string& head) { return Ok200(head.substr(0, head.find('\r'))); });
  for (const char* path : {"/a", "/b", "/c"}) {
    HttpRequest req;
    req.method = "GET";
    req.url = "https://localhost:" + std::to_string(server.port()) + path;
    auto r = HttpFetch(req, nullptr);
    ASSERT_TRUE(r.ok()) << r.error().message;
    EXPECT_EQ(r->body, std::string("GET ") + path + " HTTP/1.1");
  }
  EXPECT_EQ(server.sni().size(), 1u) << "one TLS handshake";
}
TEST_F(TlsTest, VerifiedFetchByIpAddress) {
  TlsServer server(leaf_, [](const std::string&) { return Ok200("ip ok"); });
  HttpRequest req;
  req.url = "https://127.0.0.1:" + std::to_string(server.port()) + "/";
  auto r = HttpFetch(req, nullptr);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->body, "ip ok");
}

TEST_F(TlsTest, ChunkedStreamOverTls) {
  TlsServer server(leaf_, [](const std::string&) {
    return std::string("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n");
  });
  HttpRequest req;
  req.url = "https://localhost:" + std::to_string(server.port()) + "/";
  auto r = HttpFetch(req, nullptr);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->body, "hello world");
}

TEST_F(TlsTest, WrongHostnameIsRefused) {
  KeyAndCert other = MakeCert("other.example", "DNS:other.example", false, &ca_);
  TlsServer server(other, [](const std::string&) { return Ok200("should not get here"); });
  HttpRequest req;
  req.url = "https://localhost:" + std::to_string(server.port()) + "/";
  auto r = HttpFetch(req, nullptr);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, "tls");
  EXPECT_EQ(r.error().message.rfind("TLS certificate of localhost did not verify: hostname mismatch", 0), 0u)
      << r.error().message;
}

TEST_F(TlsTest, UntrustedIssuerIsRefused) {
  KeyAndCert rogue_ca = MakeCert("rogue CA", "", true, nullptr);
  KeyAndCert rogue = MakeCert("localhost", "DNS:localhost", false, &rogue_ca);
  TlsServer server(rogue, [](const std::string&) { return Ok200("should not get here"); });
  HttpRequest req;
  req.url = "https://localhost:" + std::to_string(server.port()) + "/";
  auto r = HttpFetch(req, nullptr);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, "tls");
  EXPECT_NE(r.error().message.find("did not verify: unable to get local issuer certificate"), std::string::npos)
      << r.error().message;
  EXPECT_NE(r.error().message.find("SSL_CERT_FILE"), std::string::npos);
}

TEST_F(TlsTest, PlainHttpServerOnAnHttpsUrl) {
  testing::OneShotServer plain([](int fd, const std::string&) {});
  // OneShotServer waits for a request head, which a TLS client never sends:
  // the client's handshake fails when the server closes.
  HttpRequest req;
  req.url = "https://127.0.0.1:" + std::to_string(plain.port()) + "/";
  req.connect_timeout_s = 2;
  auto r = HttpFetch(req, nullptr);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.error().kind == "tls" || r.error().kind == "timeout") << r.error().kind << ": " << r.error().message;
}

TEST_F(TlsTest, CaSourceFollowsTheEnvironment) {
  EXPECT_EQ(DescribeCaSource(), "SSL_CERT_FILE=" + ca_path_);
  setenv("SSL_CERT_DIR", "/nonexistent-dir", 1);
  EXPECT_EQ(DescribeCaSource(), "SSL_CERT_FILE=" + ca_path_ + ", SSL_CERT_DIR=/nonexistent-dir");
  unsetenv("SSL_CERT_FILE");
  unsetenv("SSL_CERT_DIR");
  EXPECT_EQ(DescribeCaSource().find("SSL_CERT"), std::string::npos) << "probed: " << DescribeCaSource();
}

// A CONNECT proxy for one test: tunnels every CONNECT to 127.0.0.1:target
// whatever host it names (so names need no DNS), answers absolute-URI http
// requests itself, and can demand Basic credentials.
class TinyProxy {
 public:
  TinyProxy(int target_port, std::string required_auth = "")
      : target_port_(target_port), required_auth_(std::move(required_auth)) {
    listen_fd_ = testing::ListenLocal(&port_);
    thread_ = std::thread([this] {
      for (;;) {
        int c = accept(listen_fd_, nullptr, nullptr);
        if (c < 0) return;
        active_fd_ = c;
        Serve(c);
        active_fd_ = -1;
        close(c);
      }
    });
  }
  ~TinyProxy() {
    shutdown(listen_fd_, SHUT_RDWR);
    int active = active_fd_.load();
    if (active >= 0) shutdown(active, SHUT_RDWR);  // a kept-alive tunnel
    thread_.join();
    close(listen_fd_);
  }
  int port() const { return port_; }
  std::vector<std::string> heads;

 private:
  void Serve(int c) {
    std::string head = testing::ReadHead(c);
    heads.push_back(head);
    if (!required_auth_.empty() && head.find("Proxy-Authorization: " + required_auth_ + "\r\n") == std::string::npos) {
      testing::SendRaw(c, "HTTP/1.1 407 Proxy Authentication Required\r\nContent-Length: 0\r\n\r\n");
      return;
    }
    if (head.rfind("CONNECT ", 0) != 0) {
      testing::SendRaw(c, Ok200("proxied " + head.substr(0, head.find('\r'))));
      return;
    }
    int up = testing::ConnectLocal(target_port_);
    testing::SendRaw(c, "HTTP/1.1 200 Connection established\r\n\r\n");
    char buf[16384];
    for (;;) {
      pollfd p[2] = {{c, POLLIN, 0}, {up, POLLIN, 0}};
      if (poll(p, 2, 5000) <= 0) break;
      int from = (p[0].revents & (POLLIN | POLLHUP)) ? c : up;
      int to = from == c ? up : c;
      ssize_t n = recv(from, buf, sizeof buf, 0);
      if (n <= 0) break;
      testing::SendRaw(to, std::string(buf, static_cast<size_t>(n)));
    }
    close(up);
  }
  int target_port_;
  std::string required_auth_;
  int listen_fd_ = -1, port_ = 0;
  std::atomic<int> active_fd_{-1};
  std::thread thread_;
};

TEST_F(TlsTest, HttpsThroughConnectProxyWithBasicAuth) {
  TlsServer server(leaf_, [](const std::string&) { return Ok200("tunnelled"); });
  TinyProxy proxy(server.port(), "Basic dXNlcjpwQHNz");  // user:p@ss
  HttpRequest req;
  req.url = "https://fake-api.test/v1/messages";
  req.proxy = "http://user:p%40ss@127.0.0.1:" + std::to_string(proxy.port());
  auto r = HttpFetch(req, nullptr);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->body, "tunnelled");
  ASSERT_EQ(proxy.heads.size(), 1u);
  EXPECT_EQ(proxy.heads[0].rfind("CONNECT fake-api.test:443 HTTP/1.1\r\n", 0), 0u) << proxy.heads[0];
  EXPECT_EQ(server.sni(), std::vector<std::string>{"fake-api.test"}) << "TLS is end to end, with the real name";
}

TEST_F(TlsTest, HttpsProxyFromTheEnvironment) {
  TlsServer server(leaf_, [](const std::string&) { return Ok200("via env"); });
  TinyProxy proxy(server.port());
  setenv("HTTPS_PROXY", ("127.0.0.1:" + std::to_string(proxy.port())).c_str(), 1);
  HttpRequest req;
  req.url = "https://fake-api.test/v1/messages";
  auto r = HttpFetch(req, nullptr);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->body, "via env");
  EXPECT_EQ(proxy.heads.size(), 1u);
  EXPECT_EQ(proxy.heads[0].find("Proxy-Authorization"), std::string::npos);

  setenv("NO_PROXY", ".test", 1);  // now the client goes direct, and fake-api.test does not resolve
  req.connect_timeout_s = 5;
  auto direct = HttpFetch(req, nullptr);
  ASSERT_FALSE(direct.ok());
  EXPECT_EQ(direct.error().kind, "connect");
  EXPECT_EQ(proxy.heads.size(), 1u);
}

TEST_F(TlsTest, ProxyDemandingCredentials) {
  TlsServer server(leaf_, [](const std::string&) { return Ok200("x"); });
  TinyProxy proxy(server.port(), "Basic c29tZTpvdGhlcg==");
  HttpRequest req;
  req.url = "https://fake-api.test/";
  req.proxy = "http://127.0.0.1:" + std::to_string(proxy.port());
  auto r = HttpFetch(req, nullptr);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, "proxy");
  EXPECT_EQ(r.error().message, "proxy 127.0.0.1:" + std::to_string(proxy.port()) +
                                   " requires authentication (407) — put user:password@ in the proxy URL");
}

TEST_F(TlsTest, PlainHttpThroughProxyUsesAbsoluteUri) {
  TinyProxy proxy(0, "Basic YTpi");
  HttpRequest req;
  req.method = "GET";
  req.url = "http://api.example.test:8080/v1/x?y=1";
  req.proxy = "http://a:b@127.0.0.1:" + std::to_string(proxy.port());
  auto r = HttpFetch(req, nullptr);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->body, "proxied GET http://api.example.test:8080/v1/x?y=1 HTTP/1.1");
  EXPECT_NE(proxy.heads[0].find("Host: api.example.test:8080\r\n"), std::string::npos);
}

TEST_F(TlsTest, UnreachableProxyIsAProxyError) {
  int port;
  close(testing::ListenLocal(&port));
  HttpRequest req;
  req.url = "https://fake-api.test/";
  req.proxy = "http://secretuser:secretpass@127.0.0.1:" + std::to_string(port);
  auto r = HttpFetch(req, nullptr);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, "proxy");
  EXPECT_EQ(r.error().message.rfind("cannot reach proxy 127.0.0.1:" + std::to_string(port) + ": Connection refused", 0), 0u)
      << r.error().message;
  EXPECT_EQ(r.error().message.find("secret"), std::string::npos);
}

}  // namespace
}  // namespace sepp::net
