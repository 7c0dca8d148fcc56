#include "base/cancel.h"


namespace sepp {

void CancelToken::Cancel() {
  std::unique_lock<std::mutex> lock(mu_);
  if (cancelled_.exchange(true, std::memory_order_acq_rel)) return;
  // One at a time, each taken out under the lock and marked running, so that
  // Unregister() knows whether to wait for it.
  while (!callbacks_.empty()) {
    auto it = callbacks_.begin();
    std::function<void()> fn = std::move(it->second);
    running_id_ = it->first;
    running_thread_ = std::this_thread::get_id();
    callbacks_.erase(it);
    lock.unlock();
    fn();
    lock.lock();
    running_id_ = -1;
    done_running_.notify_all();
  }
}

std::unique_ptr<CancelToken::Registration> CancelToken::OnCancel(std::function<void()> fn) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!cancelled_.load(std::memory_order_acquire)) {
      int id = next_id_++;
      callbacks_.emplace(id, std::move(fn));
      return std::make_unique<Registration>(this, id);
    }
  }
  fn();
  return std::make_unique<Registration>(nullptr, 0);
}

void CancelToken::Unregister(int id) {
  std::unique_lock<std::mutex> lock(mu_);
  callbacks_.erase(id);
  if (running_thread_ == std::this_thread::get_id()) return;  // from inside the callback
  done_running_.wait(lock, [&] { return running_id_ != id; });
}

std::shared_ptr<CancelToken> CancelToken::Child() {
  auto child = std::make_shared<CancelToken>();
  std::weak_ptr<CancelToken> weak = child;
  auto reg = OnCancel([weak] {
    if (auto c = weak.lock()) c->Cancel();
  });
  std::lock_guard<std::mutex> lock(mu_);
  child_links_.push_back(std::move(reg));
  return child;
}

}  // namespace sepp
