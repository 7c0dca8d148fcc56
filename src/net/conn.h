// A TCP connection, optionally wrapped in TLS, whose every wait is bounded
// by a timeout and cut short by cancellation. Internal to net/.
#pragma once
#include <atomic>
#include <memory>
#include <string>
#include <string_view>

#include <openssl/ssl.h>

#include "base/cancel.h"
#include "base/fd.h"
#include "base/result.h"

namespace sepp::net {

// Turns a CancelToken into a readable fd that poll() can watch: the cancel
// callback writes to an eventfd, which stays readable from then on, so every
// later wait returns at once with "aborted".
// The eventfd is the thread's own, made once and reused by every request
// the thread makes (a model call then opens and closes none); a wake nested
// in another on the same thread makes its own.
class CancelWake {
 public:
  explicit CancelWake(CancelToken* token);  // token may be null
  ~CancelWake();
  CancelWake(const CancelWake&) = delete;
  CancelWake& operator=(const CancelWake&) = delete;
  int fd() const { return fd_; }
  bool fired() const;

 private:
  UniqueFd own_;  // when the thread's was in use; declared before reg_: the callback must go first
  int fd_ = -1;
  bool borrowed_ = false;  // fd_ is the thread's
  std::atomic<bool> written_{false};
  std::unique_ptr<CancelToken::Registration> reg_;
  CancelToken* token_;
};

Error AbortedError();
// "30 s", "0.5 s".
std::string Seconds(double s);

// Waits until fd is ready for `events` (POLLIN/POLLOUT), the timeout passes
// (kind "timeout", message "timed out after N s waiting for <what>") or
// wake_fd becomes readable (kind "aborted").
Status WaitFd(int fd, short events, double timeout_s, int wake_fd, std::string_view what);

class Conn {
 public:
  // Resolves host and connects to the first address that answers within the
  // timeout. `role` names the peer in messages ("" or "proxy ").
  static Result<std::unique_ptr<Conn>> Dial(const std::string& host, int port, double timeout_s,
                                            int wake_fd, std::string_view role);
  ~Conn();
  Conn(const Conn&) = delete;
  Conn& operator=(const Conn&) = delete;

  // Handshake with SNI and hostname (or IP) verification.
  Status StartTls(SSL_CTX* ctx, const std::string& host, double timeout_s);
  Status WriteAll(std::string_view data, double timeout_s);
  // Up to n bytes; 0 means the peer closed the connection.
  Result<size_t> Read(char* buf, size_t n, double idle_timeout_s);

  const std::string& peer() const { return peer_; }

  // For a kept-alive connection: the next call's cancellation fd.
  void set_wake_fd(int wake_fd) { wake_fd_ = wake_fd; }
  // True when the connection is idle and still open: nothing to read (a
  // server that closed it, or sent anything unasked, makes it readable).
  bool IdleAndOpen() const;

 private:
  Conn(UniqueFd fd, int wake_fd, std::string peer) : fd_(std::move(fd)), wake_fd_(wake_fd), peer_(std::move(peer)) {}
  Error IoError(std::string_view action, int err) const;

  UniqueFd fd_;
  int wake_fd_;
  std::string peer_;  // "host:port"
  SSL* ssl_ = nullptr;
};

}  // namespace sepp::net
