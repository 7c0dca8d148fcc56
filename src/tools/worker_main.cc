// Threads take turns as the reader of sepp's frames (leader/follower): the
// thread that reads a call hands the reader's turn to an idle thread (or a
// new one) and runs the call itself, so a call starts at once instead of
// waiting for another thread to be woken and scheduled; the wake-up of the
// next reader overlaps the call. Calls of one batch still run in parallel,
// as they would in sepp, each with its own CancelToken, which a "cancel"
// frame fires, and a second token that a "background" frame fires (bash
// then leaves its command running as a background job, background_jobs.h).
// Writes of frames are serialised by one mutex.
#include "tools/worker_main.h"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <condition_variable>
#include <vector>
#include <cstdio>
#include <map>
#include <memory>
#include <mutex>
#include <thread>

#include "base/secrets.h"
#include "sandbox/orphan_reaper.h"
#include "sandbox/run.h"
#include "tools/access.h"
#include "tools/background_jobs.h"
#include "tools/process_tools.h"
#include "tools/search_tools.h"
#include "tools/tool.h"
#include "tools/worker_protocol.h"

namespace sepp::tools {
namespace {

constexpr int kChannel = 0;

class Worker {
 public:
  explicit Worker(sandbox::Policy policy)
      : policy_(std::move(policy)),
        guard_(GuardContext(policy_), {"/tmp", "/dev/shm"}),  // this sandbox's own, below
        tools_(MakeBuiltinTools()) {
    AddSearchTools(*tools_);  // their index lives here, next to the files it reads
    AddProcessTools(*tools_);  // they read this sandbox's own /proc
  }

  // The main thread is the first reader. It never returns (the reader that
  // reads EOF ends the process), so main() cannot end under running calls.
  [[noreturn]] void Serve() {
    ReadAndRun(/*may_retire=*/false);
    for (;;) pause();  // unreachable: the main thread never retires
  }

 private:
  static ToolContext GuardContext(const sandbox::Policy& policy) {
    ToolContext ctx;
    ctx.policy = &policy;
    return ctx;
  }

  void Send(const Json& m) {
    std::lock_guard<std::mutex> lock(write_mu_);
    (void)WriteFrame(kChannel, m);
  }

  // An idle thread waits until it is given the reader's turn.
  struct Idle {
    std::condition_variable cv;
    bool reader = false;
  };

  // Runs while holding the reader's turn. Returns only when this thread
  // retires (kIdleThreads others are idle already); may_retire is false for
  // the main thread.
  void ReadAndRun(bool may_retire) {
    Idle self;
    for (;;) {
      auto frame = ReadFrame(kChannel);
      // sepp is gone or broke the protocol: end now; as pid 1 this ends the
      // rest of the sandbox.
      if (!frame.ok()) _exit(0);
      Json& m = *frame;
      auto type = m.find("type");
      auto id = m.find("id");
      if (type == m.end() || !type->is_string() || id == m.end() || !id->is_number_integer())
        continue;  // nothing sepp sends; ignored
      int64_t call_id = id->get<int64_t>();
      if (*type == "cancel" || *type == "background") {
        std::lock_guard<std::mutex> lock(mu_);
        if (auto it = running_.find(call_id); it != running_.end())
          (*type == "cancel" ? it->second.cancel : it->second.detach)->Cancel();
        continue;
      }
      if (*type != "call") continue;
      Control control{std::make_shared<CancelToken>(), std::make_shared<CancelToken>()};
      {
        std::lock_guard<std::mutex> lock(mu_);
        // Registered before the next frame is read: a cancel that follows
        // this call finds it.
        running_[call_id] = control;
        PassReaderTurn();
      }
      Finish(m, call_id, *control.cancel, control.detach.get());
      std::unique_lock<std::mutex> lock(mu_);
      running_.erase(call_id);
      if (may_retire && idle_.size() >= kIdleThreads) return;
      idle_.push_back(&self);
      self.cv.wait(lock, [&] { return self.reader; });
      self.reader = false;
    }
  }

  // Gives the reader's turn to an idle thread, or to a new one when none is
  // idle (a call may block for as long as bash runs). Called with mu_ held.
  void PassReaderTurn() {
    if (!idle_.empty()) {
      Idle* t = idle_.back();
      idle_.pop_back();
      t->reader = true;
      t->cv.notify_one();
    } else {
      std::thread([this] { ReadAndRun(/*may_retire=*/true); }).detach();
    }
  }

