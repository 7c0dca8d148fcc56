// `sepp __tool-worker`: the session sandbox's tool worker (tools/worker_main.h).
#include "app/commands.h"
#include "tools/worker_main.h"

namespace sepp::app {

int RunToolWorkerCommand(int, char**) { return tools::ToolWorkerMain(); }

}  // namespace sepp::app
