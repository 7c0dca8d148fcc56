// /v1/processes/*: sandbox-agent 0.4.2's processes API (docs/serve.md).
// Every process is a sandbox::HeldChild confined by the policy sepp's agent
// gives its own commands in that folder (the same namespaces, Landlock,
// seccomp and scrubbed environment as the bash tool; `--sandbox off` only
// there too), in a folder inside the server's workspaces, as pid 1 of its
// own pid namespace: killing it ends everything it started. A started
// process has a thread of its own that starts it (so it dies with that
// thread, PDEATHSIG), reads its output into a numbered log and reaps it;
// the hub kills them all when it is destroyed, so no process outlives the
// server.
#pragma once
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "base/json.h"
#include "front/serve/query.h"
#include "net/http_server.h"
#include "sandbox/policy.h"

namespace sepp::front::serve {

// sandbox-agent's ProcessConfig, with its defaults.
struct ProcessLimits {
  int64_t max_concurrent = 64;
  int64_t default_run_timeout_ms = 30000;
  int64_t max_run_timeout_ms = 300000;
  int64_t max_output_bytes = 1 << 20;     // per stream of a run
  int64_t max_log_bytes = 10 << 20;       // per started process; the oldest entries go first
  int64_t max_input_bytes = 64 << 10;     // per input request
};

class ProcessHub {
 public:
  using PolicyFor = std::function<sandbox::Policy(const std::filesystem::path& cwd)>;
  ProcessHub(std::vector<std::filesystem::path> roots, PolicyFor policy_for,
             std::chrono::milliseconds heartbeat);
  ~ProcessHub();  // kills every process and waits for its thread
  ProcessHub(const ProcessHub&) = delete;
  ProcessHub& operator=(const ProcessHub&) = delete;

  // seg: ("v1", "processes", ...). Answers the request.
  void Handle(const net::HttpServerRequest& req, net::ResponseWriter& w, const net::Headers& cors,
              const std::vector<std::string>& seg, const Query& query);

  struct Proc;  // one started process (process_hub.cc)

 private:
  void Run(const net::HttpServerRequest& req, net::ResponseWriter& w, const net::Headers& cors);
  void Start(const net::HttpServerRequest& req, net::ResponseWriter& w, const net::Headers& cors);
  void Resize(Proc& p, const net::HttpServerRequest& req, net::ResponseWriter& w, const net::Headers& cors);
  void Logs(Proc& p, net::ResponseWriter& w, const net::Headers& cors, const Query& query,
            bool accepts_sse);
  // GET {id}/terminal/ws: the process's terminal over a WebSocket
  // (process_terminal.cc).
  void Terminal(Proc& p, const net::HttpServerRequest& req, net::ResponseWriter& w, const net::Headers& cors);
  std::shared_ptr<Proc> Find(const std::string& id);

  const std::vector<std::filesystem::path> roots_;
  const PolicyFor policy_for_;
  const std::chrono::milliseconds heartbeat_;
  std::mutex mu_;
  ProcessLimits limits_;
  int64_t next_id_ = 1;
  std::map<std::string, std::shared_ptr<Proc>> procs_;
  int64_t running_runs_ = 0;  // POST /run in flight
};

}  // namespace sepp::front::serve
