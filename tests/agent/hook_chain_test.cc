// HookChain::Add while events are dispatched on other threads (parallel
// tool calls): a project's hooks join a running session once the user
// trusts it. Every dispatch sees the chain as it was when it began: a
// prefix of the hooks in the order added, never a torn list.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "agent/hooks.h"

namespace sepp::agent {
namespace {

// Adds its number to the call's context: a dispatch's context lists the
// hooks it walked.
class Numbered : public LoopHooks {
 public:
  explicit Numbered(int n) : n_(n) {}
  ToolCallVerdict BeforeToolCall(const ToolCallInfo&) override {
    ToolCallVerdict v;
    v.context = std::to_string(n_);
    return v;
  }

 private:
  int n_;
};

TEST(HookChainTest, HooksAddedDuringParallelDispatchAreSeenWholeAndInOrder) {
  HookChain chain;
  constexpr int kHooks = 200;
  std::atomic<bool> done{false};
  std::atomic<int> bad{0}, dispatches{0};
  std::vector<std::thread> callers;
  for (int t = 0; t < 4; ++t)
    callers.emplace_back([&] {
      ToolCallInfo in;
      in.tool = "bash";
      while (!done.load()) {
        ToolCallVerdict v = chain.BeforeToolCall(in);
        // "0\n\n1\n\n2..." : exactly the first k hooks, in order.
        std::string want;
        int k = 0;
        for (; want.size() < v.context.size(); ++k)
          want += (k ? "\n\n" : "") + std::to_string(k);
        if (want != v.context) bad++;
        dispatches++;
      }
    });
  // Every add happens while the callers dispatch: wait (yielding) until
  // they have dispatched since the previous add.
  auto dispatched_since = [&](int seen) {
    while (dispatches.load() <= seen + 3) std::this_thread::yield();
  };
  dispatched_since(0);
  for (int i = 0; i < kHooks; ++i) {
    int seen = dispatches.load();
    chain.Add(std::make_shared<Numbered>(i));
    dispatched_since(seen);
  }
  done = true;
  for (auto& t : callers) t.join();
  EXPECT_EQ(bad.load(), 0);
  EXPECT_GT(dispatches.load(), kHooks);
  ToolCallInfo in;
  std::string all = chain.BeforeToolCall(in).context;
  EXPECT_EQ(all.substr(0, 5), "0\n\n1\n");
  EXPECT_EQ(all.substr(all.size() - 3), "199");
  EXPECT_FALSE(chain.empty());
}

}  // namespace
}  // namespace sepp::agent
