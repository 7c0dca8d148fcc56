// The sub-commands of the sepp binary. Each lives in its own file in this
// folder; main.cc only dispatches. Every command returns the process exit
// status: 0 done, 1 error, 2 usage, 130 aborted (others as documented).
#pragma once
#include <filesystem>

namespace sepp::app {

// argv[0] is the sub-command's name ("wasm", "sandbox", ...).
int RunWasmCommand(int argc, char** argv);     // wasm_command.cc
int RunSandboxCommand(int argc, char** argv);  // sandbox_command.cc
int RunDoctorCommand(int argc, char** argv);   // doctor_command.cc
int RunSessionsCommand(int argc, char** argv); // sessions_command.cc
int RunTrustCommand(int argc, char** argv);    // trust_command.cc
// Trusts dir's project configuration as it is now, telling the user what
// (for --trust); 0 done, else the exit status of the failure.
int TrustCurrentProject(const std::filesystem::path& dir);  // trust_command.cc
int RunReplayCommand(int argc, char** argv);   // replay_command.cc
int RunExtCommand(int argc, char** argv);      // ext_command.cc
int RunMcpCommand(int argc, char** argv);      // mcp_command.cc
int RunPluginCommand(int argc, char** argv);   // plugin_command.cc
// sepp new | list | attach | resume | status | diff | merge | push | remove:
// sessions in their own git worktrees (docs/workspaces.md).
int RunWorkspaceCommand(int argc, char** argv);  // workspace_command.cc
int RunServeFsWorkerCommand(int argc, char** argv);  // worker_command.cc (hidden)
// The agent itself: one-shot (-p) and the other front ends. argv[0] = "sepp".
int RunAgentCommand(int argc, char** argv);    // agent_command.cc
// sepp --acp: an Agent Client Protocol agent on stdin/stdout.
int RunAcpCommand(int argc, char** argv);      // acp_command.cc
// sepp serve: the agent over HTTP + SSE (docs/serve.md).
int RunServeCommand(int argc, char** argv);    // serve_command.cc
// sepp api: a command line for a running sepp serve.
int RunApiCommand(int argc, char** argv);      // api_command.cc

}  // namespace sepp::app
