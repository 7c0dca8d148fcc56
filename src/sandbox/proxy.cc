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

bool LocalAddress(const sockaddr* sa) {
  if (sa->sa_family == AF_INET) {
    uint32_t a = ntohl(reinterpret_cast<const sockaddr_in*>(sa)->sin_addr.s_addr);
    return (a >> 24) == 127 || (a >> 16) == 0xA9FE /*169.254*/ || a == 0;
  }
  if (sa->sa_family == AF_INET6) {
    const in6_addr& a = reinterpret_cast<const sockaddr_in6*>(sa)->sin6_addr;
    if (IN6_IS_ADDR_LOOPBACK(&a) || IN6_IS_ADDR_UNSPECIFIED(&a) || IN6_IS_ADDR_LINKLOCAL(&a))
      return true;
    if (IN6_IS_ADDR_V4MAPPED(&a)) {
      uint32_t v4 = (uint32_t(a.s6_addr[12]) << 24) | (a.s6_addr[13] << 16) |
                    (a.s6_addr[14] << 8) | a.s6_addr[15];
      return (v4 >> 24) == 127 || (v4 >> 16) == 0xA9FE || v4 == 0;
    }
  }
  return false;
}

// Connects to host:port; refuses local addresses unless allow_local.
int ConnectOut(const std::string& host, const std::string& port, bool allow_local, std::string* why) {
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  int rc = getaddrinfo(host.c_str(), port.c_str(), &hints, &res);
  if (rc != 0) {
    *why = std::string("cannot resolve the host: ") + gai_strerror(rc);
    return -1;
  }
  int fd = -1;
  for (addrinfo* ai = res; ai; ai = ai->ai_next) {
    if (!allow_local && LocalAddress(ai->ai_addr)) {
      *why = "it resolves to a local address of this machine";
      continue;
    }
    fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
    if (fd < 0) continue;
    // Bounded, so that an unreachable host cannot hold up the end of a run.
    timeval tv{10, 0};
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0) {
      timeval none{0, 0};
      setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &none, sizeof none);
      break;
    }
    *why = "cannot connect: " + ErrnoText(errno);
    close(fd);
    fd = -1;
  }
  freeaddrinfo(res);
  return fd;
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

bool SplitHostPort(std::string_view hp, std::string* host, std::string* port, const char* def) {
  if (hp.empty()) return false;
  if (hp.front() == '[') {
    size_t close = hp.find(']');
    if (close == std::string_view::npos) return false;
    *host = std::string(hp.substr(1, close - 1));
    std::string_view rest = hp.substr(close + 1);
    *port = rest.size() > 1 && rest[0] == ':' ? std::string(rest.substr(1)) : def;
  } else {
    size_t colon = hp.rfind(':');
    if (colon != std::string_view::npos && hp.find(':') == colon) {
      *host = std::string(hp.substr(0, colon));
      *port = std::string(hp.substr(colon + 1));
    } else {
      *host = std::string(hp);
      *port = def;
    }
  }
  if (host->empty() || port->empty() || port->size() > 5) return false;
  for (char c : *port)
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  int p = std::stoi(*port);
  return p > 0 && p < 65536;
}

}  // namespace

bool DomainAllowed(const std::vector<std::string>& allow, std::string_view host_in) {
  std::string host = Lower(host_in);
  if (!host.empty() && host.back() == '.') host.pop_back();
  if (host.empty()) return false;
  for (const auto& entry : allow) {
    std::string e = Lower(entry);
    if (e.rfind("*.", 0) == 0) {
      std::string suffix = e.substr(1);  // ".example.com"
      if (host.size() > suffix.size() &&
          host.compare(host.size() - suffix.size(), suffix.size(), suffix) == 0)
        return true;
    } else if (host == e) {
      return true;
    }
  }
  return false;
}

EgressProxy::EgressProxy(UniqueFd listener, std::vector<std::string> allow)
    : listener_(std::move(listener)), allow_(std::move(allow)) {}

