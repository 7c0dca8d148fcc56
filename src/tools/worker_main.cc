// One reader thread takes frames from sepp; every call runs on a thread of
// its own (calls of one batch run in parallel, as they would in sepp) with
// its own CancelToken, which a "cancel" frame fires. Writes of frames are
// serialised by one mutex.
#include "tools/worker_main.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
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
      std::string type = m.value("type", "");
      if (type == "call") {
        StartCall(m);
      } else if (type == "cancel") {
        std::lock_guard<std::mutex> lock(mu_);
        if (auto it = running_.find(m.value("id", int64_t{-1})); it != running_.end())
          it->second->Cancel();
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

  void StartCall(const Json& m) {
    int64_t id = m.value("id", int64_t{-1});
    auto token = std::make_shared<CancelToken>();
    {
      std::lock_guard<std::mutex> lock(mu_);
      running_[id] = token;
    }
    std::thread([this, m, id, token] {
      Json reply = {{"type", "result"}, {"id", id}};
      try {
        ToolResult r = RunOne(m, id, *token);
        reply["text"] = r.text;
        reply["is_error"] = r.is_error;
        reply["truncated"] = r.truncated;
        if (!r.details.is_null()) reply["details"] = r.details;
      } catch (const std::exception& e) {
        reply["text"] = std::string("the tool worker failed: ") + e.what();
        reply["is_error"] = true;
      }
      {
        std::lock_guard<std::mutex> lock(mu_);
        running_.erase(id);
      }
      Send(reply);
    }).detach();
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
    ctx.output_dir = m.value("output_dir", "");
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
  std::mutex mu_, write_mu_;
  std::map<int64_t, std::shared_ptr<CancelToken>> running_;
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