  void Finish(Json& message, int64_t id, CancelToken& token, CancelToken* detach) {
    Json reply = {{"type", "result"}, {"id", id}};
    try {
      CallDetachScope scope(detach);
      ToolResult r = RunOne(message, id, token);
      reply["text"] = std::move(r.text);
      reply["is_error"] = r.is_error;
      reply["truncated"] = r.truncated;
      if (!r.details.is_null()) reply["details"] = std::move(r.details);
      if (!r.denials.empty()) reply["denials"] = sandbox::DenialsToJson(r.denials);
    } catch (const std::exception& e) {
      reply["text"] = std::string("the tool worker failed: ") + e.what();
      reply["is_error"] = true;
    }
    Send(reply);
  }

  ToolResult RunOne(const Json& m, int64_t id, CancelToken& token) {
    std::string name = m.value("tool", "");
    Tool* tool = tools_->Find(name);
    if (!tool || !tool->runs_in_worker()) {
      ToolResult r;
      r.text = "the tool worker has no tool \"" + name + "\"";
      r.is_error = true;
      return r;
    }
    ToolContext ctx;
    ctx.cwd = m.value("cwd", "");
    // bash's saved outputs go to the session's own /tmp, whatever TMPDIR
    // says (the host's TMPDIR may not even be visible here): the note in
    // the result names a file that read, grep and bash can open.
    static const std::string output_dir = "/tmp/sepp-" + std::to_string(geteuid()) + "-output";
    ctx.output_dir = output_dir;
    ctx.cancel = &token;
    ctx.policy = &policy_;
    ctx.guard = &guard_;
    if (m.value("stream", false))
      ctx.on_output = [this, id](std::string_view chunk) {
        Send({{"type", "output"}, {"id", id}, {"text", std::string(chunk)}});
      };
    static const Json kEmpty = Json::object();
    auto it = m.find("args");
    return RunTool(*tool, it != m.end() ? *it : kEmpty, ctx);
  }

  const sandbox::Policy policy_;
  // One for the session: the policy and the paths as this sandbox sees
  // them (its mount plan and Landlock rules) are fixed at its set-up.
  const PathGuard guard_;
  std::unique_ptr<ToolRegistry> tools_;
  static constexpr size_t kIdleThreads = 8;
  std::mutex mu_, write_mu_;
  struct Control {
    std::shared_ptr<CancelToken> cancel, detach;
  };
  std::map<int64_t, Control> running_;  // guarded by mu_
  std::vector<Idle*> idle_;                                   // guarded by mu_
};

}  // namespace

int ToolWorkerMain() {
  // sepp closes its end to stop us; a write after that must fail, not kill.
  signal(SIGPIPE, SIG_IGN);
  // pid 1 serves the calls itself: one process (and one fork) fewer than
  // an init with the worker as its child. Being pid 1 also means that no
  // process inside can signal it (the kernel drops signals from inside the
  // namespace that pid 1 has no handler for), and that when it exits the
  // kernel kills everything else in the sandbox.
  if (getpid() == 1) sandbox::EnableOrphanReaper();
  auto hello = ReadFrame(kChannel);
  if (!hello.ok() || hello->value("type", "") != "hello") {
    fprintf(stderr, "sepp tool worker: expected a hello frame on fd 0 (this sub-command is "
                    "started by sepp itself, not by hand)\n");
    return 2;
  }
  sandbox::MarkInsideSessionSandbox();
  // Secrets the policy passes into the sandbox (env_allow_secrets) are
  // redacted here too (the saved output of bash); no other secret is ever
  // known to the worker.
  RegisterSecretsFromEnvironment();
  sandbox::Policy policy = PolicyFromJson(hello->value("policy", Json::object()));
  // Here /tmp and /dev/shm are the session's own (fresh tmpfs in its mount
  // namespace, see sandbox/mounts.cc), so the file tools may use them as
  // bash does: that is where bash's saved outputs are.
  if (policy.enabled)
    for (const char* own : {"/tmp", "/dev/shm"}) policy.write_roots.push_back(own);
  // Background jobs only where nothing can outlive the sandbox: as its pid
  // 1, whose end the kernel makes the end of every process inside.
  static BackgroundJobs jobs("/tmp/sepp-" + std::to_string(geteuid()) + "-output");
  if (getpid() == 1) SetSessionJobs(&jobs);
  Worker worker(std::move(policy));
  worker.Serve();
}

}  // namespace sepp::tools
