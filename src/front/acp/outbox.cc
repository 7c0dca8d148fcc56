#include "front/acp/outbox.h"

#include <cerrno>
#include <chrono>
#include <fcntl.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

namespace sepp::front::jsonrpc {

namespace {

enum class Wrote { kAll, kWouldBlock, kFailed };

// Writes line from `done` on until all of it is out, the non-blocking
// descriptor would block, or the write fails (EPIPE or another error: the
// peer is gone); says which.
Wrote WriteWhatFits(int fd, const std::string& line, size_t& done) {
  while (done < line.size()) {
    ssize_t n = write(fd, line.data() + done, line.size() - done);
    if (n > 0) {
      done += static_cast<size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return Wrote::kWouldBlock;
    return Wrote::kFailed;
  }
  return Wrote::kAll;
}

}  // namespace

Outbox::Outbox(int fd, size_t max_bytes)
    : fd_(fd), max_bytes_(max_bytes), wake_(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {
  // Non-blocking so that Close can give up on a peer that never reads.
  int flags = fcntl(fd_, F_GETFL);
  if (flags >= 0) fcntl(fd_, F_SETFL, flags | O_NONBLOCK);
  writer_ = std::thread([this] { Run(); });
}

Outbox::~Outbox() { Close(0); }

bool Outbox::Send(const Json& msg, bool droppable) {
  std::string line = DumpJson(msg);
  line.push_back('\n');
  std::unique_lock lock(mu_);
  if (closing_ || broken_) return false;
  if (droppable && queued_bytes_ + line.size() > max_bytes_) {
    ++dropped_;
    return false;
  }
  if (queue_.empty() && !writing_) {
    // Nothing ahead of it: written now, on this thread, as far as the peer
    // takes it without waiting (the descriptor is non-blocking); what is
    // left goes to the writer thread.
    writing_ = true;
    lock.unlock();
    size_t done = 0;
    bool ok = WriteWhatFits(fd_, line, done) != Wrote::kFailed;
    lock.lock();
    writing_ = false;
    if (!ok) {
      broken_ = true;
      cv_.notify_all();
      return false;
    }
    if (done < line.size()) {
      line.erase(0, done);
      queued_bytes_ += line.size();
      queue_.push_front(std::move(line));
    }
    // The writer thread: for the rest and what came meanwhile; Close: for
    // this write to end.
    if (!queue_.empty() || closing_) cv_.notify_all();
    return true;
  }
  queued_bytes_ += line.size();
  queue_.push_back(std::move(line));
  cv_.notify_one();
  return true;
}

void Outbox::Close(int timeout_ms) {
  {
    std::unique_lock lock(mu_);
    if (stop_) {
      if (writer_.joinable()) {
        lock.unlock();
        writer_.join();
      }
      return;
    }
    closing_ = true;
    cv_.notify_one();
    cv_.wait_for(lock, std::chrono::milliseconds(timeout_ms),
                 [&] { return (queued_bytes_ == 0 && !writing_) || broken_; });
    stop_ = true;
    cv_.notify_one();
  }
  uint64_t one = 1;
  (void)!write(wake_.get(), &one, sizeof one);
  writer_.join();
}

uint64_t Outbox::dropped() const {
  std::lock_guard lock(mu_);
  return dropped_;
}

bool Outbox::broken() const {
  std::lock_guard lock(mu_);
  return broken_;
}

// Everything queued goes out in one write (up to kBatch bytes): a burst of
// updates costs one system call, not one per message.
void Outbox::Run() {
  constexpr size_t kBatch = 256 * 1024;
  for (;;) {
    std::string line;
    {
      std::unique_lock lock(mu_);
      cv_.wait(lock, [&] { return stop_ || (!queue_.empty() && !writing_); });
      if (stop_ || broken_) return;
      writing_ = true;
      line = std::move(queue_.front());
      queue_.pop_front();
      while (!queue_.empty() && line.size() < kBatch) {
        line += queue_.front();
        queue_.pop_front();
      }
    }
    size_t done = 0;
    bool ok = true;
    for (Wrote w; (w = WriteWhatFits(fd_, line, done)) != Wrote::kAll;) {
      if (w == Wrote::kFailed) {
        ok = false;
        break;
      }
      pollfd fds[2] = {{fd_, POLLOUT, 0}, {wake_.get(), POLLIN, 0}};
      if (poll(fds, 2, -1) < 0 && errno != EINTR) {
        ok = false;
        break;
      }
      if (fds[1].revents & POLLIN) return;  // Close gave up on the peer
      if (fds[0].revents & (POLLERR | POLLHUP | POLLNVAL) && !(fds[0].revents & POLLOUT)) {
        ok = false;
        break;
      }
    }
    std::lock_guard lock(mu_);
    writing_ = false;
    queued_bytes_ -= line.size();
    if (!ok) broken_ = true;
    cv_.notify_all();
    if (!ok) return;
  }
}

}  // namespace sepp::front::jsonrpc
