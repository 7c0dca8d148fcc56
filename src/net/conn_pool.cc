#include "net/conn_pool.h"

#include "base/clock.h"

namespace sepp::net {

ConnPool& ConnPool::Shared() {
  static ConnPool* pool = new ConnPool;  // never destroyed: threads may use it at exit
  return *pool;
}

std::unique_ptr<Conn> ConnPool::Take(const std::string& key) {
  std::vector<std::unique_ptr<Conn>> dead;  // closed outside the lock
  std::unique_ptr<Conn> found;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = idle_.find(key);
    if (it == idle_.end()) return nullptr;
    double now = MonotonicSeconds();
    auto& list = it->second;
    while (!list.empty() && !found) {
      Idle last = std::move(list.back());
      list.pop_back();
      if (now - last.since <= kMaxIdleSeconds && last.conn->IdleAndOpen())
        found = std::move(last.conn);
      else
        dead.push_back(std::move(last.conn));
    }
    if (list.empty()) idle_.erase(it);
  }
  return found;
}

void ConnPool::Put(const std::string& key, std::unique_ptr<Conn> conn) {
  conn->set_wake_fd(-1);
  std::unique_ptr<Conn> evicted;
  std::lock_guard<std::mutex> lock(mu_);
  auto& list = idle_[key];
  if (list.size() >= kMaxIdlePerKey) {
    evicted = std::move(list.front().conn);
    list.erase(list.begin());
  }
  list.push_back({std::move(conn), MonotonicSeconds()});
}

}  // namespace sepp::net