Result<std::unique_ptr<EgressProxy>> EgressProxy::Start(UniqueFd listener,
                                                        std::vector<std::string> allow_domains) {
  if (!listener.valid()) return Error::Make("the sandbox did not hand over the proxy socket", "sandbox_unavailable");
  std::unique_ptr<EgressProxy> p(new EgressProxy(std::move(listener), std::move(allow_domains)));
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

std::vector<std::string> EgressProxy::Refusals() const {
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

void EgressProxy::Refuse(int client, const std::string& host, const std::string& why) {
  std::string body = "sepp sandbox: access to " + host + " was refused: " + why + "\n";
  std::string resp = "HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain; charset=utf-8\r\n"
                     "X-Sepp-Sandbox: denied\r\nConnection: close\r\nContent-Length: " +
                     std::to_string(body.size()) + "\r\n\r\n" + body;
  SendAll(client, resp);
  std::lock_guard lock(mu_);
  std::string line = "the sandbox's proxy refused " + host + ": " + why;
  if (std::find(refusals_.begin(), refusals_.end(), line) == refusals_.end()) refusals_.push_back(line);
}

void EgressProxy::Serve(int client) {
  // Read the request head (bounded).
  std::string head;
  char buf[8192];
  while (head.find("\r\n\r\n") == std::string::npos) {
    if (head.size() > 65536) return;
    pollfd fds[2] = {{client, POLLIN, 0}, {stop_r_.get(), POLLIN, 0}};
    if (poll(fds, 2, 30000) <= 0 || fds[1].revents) return;
    ssize_t n = recv(client, buf, sizeof buf, 0);
    if (n <= 0) return;
    head.append(buf, static_cast<size_t>(n));
  }
  size_t head_end = head.find("\r\n\r\n") + 4;
  std::string rest = head.substr(head_end);
  head.resize(head_end);
  size_t line_end = head.find("\r\n");
  std::string line = head.substr(0, line_end);
  size_t sp1 = line.find(' '), sp2 = line.rfind(' ');
  if (sp1 == std::string::npos || sp2 == sp1) {
    SendAll(client, "HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n");
    return;
  }
  std::string method = line.substr(0, sp1), target = line.substr(sp1 + 1, sp2 - sp1 - 1),
              version = line.substr(sp2 + 1);
  std::string host, port;
  const std::string policy_note = "it is not on the sandbox policy's domain allowlist (network.allow_domains)";

  if (method == "CONNECT") {
    if (!SplitHostPort(target, &host, &port, "443")) {
      SendAll(client, "HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n");
      return;
    }
    if (!DomainAllowed(allow_, host)) return Refuse(client, host, policy_note);
    bool exact = std::find(allow_.begin(), allow_.end(), Lower(host)) != allow_.end();
    std::string why;
    int up = ConnectOut(host, port, exact, &why);
    if (up < 0) return Refuse(client, host, why);
    UniqueFd upstream(up);
    if (!SendAll(client, "HTTP/1.1 200 Connection established\r\n\r\n")) return;
    Pump(client, up, stop_r_.get(), rest);
    return;
  }

  // Plain HTTP: absolute-form target "http://host[:port]/path".
  if (target.rfind("http://", 0) != 0) {
    SendAll(client, "HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n"
                    "sepp sandbox: this proxy takes http:// URLs and CONNECT only\n");
    return;
  }
  std::string after = target.substr(7);
  size_t slash = after.find('/');
  std::string hostport = after.substr(0, slash);
  std::string path = slash == std::string::npos ? "/" : after.substr(slash);
  if (size_t at = hostport.rfind('@'); at != std::string::npos) hostport = hostport.substr(at + 1);
  if (!SplitHostPort(hostport, &host, &port, "80")) {
    SendAll(client, "HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n");
    return;
  }
  if (!DomainAllowed(allow_, host)) return Refuse(client, host, policy_note);
  bool exact = std::find(allow_.begin(), allow_.end(), Lower(host)) != allow_.end();
  std::string why;
  int up = ConnectOut(host, port, exact, &why);
  if (up < 0) return Refuse(client, host, why);
  UniqueFd upstream(up);
  // Origin-form request; drop hop-by-hop proxy headers; one request per
  // connection keeps the allowlist check per request.
  std::string out = method + " " + path + " " + version + "\r\n";
  size_t pos = line_end + 2;
  while (pos < head.size() - 2) {
    size_t e = head.find("\r\n", pos);
    std::string h = head.substr(pos, e - pos);
    pos = e + 2;
    std::string lower = Lower(h.substr(0, h.find(':')));
    if (lower == "proxy-connection" || lower == "proxy-authorization" || lower == "connection" ||
        lower == "keep-alive")
      continue;
    out += h + "\r\n";
  }
  out += "Connection: close\r\n\r\n";
  Pump(client, up, stop_r_.get(), out + rest);
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
