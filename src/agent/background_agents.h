// Sub-agents the user sent to the background (the per-call control of the
// TUI's Ctrl+B and RPC's background_tool_call, for an "agent" call).
//
// A top-level "agent" call runs its child on a thread of its own and waits
// for it; while it waits the call is tracked here under its call id. Detach
// ends the wait: the call returns a receipt, the parent's turn goes on, and
// the child keeps running (its own session sandbox, session and token).
// When it ends, its report is Deliver()ed: on_finished tells the front ends
// and the report waits in TakeFinished() until the session hands it to the
// model at the next turn boundary (or with the next prompt).
//
// It dies with the session: Close() cancels every child and waits until
// each has ended and its sandbox is gone (StopAll() too, when the session
// is left for another). AbortAll() (the session's abort)
// and Abort(call_id) (one call) reach the children in the background.
#pragma once
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "base/cancel.h"
#include "base/json.h"
#include "base/result.h"

namespace sepp::agent {

// One child run, shared by the "agent" call that waits for it and the
// child's thread.
struct BackgroundRun {
  std::string call_id;
  std::string task;
  std::string child_session_id;
  CancelToken cancel;  // the child's own: outlives the parent's turn
  std::mutex mu;
  std::condition_variable cv;
  bool done = false;      // guarded by mu: the child ended while its call waited
  bool detached = false;  // guarded by mu: the call returned a receipt
};

class BackgroundAgents {
 public:
  struct Finished {
    std::string call_id;
    std::string task;
    std::string child_session_id;
    std::string text;  // the report (or why there is none)
    bool is_error = false;
    Json details;
  };

  BackgroundAgents() = default;
  BackgroundAgents(const BackgroundAgents&) = delete;
  BackgroundAgents& operator=(const BackgroundAgents&) = delete;

  // Told of every report as it arrives (on the child's thread). Set before
  // the first call; may be empty.
  std::function<void(const Finished&)> on_finished;

  // The call waits for run: Detach may now send it to the background. An
  // error (kind "closed") when the session is closing: no new child runs.
  Status Track(std::shared_ptr<BackgroundRun> run);
  // The call stopped waiting (its child ended, or it was detached).
  void Untrack(const std::string& call_id);
  // Sends the tracked run of call_id to the background. Error kind
  // "not_found" when no "agent" call with that id is waiting (it ended).
  Status Detach(const std::string& call_id);
  // The child of a detached run ended; its sandbox is gone. Called once per
  // detached run, on its thread, as the thread's last use of this object.
  void Deliver(Finished report);
  // The reports that arrived and were not handed to the model yet.
  std::vector<Finished> TakeFinished();
  // Cancels the child of call_id if it runs in the background; false if not.
  bool Abort(const std::string& call_id);
  // Cancels every child in the background.
  void AbortAll();
  // The session is left for another (new, switch, fork): cancels every
  // child (in the background or not), waits until the detached ones have
  // ended, and drops their reports (they belong to the conversation left).
  void StopAll();
  // The session ends: StopAll(), and no new run may be tracked.
  void Close();
  size_t running() const;

 private:
  mutable std::mutex mu_;
  std::condition_variable ended_;
  bool closed_ = false;
  std::map<std::string, std::shared_ptr<BackgroundRun>> waiting_;     // tracked, not detached
  std::map<std::string, std::shared_ptr<BackgroundRun>> background_;  // detached, running
  std::vector<Finished> finished_;
};

// The message that hands a report to the parent model.
std::string BackgroundReportMessage(const BackgroundAgents::Finished& f);

}  // namespace sepp::agent
