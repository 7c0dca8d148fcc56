#include "sandbox/proxy.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>

#include "base/log.h"
#include "net/host_name.h"
#include "net/http_wire.h"
#include "net/url.h"
#include "sandbox/egress_address.h"
#include "sandbox/namespaces.h"

namespace sepp::sandbox {
namespace {

std::string Lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

bool SendAll(int fd, std::string_view data) {
  while (!data.empty()) {
    ssize_t n = send(fd, data.data(), data.size(), MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

// Connects to one of `addrs`; refuses restricted ones (this machine's,
// private networks) unless the policy names the host exactly.
int ConnectOut(const std::vector<Endpoint>& addrs, bool exact, std::string* why) {
  std::vector<Ipv6Bytes> own = exact ? std::vector<Ipv6Bytes>() : OwnInterfaceAddresses();
  *why = "the name has no address";
  for (const Endpoint& ep : addrs) {
    const sockaddr* sa = reinterpret_cast<const sockaddr*>(&ep.addr);
    if (!exact) {
      std::string restricted = RestrictedAddressReason(sa, own);
      if (!restricted.empty()) {
        *why = "it resolves to " + restricted +
               ", which only a name listed exactly (not by a wildcard) in network.allow_domains may reach";
        continue;
      }
    }
    int fd = socket(sa->sa_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) continue;
    // Bounded, so that an unreachable host cannot hold up the end of a run.
    timeval tv{10, 0};
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    if (connect(fd, sa, ep.len) == 0) {
      timeval none{0, 0};
      setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &none, sizeof none);
      return fd;
    }
    *why = "cannot connect: " + ErrnoText(errno);
    close(fd);
  }
  return -1;
}

// Copies both ways until either side closes or stop becomes readable.
void Pump(int a, int b, int stop, std::string_view pending_to_b) {
  if (!pending_to_b.empty() && !SendAll(b, pending_to_b)) return;
  char buf[32768];
  bool a_open = true, b_open = true;
  while (a_open || b_open) {
    pollfd fds[3] = {{a, static_cast<short>(a_open ? POLLIN : 0), 0},
                     {b, static_cast<short>(b_open ? POLLIN : 0), 0},
                     {stop, POLLIN, 0}};
    if (poll(fds, 3, -1) < 0) {
      if (errno == EINTR) continue;
      return;
    }
    if (fds[2].revents) return;
    for (int i = 0; i < 2; ++i) {
      if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      int from = i == 0 ? a : b, to = i == 0 ? b : a;
      ssize_t n = recv(from, buf, sizeof buf, 0);
      if (n <= 0) {
        shutdown(to, SHUT_WR);
        (i == 0 ? a_open : b_open) = false;
        if (n < 0) return;
        continue;
      }
      if (!SendAll(to, std::string_view(buf, static_cast<size_t>(n)))) return;
    }
  }
}

}  // namespace

Result<std::string> NormalizeAllowEntry(std::string_view entry) {
  // "host:port" (a name or an IPv4 address, one colon): that host on that
  // one port only, for a service on this machine (a local model server, a
  // test's fake provider) where a bare address would open all its ports.
  size_t colon = entry.rfind(':');
  if (colon != std::string_view::npos && entry.find(':') == colon && entry.rfind("*.", 0) != 0) {
    auto hp = net::ParseHostPort(entry, 0);
    if (!hp.ok() || hp->port <= 0)
      return Error::Make("network.allow_domains entry \"" + std::string(entry) +
                             "\" is not a usable host:port (write \"127.0.0.1:8080\")",
                         "policy");
    auto name = net::NormalizeHost(hp->host);
    if (!name.ok())
      return Error::Make("network.allow_domains entry is not usable: " + name.error().message, "policy");
    return *name + ":" + std::to_string(hp->port);
  }
  bool wildcard = entry.rfind("*.", 0) == 0;
  auto name = net::NormalizeHost(wildcard ? entry.substr(2) : entry);
  if (!name.ok())
    return Error::Make("network.allow_domains entry is not usable: " + name.error().message +
                           " (write a host name, an IP address or \"*.example.com\")",
                       "policy");
  if (wildcard && net::IsIpLiteral(*name))
    return Error::Make("network.allow_domains: a wildcard covers names, not an IP address (\"*." + *name + "\")",
                       "policy");
  return wildcard ? "*." + *name : *name;
}

Result<std::vector<std::string>> NormalizeAllowlist(const std::vector<std::string>& allow) {
  std::vector<std::string> out;
  for (const auto& entry : allow) {
    auto e = NormalizeAllowEntry(entry);
    if (!e.ok()) return e.error();
    out.push_back(std::move(*e));
  }
  return out;
}

namespace {

// Both already normal (NormalizeHost / NormalizeAllowEntry). An entry with
// a port matches that host only on that port (port 0: a caller that has no
// port, which such an entry never matches).
bool Matches(const std::string& entry, const std::string& host, int port = 0) {
  if (entry.rfind("*.", 0) != 0) {
    size_t colon = entry.rfind(':');
    if (colon != std::string::npos && entry.find(':') == colon)
      return port > 0 && entry == host + ":" + std::to_string(port);
  }
  if (entry.rfind("*.", 0) == 0) {
    std::string_view suffix = std::string_view(entry).substr(1);  // ".example.com"
    return !net::IsIpLiteral(host) && host.size() > suffix.size() &&
           host.compare(host.size() - suffix.size(), suffix.size(), suffix) == 0;
  }
  return host == entry;
}

}  // namespace

bool DomainAllowed(const std::vector<std::string>& allow, std::string_view host_in) {
  auto host = net::NormalizeHost(host_in);
  if (!host.ok()) return false;
  for (const auto& raw : allow) {
    auto entry = NormalizeAllowEntry(raw);
    if (entry.ok() && Matches(*entry, *host)) return true;
  }
  return false;
}

Result<std::vector<Endpoint>> SystemResolve(const std::string& host, int port) {
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICSERV;
  addrinfo* res = nullptr;
  int rc = getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &res);
  if (rc != 0) return Error::Make(std::string("cannot resolve the host: ") + gai_strerror(rc), "io");
  std::vector<Endpoint> out;
  for (addrinfo* ai = res; ai; ai = ai->ai_next) {
    if (ai->ai_addrlen > sizeof(sockaddr_storage)) continue;
    Endpoint ep{};
    std::memcpy(&ep.addr, ai->ai_addr, ai->ai_addrlen);
    ep.len = ai->ai_addrlen;
    out.push_back(ep);
  }
  freeaddrinfo(res);
  return out;
}

EgressProxy::EgressProxy(UniqueFd listener, std::vector<std::string> allow, Resolver resolve)
    : listener_(std::move(listener)), allow_(std::move(allow)), resolve_(std::move(resolve)) {}

Result<std::unique_ptr<EgressProxy>> EgressProxy::Start(UniqueFd listener,
                                                        std::vector<std::string> allow_domains,
                                                        Resolver resolve) {
  if (!listener.valid()) return Error::Make("the sandbox did not hand over the proxy socket", "sandbox_unavailable");
  auto allow = NormalizeAllowlist(allow_domains);
  if (!allow.ok()) return allow.error();
  if (!resolve) resolve = SystemResolve;
  std::unique_ptr<EgressProxy> p(new EgressProxy(std::move(listener), std::move(*allow), std::move(resolve)));
  auto stop = MakePipe();
  if (!stop.ok()) return stop.error();
  p->stop_r_ = std::move(stop->first);
  p->stop_w_ = std::move(stop->second);
  p->accept_thread_ = std::thread([raw = p.get()] { raw->AcceptLoop(); });
  return p;
}

EgressProxy::~EgressProxy() {
  stop_w_.Reset();  // wakes every poll
  if (accept_thread_.joinable()) accept_thread_.join();
  std::list<Conn> conns;
  {
    std::lock_guard lock(mu_);
    conns.swap(conns_);
  }
  for (auto& c : conns)
    if (c.thread.joinable()) c.thread.join();
}

std::vector<Denial> EgressProxy::Refusals() const {
  std::lock_guard lock(mu_);
  return refusals_;
}

void EgressProxy::AcceptLoop() {
  for (;;) {
    pollfd fds[2] = {{listener_.get(), POLLIN, 0}, {stop_r_.get(), POLLIN, 0}};
    if (poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      return;
    }
    if (fds[1].revents) return;
    int c = accept4(listener_.get(), nullptr, nullptr, SOCK_CLOEXEC);
    if (c < 0) continue;
    std::lock_guard lock(mu_);
    for (auto it = conns_.begin(); it != conns_.end();) {
      if (it->done.load()) {
        it->thread.join();
        it = conns_.erase(it);
      } else {
        ++it;
      }
    }
    if (conns_.size() >= 256) {  // at most this many connections at once
      close(c);
      continue;
    }
    Conn& conn = conns_.emplace_back();
    conn.thread = std::thread([this, c, &conn] {
      Serve(c);
      close(c);
      conn.done.store(true);
    });
  }
}

// Recorded before the answer is sent: once the command has read it, it may
// exit and the run collect Refusals() at once.
void EgressProxy::Record(std::string host, std::string line) {
  std::lock_guard lock(mu_);
  for (const auto& r : refusals_)
    if (r.text == line) return;
  refusals_.push_back({DenialKind::kNetwork, std::move(host), std::move(line)});
}

void EgressProxy::Refuse(int client, const std::string& host, const std::string& why) {
  Record(host, "the sandbox's proxy refused " + host + ": " + why);
  std::string body = "sepp sandbox: access to " + host + " was refused: " + why + "\n";
  std::string resp = "HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain; charset=utf-8\r\n"
                     "X-Sepp-Sandbox: denied\r\nConnection: close\r\nContent-Length: " +
                     std::to_string(body.size()) + "\r\n\r\n" + body;
  SendAll(client, resp);
  Linger(client);
}

bool EgressProxy::Allowed(const std::string& host, int port, bool* exact) const {
  *exact = std::find(allow_.begin(), allow_.end(), host) != allow_.end() ||
           std::find(allow_.begin(), allow_.end(), host + ":" + std::to_string(port)) != allow_.end();
  for (const auto& entry : allow_)
    if (Matches(entry, host, port)) return true;
  return false;
}

void EgressProxy::Serve(int client) {
  // Read the request head (bounded).
  std::string head;
  char buf[8192];
  size_t head_end;
  while ((head_end = net::FindHeadEnd(head)) == std::string::npos) {
    if (head.size() > 65536) return BadRequest(client, "the request head is larger than 64 KiB");
    pollfd fds[2] = {{client, POLLIN, 0}, {stop_r_.get(), POLLIN, 0}};
    if (poll(fds, 2, 30000) <= 0 || fds[1].revents) return;
    ssize_t n = recv(client, buf, sizeof buf, 0);
    if (n <= 0) return;
    head.append(buf, static_cast<size_t>(n));
  }
  std::string rest = head.substr(head_end);
  head.resize(head_end);
  // One strict parser (net/http_wire.h) decides what the request is; the
  // name it yields is validated and normalised before any check, so the
  // allowlist and the resolver see the same string.
  auto req = net::ParseRequestHead(head);
  if (!req.ok()) return BadRequest(client, req.error().message);
  const std::string& method = req->line.method;
  std::string host, path;
  int port = 0;
  if (method == "CONNECT") {
    auto hp = net::ParseHostPort(req->line.target, 443);
    if (!hp.ok()) return BadRequest(client, hp.error().message);
    host = hp->host;
    port = hp->port;
  } else {
    // Plain HTTP: absolute-form target "http://host[:port]/path".
    std::string_view target = req->line.target;
    if (target.size() < 7 || Lower(target.substr(0, 7)) != "http://")
      return BadRequest(client, "this proxy takes http:// URLs and CONNECT only");
    auto url = net::ParseUrl(target);
    if (!url.ok()) return BadRequest(client, url.error().message);
    host = url->host;
    port = url->port;
    path = url->target;
  }
  const std::string policy_note = "it is not on the sandbox policy's domain allowlist (network.allow_domains)";
  bool exact = false;
  if (!Allowed(host, port, &exact)) return Refuse(client, host, policy_note);
  auto addrs = resolve_(host, port);
  if (!addrs.ok()) return Refuse(client, host, addrs.error().message);
  std::string why;
  int up = ConnectOut(*addrs, exact, &why);
  if (up < 0) return Refuse(client, host, why);
  UniqueFd upstream(up);

  if (method == "CONNECT") {
    if (!SendAll(client, "HTTP/1.1 200 Connection established\r\n\r\n")) return;
    Pump(client, up, stop_r_.get(), rest);
    return;
  }
  // Origin-form request; drop hop-by-hop proxy headers; one request per
  // connection keeps the allowlist check per request.
  std::string out = method + " " + path + " HTTP/" + std::to_string(req->line.major) + "." +
                    std::to_string(req->line.minor) + "\r\n";
  for (const auto& [name, value] : req->headers) {
    std::string lower = Lower(name);
    if (lower == "proxy-connection" || lower == "proxy-authorization" || lower == "connection" ||
        lower == "keep-alive")
      continue;
    out += name + ": " + value + "\r\n";
  }
  out += "Connection: close\r\n\r\n";
  Pump(client, up, stop_r_.get(), out + rest);
}

// After a refusal: the client may still be sending (a body, a request
// pipelined behind a CONNECT). Closing with unread bytes would reset the
// connection and could destroy the answer before it is read, so end our
// side and read what comes, a little and briefly, until the client closes.
void EgressProxy::Linger(int client) {
  shutdown(client, SHUT_WR);
  char buf[4096];
  size_t drained = 0;
  while (drained < 65536) {
    pollfd fds[2] = {{client, POLLIN, 0}, {stop_r_.get(), POLLIN, 0}};
    if (poll(fds, 2, 2000) <= 0 || fds[1].revents) return;
    ssize_t n = recv(client, buf, sizeof buf, 0);
    if (n <= 0) return;
    drained += static_cast<size_t>(n);
  }
}

void EgressProxy::BadRequest(int client, const std::string& why) {
  Record("", "the sandbox's proxy refused a request: " + why);
  std::string body = "sepp sandbox: the proxy cannot use this request: " + why + "\n";
  SendAll(client, "HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\n"
                  "X-Sepp-Sandbox: denied\r\nConnection: close\r\nContent-Length: " +
                      std::to_string(body.size()) + "\r\n\r\n" + body);
  Linger(client);
}

Result<LoopbackProxy> StartLoopbackProxy(std::vector<std::string> allow_domains, Resolver resolve) {
  UniqueFd fd(socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!fd.valid()) return Error::Make(std::string("cannot make the egress proxy's socket: ") + std::strerror(errno), "io");
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  if (bind(fd.get(), reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || listen(fd.get(), 16) != 0 ||
      getsockname(fd.get(), reinterpret_cast<sockaddr*>(&a), &len) != 0)
    return Error::Make(std::string("cannot listen on loopback for the egress proxy: ") + std::strerror(errno), "io");
  LoopbackProxy lp;
  lp.port = ntohs(a.sin_port);
  auto proxy = EgressProxy::Start(std::move(fd), std::move(allow_domains), std::move(resolve));
  if (!proxy.ok()) return proxy.error();
  lp.proxy = std::move(*proxy);
  return lp;
}

int SendProxyListener(int channel, const char** step) {
  if (int e = BringUpLoopback()) {
    *step = "bringing up loopback for the proxy";
    return e;
  }
  int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (s < 0) {
    *step = "creating the proxy socket";
    return errno;
  }
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(kProxyPort);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  int one = 1;
  setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || listen(s, 128) != 0) {
    int e = errno;
    close(s);
    *step = "listening for the proxy";
    return e;
  }
  char control[CMSG_SPACE(sizeof(int))] = {};
  char byte = 'p';
  iovec iov{&byte, 1};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  cmsghdr* cm = CMSG_FIRSTHDR(&msg);
  cm->cmsg_level = SOL_SOCKET;
  cm->cmsg_type = SCM_RIGHTS;
  cm->cmsg_len = CMSG_LEN(sizeof(int));
  memcpy(CMSG_DATA(cm), &s, sizeof(int));
  ssize_t n = sendmsg(channel, &msg, MSG_NOSIGNAL);
  int e = errno;
  close(s);
  if (n != 1) {
    *step = "handing the proxy socket to sepp";
    return e ? e : EIO;
  }
  return 0;
}

UniqueFd ReceiveProxyListener(int channel) {
  char control[CMSG_SPACE(sizeof(int))] = {};
  char byte = 0;
  iovec iov{&byte, 1};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  ssize_t n;
  while ((n = recvmsg(channel, &msg, MSG_CMSG_CLOEXEC)) < 0 && errno == EINTR) {
  }
  if (n != 1) return UniqueFd();
  cmsghdr* cm = CMSG_FIRSTHDR(&msg);
  if (!cm || cm->cmsg_type != SCM_RIGHTS) return UniqueFd();
  int fd;
  memcpy(&fd, CMSG_DATA(cm), sizeof fd);
  return UniqueFd(fd);
}

}  // namespace sepp::sandbox
