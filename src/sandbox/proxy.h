// The egress proxy for network mode "proxy": an HTTP and HTTPS (CONNECT)
// proxy that runs in sepp and lets a sandboxed command reach only the
// policy's allowed domains.
//
// The sandbox has its own network namespace with nothing but loopback. The
// child creates the listening socket there (127.0.0.1:kProxyPort) and hands
// it to sepp over a socketpair before it confines itself; sepp accepts on it.
// A socket belongs to the namespace it was made in, so connections come from
// inside while sepp connects out from the host: no forwarder process, no
// route out of the namespace. Landlock lets the command connect to that one
// port and nothing else; UDP, raw sockets and the host's loopback services
// stay out of reach. HTTP_PROXY/HTTPS_PROXY/ALL_PROXY/NO_PROXY point at it.
//
// Requests are read by net/'s strict parser (ParseRequestHead) and the
// host is validated and normalised (net::NormalizeHost: no NUL or control
// characters, one spelling per name) before the allowlist sees it, so the
// check and the resolver cannot disagree about which host is meant.
//
// Refusals: "403 Forbidden" (or "400 Bad Request" for a request it cannot
// use) with a body naming the reason, and a line in Refusals() for the
// run's denials. A destination that resolves to an address of this machine
// (loopback, any interface's address) or of a private network (see
// egress_address.h) is refused unless the policy names that host exactly
// (not by wildcard): the host's and the LAN's services are not reachable by
// accident.
#pragma once
#include <sys/socket.h>

#include <atomic>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "base/fd.h"
#include "base/result.h"
#include "sandbox/denial.h"

namespace sepp::sandbox {

constexpr uint16_t kProxyPort = 3128;

// "example.com" matches itself; "*.example.com" matches any name below it
// (not example.com itself, and no IP address); "127.0.0.1:8080" that host
// on that port only (the proxy checks the port; here, with no port to
// compare, such an entry never matches). Both sides are normalised by
// net::NormalizeHost (case, one trailing dot); a host that is not a valid
// name never matches.
bool DomainAllowed(const std::vector<std::string>& allow, std::string_view host);

// An allowlist entry in normal form ("*.example.com" or a normal host), or
// an error of kind "policy" saying what is wrong with it.
Result<std::string> NormalizeAllowEntry(std::string_view entry);
Result<std::vector<std::string>> NormalizeAllowlist(const std::vector<std::string>& allow);

struct Endpoint {
  sockaddr_storage addr;
  socklen_t len;
};
// Name to addresses. getaddrinfo in SystemResolve; tests give the proxy
// their own to stand in for DNS names that point at this machine.
using Resolver = std::function<Result<std::vector<Endpoint>>(const std::string& host, int port)>;
Result<std::vector<Endpoint>> SystemResolve(const std::string& host, int port);

class EgressProxy {
 public:
  // listener: a listening TCP socket (from the sandbox's namespace).
  // An allowlist entry that is not a valid name is an error.
  static Result<std::unique_ptr<EgressProxy>> Start(UniqueFd listener,
                                                    std::vector<std::string> allow_domains,
                                                    Resolver resolve = nullptr);
  ~EgressProxy();  // stops accepting, closes every connection, joins threads
  EgressProxy(const EgressProxy&) = delete;
  EgressProxy& operator=(const EgressProxy&) = delete;

  // What it refused, typed as network denials (target: the host, when known).
  std::vector<Denial> Refusals() const;

 private:
  EgressProxy(UniqueFd listener, std::vector<std::string> allow, Resolver resolve);
  void AcceptLoop();
  void Serve(int client);
  bool Allowed(const std::string& host, int port, bool* exact) const;
  void Refuse(int client, const std::string& host, const std::string& why);
  void BadRequest(int client, const std::string& why);
  void Linger(int client);
  void Record(std::string host, std::string refusal);

  UniqueFd listener_;
  UniqueFd stop_r_, stop_w_;
  std::vector<std::string> allow_;  // normal form
  Resolver resolve_;
  mutable std::mutex mu_;
  std::vector<Denial> refusals_;
  struct Conn {
    std::thread thread;
    std::atomic<bool> done{false};
  };
  std::list<Conn> conns_;  // guarded by mu_; finished ones are joined as new ones come
  std::thread accept_thread_;
};

// An egress proxy for sepp's own requests on a plugin's or a tool's behalf
// (sepp:net, fetch_content): listening on the host's 127.0.0.1 at a port
// the kernel picks, returned with it (proxy URL "http://127.0.0.1:PORT").
// Other local processes could connect to it too; they reach nothing more
// than the allowlist, which they could reach directly anyway.
struct LoopbackProxy {
  std::unique_ptr<EgressProxy> proxy;
  int port = 0;
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port); }
};
Result<LoopbackProxy> StartLoopbackProxy(std::vector<std::string> allow_domains,
                                         Resolver resolve = nullptr);

// In the child: bring up loopback, listen on 127.0.0.1:kProxyPort and send
// the socket over `channel` (SCM_RIGHTS). 0 or errno.
int SendProxyListener(int channel, const char** step);

// In the parent: receive it. An invalid fd if the child sent none.
UniqueFd ReceiveProxyListener(int channel);

}  // namespace sepp::sandbox
