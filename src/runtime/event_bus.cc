#include "runtime/event_bus.h"

#include <chrono>
#include <iterator>

#include "base/clock.h"

namespace sepp::runtime {

Subscription::Next Subscription::Pop(agent::Event* out, double timeout_s) {
  std::unique_lock<std::mutex> lock(mu_);
  auto ready = [&] { return !queue_.empty() || closed_; };
  if (timeout_s < 0) {
    cv_.wait(lock, ready);
  } else if (!cv_.wait_for(lock, std::chrono::duration<double>(timeout_s), ready)) {
    return Next::kTimeout;
  }
  if (queue_.empty()) return Next::kClosed;
  *out = std::move(queue_.front());
  queue_.pop_front();
  return Next::kEvent;
}

std::vector<agent::Event> Subscription::Drain() {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<agent::Event> out(std::make_move_iterator(queue_.begin()),
                                std::make_move_iterator(queue_.end()));
  queue_.clear();
  return out;
}

bool Subscription::DrainInto(std::vector<agent::Event>* out) {
  std::lock_guard<std::mutex> lock(mu_);
  if (queue_.empty()) return false;
  for (agent::Event& e : queue_) out->push_back(std::move(e));
  queue_.clear();
  return true;
}

bool Subscription::Wait(double timeout_s) {
  std::unique_lock<std::mutex> lock(mu_);
  auto ready = [&] { return !queue_.empty() || closed_ || woken_; };
  bool ok = true;
  if (timeout_s < 0) cv_.wait(lock, ready);
  else ok = cv_.wait_for(lock, std::chrono::duration<double>(timeout_s), ready);
  woken_ = false;
  return ok;
}

void Subscription::Wake() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    woken_ = true;
  }
  cv_.notify_all();
}

void Subscription::SetListener(std::function<void()> listener) {
  std::lock_guard<std::mutex> lock(mu_);
  listener_ = listener ? std::make_shared<const Listener>(std::move(listener)) : nullptr;
}

void Subscription::Close() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    closed_ = true;
  }
  cv_.notify_all();
}

bool Subscription::closed() const {
  std::lock_guard<std::mutex> lock(mu_);
  return closed_;
}

bool Subscription::lagged() const {
  std::lock_guard<std::mutex> lock(mu_);
  return lagged_;
}

std::shared_ptr<const Subscription::Listener> Subscription::Offer(agent::Event&& e) {
  std::shared_ptr<const Listener> listener;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (closed_) return nullptr;
    if (queue_.size() < capacity_) {
      queue_.push_back(std::move(e));
      if (listener_) return listener_;  // it takes the event: no waiter to wake
    } else {
      // Cut off: one clear signal instead of a silent gap or a stalled loop.
      agent::Event lag(agent::EventType::kSubscriberLagged);
      lag.seq = e.seq;
      lag.time_ms = e.time_ms;
      lag.session_id = e.session_id;
      lag.data = {{"dropped", queue_.size() + 1},
                  {"last_seq", e.seq},
                  {"why", "this subscriber read too slowly; its queue of " +
                              std::to_string(capacity_) +
                              " events filled up. Resynchronise from get_state and "
                              "get_messages, then subscribe again"}};
      queue_.clear();
      queue_.push_back(std::move(lag));
      lagged_ = true;
      closed_ = true;
      listener = listener_;  // and its thread is woken: the stream ended
    }
  }
  cv_.notify_one();
  return listener;
}

std::shared_ptr<Subscription> EventBus::Subscribe(size_t capacity, const agent::Event* first) {
  auto sub = std::make_shared<Subscription>(capacity < 2 ? 2 : capacity);
  std::lock_guard<std::mutex> lock(mu_);
  if (first) sub->Offer(agent::Event(*first));
  subs_.push_back(sub);
  return sub;
}

uint64_t EventBus::Publish(agent::Event e, bool call_listeners) {
  // Most buses have one or two subscribers: no allocation for the calls.
  std::shared_ptr<const Subscription::Listener> calls[4];
  std::vector<std::shared_ptr<const Subscription::Listener>> more;
  size_t n_calls = 0;
  uint64_t seq;
  {
    std::lock_guard<std::mutex> lock(mu_);
    seq = e.seq = ++seq_;
    e.time_ms = NowMs();
    if (e.session_id.empty()) e.session_id = session_id_;
    auto offer = [&](Subscription& sub, agent::Event&& ev) {
      auto l = sub.Offer(std::move(ev));
      if (!l || !call_listeners) return;
      if (n_calls < std::size(calls)) calls[n_calls++] = std::move(l);
      else more.push_back(std::move(l));
    };
    // Each subscriber its copy, and the last one the event itself.
    std::shared_ptr<Subscription> last;
    size_t live = 0;
    for (size_t i = 0; i < subs_.size(); ++i) {
      auto sub = subs_[i].lock();
      if (!sub || sub->closed()) continue;
      if (last) offer(*last, agent::Event(e));
      last = std::move(sub);
      subs_[live++] = subs_[i];
    }
    subs_.resize(live);
    if (last) offer(*last, std::move(e));
  }
  for (size_t i = 0; i < n_calls; ++i) (*calls[i])();
  for (auto& l : more) (*l)();
  return seq;
}

void EventBus::CallListeners() {
  std::vector<std::shared_ptr<const Subscription::Listener>> calls;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& w : subs_)
      if (auto sub = w.lock()) {
        std::lock_guard<std::mutex> sub_lock(sub->mu_);
        if (sub->listener_ && !sub->queue_.empty()) calls.push_back(sub->listener_);
      }
  }
  for (auto& l : calls) (*l)();
}

void EventBus::set_session_id(std::string id) {
  std::lock_guard<std::mutex> lock(mu_);
  session_id_ = std::move(id);
}

std::string EventBus::session_id() const {
  std::lock_guard<std::mutex> lock(mu_);
  return session_id_;
}

uint64_t EventBus::last_seq() const {
  std::lock_guard<std::mutex> lock(mu_);
  return seq_;
}

void EventBus::CloseAll() {
  std::vector<std::shared_ptr<Subscription>> subs;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& w : subs_)
      if (auto s = w.lock()) subs.push_back(s);
    subs_.clear();
  }
  for (auto& s : subs) s->Close();
}

}  // namespace sepp::runtime
