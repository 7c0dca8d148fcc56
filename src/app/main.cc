// sepp's entry point: dispatches to a sub-command or to the agent.
//
// Kept tiny on purpose: `sepp --version` must start in well under 5 ms, so
// nothing here touches the network, the disk or heavy static state.
#include <cstdio>
#include <cstring>
#include <string_view>

#include "app/commands.h"
#include "base/undumpable.h"
#include "tools/tool_worker.h"

namespace {

struct SubCommand {
  const char* name;
  int (*run)(int, char**);
};

constexpr SubCommand kSubCommands[] = {
    {"wasm", sepp::app::RunWasmCommand},
    {"sandbox", sepp::app::RunSandboxCommand},
    {"doctor", sepp::app::RunDoctorCommand},
    {"sessions", sepp::app::RunSessionsCommand},
    {"trust", sepp::app::RunTrustCommand},
    {"replay", sepp::app::RunReplayCommand},
    {"ext", sepp::app::RunExtCommand},
    {"mcp", sepp::app::RunMcpCommand},
    {"serve", sepp::app::RunServeCommand},
    {"api", sepp::app::RunApiCommand},
    {"plugin", sepp::app::RunPluginCommand},
    {"new", sepp::app::RunWorkspaceCommand},
    {"list", sepp::app::RunWorkspaceCommand},
    {"attach", sepp::app::RunWorkspaceCommand},
    {"resume", sepp::app::RunWorkspaceCommand},
    {"status", sepp::app::RunWorkspaceCommand},
    {"diff", sepp::app::RunWorkspaceCommand},
    {"merge", sepp::app::RunWorkspaceCommand},
    {"push", sepp::app::RunWorkspaceCommand},
    {"remove", sepp::app::RunWorkspaceCommand},
    {"rm", sepp::app::RunWorkspaceCommand},
    // `__tool-worker` never gets here: app/tool_worker_dispatch.cc runs it
    // before the static initialisers.
    // Not for users: sepp serve's file API execs it (front/serve/fs_worker_main.h).
    {"__serve-fs-worker", sepp::app::RunServeFsWorkerCommand},
};

}  // namespace

int main(int argc, char** argv) {
  // Before anything else: sepp holds provider keys, so no core file and no
  // same-uid reader of /proc/PID/{environ,mem} may see them.
  sepp::MakeProcessUndumpable();
  if (argc >= 2 && (!std::strcmp(argv[1], "--version") || !std::strcmp(argv[1], "-V"))) {
    std::printf("sepp %s\n", SEPP_VERSION);
    return 0;
  }
  // Every session's tools (-p, --rpc, --acp, ...) run in a sandbox whose
  // worker is this binary (tools/tool_worker.h); a string, no I/O.
  sepp::tools::SetToolWorkerExecutable("/proc/self/exe");
  if (argc >= 2) {
    for (const auto& cmd : kSubCommands)
      if (std::string_view(argv[1]) == cmd.name) return cmd.run(argc - 1, argv + 1);
  }
  for (int i = 1; i < argc; ++i)
    if (std::string_view(argv[i]) == "--acp") return sepp::app::RunAcpCommand(argc, argv);
  return sepp::app::RunAgentCommand(argc, argv);
}
