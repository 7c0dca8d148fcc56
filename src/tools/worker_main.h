// The tool worker: the process inside a session sandbox that runs the file
// tools and bash for sepp (tools/tool_worker.h is sepp's side).
//
// Started as `sepp __tool-worker` by the session sandbox (a fresh exec, with
// a scrubbed environment, confined before exec), it talks the protocol of
// worker_protocol.h on fd 0 (a unix socket; fd 1 is the same socket and is
// never written to by anything else). It is pid 1 of the sandbox and serves
// the calls itself, with a thread that reaps orphans (sandbox/orphan_reaper.h);
// when its socket closes it exits, and the kernel kills whatever is left in
// the sandbox.
#pragma once

namespace sepp::tools {

// The sub-command's name; hidden from help.
inline constexpr const char* kToolWorkerCommand = "__tool-worker";

// Never returns once serving; returns an exit code when the start fails.
int ToolWorkerMain();

}  // namespace sepp::tools
