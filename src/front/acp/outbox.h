// The one writer of the protocol stream. Every thread (turn workers, the
// reader answering a request) hands it whole lines and never blocks on the
// peer: a line with nothing queued ahead of it is written by that thread at
// once, as far as the (non-blocking) descriptor takes it, so a reply or an
// update costs no hand-off; the rest goes to a writer thread that drains
// the queue.
// So a client that stops reading stdout cannot stall the reader thread, and
// cancel and permission answers are still read and acted on.
//
// The queue is bounded: past max_bytes, droppable lines (streamed updates)
// are dropped and counted; responses and requests are always kept (they are
// few and small, and losing one would hang the client).
#pragma once
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <thread>

#include "base/fd.h"
#include "base/json.h"

namespace sepp::front::jsonrpc {

class Outbox {
 public:
  Outbox(int fd, size_t max_bytes);
  ~Outbox();  // Close(0)
  Outbox(const Outbox&) = delete;
  Outbox& operator=(const Outbox&) = delete;

  // Queues msg as one line. False when it was dropped (queue full and
  // droppable, or the stream is closed or broken).
  bool Send(const Json& msg, bool droppable = false);
  // Writes what is queued, waiting at most timeout_ms for the peer to read,
  // then stops the writer. Later Sends are refused.
  void Close(int timeout_ms);

  uint64_t dropped() const;
  bool broken() const;  // the peer closed its end (EPIPE) or a write failed

 private:
  void Run();

  int fd_;
  size_t max_bytes_;
  UniqueFd wake_;  // eventfd: stop waiting for POLLOUT
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::string> queue_;
  size_t queued_bytes_ = 0;
  uint64_t dropped_ = 0;
  bool closing_ = false;
  bool stop_ = false;
  bool broken_ = false;
  bool writing_ = false;  // a thread is writing (lines stay in order)
  std::thread writer_;
};

}  // namespace sepp::front::jsonrpc
