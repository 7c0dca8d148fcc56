// One session of sepp's session API run by an external agent (claude,
// codex, pi, one from settings: agent_catalog.h): sepp serve is the ACP
// *client* of the agent's adapter, which runs confined (agent_launch.h),
// and what the adapter says is translated to the universal schema
// (acp_universal.h) and handed to `sink`, in order, one event at a time.
//
//   Start     launches the adapter, initialize, session/new in the folder;
//             session.started
//   Prompt    session/prompt (a prompt while one runs waits for it: the
//             ACP has one prompt at a time per session)
//   Cancel    session/cancel; a waiting permission is answered cancelled
//   AnswerPermission  the answer to a session/request_permission, by the
//             permission_id of its permission.requested
//   Close     kills the adapter's whole process tree; session.ended
//
// The adapter's own requests besides request_permission (fs/*,
// terminal/*) are refused with "method not found": sepp serve offers it no
// file system or terminal of the client's (its tools run in its sandbox).
// When the adapter exits by itself the session ends with reason error and
// the last line of its stderr.
#pragma once
#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "base/json.h"
#include "base/result.h"
#include "front/serve/agent_catalog.h"

namespace sepp::front::serve {

struct ExternalSessionOptions {
  AgentCatalog* catalog = nullptr;  // not owned; remembers the agent's answers
  std::string agent;                      // its id in the catalog
  std::vector<std::filesystem::path> workspaces;
  bool unconfined = false;                // --sandbox off
  std::filesystem::path cwd;              // the session's folder, inside the workspaces
  std::string session_id;                 // the session API's id (the events' session_id)
  uint64_t continue_after = 0;            // events stored before (numbering goes on)
  std::chrono::milliseconds start_timeout{120000};  // initialize + session/new
  size_t max_line = 16 << 20;             // longest line read from the adapter
  // Gets every universal event, in order; called with the session's lock
  // held (it must not call back into the session).
  std::function<void(Json)> sink;
};

class ExternalSession {
 public:
  // Errors: kind "not_installed", "usage" (no such agent), "sandbox_unavailable",
  // "timeout" (no answer to initialize or session/new), "agent" (it
  // answered with an error; the message says it).
  static Result<std::unique_ptr<ExternalSession>> Start(ExternalSessionOptions options);
  ~ExternalSession();  // Close()
  ExternalSession(const ExternalSession&) = delete;
  ExternalSession& operator=(const ExternalSession&) = delete;

  const std::string& native_session_id() const { return native_id_; }
  const std::string& model() const { return model_; }

  // Sent now when idle, else after the running prompt. kind "ended".
  Status Prompt(const std::string& text);
  // Cancels the running prompt and drops the waiting ones; nothing to
  // cancel is fine.
  Status Cancel();
  // reply: once | always | reject. kind "not_found" (no such request
  // waits), "invalid" (the agent offered no option of that kind: the
  // message lists the ones it offered).
  Status AnswerPermission(const std::string& permission_id, const std::string& reply);
  // Idempotent; joins every thread.
  void Close();
  bool ended();

  struct Impl;

 private:
  explicit ExternalSession(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
  std::string native_id_;
  std::string model_;
};

}  // namespace sepp::front::serve
