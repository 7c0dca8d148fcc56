// The hidden workers sepp execs inside its sandboxes: `sepp __tool-worker`
// (the session sandbox's, tools/worker_main.h) and `sepp __serve-fs-worker`
// (sepp serve's file API, front/serve/fs_worker_main.h).
#include "app/commands.h"
#include "front/serve/fs_worker_main.h"
#include "tools/worker_main.h"

namespace sepp::app {

int RunToolWorkerCommand(int, char**) { return tools::ToolWorkerMain(); }
int RunServeFsWorkerCommand(int argc, char** argv) { return front::serve::FsWorkerMain(argc, argv); }

}  // namespace sepp::app
