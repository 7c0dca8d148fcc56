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

#include <ifaddrs.h>

#include <atomic>
#include <mutex>
#include <optional>
#include <random>
#include <thread>

#include "net/host_name.h"
#include "sandbox/egress_address.h"
#include "sandbox/proxy.h"
#include "sandbox_fixture.h"

namespace sepp::sandbox {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// A tiny HTTP server on the host's loopback answering every request.
class TestServer {
 public:
  explicit TestServer(in_addr_t address = htonl(INADDR_LOOPBACK)) {
    fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = address;
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

// "host:port" opens that one port of a host: the service named is reached,
// another port of the same address is refused (an attacker's way from an
// allowed local model server to the host's other services).
TEST_F(ProxyTest, AHostPortEntryOpensThatPortOnly) {
  TestServer allowed, other;
  policy_.allow_domains = {"127.0.0.1:" + std::to_string(allowed.port())};
  auto ok = ViaProxy("CONNECT 127.0.0.1:" + std::to_string(allowed.port()) +
                     " HTTP/1.1\\r\\n\\r\\nGET /p HTTP/1.1\\r\\n\\r\\n");
  EXPECT_THAT(ok.output, HasSubstr("served GET /p")) << ok.output;
  auto refused = ViaProxy("GET http://127.0.0.1:" + std::to_string(other.port()) +
                          "/ HTTP/1.1\\r\\n\\r\\n");
  EXPECT_THAT(refused.output, HasSubstr("403 Forbidden"));
  EXPECT_THAT(refused.output, Not(HasSubstr("served")));
  EXPECT_FALSE(DomainAllowed(policy_.allow_domains, "127.0.0.1"));  // no port, no match
  EXPECT_FALSE(NormalizeAllowEntry("127.0.0.1:99999").ok());
  EXPECT_FALSE(NormalizeAllowEntry("127.0.0.1:").ok());
  EXPECT_EQ(*NormalizeAllowEntry("LocalHost:8080"), "localhost:8080");
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
  EXPECT_THAT(other.denials[0].text, HasSubstr("refused evil.test"));
  EXPECT_EQ(other.denials[0].kind, DenialKind::kNetwork);  // typed by the proxy
  EXPECT_EQ(other.denials[0].target, "evil.test");
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

// An IPv4 address of one of this machine's interfaces other than loopback:
// where "this machine's service" listens in the tests below.
std::optional<in_addr> InterfaceAddress() {
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) return std::nullopt;
  std::optional<in_addr> found;
  for (ifaddrs* i = list; i && !found; i = i->ifa_next) {
    if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET) continue;
    in_addr a = reinterpret_cast<sockaddr_in*>(i->ifa_addr)->sin_addr;
    if ((ntohl(a.s_addr) >> 24) != 127) found = a;
  }
  freeifaddrs(list);
  return found;
}

std::string Text(in_addr a) {
  char buf[INET_ADDRSTRLEN];
  return inet_ntop(AF_INET, &a, buf, sizeof buf);
}

// A NUL byte used to split the name: the allowlist saw the whole string
// (which ends in an allowed domain), the resolver only the part before it.
// Now the request line itself is refused (the target holds a control
// character), and a name that got that far would still meet NormalizeHost
// (tests/net/host_name_test.cc).
TEST_F(ProxyTest, ANameWithANulByteIsRefusedBeforeAnyCheck) {
  auto ip = InterfaceAddress();
  if (!ip) GTEST_SKIP() << "this machine has no IPv4 address besides loopback";
  TestServer server(ip->s_addr);
  std::string target = Text(*ip) + "\\0.example.com:" + std::to_string(server.port());
  auto tunnel = ViaProxy("CONNECT " + target + " HTTP/1.1\\r\\n\\r\\nGET /t HTTP/1.1\\r\\n\\r\\n");
  EXPECT_THAT(tunnel.output, HasSubstr("400 Bad Request")) << tunnel.output;
  EXPECT_THAT(tunnel.output, HasSubstr("the request target contains a space or a control character"));
  EXPECT_THAT(tunnel.output, Not(HasSubstr("served")));
  auto get = ViaProxy("GET http://" + target + "/x HTTP/1.1\\r\\n\\r\\n");
  EXPECT_THAT(get.output, HasSubstr("400 Bad Request")) << get.output;
  EXPECT_THAT(get.output, Not(HasSubstr("served")));
  ASSERT_FALSE(get.denials.empty());
  EXPECT_THAT(get.denials[0].text, HasSubstr("refused a request: malformed HTTP message"));
  EXPECT_EQ(get.denials[0].kind, DenialKind::kNetwork);
  EXPECT_EQ(get.denials[0].target, "");  // no host it could name
  // Control characters and numbers a resolver reads as addresses, too.
  EXPECT_THAT(ViaProxy("CONNECT 127.1:" + std::to_string(server.port()) + " HTTP/1.1\\r\\n\\r\\n").output,
              HasSubstr("400 Bad Request"));
}

// One spelling per name: the allowlist's `LocalHost` is the request's
// `localhost.`, an exact entry, so the local service is reachable.
TEST_F(ProxyTest, CaseAndTrailingDotAreNormalisedOnBothSides) {
  policy_.allow_domains = {"LocalHost"};
  TestServer server;
  std::string port = std::to_string(server.port());
  auto tunnel = ViaProxy("CONNECT localhost.:" + port + " HTTP/1.1\\r\\n\\r\\nGET /dot HTTP/1.1\\r\\n\\r\\n");
  EXPECT_THAT(tunnel.output, HasSubstr("served GET /dot")) << tunnel.output;
  auto get = ViaProxy("GET http://LOCALHOST:" + port + "/upper HTTP/1.1\\r\\n\\r\\n");
  EXPECT_THAT(get.output, HasSubstr("served GET /upper")) << get.output;
}

TEST_F(ProxyTest, AnAllowlistEntryThatIsNoNameIsRefusedBeforeTheCommandRuns) {
  policy_.allow_domains = {std::string("ok.example.com\0evil", 19)};
  auto r = Sh("echo ran");
  EXPECT_THAT(r.error, HasSubstr("network.allow_domains"));
  EXPECT_THAT(r.output, Not(HasSubstr("ran")));
}

// The proxy itself, with DNS stood in for by a resolver that points names
// at this machine's interface address, at loopback and at a private
// network: a wildcard entry reaches none of them, an exact entry does.
class ProxyResolution : public ::testing::Test {
 protected:
  std::string Ask(int port, const std::string& request) {
    int c = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<uint16_t>(port));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(connect(c, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
    send(c, request.data(), request.size(), MSG_NOSIGNAL);
    std::string got;
    char buf[4096];
    ssize_t n;
    while ((n = recv(c, buf, sizeof buf, 0)) > 0) got.append(buf, static_cast<size_t>(n));
    close(c);
    return got;
  }
};

TEST_F(ProxyResolution, WildcardsReachNeitherThisMachineNorPrivateNetworks) {
  auto ip = InterfaceAddress();
  if (!ip) GTEST_SKIP() << "this machine has no IPv4 address besides loopback";
  TestServer server(ip->s_addr);
  int listener = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in la{};
  la.sin_family = AF_INET;
  la.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(bind(listener, reinterpret_cast<sockaddr*>(&la), sizeof la), 0);
  socklen_t len = sizeof la;
  getsockname(listener, reinterpret_cast<sockaddr*>(&la), &len);
  ASSERT_EQ(listen(listener, 16), 0);
  int proxy_port = ntohs(la.sin_port);

  auto v4 = [](in_addr_t address, int port) {
    Endpoint ep{};
    auto* sin = reinterpret_cast<sockaddr_in*>(&ep.addr);
    sin->sin_family = AF_INET;
    sin->sin_port = htons(static_cast<uint16_t>(port));
    sin->sin_addr.s_addr = address;
    ep.len = sizeof(sockaddr_in);
    return ep;
  };
  Resolver resolve = [&](const std::string& host, int port) -> Result<std::vector<Endpoint>> {
    if (host == "lan.example.com") return std::vector<Endpoint>{v4(inet_addr("10.1.2.3"), port)};
    if (host == "lo.example.com") return std::vector<Endpoint>{v4(htonl(INADDR_LOOPBACK), port)};
    return std::vector<Endpoint>{v4(ip->s_addr, port)};  // this machine's own address
  };
  auto proxy = EgressProxy::Start(UniqueFd(listener), {"*.example.com", "exact.example.com"}, resolve);
  ASSERT_TRUE(proxy.ok()) << proxy.error().message;
  std::string port = std::to_string(server.port());

  std::string own = Ask(proxy_port, "CONNECT svc.example.com:" + port + " HTTP/1.1\r\n\r\n");
  EXPECT_THAT(own, HasSubstr("403 Forbidden"));
  EXPECT_THAT(own, HasSubstr("an address of this machine"));
  std::string lan = Ask(proxy_port, "GET http://lan.example.com:" + port + "/ HTTP/1.1\r\n\r\n");
  EXPECT_THAT(lan, HasSubstr("a private network address"));
  std::string lo = Ask(proxy_port, "CONNECT lo.example.com:" + port + " HTTP/1.1\r\n\r\n");
  EXPECT_THAT(lo, HasSubstr("an address of this machine"));
  // Named exactly, this machine's service is reachable (in any spelling).
  std::string exact = Ask(proxy_port,
                          "GET http://Exact.Example.com.:" + port + "/ok HTTP/1.1\r\nHost: x\r\n\r\n");
  EXPECT_THAT(exact, HasSubstr("served GET /ok")) << exact;
  bool named = false;
  for (const Denial& d : (*proxy)->Refusals())
    named = named || (d.kind == DenialKind::kNetwork && d.target == "svc.example.com" &&
                      d.text.find("svc.example.com") != std::string::npos);
  EXPECT_TRUE(named);
}

// Hostile requests against the real proxy: random heads built from HTTP's
// punctuation, NUL and control bytes. Whatever arrives, the proxy answers
// or closes, and a name reaches the resolver only in normal form and only
// when the allowlist covers it.
TEST_F(ProxyResolution, HostileRequestsReachTheResolverOnlyAsValidAllowedNames) {
  int listener = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in la{};
  la.sin_family = AF_INET;
  la.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(bind(listener, reinterpret_cast<sockaddr*>(&la), sizeof la), 0);
  socklen_t len = sizeof la;
  getsockname(listener, reinterpret_cast<sockaddr*>(&la), &len);
  ASSERT_EQ(listen(listener, 64), 0);
  std::mutex mu;
  std::vector<std::string> resolved;
  Resolver resolve = [&](const std::string& host, int) -> Result<std::vector<Endpoint>> {
    std::lock_guard lock(mu);
    resolved.push_back(host);
    return Error::Make("no DNS in this test", "io");
  };
  std::vector<std::string> allow = {"*.example.com", "ok.test"};
  auto proxy = EgressProxy::Start(UniqueFd(listener), allow, resolve);
  ASSERT_TRUE(proxy.ok()) << proxy.error().message;
  const std::vector<std::string> pieces = {
      "CONNECT ", "GET ", "http://", "HTTP/1.1", "\r\n", "\n", " ", ":", "443", "[", "]", "::1", ".",
      "example.com", "ok.test", "a.example.com", "Ok.Test.", std::string(1, '\0'), "\x01", "\x7f", "\xff",
      "@", "/", "%00", "Host: x\r\n", "Content-Length: 1\r\n", "Transfer-Encoding: chunked\r\n", "\r\n\r\n"};
  std::mt19937 rng(17);
  int answered = 0;
  for (int round = 0; round < 300; ++round) {
    std::string req = round % 3 == 0 ? "CONNECT " : round % 3 == 1 ? "GET http://" : "";
    int n = 1 + static_cast<int>(rng() % 10);
    for (int i = 0; i < n; ++i) req += pieces[rng() % pieces.size()];
    req += round % 2 ? " HTTP/1.1\r\n\r\n" : "\r\n\r\n";
    if (round % 50 == 0) req = "CONNECT A.Example.COM.:443 HTTP/1.1\r\n\r\n";  // valid ones too
    if (round % 50 == 25) req = "GET http://ok.test/x HTTP/1.1\r\nHost: ok.test\r\n\r\n";
    std::string got = Ask(ntohs(la.sin_port), req);
    if (got.rfind("HTTP/1.1 4", 0) == 0) ++answered;
  }
  EXPECT_EQ(answered, 300);  // every request got a 400 or a 403, none a connection
  std::lock_guard lock(mu);
  EXPECT_GE(resolved.size(), 12u);
  for (const auto& host : resolved) {
    auto normal = net::NormalizeHost(host);
    ASSERT_TRUE(normal.ok()) << host;
    EXPECT_EQ(*normal, host);
    EXPECT_TRUE(DomainAllowed(allow, host)) << host;
  }
}

TEST(EgressAddress, ClassifiesLocalAndPrivateRanges) {
  auto reason = [](const char* text, const std::vector<Ipv6Bytes>& own = {}) {
    sockaddr_storage ss{};
    if (inet_pton(AF_INET, text, &reinterpret_cast<sockaddr_in*>(&ss)->sin_addr) == 1) {
      ss.ss_family = AF_INET;
    } else {
      EXPECT_EQ(inet_pton(AF_INET6, text, &reinterpret_cast<sockaddr_in6*>(&ss)->sin6_addr), 1) << text;
      ss.ss_family = AF_INET6;
    }
    return RestrictedAddressReason(reinterpret_cast<sockaddr*>(&ss), own);
  };
  for (const char* local : {"127.0.0.1", "127.255.0.9", "0.0.0.0", "::1", "::", "::ffff:127.0.0.1", "::127.0.0.1"})
    EXPECT_EQ(reason(local), "an address of this machine") << local;
  for (const char* priv : {"10.0.0.1", "172.16.0.1", "172.31.255.255", "192.168.1.1", "fc00::1", "fd12::3",
                           "::ffff:10.1.1.1", "64:ff9b::a01:101"})
    EXPECT_EQ(reason(priv), "a private network address") << priv;
  for (const char* other : {"169.254.169.254", "fe80::1", "100.64.0.1", "224.0.0.1", "ff02::1", "240.0.0.1",
                            "255.255.255.255", "fec0::1"})
    EXPECT_NE(reason(other), "") << other;
  for (const char* pub : {"8.8.8.8", "172.32.0.1", "100.128.0.1", "2001:4860:4860::8888", "192.0.2.7"})
    EXPECT_EQ(reason(pub), "") << pub;
  // Any address an interface of this machine has is this machine.
  Ipv6Bytes mine{};
  mine[10] = mine[11] = 0xff;
  mine[12] = 192, mine[13] = 0, mine[14] = 2, mine[15] = 7;
  EXPECT_EQ(reason("192.0.2.7", {mine}), "an address of this machine");
  EXPECT_EQ(reason("::ffff:192.0.2.7", {mine}), "an address of this machine");
  EXPECT_FALSE(OwnInterfaceAddresses().empty());  // loopback at least
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
  EXPECT_FALSE(DomainAllowed(allow, std::string("x.github.com\0", 13)));
  EXPECT_FALSE(DomainAllowed(allow, std::string("localhost\0.github.com", 22)));
  EXPECT_FALSE(DomainAllowed({"*.2.3.4"}, "1.2.3.4"));
  EXPECT_TRUE(DomainAllowed({"LocalHost"}, "localhost."));
  EXPECT_FALSE(NormalizeAllowEntry("*.1.2.3.4").ok());
  EXPECT_FALSE(NormalizeAllowEntry("*").ok());
  EXPECT_EQ(NormalizeAllowEntry("*.GitHub.com.").value(), "*.github.com");
}

}  // namespace
}  // namespace sepp::sandbox
