// One reader thread takes frames from sepp; every call runs on a thread of
// its own (calls of one batch run in parallel, as they would in sepp; idle
// threads are kept for the next calls) with its own CancelToken, which a
// "cancel" frame fires. Writes of frames are
// serialised by one mutex.
#include "tools/worker_main.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <condition_variable>
#include <optional>
#include <vector>
#include <cstdio>
#include <map>
#include <memory>
#include <mutex>
#include <thread>

#include "base/secrets.h"
#include "sandbox/run.h"
#include "tools/tool.h"
#include "tools/worker_protocol.h"

namespace sepp::tools {
namespace {

constexpr int kChannel = 0;

// pid 1: reap everything until the worker itself exits, then exit (which
// makes the kernel kill the rest of the sandbox).
[[noreturn]] void RunInit(pid_t worker) {
  for (;;) {
    int status = 0;
    pid_t done = waitpid(-1, &status, 0);
    if (done < 0 && errno == EINTR) continue;
    if (done == worker || done < 0) _exit(0);
  }
}

class Worker {
 public:
  explicit Worker(sandbox::Policy policy) : policy_(std::move(policy)), tools_(MakeBuiltinTools()) {}

  int Serve() {
    for (;;) {
      auto frame = ReadFrame(kChannel);
      if (!frame.ok()) break;
      const Json& m = *frame;
      auto type = m.find("type");
      auto id = m.find("id");
      if (type == m.end() || !type->is_string() || id == m.end() || !id->is_number_integer())
        continue;  // nothing sepp sends; ignored
      if (*type == "call") {
        StartCall(m);
      } else if (*type == "cancel") {
        std::lock_guard<std::mutex> lock(mu_);
        if (auto it = running_.find(id->get<int64_t>()); it != running_.end()) it->second->Cancel();
      }
    }
    // sepp is gone or broke the protocol: end now, the init ends the rest.
    _exit(0);
  }

 private:
  void Send(const Json& m) {
    std::lock_guard<std::mutex> lock(write_mu_);
    (void)WriteFrame(kChannel, m);
  }

  struct Job {
    Json message;
    int64_t id;
    std::shared_ptr<CancelToken> token;
  };

  // A call goes to an idle thread, handed over to it alone; a new thread is
  // made only when none is idle (a call may block for as long as bash runs),
  // and up to kIdleThreads wait for the next calls, so a call usually costs
  // no thread creation.
  struct Idle {
    std::condition_variable cv;
    std::optional<Job> job;
  };

  void StartCall(const Json& m) {
    int64_t id = m["id"].get<int64_t>();
    Job job{m, id, std::make_shared<CancelToken>()};
    std::lock_guard<std::mutex> lock(mu_);
    running_[id] = job.token;
    if (!idle_.empty()) {
      Idle* t = idle_.back();
      idle_.pop_back();
      t->job = std::move(job);
      t->cv.notify_one();
    } else {
      std::thread([this, job = std::move(job)]() mutable { RunJobs(std::move(job)); }).detach();
    }
  }

  void RunJobs(Job job) {
    Idle self;
    for (;;) {
      Finish(job);
      std::unique_lock<std::mutex> lock(mu_);
      running_.erase(job.id);
      if (idle_.size() >= kIdleThreads) return;
      idle_.push_back(&self);
      self.cv.wait(lock, [&] { return self.job.has_value(); });
      job = std::move(*self.job);
      self.job.reset();
    }
  }

  void Finish(const Job& job) {
    Json reply = {{"type", "result"}, {"id", job.id}};
    try {
      ToolResult r = RunOne(job.message, job.id, *job.token);
      reply["text"] = r.text;
      reply["is_error"] = r.is_error;
      reply["truncated"] = r.truncated;
      if (!r.details.is_null()) reply["details"] = r.details;
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
    ctx.output_dir = "/tmp/sepp-" + std::to_string(geteuid()) + "-output";
    ctx.cancel = &token;
    ctx.policy = &policy_;
    if (m.value("stream", false))
      ctx.on_output = [this, id](std::string_view chunk) {
        Send({{"type", "output"}, {"id", id}, {"text", std::string(chunk)}});
      };
    static const Json kEmpty = Json::object();
    auto it = m.find("args");
    return RunTool(*tool, it != m.end() ? *it : kEmpty, ctx);
  }

  sandbox::Policy policy_;
  std::unique_ptr<ToolRegistry> tools_;
  static constexpr size_t kIdleThreads = 8;
  std::mutex mu_, write_mu_;
  std::map<int64_t, std::shared_ptr<CancelToken>> running_;  // guarded by mu_
  std::vector<Idle*> idle_;                                   // guarded by mu_
};

}  // namespace

int ToolWorkerMain() {
  // sepp closes its end to stop us; a write after that must fail, not kill.
  signal(SIGPIPE, SIG_IGN);
  if (getpid() == 1) {
    pid_t worker = fork();
    if (worker < 0) {
      perror("sepp tool worker: fork");
      return 1;
    }
    if (worker > 0) RunInit(worker);
    // The worker: not pid 1, so it gets normal signal behaviour.
  }
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
  Worker worker(std::move(policy));
  return worker.Serve();
}

}  // namespace sepp::tools
