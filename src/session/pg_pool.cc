#include "session/pg_pool.h"

#include <poll.h>

#include <chrono>

namespace sepp::session {
namespace {

// An idle connection has nothing to read; one the server closed (restart,
// shutdown, idle timeout) or wrote to unasked is readable.
bool StillOpen(PgConn& c) {
  if (c.broken()) return false;
  auto n = c.WaitNotifications(0);
  return n.ok();  // queued NOTIFYs on a pool connection are nobody's; dropped
}

}  // namespace

Result<PgPool::Lease> PgPool::Acquire() {
  {
    std::unique_lock lock(mu_);
    auto deadline = std::chrono::steady_clock::now() +
                    std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                        std::chrono::duration<double>(config_.connect_timeout_s));
    for (;;) {
      while (!idle_.empty()) {
        std::unique_ptr<PgConn> c = std::move(idle_.back());
        idle_.pop_back();
        ++out_;
        lock.unlock();
        if (StillOpen(*c)) return Lease(this, std::move(c));
        c.reset();
        lock.lock();
        --out_;
      }
      if (out_ < config_.pool_size) break;
      if (cv_.wait_until(lock, deadline) == std::cv_status::timeout && idle_.empty() &&
          out_ >= config_.pool_size)
        return Error::Make("all " + std::to_string(config_.pool_size) +
                               " connections to the PostgreSQL store are busy (raise pool_size "
                               "in the store URL)",
                           "unavailable");
    }
    ++out_;
  }
  auto c = PgConn::Connect(config_);
  if (!c.ok()) {
    std::lock_guard lock(mu_);
    --out_;
    cv_.notify_one();
    return c.error();
  }
  return Lease(this, std::move(*c));
}

void PgPool::Release(std::unique_ptr<PgConn> conn) {
  std::lock_guard lock(mu_);
  --out_;
  if (!conn->broken()) idle_.push_back(std::move(conn));
  cv_.notify_one();
}

}  // namespace sepp::session
