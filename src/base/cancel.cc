#include "base/cancel.h"

#include <vector>

namespace sepp {

void CancelToken::Cancel() {
  std::map<int, std::function<void()>> fns;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (cancelled_.exchange(true, std::memory_order_acq_rel)) return;
    fns.swap(callbacks_);
  }
  for (auto& [id, fn] : fns) fn();
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
  std::lock_guard<std::mutex> lock(mu_);
  callbacks_.erase(id);
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
