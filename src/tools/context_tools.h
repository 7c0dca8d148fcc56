// The six context_* tools: context_search, context_get and context_export,
// the model's way back into the output sidecar (sidecar/sidecar.h,
// docs/sidecar.md), and context_list, context_stats and context_purge, what
// is in it and taking it out; pi-context's names and schemas. One Tool
// class serves all six (context_tool.h).
//
// They run in sepp's process (the store is in $SEPP_HOME, which the
// sandbox hides), and see only the session's own sources, or its project's
// with global:true, never another project's. context_export writes inside
// the session's scratch folder (else the workspace), refusing any path
// that leaves it, links included, so sandboxed rg and jq can read it.
#pragma once
#include <memory>

#include "sidecar/sidecar.h"
#include "tools/tool.h"

namespace sepp::tools {

void AddContextTools(ToolRegistry& registry, std::shared_ptr<sidecar::Sidecar> sidecar);

}  // namespace sepp::tools
