// file_search and content_search (sage's names and schemas), over a
// PathIndex (path_index.h) that lives as long as the tools: one index per
// searched folder, built at the first call and kept fresh with inotify.
//
// Both run where the built-in tools run (the session's tool worker when
// there is one), so every file they list or read is one the kernel lets
// that process see; the PathGuard leaves denied entries out of the index and
// checks every result again (a symlink to a secret is dropped), and content
// is only read beneath the searched folder with no symlink on the way.
#pragma once
#include <memory>

#include "tools/tool.h"

namespace sepp::tools {

// Adds file_search and content_search, sharing one index cache, to registry.
// The agent session adds them to every session's tools; the tool worker to
// its own (they run there).
void AddSearchTools(ToolRegistry& registry);

}  // namespace sepp::tools
