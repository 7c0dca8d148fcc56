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
// Refusals: "403 Forbidden" with a body naming the policy, and a line in
// Refusals() for the run's denials. A destination that resolves to a
// loopback, link-local or unspecified address is refused unless the policy
// names that host exactly (not by wildcard): the host's own services are
// not reachable by accident.
#pragma once
#include <atomic>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "base/fd.h"
#include "base/result.h"

namespace sepp::sandbox {

constexpr uint16_t kProxyPort = 3128;

// "example.com" matches itself; "*.example.com" matches any name below it
// (not example.com itself). Case-insensitive; a trailing dot is ignored.
bool DomainAllowed(const std::vector<std::string>& allow, std::string_view host);

class EgressProxy {
 public:
  // listener: a listening TCP socket (from the sandbox's namespace).
  static Result<std::unique_ptr<EgressProxy>> Start(UniqueFd listener,
                                                    std::vector<std::string> allow_domains);
  ~EgressProxy();  // stops accepting, closes every connection, joins threads
  EgressProxy(const EgressProxy&) = delete;
  EgressProxy& operator=(const EgressProxy&) = delete;

  std::vector<std::string> Refusals() const;

 private:
  EgressProxy(UniqueFd listener, std::vector<std::string> allow);
  void AcceptLoop();
  void Serve(int client);
  void Refuse(int client, const std::string& host, const std::string& why);

  UniqueFd listener_;
  UniqueFd stop_r_, stop_w_;
  std::vector<std::string> allow_;
  mutable std::mutex mu_;
  std::vector<std::string> refusals_;
  struct Conn {
    std::thread thread;
    std::atomic<bool> done{false};
  };
  std::list<Conn> conns_;  // guarded by mu_; finished ones are joined as new ones come
  std::thread accept_thread_;
};

// In the child: bring up loopback, listen on 127.0.0.1:kProxyPort and send
// the socket over `channel` (SCM_RIGHTS). 0 or errno.
int SendProxyListener(int channel, const char** step);

// In the parent: receive it. An invalid fd if the child sent none.
UniqueFd ReceiveProxyListener(int channel);

}  // namespace sepp::sandbox
