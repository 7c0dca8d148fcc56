// process_list and process_signal (sage's names and schemas): the session
// sandbox's processes, read from its own /proc by its tool worker.
//
// Both are served only by the worker as pid 1 of the sandbox's pid
// namespace (background_jobs.h's SessionJobs()), so the kernel confines
// them: a pid names a process of that namespace or nothing (a host pid or
// another session's pid is a number no process here has, or one of this
// sandbox's own). Anywhere else (--sandbox off: sepp's own /proc is the
// host's) they refuse. process_signal refuses pid 1 and its threads (the
// worker itself, sepp's side of the sandbox) and sends only TERM, KILL, INT
// or HUP, through a pidfd, so a pid reused between the check and the signal
// is never hit.
#pragma once
#include "tools/tool.h"

namespace sepp::tools {

// Adds process_list and process_signal to registry: the agent session (so
// the model sees them; they run in the worker) and the tool worker.
void AddProcessTools(ToolRegistry& registry);

}  // namespace sepp::tools
