// EventBus: one session's event stream fanned out to many subscribers, none
// of which can stall the publisher.
//
// Publish() stamps each event with the session's next sequence number, the
// time and the session id, and copies it into every subscriber's bounded
// queue; it never blocks on a subscriber. A subscriber whose queue is full
// has fallen behind: its queue is replaced by one `subscriber.lagged` event
// (data.dropped = how many events it lost, data.last_seq = the last one it
// will not see) and it is closed, so it sees a clear signal instead of a
// silent gap, and can resynchronise from the session's state and messages.
//
// Delivery on the publisher's thread: a subscriber that sets a listener is
// not woken (no thread hand-off per event); instead, after each Publish the
// bus calls the listener on the publishing thread, outside the bus's lock.
// A listener must never block (it runs on the agent's loop, where waiting
// would stall the turn: the slow-subscriber guarantee); it may take what is
// queued (Drain) and hand anything it cannot finish at once to a thread of
// its own, woken with Wake() and waiting in Wait(). It may run while the
// publisher holds the agent's event lock or a tool's, so it must not call
// into the session either (see agent_session.h for which events).
//
// Thread-safe: Publish, Subscribe and every Subscription call may come from
// any thread.
#pragma once
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "agent/events.h"

namespace sepp::runtime {

class Subscription {
 public:
  enum class Next { kEvent, kTimeout, kClosed };

  // Waits for the next event: up to timeout_s seconds (< 0: no limit).
  // kClosed once the subscription is closed and its queue is drained.
  Next Pop(agent::Event* out, double timeout_s = -1);
  // Everything queued now, without waiting (may be empty).
  std::vector<agent::Event> Drain();
  // Appends everything queued now to *out; false when nothing was queued.
  bool DrainInto(std::vector<agent::Event>* out);
  // Waits, taking nothing, until an event is queued, the subscription is
  // closed or Wake() was called since the last Wait: up to timeout_s
  // seconds (< 0: no limit). False on timeout.
  bool Wait(double timeout_s = -1);
  // Ends a Wait now (or the next one, if none is waiting).
  void Wake();
  // Publish then calls listener on the publishing thread instead of waking
  // a waiter (see above). Set it once, before relying on it; events queued
  // before are the subscriber's to take (Drain).
  void SetListener(std::function<void()> listener);
  // Stops delivery; a blocked Pop returns kClosed. Idempotent.
  void Close();
  bool closed() const;
  // True once the subscriber fell behind and was cut off (see above).
  bool lagged() const;
  size_t capacity() const { return capacity_; }

  explicit Subscription(size_t capacity) : capacity_(capacity) {}

 private:
  friend class EventBus;
  using Listener = std::function<void()>;
  // Called by the bus with its lock held; never blocks. Returns the
  // listener to call once the bus's lock is released (null: none, a waiter
  // was woken instead).
  std::shared_ptr<const Listener> Offer(agent::Event&& e);

  const size_t capacity_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<agent::Event> queue_;
  bool closed_ = false;
  bool lagged_ = false;
  bool woken_ = false;
  std::shared_ptr<const Listener> listener_;
};

class EventBus {
 public:
  static constexpr size_t kDefaultCapacity = 8192;

  // A new subscriber sees every event published after this call, after
  // `first` if given (e.g. the session.started it missed).
  std::shared_ptr<Subscription> Subscribe(size_t capacity = kDefaultCapacity,
                                          const agent::Event* first = nullptr);
  // Stamps e (seq, time_ms, session_id) and delivers it. Never blocks on a
  // subscriber. Returns the sequence number given. call_listeners false:
  // the listeners are not called now; the caller, which holds a lock of
  // its own that listeners must not run under, calls CallListeners() once
  // it has let go of it.
  uint64_t Publish(agent::Event e, bool call_listeners = true);
  void CallListeners();
  void set_session_id(std::string id);
  std::string session_id() const;
  uint64_t last_seq() const;
  // Closes every subscription (after the last event).
  void CloseAll();

 private:
  mutable std::mutex mu_;
  std::vector<std::weak_ptr<Subscription>> subs_;
  uint64_t seq_ = 0;
  std::string session_id_;
};

}  // namespace sepp::runtime
