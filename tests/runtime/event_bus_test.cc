// EventBus delivery on the publisher's thread (Subscription::SetListener):
// the listener runs where Publish was called, outside the bus's lock; a
// listener that takes nothing still cannot stall the publisher (the
// subscriber is cut off with a lag signal, as a slow reader is); Wait and
// Wake hand work to a thread of the subscriber's own.
#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <thread>
#include <vector>

#include "runtime/event_bus.h"

namespace sepp::runtime {
namespace {

using agent::Event;
using agent::EventType;

TEST(EventBusListener, RunsOnThePublishingThreadAndCanTakeTheEvent) {
  EventBus bus;
  auto sub = bus.Subscribe();
  std::mutex mu;
  std::vector<std::thread::id> threads;
  std::vector<uint64_t> seqs;
  std::weak_ptr<Subscription> weak = sub;
  sub->SetListener([&] {
    auto s = weak.lock();
    std::vector<Event> got;
    s->DrainInto(&got);
    std::lock_guard<std::mutex> l(mu);
    threads.push_back(std::this_thread::get_id());
    for (const Event& e : got) seqs.push_back(e.seq);
  });
  bus.Publish(Event(EventType::kAgentStarted));
  std::thread other([&] { bus.Publish(Event(EventType::kTurnStarted)); });
  other.join();
  std::lock_guard<std::mutex> l(mu);
  ASSERT_EQ(threads.size(), 2u);
  EXPECT_EQ(threads[0], std::this_thread::get_id());
  EXPECT_NE(threads[1], std::this_thread::get_id());
  EXPECT_EQ(seqs, (std::vector<uint64_t>{1, 2}));
}

TEST(EventBusListener, HeldUntilCallListenersWhenThePublisherAsks) {
  EventBus bus;
  auto sub = bus.Subscribe();
  std::atomic<int> calls{0};
  sub->SetListener([&] { ++calls; });
  bus.Publish(Event(EventType::kAgentStarted), false);
  EXPECT_EQ(calls, 0);
  bus.CallListeners();
  EXPECT_EQ(calls, 1);
  // Nothing queued for it: not called.
  sub->Drain();
  bus.CallListeners();
  EXPECT_EQ(calls, 1);
}

// A listener that never takes its events: the publisher goes on, the
// subscriber is cut off with one lag event, its own thread is woken.
TEST(EventBusListener, AListenerThatTakesNothingIsCutOffAndStallsNothing) {
  EventBus bus;
  auto sub = bus.Subscribe(4);
  auto other = bus.Subscribe();
  std::atomic<int> calls{0};
  sub->SetListener([&] { ++calls; });
  std::atomic<bool> woke{false};
  std::thread waiter([&] {
    sub->Wait();
    woke = true;
  });
  for (int i = 0; i < 100; ++i) bus.Publish(Event(EventType::kMessageDelta));
  waiter.join();
  EXPECT_TRUE(woke);
  EXPECT_TRUE(sub->lagged());
  EXPECT_TRUE(sub->closed());
  auto left = sub->Drain();
  ASSERT_EQ(left.size(), 1u);
  EXPECT_EQ(left[0].type, EventType::kSubscriberLagged);
  EXPECT_EQ(other->Drain().size(), 100u);
  EXPECT_FALSE(other->lagged());
  EXPECT_GE(calls, 4);
}

TEST(EventBusListener, WakeEndsAWaitWithNothingQueued) {
  EventBus bus;
  auto sub = bus.Subscribe();
  sub->SetListener([] {});
  EXPECT_FALSE(sub->Wait(0.01));  // nothing queued, not woken
  std::thread waker([&] { sub->Wake(); });
  EXPECT_TRUE(sub->Wait());
  waker.join();
  // A listener's events do not wake a waiter; they are there to take.
  bus.Publish(Event(EventType::kAgentStarted));
  EXPECT_TRUE(sub->Wait(0));
  std::vector<Event> got;
  EXPECT_TRUE(sub->DrainInto(&got));
  EXPECT_FALSE(sub->DrainInto(&got));
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].type, EventType::kAgentStarted);
}

}  // namespace
}  // namespace sepp::runtime
