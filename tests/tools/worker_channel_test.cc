// Who reads the session sandbox's channel (tools/tool_worker.h): the calls
// themselves, one at a time, each handing out the others' answers and
// output. These tests run calls side by side, cancel a call that is not the
// one reading, and kill the worker under calls in flight and while calls
// race to restart it: every call returns, with its own answer or an error
// that says why, and the session goes on.
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <fstream>
#include <mutex>
#include <thread>
#include <vector>

#include "worker_fixture.h"

namespace sepp::tools {
namespace {

namespace fs = std::filesystem;
using testing::WorkerTest;

bool Contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

// Counts chunks of streamed output that contain a marker; a test waits on it
// instead of sleeping.
class Seen {
 public:
  void Add(const std::string& chunk, const std::string& marker) {
    if (!Contains(chunk, marker)) return;
    std::lock_guard<std::mutex> lock(mu_);
    ++n_;
    cv_.notify_all();
  }
  void WaitFor(int n) {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return n_ >= n; });
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  int n_ = 0;
};

TEST_F(WorkerTest, CallsInFlightGetTheirOwnAnswersAndOutput) {
  for (int i = 0; i < 6; ++i) Put(ws_ / ("f" + std::to_string(i) + ".txt"), "file " +
                                  std::to_string(i) + "\n");
  // Two slow commands that stream (their output is read and handed out by
  // whichever call reads the channel) next to reads that answer at once.
  std::vector<std::string> streamed(2), results(2);
  std::vector<std::thread> threads;
  for (int b = 0; b < 2; ++b)
    threads.emplace_back([&, b] {
      ToolContext ctx = Context();
      std::string mark = "cmd" + std::to_string(b);
      ctx.on_output = [&, b](std::string_view chunk) { streamed[b] += std::string(chunk); };
      results[b] = RunTool(*registry_->Find("bash"),
                           {{"command", "for i in 1 2 3; do echo " + mark + "; sleep 0.05; done"}},
                           ctx).text;
    });
  std::atomic<int> wrong{0};
  for (int t = 0; t < 6; ++t)
    threads.emplace_back([&, t] {
      for (int k = 0; k < 20; ++k) {
        ToolResult r = Use("read", {{"path", "f" + std::to_string(t) + ".txt"}});
        if (r.is_error || !Contains(r.text, "file " + std::to_string(t))) ++wrong;
      }
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(wrong.load(), 0);
  for (int b = 0; b < 2; ++b) {
    std::string mine = "cmd" + std::to_string(b), other = "cmd" + std::to_string(1 - b);
    EXPECT_TRUE(Contains(results[b], mine)) << results[b];
    EXPECT_FALSE(Contains(results[b], other)) << results[b];
    EXPECT_TRUE(Contains(streamed[b], mine)) << streamed[b];
    EXPECT_FALSE(Contains(streamed[b], other)) << streamed[b];
  }
}

TEST_F(WorkerTest, CancelOfACallThatDoesNotReadTheChannelReturns) {
  // A is alone first, so it reads the channel; B comes while A waits in it,
  // and its output (which cancels it) is handed to it by A.
  CancelToken cancel_a, cancel_b;
  Seen a_started;
  ToolResult a, b;
  std::thread ta([&] {
    ToolContext ctx = Context(&cancel_a);
    ctx.on_output = [&](std::string_view chunk) { a_started.Add(std::string(chunk), "a-started"); };
    a = RunTool(*registry_->Find("bash"), {{"command", "echo a-started; exec sleep 600"}}, ctx);
  });
  a_started.WaitFor(1);
  {
    ToolContext ctx = Context(&cancel_b);
    ctx.on_output = [&](std::string_view chunk) {
      if (Contains(std::string(chunk), "b-started")) cancel_b.Cancel();
    };
    b = RunTool(*registry_->Find("bash"), {{"command", "echo b-started; exec sleep 600"}}, ctx);
  }
  EXPECT_TRUE(b.is_error) << b.text;
  // A still runs, and a fast call is answered meanwhile.
  ToolResult ls = Use("ls", {{"path", "."}});
  EXPECT_FALSE(ls.is_error) << ls.text;
  cancel_a.Cancel();
  ta.join();
  EXPECT_TRUE(a.is_error) << a.text;
  EXPECT_TRUE(Contains(Use("bash", {{"command", "echo next"}}).text, "next"));
}

TEST_F(WorkerTest, ACancelFromAnotherThreadWakesTheCallWaitingOnTheChannel) {
  // The lone call reads its own answer, blocked on the channel; the cancel
  // comes from another thread (as the front end's Esc does) and must wake it
  // there, not only a condition variable nobody waits on.
  for (int i = 0; i < 3; ++i) {
    CancelToken cancel;
    Seen started;
    ToolResult r;
    std::thread call([&] {
      ToolContext ctx = Context(&cancel);
      ctx.on_output = [&](std::string_view chunk) { started.Add(std::string(chunk), "started"); };
      r = RunTool(*registry_->Find("bash"), {{"command", "echo started; exec sleep 600"}}, ctx);
    });
    started.WaitFor(1);
    cancel.Cancel();
    call.join();
    EXPECT_TRUE(r.is_error) << r.text;
  }
  EXPECT_TRUE(Contains(Use("bash", {{"command", "echo next"}}).text, "next"));
}

TEST_F(WorkerTest, AWorkerKilledUnderCallsInFlightFailsThemAndRestartsOnce) {
  ASSERT_FALSE(Use("bash", {{"command", "echo old >/tmp/old"}}).is_error);
  pid_t init = worker_->sandbox_pid();
  constexpr int kCalls = 4;
  Seen started;
  std::vector<ToolResult> inflight(kCalls);
  std::vector<std::thread> threads;
  for (int i = 0; i < kCalls; ++i)
    threads.emplace_back([&, i] {
      ToolContext ctx = Context();
      ctx.on_output = [&](std::string_view chunk) { started.Add(std::string(chunk), "go"); };
      inflight[i] = RunTool(*registry_->Find("bash"), {{"command", "echo go; exec sleep 600"}},
                            ctx);
    });
  started.WaitFor(kCalls);
  // The worker is the sandbox's pid 1.
  ASSERT_GT(init, 0);
  ASSERT_EQ(kill(init, SIGKILL), 0);
  for (auto& t : threads) t.join();
  for (const auto& r : inflight) {
    EXPECT_TRUE(r.is_error) << r.text;
    EXPECT_TRUE(Contains(r.text, "did not finish")) << r.text;
  }
  // Calls race to restart it: each gets a fresh sandbox's answer (or, before
  // sepp has seen the death, an error saying so), and all see the same one.
  threads.clear();
  std::vector<std::string> answers(kCalls);
  for (int i = 0; i < kCalls; ++i)
    threads.emplace_back([&, i] {
      for (int k = 0; k < 100; ++k) {
        ToolResult r = Use("bash", {{"command", "cat /tmp/old 2>/dev/null || echo fresh; "
                                                "echo $$ >/tmp/pid-$$; ls /tmp | grep -c pid-"}});
        if (!r.is_error) {
          answers[i] = r.text;
          return;
        }
      }
    });
  for (auto& t : threads) t.join();
  for (const auto& a : answers) EXPECT_TRUE(Contains(a, "fresh")) << a;
  EXPECT_NE(worker_->sandbox_pid(), init);
  // One fresh sandbox: its /tmp holds every racing call's file.
  ToolResult all = Use("bash", {{"command", "ls /tmp | grep -c pid-"}});
  EXPECT_TRUE(Contains(all.text, std::to_string(kCalls))) << all.text;
}

TEST_F(WorkerTest, PrepareStartsTheSandboxOnceAndASessionMayEndWhileItStarts) {
  worker_->Prepare();
  worker_->Prepare();  // no second sandbox
  ToolResult r = Use("bash", {{"command", "echo one >/tmp/one"}});
  ASSERT_FALSE(r.is_error) << r.text;
  int pid = worker_->sandbox_pid();
  EXPECT_GT(pid, 0);
  worker_->Prepare();  // running: nothing to do
  EXPECT_TRUE(Contains(Use("bash", {{"command", "cat /tmp/one"}}).text, "one"));
  EXPECT_EQ(worker_->sandbox_pid(), pid);
  // Ended while its sandbox is being set up: the set-up finishes, and the
  // sandbox ends with the session (nothing waits or hangs).
  auto other = std::make_unique<ToolWorker>(policy_, ws_, SEPP_BINARY_DIR "/sepp", false);
  other->Prepare();
  other.reset();
  EXPECT_FALSE(Use("ls", {{"path", "."}}).is_error);
}

}  // namespace
}  // namespace sepp::tools
