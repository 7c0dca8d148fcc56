// The fs worker: the process inside its own sandbox that does the file work
// of `sepp serve`'s /v1/fs API (front/serve/fs_worker.h is the server's side).
//
// Started as `sepp __serve-fs-worker ROOT...` (a fresh exec, confined before
// exec: only the server's workspaces are visible, read-write, plus the
// sandbox's own /proc, /dev and private /tmp). It answers framed JSON
// requests (tools/worker_protocol.h's frames) on fd 0, one at a time:
//
//   {"op":"entries"|"read"|"write"|"delete"|"mkdir"|"move"|"stat", "path":"/abs", ...}
//   -> {"ok":true, ...} or {"ok":false, "errno":N, "message":"..."}
//
// Two fences, each enough alone: the kernel's (the mount namespace shows
// nothing but the workspaces; Landlock allows nothing else), and the
// worker's own resolution of every path beneath its workspace root, one
// component at a time on folders it holds open (what openat2's
// RESOLVE_BENEATH does; the sandbox's seccomp filter refuses openat2), so a
// symlink or `..` that leaves the workspace, or one swapped in while a
// request runs, fails with EXDEV instead of reaching the sandbox's /proc,
// /dev or /tmp.
#pragma once

namespace sepp::front::serve {

inline constexpr const char* kFsWorkerCommand = "__serve-fs-worker";

// argv[1..]: the workspace roots (absolute, canonical). Returns the exit code.
int FsWorkerMain(int argc, char** argv);

}  // namespace sepp::front::serve
