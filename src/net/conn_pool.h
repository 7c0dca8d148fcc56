// Kept-alive connections, by destination, shared by every call in the
// process. Internal to net/ (http_client.cc).
//
// A provider conversation makes one request per turn to the same host; over
// TLS a fresh connection costs a TCP and a TLS handshake (two to three round
// trips) each time. Reusing an idle connection saves them. Idle connections
// are dropped after kMaxIdleSeconds (servers close theirs after a minute or
// so) or when they turn out closed; at most kMaxIdlePerKey are kept.
#pragma once
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "net/conn.h"

namespace sepp::net {

class ConnPool {
 public:
  static constexpr double kMaxIdleSeconds = 30;
  static constexpr size_t kMaxIdlePerKey = 4;

  // The process-wide pool.
  static ConnPool& Shared();

  // The most recently used idle connection for key that is still open, or
  // null.
  std::unique_ptr<Conn> Take(const std::string& key);
  // Keeps a connection whose last response was read to its end.
  void Put(const std::string& key, std::unique_ptr<Conn> conn);

 private:
  struct Idle {
    std::unique_ptr<Conn> conn;
    double since;  // MonotonicSeconds()
  };
  std::mutex mu_;
  std::map<std::string, std::vector<Idle>> idle_;
};

}  // namespace sepp::net
