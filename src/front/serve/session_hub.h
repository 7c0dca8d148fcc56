// sepp's own session API (sandbox-agent 0.1's /v1/sessions/…, docs/serve.md):
// each session is an in-process AgentSession the hub subscribes to; its
// events are translated to the universal schema (universal_events.h),
// written to the event log (stream "session/<id>") and kept in memory, so a
// reader at any offset gets every event once, in order, and a live reader
// waits for the next. The agent never waits for a reader.
//
// The agent's session is stored like every sepp front end's (the session
// store of the settings in $SEPP_HOME, so `sepp sessions list` shows it),
// or with a PostgreSQL store in PostgreSQL, where every server reads it.
//
// Each session also has a record in the event log's store (the id is
// claimed there, so two servers on one PostgreSQL cannot both create it).
// A session this server does not run, but the store knows (created by
// another server on the same database, or by this one before a restart),
// is listed, read and streamed from the store: SSE follows its new events
// as the store announces them (LISTEN/NOTIFY), re-reading at least every
// second. Prompts and replies go to the server that runs it; a message
// for one whose server stopped takes it over (TakeOver). When the
// store is away, the calls that need it answer 503 store_unavailable, and
// a running session's events wait in order until it is back.
#pragma once
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/json.h"
#include "base/result.h"
#include "front/serve/acp_hub.h"
#include "net/http_server.h"

namespace sepp::front::serve {

class ServedSession;

// What a route answers: a JSON body, an empty one (204), or a problem.
struct HubAnswer {
  int status = 200;
  Json body;                 // 200/201
  std::string problem_kind;  // set for an error status
  std::string detail;
};

class SessionHub {
 public:
  // The agent options, workspaces, event log and heartbeat of the ACP hub.
  explicit SessionHub(const AcpHubOptions& options);
  ~SessionHub();  // Shutdown()
  SessionHub(const SessionHub&) = delete;
  SessionHub& operator=(const SessionHub&) = delete;

  // POST /v1/sessions/{id} {agent, model?, directory?, title?, mcp?}.
  HubAnswer Create(const std::string& id, std::string_view body);
  // GET /v1/sessions: this server's and the store's sessions.
  HubAnswer List();
  // POST /v1/sessions/{id}/messages {message}: queued, 204.
  HubAnswer SendMessage(const std::string& id, std::string_view body);
  // GET /v1/sessions/{id}/events?offset=&limit= -> {events, hasMore}.
  HubAnswer Events(const std::string& id, int64_t offset, size_t limit);
  // GET /v1/sessions/{id}/events/sse?offset=: replay after offset, then
  // live until the session ends. Answers the request itself.
  void StreamEvents(const std::string& id, int64_t offset, net::ResponseWriter& w,
                    const net::Headers& extra_headers);
  // POST /v1/sessions/{id}/messages/stream {message}: the SSE of this
  // message's events, ending with its turn.ended... or session end.
  void SendMessageStream(const std::string& id, std::string_view body, net::ResponseWriter& w,
                         const net::Headers& extra_headers);
  // POST /v1/sessions/{id}/permissions/{pid}/reply {reply: once|always|reject}.
  HubAnswer ReplyPermission(const std::string& id, const std::string& permission_id,
                            std::string_view body);
  // POST /v1/sessions/{id}/questions/{qid}/reply {answers: string[][]}
  // (sandbox-agent: one array per field) or {values: {field: value}}
  // (typed; the schema's defaults fill omitted fields): 204, 400 when the
  // answer does not fit (the question stays open), 404 when none waits.
  HubAnswer ReplyQuestion(const std::string& id, const std::string& question_id, std::string_view body);
  // POST /v1/sessions/{id}/questions/{qid}/reject: declined, 204.
  HubAnswer RejectQuestion(const std::string& id, const std::string& question_id);
  // POST /v1/sessions/{id}/abort: the running prompt (and the queued
  // ones) end; the session stays open for the next message. 204.
  HubAnswer Abort(const std::string& id);
  // POST /v1/sessions/{id}/terminate: aborts and ends it (idempotent).
  HubAnswer Terminate(const std::string& id);
  // Ends every session and joins every thread.
  void Shutdown();

 private:
  // In memory (running, or revived dormant), else revived from the log.
  std::shared_ptr<ServedSession> Find(const std::string& id);
  std::shared_ptr<ServedSession> Live(const std::string& id);
  // A session of an earlier run of the server, from the event log: its
  // stored events, dormant until Wake() resumes its agent session from the
  // store; null when the log has none of that id. On a shared store
  // (PostgreSQL) only TakeOver revives, and only a session it can wake.
  std::shared_ptr<ServedSession> Revive(const std::string& id, bool take_over = false);
  Status Wake(ServedSession& s);
  // Shared store: a session no server runs now (its server stopped) is
  // revived and woken here; the agent session's writer lock in PostgreSQL
  // decides, so of two servers only one takes it. Null when another server
  // still runs it (or the store has no such session).
  std::shared_ptr<ServedSession> TakeOver(const std::string& id);
  // The store's record of a session another server runs (or ran): the
  // record, 404 or 503.
  HubAnswer StoredRecord(const std::string& id);
  void StreamStored(const std::string& id, int64_t offset, net::ResponseWriter& w);
  std::optional<std::string> OutsideWorkspaces(const std::filesystem::path& dir);
  // agent: an external one (external_session.h), run in dir.
  HubAnswer CreateExternal(const std::string& id, const std::string& agent,
                           const std::filesystem::path& dir, const std::string& title);
  // Claims the new session's id in the store and serves it.
  HubAnswer Register(const std::shared_ptr<ServedSession>& s);

  AcpHubOptions options_;
  std::vector<std::filesystem::path> roots_;  // canonical workspaces
  std::mutex mu_;
  std::mutex revive_mu_;
  std::mutex take_over_mu_;
  std::map<std::string, std::shared_ptr<ServedSession>> sessions_;
  bool shut_down_ = false;
};

}  // namespace sepp::front::serve
