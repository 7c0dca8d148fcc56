// The ACP transport of `sepp serve` (sandbox-agent 0.4's /v1/acp/{server_id}):
// each server id is one ACP agent and one numbered event stream of every
// JSON-RPC line the agent sent. The agent is sepp's, in process (front/acp,
// the same code as `sepp --acp`) on a pair of pipes, or an external one
// (?agent=claude, codex, pi or one from settings: agent_catalog.h), started
// confined (agent_launch.h) and bridged to its stdio line for line.
//
//   POST    a request is written to the agent and its answer returned (200);
//           a notification or the client's answer to the agent's request
//           (session/request_permission) is written and 202 returned. A
//           request the agent does not answer within request_timeout gets
//           504; its late answer still goes out on the stream.
//   GET     SSE: `event: message`, `id: <seq>`, `data: <the line>`;
//           Last-Event-ID resumes after that event, from memory (the last
//           `ring` events) or from the event log (every event is logged
//           before anyone sees it, so a replay works after the ring moved
//           on and after a restart); a replay the log cannot serve in full
//           is refused with 410 instead of silently skipping events.
//   DELETE  returns at once: the agent's input is closed (it aborts its
//           turns and ends; an external agent's whole process tree is
//           killed) and it is joined on a reaper thread. Its stream
//           stays readable (Last-Event-ID) to its end, then ends.
//
// The agent never waits for a subscriber: a slow one falls behind the ring
// and catches up from the log. Before a POST's answer is sent, the
// subscribers get flush_wait to write the events that came before it, so a
// client usually sees a turn's updates before the turn's answer.
#pragma once
#include <atomic>
#include <chrono>
#include <filesystem>
#include <functional>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "base/json.h"
#include "front/acp/acp_server.h"
#include "front/serve/agent_catalog.h"
#include "net/http_server.h"
#include "session/event_log.h"

namespace sepp::front::serve {

struct AcpHubOptions {
  acp::AcpOptions agent;  // what every in-process agent starts from
  // A session's cwd (session/new, session/load) must lie in one of these.
  std::vector<std::filesystem::path> workspaces;
  session::EventLog* log = nullptr;  // not owned; required for replays past the ring
  size_t ring = 1024;
  std::chrono::milliseconds request_timeout{120000};
  std::chrono::milliseconds heartbeat{15000};
  std::chrono::milliseconds flush_wait{100};
  // The external agents (?agent=claude, ...); not owned. Null: sepp only.
  AgentCatalog* agents = nullptr;
  bool agents_unconfined = false;  // --sandbox off
};

// What the router sends for a POST: a body (status 200/202), or a problem.
struct PostAnswer {
  int status = 200;
  std::string body;          // 200: one JSON-RPC envelope
  std::string problem_kind;  // set for an error status
  std::string detail;
  Json extra;  // more problem members (the JSON-RPC error of a bad envelope)
};

class Channel;

class AcpHub {
 public:
  explicit AcpHub(AcpHubOptions options);
  ~AcpHub();  // Shutdown()
  AcpHub(const AcpHub&) = delete;
  AcpHub& operator=(const AcpHub&) = delete;

  // agent: the ?agent= query (needed on the first POST of a server id).
  // client_gone: polled while a request waits, to give up on a closed client.
  PostAnswer Post(const std::string& server_id, const std::optional<std::string>& agent,
                  std::string_view body, const std::function<bool()>& client_gone);
  // Answers the GET itself (SSE, or a problem with extra_headers).
  void Stream(const std::string& server_id, const std::optional<int64_t>& last_event_id,
              net::ResponseWriter& w, const net::Headers& extra_headers);
  // Idempotent; never waits for the agent.
  void Delete(const std::string& server_id);
  // {servers:[{serverId, agent, createdAtMs}]}: the ids with a running agent.
  Json List();
  size_t running();
  // Closes every channel and joins every thread (agents, readers, reapers).
  void Shutdown();

 private:
  std::shared_ptr<Channel> Find(const std::string& id);
  void Reap(std::shared_ptr<Channel> ch);
  // A session request whose cwd lies outside the workspaces: the error.
  std::optional<std::string> OutsideWorkspaces(const std::string& method, const Json& params);

  AcpHubOptions options_;
  std::vector<std::filesystem::path> roots_;  // canonical workspaces
  std::mutex mu_;
  std::map<std::string, std::shared_ptr<Channel>> channels_;
  std::set<std::string> deleted_;  // ids closed with DELETE since start
  struct Reaper {
    std::thread thread;
    std::shared_ptr<std::atomic<bool>> done;
  };
  std::list<Reaper> reapers_;  // joined when done (at the next Delete) or at Shutdown
  bool shut_down_ = false;
};

}  // namespace sepp::front::serve
