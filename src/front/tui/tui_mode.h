// `sepp` on a terminal: the interactive UI as a view of one AgentSession.
// Submits operations (Prompt, Steer, FollowUp, Abort) and draws the
// session's events; reaches nothing else of the agent.
#pragma once
#include "runtime/agent_session.h"

namespace sepp::front::tui {

struct TuiOptions {
  int in_fd = 0;
  int out_fd = 1;
};

// Runs until the user quits (Ctrl+D, Ctrl+C twice) or SIGTERM/SIGHUP, which
// the caller must have blocked in every thread (this loop takes them, with
// SIGWINCH, through a signalfd). Returns the exit status.
int RunTui(runtime::AgentSession& session, const TuiOptions& options);

}  // namespace sepp::front::tui
