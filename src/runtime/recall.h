// A session's output sidecar and durable memory (docs/sidecar.md,
// docs/memory.md): the stores in $SEPP_HOME opened once per process and
// shared by its sessions, bound to this session's scope, and the tools
// that reach them. The agent (and every sub-agent) hands oversized tool
// results to the sidecar; the context_* and memory_* tools are in every
// session's registry and every sub-agent's.
#pragma once
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "sandbox/policy.h"
#include "sidecar/sidecar.h"
#include "tools/memory_tools.h"
#include "tools/tool.h"

namespace sepp::runtime {

struct SessionRecall {
  std::shared_ptr<sidecar::Sidecar> sidecar;             // null: could not open
  std::shared_ptr<const tools::MemoryBinding> memory;    // null: could not open
  std::vector<std::string> warnings;                     // why not, for the front end
};

// session_id is asked at each use (new and switch change it). The memory's
// project is the git repository cwd belongs to (shared by its worktrees),
// found at the first memory call; outside git, cwd itself.
SessionRecall OpenRecall(const std::filesystem::path& cwd, const sandbox::Policy& policy,
                         std::function<std::string()> session_id);

// Adds context_search/get/export and the memory_* tools that recall has.
void AddRecallTools(tools::ToolRegistry& registry, const SessionRecall& recall);

}  // namespace sepp::runtime
