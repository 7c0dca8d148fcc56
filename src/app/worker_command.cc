// The hidden worker sepp serve execs inside its sandbox: `sepp
// __serve-fs-worker` (sepp serve's file API, front/serve/fs_worker_main.h).
// `sepp __tool-worker` starts before main(): app/tool_worker_dispatch.cc.
#include "app/commands.h"
#include "front/serve/fs_worker_main.h"

namespace sepp::app {

int RunServeFsWorkerCommand(int argc, char** argv) { return front::serve::FsWorkerMain(argc, argv); }

}  // namespace sepp::app
