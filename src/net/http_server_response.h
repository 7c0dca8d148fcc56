// How the server core writes answers (internal to net/): the response head,
// and the two ResponseWriters, one for the event loop (it only appends to
// the connection's output buffer: the loop sends it when the socket takes
// it) and one for worker threads (it sends at once and may wait).
#pragma once
#include <atomic>
#include <string>
#include <string_view>

#include "net/http_server.h"

namespace sepp::net::internal {

// Appends "HTTP/1.1 <status> <reason>\r\n" and the handler's headers,
// without the ones the core manages (Content-Length, Transfer-Encoding,
// Connection) and without any header holding CR or LF (a handler must not
// be able to split the response). Allocates nothing once *out has room.
void AppendHead(std::string* out, int status, const Headers& headers);
void AppendNumber(std::string* out, uint64_t n, int base = 10);

// Sends all of data (MSG_NOSIGNAL), waiting for room at most timeout_s at a
// time; false on error, timeout or once stop_fd is readable.
bool SendAll(int fd, std::string_view data, double timeout_s, int stop_fd);

// The event loop's writer: answers go to *out in full, unsent. A handler on
// the loop cannot block, so the writer never waits; Upgrade is refused.
class BufferWriter : public ResponseWriter {
 public:
  BufferWriter(std::string* out, bool keep_alive, bool client_closed)
      : out_(out), keep_alive_(keep_alive), client_closed_(client_closed) {}
  bool Send(int status, const Headers& headers, std::string_view body) override;
  bool Begin(int status, const Headers& headers, bool chunked) override;
  bool Write(std::string_view piece) override;
  bool End() override;
  void Abort() override { aborted_ = true; }
  bool client_gone() const override { return aborted_ || client_closed_; }
  Result<Upgraded> Upgrade(const Headers& headers) override;

  bool answered() const { return answered_; }
  bool ended() const { return ended_; }
  bool aborted() const { return aborted_; }
  bool reusable() const { return keep_alive_ && ended_ && !aborted_; }

 private:
  std::string* out_;
  bool keep_alive_, client_closed_;
  bool answered_ = false, ended_ = false, chunked_ = true, aborted_ = false;
};

// A worker's writer: every piece goes out at once (a stream is seen as it is
// written), waiting for the socket at most timeout_s.
class StreamWriter : public ResponseWriter {
 public:
  // `in` holds what was read past the request head (handed over by Upgrade).
  StreamWriter(int fd, int stop_fd, double timeout_s, const std::atomic<bool>* stopping, bool keep_alive,
               std::string* in)
      : fd_(fd), stop_fd_(stop_fd), timeout_s_(timeout_s), stopping_(stopping), keep_alive_(keep_alive), in_(in) {}
  bool Send(int status, const Headers& headers, std::string_view body) override;
  bool Begin(int status, const Headers& headers, bool chunked) override;
  bool Write(std::string_view piece) override;
  bool End() override;
  void Abort() override;
  bool client_gone() const override;
  Result<Upgraded> Upgrade(const Headers& headers) override;

  bool answered() const { return answered_; }
  bool ended() const { return ended_; }
  bool reusable() const { return keep_alive_ && ended_ && !aborted_ && !gone_ && !upgraded_; }

 private:
  bool Put(std::string_view text);

  int fd_, stop_fd_;
  double timeout_s_;
  const std::atomic<bool>* stopping_;
  bool keep_alive_;
  std::string* in_;
  std::string text_;  // the head or chunk being sent
  bool answered_ = false, ended_ = false, chunked_ = true, aborted_ = false, upgraded_ = false;
  mutable bool gone_ = false;
};

}  // namespace sepp::net::internal
